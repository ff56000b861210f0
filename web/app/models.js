// models.js - one row per model the page offers, and the core's models its
// results name. No DOM here. Everything the page does differently for one
// model reads its row: the state (defaults, which settings it takes), the
// model choices (views/controls.js builds them from this table), where its
// runs and chart are computed (browser/scheduler.js), the checkpoint views,
// the exports and the CSV. Adding a model is a row here (and, for a
// checkpoint trained here, its folder in models/).
//
// The names are checked against the core's (tests/node/models.test.mjs):
// CORE_MODELS are the CLI's --model values, and the trained models' names
// and GPT-2's are the wrapper's (lib/trained_models.js) and the CLI's.

// The core's models (src/config.c's --model values), as a result's
// config.model names them.
//   drawn    its weights are drawn from the seed: d, heads and seed say them
//   layers   its count of blocks (layers) and their weight scale are settings
export const CORE_MODELS = {
  head: { drawn: true, layers: false },
  transformer: { drawn: true, layers: true },
  checkpoint: { drawn: false, layers: false },
};
// (a config that names no model is the core's default, the head)
export const coreOf = (config) => CORE_MODELS[config.model] ?? CORE_MODELS.head;

// The page's models, in the order the model choice lists them.
//   name      its value in links (model=gpt) and in the choice
//   label     the choice's name; hint: the line under it
//   named     how the status line names it ("the figures shown are still those of ...")
//   core      the core's model it runs as (CORE_MODELS)
//   runs      where its verdicts are computed: 'page' (always on the page's
//             thread), 'run-worker' (there when quick, else in the run
//             worker), 'slices' (there when quick, else in steps there)
//   chart     where its chart's sweep is computed: 'sweep-workers',
//             'run-worker' (beside its runs, on its drawn weights) or
//             'slices' (in steps on the page's thread: no worker holds its weights)
//   defaults  what choosing it sets: a checkpoint's positions and mask as it
//             was trained, its magnitude 1 (its position table as trained)
//   files     where its weights come from: null (drawn), 'site' (the folder
//             models/NAME/ shipped beside the page), 'yours' (the student's
//             files, or a course host's folder: the `checkpoint` key)
//   lesson    what it teaches beyond the page's views: 'switches' (trained
//             here to answer questions: the lesson in three switches,
//             views/lesson.js), 'tour-step' (the tour's last step, shown only
//             while it is open), or null
export const MODELS = [
  {
    name: 'head', label: 'One attention head', hint: 'plain self-attention (split into several heads under Advanced)',
    named: 'the one attention head', core: 'head', runs: 'page', chart: 'sweep-workers', defaults: null, files: null, lesson: null,
  },
  {
    name: 'transformer', label: 'Transformer blocks',
    hint: 'GPT-2’s block, repeated: LayerNorm, attention with every head of Advanced and an output projection, ' +
      'a GELU MLP, residual connections',
    named: 'the transformer blocks', core: 'transformer', runs: 'run-worker', chart: 'run-worker', defaults: null, files: null, lesson: null,
  },
  {
    name: 'gpt', label: 'gpt', hint: 'trained here with positions and the mask', named: 'gpt', core: 'checkpoint',
    runs: 'slices', chart: 'slices', defaults: { positions: true, causal: true, scale: 1 }, files: 'site', lesson: 'switches',
  },
  {
    name: 'nope', label: 'nope', hint: 'trained here with the mask only', named: 'nope', core: 'checkpoint',
    runs: 'slices', chart: 'slices', defaults: { positions: false, causal: true, scale: 1 }, files: 'site', lesson: 'switches',
  },
  {
    name: 'bag', label: 'bag', hint: 'trained here with neither', named: 'bag', core: 'checkpoint',
    runs: 'slices', chart: 'slices', defaults: { positions: false, causal: false, scale: 1 }, files: 'site', lesson: 'switches',
  },
  {
    name: 'gpt2', label: 'GPT-2 from your files', hint: 'read in this browser; nothing is uploaded', named: 'GPT-2',
    core: 'checkpoint', runs: 'slices', chart: 'slices', defaults: { positions: true, causal: true, scale: 1 }, files: 'yours',
    lesson: 'tour-step',
  },
];

const BY_NAME = new Map(MODELS.map((m) => [m.name, m]));

// The row of a model's name (the state's model is always one of them; any
// other name is placed as the head is, and the core says what is wrong).
export const modelOf = (name) => BY_NAME.get(name) ?? { ...MODELS[0], name, label: name, named: name };

// Whether a model runs on a checkpoint's files rather than drawn weights.
export const isCheckpointModel = (name) => BY_NAME.get(name)?.core === 'checkpoint';

// The models trained here (their files in the site's models/ folder), and
// the one that reads the student's files.
export const TRAINED_MODELS = MODELS.filter((m) => m.files === 'site').map((m) => m.name);
export const FILES_MODEL = MODELS.find((m) => m.files === 'yours').name;

// Each checkpoint model's positions and mask as it was trained.
export const TRAINED_AS = Object.fromEntries(MODELS.filter((m) => m.defaults)
  .map((m) => [m.name, { positions: m.defaults.positions, causal: m.defaults.causal }]));

// Whether the state's model reads a folder given in the `checkpoint` key
// (a course host's), and whether it waits for the student's own files (no
// such folder given).
export const takesFolder = (state) => BY_NAME.get(state?.model)?.files === 'yours';
export const awaitsFiles = (state) => takesFolder(state) && !state.checkpoint;
