// tour_steps.js - the guided tour's steps, following the course module's
// path: bare attention, positions on, a faint signal, the student's own
// words, sinusoidal and RoPE, the causal mask. No DOM here.
//
// Each step sets the lab's state, asks for a prediction, and then says what
// the lab actually computed. Nothing it claims is written in advance: every
// verdict and figure in `reveal` is read from the live result, and when the
// result is not the one the module leads students to expect (say, the
// tolerances were changed) the text says what is seen and why it may be.
import { sig, ROUNDING_LEVEL } from '../app/format.js';
import { wordsOf } from '../app/state.js';

// Steps set the lab up from the module's own sentences and settings, the
// core's defaults: `form` (app/state.js) in set(state, form) and ctx.form.
// Below this cosine distance two vectors count as "nearly equal" in the text.
const NEARLY = 1e-3;
const quoted = (word) => `“${word}”`;
const TF = (v) => (v ? 'True' : 'False');
const SAME_DIFF = [{ label: 'Identical', value: true }, { label: 'Different', value: false }];

// The pair the student follows (the plotted word), or null if it has no partner.
export function followed(result, state) {
  const pair = result.pairs[Math.min(state.word, result.pairs.length - 1)];
  return pair.index_b === null ? null : pair;
}

const call = (p) => `np.allclose(out_a[${p.index_a}], out_b[${p.index_b}])`;

function figures(p) {
  if (p.max_abs_diff === 0) return 'max |diff| 0: equal to the last bit';
  if (p.max_abs_diff < ROUNDING_LEVEL) return `max |diff| ${sig(p.max_abs_diff)}, which is rounding`;
  return `max |diff| ${sig(p.max_abs_diff)}, cosine distance ${sig(p.cosine_distance)}`;
}

// "np.allclose(out_a[2], out_b[0]) says True: “man” comes out identical ..."
function claim(p) {
  const how = p.allclose ? 'comes out identical in both sentences' : 'comes out as different vectors';
  return `${call(p)} says ${TF(p.allclose)}: ${quoted(p.word)} ${how} (${figures(p)}).`;
}

function tolerancesChanged(s, form) {
  const module = form.defaultState();
  return s.rtol !== module.rtol || s.atol !== module.atol;
}
const tolerances = (s) => `rtol ${sig(s.rtol)}, atol ${sig(s.atol)}`;

// What else, besides word order, can make the two outputs differ (or not).
function otherCauses({ state, result, form }) {
  const causes = [];
  if (!result.permutation) causes.push('sentence B is not a reordering of sentence A');
  if (state.positions) causes.push('positional information is on');
  if (state.causal) causes.push('the causal mask is on');
  if (tolerancesChanged(state, form)) causes.push(`the tolerances are ${tolerances(state)} instead of NumPy’s defaults`);
  return causes;
}

const list = (items) => (items.length <= 1 ? items.join('')
  : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

// Shared by the steps that follow one word: the live claim, or why there is none.
function wordClaim({ result, state }) {
  const p = followed(result, state);
  if (!p) {
    const word = result.pairs[Math.min(state.word, result.pairs.length - 1)].word;
    return `${quoted(word)} has no partner in sentence B, so there is nothing to compare. Pick another word to follow.`;
  }
  return claim(p);
}

const wordAnswer = ({ result, state }) => followed(result, state)?.allclose ?? null;
// The followed word, quoted, for the questions.
const W = ({ result, state }) => quoted(result.pairs[Math.min(state.word, result.pairs.length - 1)].word);

// The module's sentence pair, following "man", with the given settings.
function moduleView(state, form, settings) {
  const module = form.defaultState();
  Object.assign(state, {
    a: module.a, b: module.b, word: module.word, positions: false, causal: false,
    scheme: module.scheme, scale: module.scale,
  }, settings);
}

function thresholdWords(t, form) {
  if (t === null || t === undefined) return '';
  if (t <= 0) return 'np.allclose says False for it at every magnitude, however faint.';
  const max = form.limits.max_scale;
  if (t >= max) return `np.allclose says True for it at every magnitude up to ${max.toExponential().replace('e+', 'e')}.`;
  return `np.allclose says True for it only below a magnitude of about ${sig(t, 2)} (the dashed line on the chart).`;
}

export const STEPS = [
  {
    title: 'Bare attention: positions off',
    set: (state, form) => moduleView(state, form, {}),
    intro: () => 'The two sentences use the same three words; only the order differs, and with it who bit whom. ' +
      'Positional information is off, so attention gets the words but not where they stand.',
    question: (ctx) => `Will ${W(ctx)} come out as the same vector in both sentences?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal(ctx) {
      const { result, state } = ctx;
      const p = followed(result, state);
      if (!p) return [wordClaim(ctx)];
      if (p.allclose) {
        return [claim(p), 'Attention weighs every pair of words by how well they match, and a match does not ' +
          'depend on where the two words stand. Reorder the sentence and every word still meets the same ' +
          'company, so its output cannot change; only its row moves.'];
      }
      const causes = otherCauses(ctx);
      return [claim(p), 'Bare attention gives True here with the module’s settings, so something else is ' +
        `telling the sentences apart: ${causes.length ? list(causes) : 'the settings under Advanced'}.`];
    },
  },
  {
    title: 'Switch positional information on',
    set: (state, form) => moduleView(state, form, { positions: true, scheme: 'random', scale: form.defaultScale('random') }),
    intro: ({ result, state }) => {
      const p = followed(result, state);
      const where = p ? ` ${quoted(p.word)} stands at position ${p.index_a} in A and at position ${p.index_b} in B, ` +
        'so it gets a different one added in each.' : '';
      return 'Now each position gets its own fixed random vector (the module’s stand-in for a real encoding), ' +
        `added to the word before attention, at magnitude ${sig(state.scale)}.${where}`;
    },
    question: (ctx) => `Will ${W(ctx)} still come out identical?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal(ctx) {
      const { result, state } = ctx;
      const p = followed(result, state);
      if (!p) return [wordClaim(ctx)];
      const mean = `The sentence mean says ${TF(result.mean.allclose)} too` +
        (result.mean.allclose ? '.' : `: max |diff| ${sig(result.mean.max_abs_diff)}.`);
      if (!p.allclose) {
        return [claim(p), `${mean} Different inputs give different queries, keys and values, and so different ` +
          'outputs. This is how a transformer can tell who bit whom.'];
      }
      const why = tolerancesChanged(state, ctx.form)
        ? `the tolerances (${tolerances(state)}) let a difference of this size pass`
        : `the signal, at magnitude ${sig(state.scale)}, is too faint to move the output past the tolerance`;
      return [claim(p), `Here np.allclose cannot see the difference: ${why}.`];
    },
  },
  {
    title: 'Make the signal faint',
    set: (state, form) => moduleView(state, form, { positions: true, scheme: 'random', scale: 0.001 }),
    intro: () => 'Exercise 3 of the module: keep the positional signal, but 500 times weaker, at magnitude 0.001.',
    question: (ctx) => `What will np.allclose say about ${W(ctx)} now?`,
    choices: [{ label: 'Still False', value: false }, { label: 'True again', value: true }],
    answer: wordAnswer,
    reveal(ctx) {
      const { result, state } = ctx;
      const p = followed(result, state);
      if (!p) return [wordClaim(ctx)];
      const t = thresholdWords(ctx.threshold(p.index_a), ctx.form);
      if (!p.allclose && p.cosine_distance < NEARLY) {
        return [claim(p), `Yet a cosine distance of ${sig(p.cosine_distance)} means the two vectors point almost ` +
          'the same way: nearly equal, not equal. np.allclose forgives only a relative difference of about ' +
          `rtol = ${sig(state.rtol)} (plus atol = ${sig(state.atol)}), so even this counts. ${t} ` +
          'How strong a positional signal is next to the word vectors is a real design choice.'];
      }
      if (!p.allclose) {
        return [claim(p), `Even this faint signal leaves the two clearly apart here (cosine distance ` +
          `${sig(p.cosine_distance)}). ${t}`];
      }
      return [claim(p), `At magnitude ${sig(state.scale)} the difference fits inside the tolerance ` +
        `(${tolerances(state)}), so np.allclose says True. ${t}`];
    },
  },
  {
    title: 'Your own words',
    set: (state) => Object.assign(state, { positions: false, causal: false, word: wordsOf(state.a).length - 1 }),
    intro: () => 'Exercise 1: type a sentence of your own into Sentence A, and the same words in another order ' +
      'into Sentence B (or press Shuffle B). Positional information is off again.',
    question: () => 'Will every word come out identical, whatever words you pick?',
    choices: [{ label: 'All identical', value: true }, { label: 'Some differ', value: false }],
    answer: ({ result }) => result.permutation && result.pairs.every((p) => p.allclose === true),
    reveal(ctx) {
      const { result, state } = ctx;
      const module = ctx.form.defaultState();
      const paired = result.pairs.filter((p) => p.index_b !== null);
      const same = paired.filter((p) => p.allclose).length;
      const lines = [`${same} of ${paired.length} paired words say True, and the sentence mean says ` +
        `${TF(result.mean.allclose)}.`];
      if (state.a === module.a && state.b === module.b) {
        lines.push('These are still the module’s sentences: type your own pair and this line follows.');
      }
      const causes = otherCauses(ctx);
      if (!result.permutation) {
        lines.push('Sentence B is not a reordering of A, so some words see different company, and their ' +
          'outputs change even without positions. Use exactly the same words.');
      } else if (same === paired.length) {
        lines.push('Whatever the words, bare attention cannot see their order: what held for dog, bites and man ' +
          'holds for any reordering.');
      } else {
        lines.push(`Not all are identical, because ${causes.length ? list(causes) : 'of the settings under Advanced'}.`);
      }
      return lines;
    },
  },
  {
    title: 'A real encoding: sinusoidal',
    set: (state, form) => moduleView(state, form, { positions: true, scheme: 'sinusoidal', scale: form.defaultScale('sinusoidal') }),
    intro: () => 'The original Transformer does not add random vectors. It adds sine and cosine waves of many ' +
      'wavelengths, so each position gets its own smooth pattern.',
    question: (ctx) => `With these waves at full strength, will ${W(ctx)} come out identical in both sentences?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal(ctx) {
      const { result, state } = ctx;
      const p = followed(result, state);
      if (!p) return [wordClaim(ctx)];
      const t = thresholdWords(ctx.threshold(p.index_a), ctx.form);
      return [claim(p), p.allclose
        ? `Here the waves do not move the output past the tolerance (${tolerances(state)}). ${t}`
        : `Like the random stand-in, the waves give the word a different input at each position, and the ` +
          `outputs part ways. ${t}`];
    },
  },
  {
    title: 'Rotating instead of adding: RoPE',
    set: (state, form) => moduleView(state, form, { positions: true, scheme: 'rope', scale: form.defaultScale('rope') }),
    intro: () => 'RoPE adds nothing to the words. It turns every query and key by an angle that grows with the ' +
      'position, so how well two words match depends on how far apart they are.',
    question: (ctx) => `The word vectors themselves are untouched. Will ${W(ctx)} still come out differently?`,
    choices: [{ label: 'Still identical', value: true }, { label: 'Different', value: false }],
    answer: wordAnswer,
    reveal(ctx) {
      const { result, state } = ctx;
      const p = followed(result, state);
      if (!p) return [wordClaim(ctx)];
      return [claim(p), p.allclose
        ? `Here the rotation leaves the attention weights too close to tell apart (${tolerances(state)}).`
        : 'Turning queries and keys changes who attends to whom, and that alone is enough. The values are ' +
          'not turned, so each output is still a mix of the same value vectors: only the weights moved (open ' +
          '“Attention weights” below the chart to see them).'];
    },
  },
  {
    title: 'Order without positions: the causal mask',
    set: (state, form) => moduleView(state, form, { positions: false, causal: true }),
    intro: () => 'Positional information is off again. Instead, a causal mask lets each word look only at itself ' +
      'and the words before it, as in GPT-style models.',
    question: (ctx) => `No positional information at all: will ${W(ctx)} be identical in both sentences?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal(ctx) {
      const { result, state } = ctx;
      const p = followed(result, state);
      if (!p) return [wordClaim(ctx)];
      const end = 'That is the path: with neither positions nor a mask, attention is blind to order. ' +
        'Finish the tour, or keep exploring with the views below the chart.';
      if (!state.causal) return [claim(p), 'The causal mask is off now, so this is bare attention again.', end];
      const seenA = p.index_a + 1;
      const seenB = p.index_b + 1;
      const sees = (n) => `${n} word${n === 1 ? '' : 's'}`;
      if (!p.allclose) {
        const company = seenA === seenB ? 'different words' : `${sees(seenA)} in A but ${sees(seenB)} in B`;
        return [claim(p), `Under the mask ${quoted(p.word)} sees ${company}: different company, different ` +
          'output. So order can reach attention without any positional encoding, which is why decoders can ' +
          'partly work out positions on their own.', end];
      }
      return [claim(p), `${quoted(p.word)} sees the same words before it in both sentences, so the mask ` +
        'changes nothing for it.', end];
    },
  },
];

export const TOUR_STEPS = STEPS.length;

// The settings a step sets up, in words, for saying what was changed since.
const SETTING_WORDS = {
  a: 'sentence A', b: 'sentence B', positions: 'positional information', scheme: 'the kind of signal',
  scale: 'the magnitude', causal: 'the causal mask',
};

// What differs between the lab's state and step k's setup (e.g. a reload
// after the student moved the magnitude, or a link with its own settings):
// a list of words, empty when the lab shows the step as it was set up.
export function offSetup(k, state, form) {
  const want = { ...state };
  STEPS[k].set(want, form);
  return Object.keys(SETTING_WORDS).filter((key) => {
    if ((key === 'scheme' || key === 'scale') && !want.positions) return false; // no effect then
    return want[key] !== state[key];
  }).map((key) => SETTING_WORDS[key]);
}

// When the lab is off a step's setup, the step's own explanation may not
// fit: this one is built only from the live state and result.
function generic(ctx) {
  const { result, state } = ctx;
  const p = followed(result, state);
  if (!p) return [wordClaim(ctx)];
  const causes = otherCauses(ctx);
  if (p.allclose) {
    if (!causes.length) {
      return [claim(p), 'With neither positions nor a mask, every word meets the same company in both ' +
        'sentences, so its output cannot change.'];
    }
    return [claim(p), `np.allclose cannot tell the two apart here, although ${list(causes)}.`];
  }
  return [claim(p), causes.length ? `They differ: ${list(causes)}.`
    : 'They differ, which bare attention on a reordering should not do: look at the settings under Advanced.'];
}

// What the tour says after a guess at step k: the step's own words when the
// lab shows its setup, otherwise words built from what the lab shows.
export function revealAt(k, ctx) {
  if (k === 3 || offSetup(k, ctx.state, ctx.form).length === 0) return STEPS[k].reveal(ctx);
  return generic(ctx);
}
