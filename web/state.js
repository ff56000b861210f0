// state.js - everything a view of the lab depends on, as one plain object
// described by one table. The table gives each property its type, default,
// key in location.hash and validation; parseHash and toHash use only the
// table, so every view is a link that reopens exactly (like
// tensorflow/playground's state.ts). No DOM here.

// The core's limits (../shared/spec/experiment.md); the core checks them
// again on every run.
export const MAX_WORDS = 64;
export const MAX_WORD_BYTES = 64;
// Far more than 64 words of 64 bytes; only guards against absurd text.
export const MAX_SENTENCE_CHARS = 16384;

// The positional schemes a student can pick, with their default magnitude.
export const SCHEMES = {
  random: { label: 'Random stand-in', defaultScale: 0.5 },
  sinusoidal: { label: 'Sinusoidal', defaultScale: 1 },
  rope: { label: 'RoPE', defaultScale: 1 },
};

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

// Why `text` is not a usable sentence, or null.
export function sentenceProblem(text) {
  if (text.length > MAX_SENTENCE_CHARS) {
    return `${text.length} characters; allowed: up to ${MAX_SENTENCE_CHARS}`;
  }
  if (text.includes('\0')) return NUL_PROBLEM;
  const words = wordsOf(text);
  if (words.length === 0) return 'no words; allowed: 1 to 64 words';
  if (words.length > MAX_WORDS) return `${words.length} words; allowed: 1 to ${MAX_WORDS} words`;
  const k = words.findIndex((w) => encoder.encode(w).length > MAX_WORD_BYTES);
  if (k >= 0) return `word ${k + 1} is longer than ${MAX_WORD_BYTES} bytes`;
  return null;
}

// Readers turn hash text into a value, or throw an Error saying why not.
function readText(raw) {
  const problem = sentenceProblem(raw);
  if (problem) throw new Error(problem);
  return raw;
}

function readBool(raw) {
  if (raw === '1' || raw === 'true' || raw === 'on') return true;
  if (raw === '0' || raw === 'false' || raw === 'off') return false;
  throw new Error('allowed: 1 (on) or 0 (off)');
}

function numberReader(min, max, integer, range) {
  return (raw) => {
    const text = raw.trim();
    const value = DECIMAL.test(text) ? Number(text) : NaN;
    const ok = Number.isFinite(value) && value >= min && value <= max &&
      (!integer || Number.isInteger(value));
    if (!ok) throw new Error(`allowed: ${range}`);
    return value === 0 ? 0 : value; // no -0 in links
  };
}

function enumReader(values) {
  return (raw) => {
    if (!values.includes(raw)) throw new Error(`allowed: ${values.join(', ')}`);
    return raw;
  };
}

const writeBool = (v) => (v ? '1' : '0');

// The table. Order matters: a default or check may use earlier properties.
//   name     property of the state object
//   key      name in location.hash
//   label    words used in notices
//   fallback the default (a function of the state read so far, or a value)
//   read     hash text -> value, throwing an Error that says what is allowed
//   check    optional: (value, state) -> problem text or null, for rules
//            that involve other properties
export const PROPERTIES = [
  { name: 'a', key: 'a', label: 'sentence A', fallback: 'dog bites man', read: readText },
  { name: 'b', key: 'b', label: 'sentence B', fallback: 'man bites dog', read: readText },
  { name: 'positions', key: 'pos', label: 'positional information', fallback: false, read: readBool, write: writeBool },
  {
    name: 'scheme', key: 'scheme', label: 'scheme', fallback: 'random',
    read: enumReader(Object.keys(SCHEMES)),
  },
  {
    name: 'scale', key: 'scale', label: 'magnitude',
    fallback: (s) => SCHEMES[s.scheme].defaultScale,
    read: numberReader(0, 1e6, false, 'a number from 0 to 1e6'),
  },
  { name: 'causal', key: 'causal', label: 'causal mask', fallback: false, read: readBool, write: writeBool },
  {
    name: 'word', key: 'word', label: 'plotted word',
    fallback: (s) => wordsOf(s.a).length - 1, // the last word: "man"
    read: numberReader(0, MAX_WORDS - 1, true, 'a word number from 0 to 63'),
    check: (v, s) => (v < wordsOf(s.a).length ? null : `sentence A has no word number ${v}`),
  },
  { name: 'dim', key: 'dim', label: 'dim', fallback: 6, read: numberReader(1, 512, true, 'an integer from 1 to 512') },
  {
    name: 'seed', key: 'seed', label: 'seed', fallback: 2,
    read: numberReader(0, 4294967295, true, 'an integer from 0 to 4294967295'),
  },
  { name: 'rtol', key: 'rtol', label: 'rtol', fallback: 1e-5, read: numberReader(0, Number.MAX_VALUE, false, 'a finite number >= 0') },
  { name: 'atol', key: 'atol', label: 'atol', fallback: 1e-8, read: numberReader(0, Number.MAX_VALUE, false, 'a finite number >= 0') },
];

// The page's own place in the hash, beside the lab's state but not part of
// it: the step of the guided tour (0 = not touring). toHash writes these
// only when they differ from their default, so links outside the tour stay
// as they were.
export const TOUR_STEPS = 7;
export const VIEW_PROPERTIES = [
  {
    name: 'tour', key: 'tour', label: 'tour step', fallback: 0,
    read: numberReader(0, TOUR_STEPS, true, `a step number from 1 to ${TOUR_STEPS}`),
  },
];

const BY_KEY = new Map([...PROPERTIES, ...VIEW_PROPERTIES].map((p) => [p.key, p]));

function fallbackOf(prop, state) {
  return typeof prop.fallback === 'function' ? prop.fallback(state) : prop.fallback;
}

// The state a first visit opens with.
export function defaultState() {
  const state = {};
  for (const prop of PROPERTIES) state[prop.name] = fallbackOf(prop, state);
  return state;
}

// A short, safe-to-show excerpt of text from a link.
export function excerpt(text, max = 32) {
  const s = String(text);
  return s.length > max ? `${s.slice(0, max)}… (${s.length} characters)` : s;
}

// Reads a state from location.hash text. Bad or unknown fields are left at
// their defaults and listed in `ignored` ({label, value, reason}) so the page
// can say what it did not use.
export function parseHash(hash) {
  const text = String(hash ?? '').replace(/^#/, '');
  const params = new URLSearchParams(text);
  const state = {};
  const ignored = [];
  for (const prop of PROPERTIES) {
    const raw = params.get(prop.key);
    let value = fallbackOf(prop, state);
    if (raw !== null) {
      try {
        const read = prop.read(raw);
        const problem = prop.check ? prop.check(read, state) : null;
        if (problem) throw new Error(problem);
        value = read;
      } catch (e) {
        ignored.push({ label: prop.label, value: excerpt(raw), reason: e.message });
      }
    }
    state[prop.name] = value;
  }
  const unknown = new Set();
  for (const key of params.keys()) {
    if (!BY_KEY.has(key) && !unknown.has(key)) {
      unknown.add(key);
      ignored.push({ label: `unknown setting "${excerpt(key, 20)}"`, value: excerpt(params.get(key)), reason: 'not a poslab setting' });
    }
  }
  return { state, ignored };
}

// The page view a hash asks for ({tour}), with the fields it could not use.
export function parseView(hash) {
  const params = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  const view = {};
  const ignored = [];
  for (const prop of VIEW_PROPERTIES) {
    const raw = params.get(prop.key);
    view[prop.name] = prop.fallback;
    if (raw === null) continue;
    try {
      view[prop.name] = prop.read(raw);
    } catch (e) {
      ignored.push({ label: prop.label, value: excerpt(raw), reason: e.message });
    }
  }
  // Whether the hash sets any of the lab's state (a bare "#tour=3" does not).
  const setsState = PROPERTIES.some((p) => params.has(p.key));
  return { view, ignored, setsState };
}

// The hash text (without "#") that reopens `state` exactly, and the page
// view `view` ({tour}) if given.
export function toHash(state, view = {}) {
  const params = new URLSearchParams();
  for (const prop of PROPERTIES) {
    const value = state[prop.name];
    params.set(prop.key, prop.write ? prop.write(value) : String(value));
  }
  for (const prop of VIEW_PROPERTIES) {
    const value = view[prop.name];
    if (value !== undefined && value !== prop.fallback) params.set(prop.key, String(value));
  }
  return params.toString();
}
