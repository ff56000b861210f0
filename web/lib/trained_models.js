// trained_models.js - the page's names for the checkpoints it offers (its
// links say model=gpt): the models trained here (models/NAME/, shipped with
// the site) and GPT-2 from its own files. The wrapper says what such a name
// is when it is asked for as a model, as the CLI does (src/config.c);
// the page's table of models (web/app/models.js) is checked against both
// (tests/node/models.test.mjs).
export const TRAINED_MODELS = ['gpt', 'nope', 'bag'];
export const FILES_MODEL = 'gpt2';
// The core's model that runs an opened checkpoint (in its own module).
export const CHECKPOINT_MODEL = 'checkpoint';
