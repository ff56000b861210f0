// state.js - the page's state as one plain object, described by one table,
// and its form in location.hash (like tensorflow/playground's state.ts). No
// DOM here.
//
// The core owns every option's limits, default and "allowed:" words (its
// option table, src/config.c, which the WebAssembly module hands over as
// lab.options). PAGE_PROPERTIES below only says which of the core's options
// the page shows, under which hash key and label; createStateForm(lab.options)
// turns each into a reader with the core's own limits and words. Adding an
// option to the page is one row here, once the core has its row.

import { MODELS, FILES_MODEL, isCheckpointModel, modelOf, takesFolder } from './models.js';

// (the models' table, app/models.js, for modules that read these here)
export { TRAINED_MODELS, TRAINED_AS, isCheckpointModel } from './models.js';

// Far more than the core's words allow; only guards against absurd text
// before it is split.
export const MAX_SENTENCE_CHARS = 16384;

// The core options a checkpoint reads (docs/interfaces.md, "Checkpoints");
// the others (dim, heads, seed, layers, weight_std) are the checkpoint's.
const CHECKPOINT_READS = new Set(['sentence_a', 'sentence_b', 'offset_a', 'offset_b', 'scale', 'causal', 'rtol', 'atol']);
const MAX_URL_CHARS = 512;

// A course host's checkpoint folder: a relative URL on the page's own origin
// (no scheme, no host, no backslash), so a link cannot make the page fetch
// from elsewhere.
function readFolderUrl(raw) {
  const text = raw.trim();
  const ok = text !== '' && text.length <= MAX_URL_CHARS && !/^[a-z][a-z0-9+.-]*:/i.test(text) &&
    !text.startsWith('//') && !/[\\\0-\x1f]/.test(text);
  if (!ok) throw new Error('allowed: a folder on this site, as a relative URL (models/gpt2/)');
  return text.endsWith('/') ? text : `${text}/`;
}

const ASCII_SPACES = /[ \t\n\r\f\v]+/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const encoder = new TextEncoder();

// Words as the core splits them: runs of anything but ASCII whitespace.
export function wordsOf(text) {
  return String(text).split(ASCII_SPACES).filter((w) => w !== '');
}

// The core reads C strings, so a NUL (from %00 in a link or pasted text)
// would silently cut the sentence short; it is refused instead.
export const NUL_PROBLEM = 'contains a NUL character (U+0000); allowed: text without NUL characters';

// A short, safe-to-show excerpt of text from a link.
export function excerpt(text, max = 32) {
  const s = String(text);
  return s.length > max ? `${s.slice(0, max)}… (${s.length} characters)` : s;
}

// A token as the page names it. A checkpoint's token that is only spaces
// (GPT-2's tokenizer gives a sentence's leading space a token of its own
// before an emoji's bytes) would be a blank name in the table, the cards
// and the word picker: its spaces show as ␣, as the tokens' chips show them.
export const tokenName = (text) => (text !== '' && text.trim() === '' ? text.replace(/ /g, '\u2423') : text);

// The page's properties, in order (a default or check may use earlier
// ones). A row with `option` takes its reader, default and limits from the
// core's row of that name; the others are the page's own.
//   name     property of the state object
//   key      name in location.hash
//   label    words used in notices
//   option   the core's option (src/config.c) this property sets
//   values   for a choice: which of the core's values the page offers
//   divides  for an integer: the earlier property it must divide (the core
//            checks this when it runs; a link is checked here, before that)
const PAGE_PROPERTIES = [
  { name: 'a', key: 'a', label: 'sentence A', option: 'a' },
  { name: 'b', key: 'b', label: 'sentence B', option: 'b' },
  { name: 'offsetA', key: 'oa', label: 'where sentence A starts', option: 'offset-a' },
  { name: 'offsetB', key: 'ob', label: 'where sentence B starts', option: 'offset-b' },
  { name: 'positions', key: 'pos', label: 'positional information', page: 'switch', fallback: false, asTrained: 'positions' },
  // "none" is the positions switch, not a scheme to pick
  { name: 'scheme', key: 'scheme', label: 'scheme', option: 'scheme', values: (v) => v !== 'none' },
  { name: 'scale', key: 'scale', label: 'magnitude', option: 'scale', asTrained: 'scale' },
  { name: 'causal', key: 'causal', label: 'causal mask', option: 'causal', asTrained: 'causal' },
  { name: 'word', key: 'word', label: 'plotted word', page: 'word' },
  { name: 'dim', key: 'dim', label: 'dim', option: 'dim' },
  { name: 'heads', key: 'heads', label: 'heads', option: 'heads', divides: 'dim' },
  { name: 'seed', key: 'seed', label: 'seed', option: 'seed' },
  { name: 'rtol', key: 'rtol', label: 'rtol', option: 'rtol' },
  { name: 'atol', key: 'atol', label: 'atol', option: 'atol' },
  // The model: the core's values and the page's own (app/models.js: the
  // transformer's two settings the head ignores, as the core does; a
  // checkpoint's files). Read before the others, whose defaults a
  // checkpoint sets.
  { name: 'model', key: 'model', label: 'model', option: 'model', extra: MODELS.map((m) => m.name), first: true },
  { name: 'layers', key: 'layers', label: 'transformer blocks', option: 'layers' },
  { name: 'weightStd', key: 'ws', label: 'weight scale', option: 'weight-std' },
  // GPT-2 from a folder beside the site, and whether a space goes before
  // each sentence (GPT-2's words mid-text start with one). Written into
  // links only when set, so the other models' links stay as they were.
  { name: 'checkpoint', key: 'checkpoint', label: 'checkpoint folder', page: 'url', fallback: '', quiet: true },
  { name: 'space', key: 'space', label: 'space before each sentence', page: 'switch', fallback: true, quiet: true },
];

// Readers turn hash text into a value, or throw an Error saying why not.
function readBool(raw) {
  if (raw === '1' || raw === 'true' || raw === 'on') return true;
  if (raw === '0' || raw === 'false' || raw === 'off') return false;
  throw new Error('allowed: 1 (on) or 0 (off)');
}
const writeBool = (v) => (v ? '1' : '0');

function numberReader(min, max, integer, allowed) {
  return (raw) => {
    const text = raw.trim();
    const value = DECIMAL.test(text) ? Number(text) : NaN;
    const ok = Number.isFinite(value) && value >= min && value <= max &&
      (!integer || Number.isInteger(value));
    if (!ok) throw new Error(`allowed: ${allowed}`);
    return value === 0 ? 0 : value; // no -0 in links
  };
}

// The integers from min to max that divide n: the head counts d allows.
export function divisorsOf(n, min, max) {
  const out = [];
  for (let k = min; k <= Math.min(n, max); k++) if (n % k === 0) out.push(k);
  return out;
}

function choiceReader(values) {
  return (raw) => {
    if (!values.includes(raw)) throw new Error(`allowed: ${values.join(', ')}`);
    return raw;
  };
}

// Builds the page's state form from the core's option table (lab.options).
// `tourSteps`: the number of steps of the guided tour, the one view setting
// kept in the hash.
export function createStateForm(core, { tourSteps }) {
  const { limits } = core;
  const option = new Map(core.options.map((o) => [o.name, o]));
  const schemes = new Map(core.schemes.map((s) => [s.name, s.default_scale]));
  const defaultScale = (scheme) => schemes.get(scheme);

  // Why `text` is not a usable sentence, or null: the core's limits, and
  // close to its words (the field itself shows the core's exact message).
  function sentenceProblem(text) {
    if (text.length > MAX_SENTENCE_CHARS) return `${text.length} characters; allowed: up to ${MAX_SENTENCE_CHARS}`;
    if (text.includes('\0')) return NUL_PROBLEM;
    const words = wordsOf(text);
    if (words.length === 0) return `no words; allowed: ${option.get('a').allowed}`;
    if (words.length > limits.max_tokens) return `${words.length} words; allowed: 1 to ${limits.max_tokens} words`;
    const k = words.findIndex((w) => encoder.encode(w).length > limits.max_token_bytes);
    if (k >= 0) return `word ${k + 1} is longer than ${limits.max_token_bytes} bytes`;
    return null;
  }

  function fromCore(row, prop) {
    const o = option.get(prop.option);
    if (!o) throw new Error(`state.js: the core has no option "${prop.option}"`);
    const made = { ...row, json: o.json, kind: o.kind, allowed: o.allowed };
    switch (o.kind) {
      case 'text':
        made.fallback = o.default;
        made.read = (raw) => {
          const problem = sentenceProblem(raw);
          if (problem) throw new Error(problem);
          return raw;
        };
        break;
      case 'integer':
      case 'number':
        // a default of null: the scheme's own magnitude (the core's rule)
        made.fallback = o.default ?? ((s) => defaultScale(s.scheme));
        made.read = numberReader(o.min, o.max ?? Number.MAX_VALUE, o.kind === 'integer', o.allowed);
        made.min = o.min;
        made.max = o.max;
        if (prop.divides) {
          // in the core's words for a run with such a pair
          made.check = (v, s) => (s[prop.divides] % v === 0 ? null
            : `"${v}" does not divide ${prop.divides} ${s[prop.divides]}; allowed: ${o.allowed} ` +
              `(${divisorsOf(s[prop.divides], o.min, o.max).join(', ')})`);
        }
        break;
      case 'choice':
        const core = o.values.filter(prop.values ?? (() => true));
        made.values = [...core, ...(prop.extra ?? []).filter((v) => !core.includes(v))];
        made.fallback = o.default;
        made.read = choiceReader(made.values);
        break;
      case 'switch':
        made.fallback = o.default;
        made.read = readBool;
        made.write = writeBool;
        break;
      default:
        throw new Error(`state.js: the page has no field for a ${o.kind} option ("${o.name}")`);
    }
    return made;
  }

  // A checkpoint's positions, mask and magnitude default to how it was
  // trained.
  function asTrained(made, what) {
    const { fallback } = made;
    const otherwise = (s) => (typeof fallback === 'function' ? fallback(s) : fallback);
    return { ...made, fallback: (s) => (modelOf(s.model)?.defaults?.[what] ?? otherwise(s)) };
  }

  const properties = PAGE_PROPERTIES.map((prop) => {
    const made = makeProperty(prop);
    if (prop.first) made.first = true;
    if (prop.quiet) made.quiet = true;
    return prop.asTrained ? asTrained(made, prop.asTrained) : made;
  });

  function makeProperty(prop) {
    const row = { name: prop.name, key: prop.key, label: prop.label };
    if (prop.option) return fromCore(row, prop);
    if (prop.page === 'switch') return { ...row, fallback: prop.fallback, read: readBool, write: writeBool };
    if (prop.page === 'url') {
      return {
        ...row, fallback: prop.fallback, read: readFolderUrl,
        check: (v, s) => (takesFolder(s) ? null : `allowed: only with model ${FILES_MODEL}`),
      };
    }
    // the plotted word: an index into sentence A, by default its last word
    const last = limits.max_tokens - 1;
    return {
      ...row,
      fallback: (s) => wordsOf(s.a).length - 1,
      read: numberReader(0, last, true, `a word number from 0 to ${last}`),
      // (a checkpoint follows a token, and tokens can outnumber the words)
      check: (v, s) => (v < wordsOf(s.a).length || isCheckpointModel(s.model) ? null : `sentence A has no word number ${v}`),
    };
  }

  // The page's own place in the hash, beside the lab's state but not part of
  // it: the step of the guided tour (0 = not touring). toHash writes these
  // only when they differ from their default, so links outside the tour stay
  // as they were.
  const viewProperties = [{
    name: 'tour', key: 'tour', label: 'tour step', fallback: 0,
    read: numberReader(0, tourSteps, true, `a step number from 1 to ${tourSteps}`),
  }];
  const byKey = new Map([...properties, ...viewProperties].map((p) => [p.key, p]));
  const fallbackOf = (prop, state) => (typeof prop.fallback === 'function' ? prop.fallback(state) : prop.fallback);

  // Reads each property of `props` from the hash's params into a new
  // object; a bad value keeps the default and is listed in `ignored`
  // ({label, value, reason}) so the page can say what it did not use.
  function readAll(props, params, ignored) {
    const out = {};
    const ordered = [...props.filter((p) => p.first), ...props.filter((p) => !p.first)];
    for (const prop of ordered) {
      const raw = params.get(prop.key);
      let value = fallbackOf(prop, out);
      if (raw !== null) {
        try {
          const read = prop.read(raw);
          const problem = prop.check ? prop.check(read, out) : null;
          if (problem) throw new Error(problem);
          value = read;
        } catch (e) {
          ignored.push({ label: prop.label, value: excerpt(raw), reason: e.message });
        }
      }
      out[prop.name] = value;
    }
    return out;
  }

  // The state a first visit opens with.
  const defaultState = () => readAll(properties, new URLSearchParams(), []);

  // Reads a state from location.hash text: bad fields at their defaults,
  // and they and unknown keys listed in `ignored`.
  function parseHash(hash) {
    const params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
    const ignored = [];
    const state = readAll(properties, params, ignored);
    const unknown = new Set();
    for (const key of params.keys()) {
      if (!byKey.has(key) && !unknown.has(key)) {
        unknown.add(key);
        ignored.push({ label: `unknown setting "${excerpt(key, 20)}"`, value: excerpt(params.get(key)), reason: 'not a poslab setting' });
      }
    }
    return { state, ignored };
  }

  // The page view a hash asks for ({tour}), with the fields it could not use.
  function parseView(hash) {
    const params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
    const ignored = [];
    const view = readAll(viewProperties, params, ignored);
    // Whether the hash sets any of the lab's state (a bare "#tour=3" does not).
    const setsState = properties.some((p) => params.has(p.key));
    return { view, ignored, setsState };
  }

  // The hash text (without "#") that reopens `state` exactly, and the page
  // view `view` ({tour}) if given.
  function toHash(state, view = {}) {
    const params = new URLSearchParams();
    for (const prop of properties) {
      const value = state[prop.name];
      if (prop.quiet && value === fallbackOf(prop, state)) continue;
      params.set(prop.key, prop.write ? prop.write(value) : String(value));
    }
    for (const prop of viewProperties) {
      const value = view[prop.name];
      if (value !== undefined && value !== prop.fallback) params.set(prop.key, String(value));
    }
    return params.toString();
  }

  // The lab's config for a state: every property that sets a core option,
  // under the option's JSON name. Positions off means the scheme "none".
  // A checkpoint's: the options it reads, its scheme "learned" (its
  // position table) or "none", and whether a space goes before each
  // sentence.
  function configOf(state) {
    const config = {};
    const checkpoint = isCheckpointModel(state.model);
    for (const prop of properties) {
      if (prop.json && (!checkpoint || CHECKPOINT_READS.has(prop.json))) config[prop.json] = state[prop.name];
    }
    if (checkpoint) {
      config.model = 'checkpoint';
      config.scheme = state.positions ? 'learned' : 'none';
      config.prefix_space = state.space;
      return config;
    }
    if (!state.positions) config.scheme = 'none';
    return config;
  }

  // The state with `model` chosen: a checkpoint's positions, mask and
  // magnitude as it was trained; leaving one, the head's defaults back.
  function withModel(state, model) {
    const next = { ...state, model };
    if (isCheckpointModel(model) || isCheckpointModel(state.model)) {
      for (const name of ['positions', 'causal', 'scale']) next[name] = fallbackOf(byName.get(name), next);
    }
    if (!takesFolder(next)) next.checkpoint = '';
    return next;
  }

  const byName = new Map(properties.map((p) => [p.name, p]));
  return {
    properties,
    viewProperties,
    property: (name) => byName.get(name),
    limits,
    schemes: core.schemes,
    tourSteps,
    defaultScale,
    sentenceProblem,
    defaultState,
    parseHash,
    parseView,
    toHash,
    configOf,
    withModel,
  };
}
