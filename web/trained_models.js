// trained_models.js - the names of the models trained here (models/NAME/,
// shipped with the site): one list for the wrapper, which says what such a
// name is when it is asked for as a model, and for the page's state. The
// CLI's list is in src/config.c (checkpoint.test follows the wrapper's
// advice through to the CLI).
export const TRAINED_MODELS = ['gpt', 'nope', 'bag'];
