// store.js - the page's one store: a plain value, the pure functions that
// make the next value from it, and what the views derive from it. No DOM.
//
// The value:
//   lab      the lab's state (state.js: the properties mirrored in the hash)
//   refused  state property -> {raw, message}: typed text the core refused;
//            the field keeps showing it while the results keep the last
//            valid input
//   tour     {step, guesses}: the guided tour's step (0: none) and the
//            guesses made in this visit (step -> value)
//   notice   [{label, value, reason}]: parts of a link that were not used
//   scaleSet the student chose the magnitude (slider, typed, or a link with
//            one other than its scheme's default): a new scheme keeps it
//   followsLast  the chart follows A's last word (a checkpoint's last token)
//            as A changes; null until the page knows (a picked word, or a
//            link's word, under a checkpoint whose tokens are still unread)
//
// Every update returns a new value and never changes its argument, so a view
// can compare what it was given last time with what it is given now.
import { wordsOf, isCheckpointModel } from './state.js';

const without = (refused, ...names) => {
  const next = { ...refused };
  for (const name of names) delete next[name];
  return next;
};

// The word followed on the chart: A's last while the page follows the last,
// else where it is, kept within A. `last` is the index of A's last word, or
// a checkpoint's last token (settleWord), which only its tokenizer knows:
// "dog bites zebra" is 8 tokens to gpt, and its 3 words put the chart on
// the token "␣" (the store's own updates leave a checkpoint's word to it).
function placeWord(page, last = isCheckpointModel(page.lab.model) ? null : wordsOf(page.lab.a).length - 1) {
  if (last === null) return page;
  const { lab } = page;
  if (page.followsLast === null) return { ...page, followsLast: lab.word === last };
  const word = page.followsLast ? last : Math.min(lab.word, last);
  return word === lab.word ? page : { ...page, lab: { ...lab, word } };
}

// The page once a checkpoint's tokens are known (lastToken: the index of
// A's last token, or null while they are not): main.js settles every new
// value so.
export const settleWord = (page, lastToken) => placeWord(page, lastToken);

// The page for a hash (a first visit, a pasted link): bad fields are at
// their defaults and listed in the notice, with `ignored` (the query
// string's own) after them. A bare link to a tour step ("#tour=3") opens
// that step's settings; a full hash (a reload, a shared view) keeps its own.
export function fromHash(hash, { form, steps, ignored = [] }) {
  const { state, ignored: bad } = form.parseHash(hash);
  const { view, ignored: badView, setsState } = form.parseView(hash);
  let page = { lab: state, refused: {}, tour: { step: view.tour, guesses: {} }, notice: [...bad, ...badView, ...ignored] };
  if (view.tour && !setsState) page = { ...page, lab: stepState(page.lab, view.tour, { form, steps }) };
  // (a link without a word follows the last, as a first visit does)
  const followsLast = new URLSearchParams(String(hash ?? '').replace(/^#/, '')).has('word') || view.tour ? null : true;
  return placeWord({ ...page, scaleSet: page.lab.scale !== form.defaultScale(page.lab.scheme), followsLast });
}

// The lab's state as tour step n (1-based) sets it up.
function stepState(lab, n, { form, steps }) {
  const next = { ...lab };
  steps[n - 1].set(next, form);
  return next;
}

// Text typed into the field of `name`, as the core judged it (Model.tryField):
// {value} to store, or {message} saying why not.
// Typing sentence A while its last word is followed keeps following the
// last word: typed key by key, "dog bites postman" passes through "d",
// which would otherwise leave the chart on the first word.
export function typed(page, name, raw, outcome) {
  if (outcome.message !== undefined) {
    return { ...page, refused: { ...page.refused, [name]: { raw, message: outcome.message } } };
  }
  const lab = { ...page.lab, [name]: outcome.value };
  return placeWord({ ...page, lab, refused: without(page.refused, name), scaleSet: page.scaleSet || name === 'scale' });
}

// Settings from a switch, a menu or a button; typed text they replace is dropped.
// A word picked follows the last if it is the last.
export function set(page, changes) {
  const followsLast = 'word' in changes ? null : page.followsLast;
  return placeWord({ ...page, lab: { ...page.lab, ...changes }, refused: without(page.refused, ...Object.keys(changes)), followsLast });
}

// A new scheme starts at its own default magnitude (the core's), unless the
// student has chosen one: "compare schemes at the same magnitude" keeps it.
export function chooseScheme(page, scheme, form) {
  return set(page, page.scaleSet ? { scheme } : { scheme, scale: form.defaultScale(scheme) });
}

// A checkpoint model starts with its positions, mask and magnitude as it
// was trained; leaving one brings the head's defaults back.
export function chooseModel(page, model, form) {
  const lab = form.withModel(page.lab, model);
  const changes = { model, positions: lab.positions, causal: lab.causal, scale: lab.scale, checkpoint: lab.checkpoint };
  return { ...set(page, changes), scaleSet: page.scaleSet && lab.scale === page.lab.scale };
}

// The slider moves on a log scale; its magnitudes are kept to 3 digits.
export function slideScale(page, exponent) {
  return setScale(page, Number((10 ** exponent).toPrecision(3)));
}

// A magnitude the student chose (the slider's keys, say).
export function setScale(page, scale) {
  return { ...set(page, { scale }), scaleSet: true };
}

// A new pair of sentences follows the last word of A.
export function setSentences(page, a, b) {
  return placeWord({ ...set(page, { a, b }), followsLast: true });
}

// An example pair (teach/presets.js) with the settings it needs; a scheme
// it names comes with the magnitude the pair gives, else its own default.
export function applyPreset(page, { a, b, settings = {} }, form) {
  const next = setSentences(page, a, b);
  if (!settings.scheme) return set(next, settings);
  return { ...set(next, { scale: form.defaultScale(settings.scheme), ...settings }), scaleSet: false };
}

export function reverseB(page) {
  return set(page, { b: wordsOf(page.lab.b).reverse().join(' ') });
}

// B's words in a new order (tries again when the shuffle left them as they
// were); `random` returns numbers in [0, 1).
export function shuffleB(page, random = Math.random) {
  const words = wordsOf(page.lab.b);
  const shuffle = () => {
    const out = words.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out.join(' ');
  };
  let next = shuffle();
  for (let tries = 0; tries < 20 && next === words.join(' '); tries++) next = shuffle();
  return set(page, { b: next });
}

export function reset(page, form) {
  return { ...page, lab: form.defaultState(), refused: {}, notice: [], scaleSet: false, followsLast: true };
}

export function dismissNotice(page) {
  return { ...page, notice: [] };
}

// Tour step n (clamped to the tour), with that step's settings.
export function goTour(page, n, { form, steps }) {
  const step = Math.min(Math.max(1, n), steps.length);
  return placeWord({ ...page, lab: stepState(page.lab, step, { form, steps }), refused: {}, tour: { ...page.tour, step }, scaleSet: false,
    followsLast: null });
}

// Leaves the tour; a later "Resume" opens `resumeAt` (0: start over, and the
// guesses are forgotten).
export function endTour(page, resumeAt) {
  return { ...page, tour: { step: 0, guesses: resumeAt ? page.tour.guesses : {} } };
}

export function guess(page, value) {
  return { ...page, tour: { ...page.tour, guesses: { ...page.tour.guesses, [page.tour.step]: value } } };
}

// ---- derived -------------------------------------------------------------

// The hash that reopens the page as it is.
export const hashOf = (page, form) => form.toHash(page.lab, { tour: page.tour.step });

// The guess made at the current tour step, or undefined.
export const currentGuess = (page) => page.tour.guesses[page.tour.step];

// A store: the current value, and one listener (render) told of every change.
// `settle(value)` completes every new value with what only the page knows
// (a checkpoint's last token: settleWord).
export function createStore(initial, listener, settle = (value) => value) {
  let value = settle(initial);
  return {
    get: () => value,
    // update(page, ...args) -> next page
    dispatch(update, ...args) {
      value = settle(update(value, ...args));
      listener(value);
    },
    // The value settled again and rendered, now that what settle reads has
    // changed (a checkpoint's tokenizer is in).
    settle() {
      value = settle(value);
      listener(value);
    },
  };
}

// The magnitude after a key on its slider, or null for other keys: the
// arrows step along 1, 2, 5, 10 (three presses a decade, where the slider's
// own step took 20), Page Up and Page Down by a decade, within [min, max].
export function keyedScale(scale, key, min, max) {
  const up = ['ArrowUp', 'ArrowRight'].includes(key);
  const down = ['ArrowDown', 'ArrowLeft'].includes(key);
  let next;
  if (key === 'PageUp' || key === 'PageDown') {
    next = Number((scale * (key === 'PageUp' ? 10 : 0.1)).toPrecision(3));
  } else if (up || down) {
    const decade = Math.floor(Math.log10(scale));
    const steps = [];
    for (let d = decade - 1; d <= decade + 1; d++) for (const m of [1, 2, 5]) steps.push(Number(`${m}e${d}`));
    next = up ? steps.find((v) => v > scale * (1 + 1e-9)) : steps.reverse().find((v) => v < scale * (1 - 1e-9));
  } else {
    return null;
  }
  return Math.min(max, Math.max(min, next));
}
