// tour_steps.js - the guided tour's steps, following the course module's
// path: bare attention, positions on, a faint signal, the student's own
// words, sinusoidal and RoPE, the causal mask; then the next modules' tests
// of a good positional signal: the shift test and ALiBi's reversal. No DOM
// here.
//
// Each step sets the lab's state, asks for a prediction, and then says what
// the lab actually computed. Nothing it claims is written in advance: every
// verdict and figure in `reveal` is read from the live result, and when the
// result is not the one the module leads students to expect (say, the
// tolerances were changed) the text says what is seen and why it may be.
import { sig, exponentText, ROUNDING_LEVEL } from '../app/format.js';
import { TOUR_STEPS, GPT2_ONLY_STEPS } from './tour_length.js';
import { wordsOf } from '../app/state.js';
import { takesFolder, FILES_MODEL } from '../app/models.js';
import { SCHEMES, appliesTo } from './schemes.js';
import { arrangement, SEES } from './distances.js';
import { ALIBI_SETTINGS, ALIBI_SWAP } from './presets.js';
import { lesson, factsOf, answersText, QUESTIONS } from './lesson.js';

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

// How many paired words say True, and the mean: "5 of 5 words say True, and
// the sentence mean says True."
function tally(result) {
  const paired = result.pairs.filter((p) => p.index_b !== null);
  const same = paired.filter((p) => p.allclose).length;
  return { same, paired: paired.length, all: paired.length > 0 && same === paired.length && result.mean.allclose,
    text: `${same} of ${paired.length} words say True, and the sentence mean says ${TF(result.mean.allclose)}.` };
}

// Shared by the steps that follow one word: the live claim, or why there is none.
// A reveal about the followed word: fn(ctx, pair) when the word has a
// partner in B; otherwise the one thing to say is that it has none.
const aboutWord = (fn) => (ctx) => {
  const p = followed(ctx.result, ctx.state);
  return p ? fn(ctx, p) : [wordClaim(ctx)];
};

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

// The module's sentence pair, following "man", with the given settings:
// both sentences start at position 0, one head at the module's d.
function moduleView(state, form, settings) {
  const module = form.defaultState();
  Object.assign(state, {
    a: module.a, b: module.b, offsetA: module.offsetA, offsetB: module.offsetB, word: module.word,
    positions: false, causal: false, scheme: module.scheme, scale: module.scale, dim: module.dim, heads: module.heads,
    model: module.model,
  }, settings);
}

// The module's pair through GPT-2-style blocks: 4 blocks of 2 heads at d 16
// and GPT-2's weight scale (docs/experiment.md's figures of the transformer).
const BLOCKS = { model: 'transformer', layers: 4, heads: 2, dim: 16 };
function transformerView(state, form, settings) {
  moduleView(state, form, { ...BLOCKS, weightStd: form.defaultState().weightStd, ...settings });
}

// A reveal about the followed word through the blocks: the live claim, then
// fn(ctx, pair, blockTally) when the model is transformer blocks (a student
// may have switched back to the one head since the step set them).
const aboutBlocks = (fn) => aboutWord((ctx, p) => (ctx.result.layers
  ? [claim(p), ...fn(ctx, p, blockTally(ctx.result, p))]
  : [claim(p), 'The model is the one head now: switch to transformer blocks to see this.']));

// How the followed word fares block by block: "True after 4 of the 4 blocks".
function blockTally(result, p) {
  const verdicts = result.layers.map((l) => l.pairs[p.index_a]?.allclose);
  const same = verdicts.filter(Boolean).length;
  return { same, count: verdicts.length, all: same === verdicts.length, none: same === 0,
    text: `${quoted(p.word)} is True after ${same} of the ${verdicts.length} blocks` };
}

// The shift test: one sentence twice, B starting 5 positions later, at d 16.
const SHIFTED = 'the cat chased the mouse';
function shiftTest(state, form, scheme) {
  moduleView(state, form, {
    a: SHIFTED, b: SHIFTED, word: wordsOf(SHIFTED).length - 1, offsetB: 5, dim: 16,
    positions: true, scheme, scale: form.defaultScale(scheme),
  });
}
// Every scheme the model takes, at its default magnitude on the lab as it
// is: "Random stand-in 0 of 5, Sinusoidal 0 of 5, ...", and each one's tally.
function everyScheme(ctx) {
  const schemes = Object.keys(SCHEMES).filter((scheme) => scheme !== 'none' && appliesTo(scheme, ctx.state.model));
  const runs = schemes.map((scheme) => ({ scheme, ...tally(ctx.verdict({ scheme, scale: ctx.form.defaultScale(scheme) })) }));
  return { runs, text: runs.map((r) => `${SCHEMES[r.scheme].label} ${r.same} of ${r.paired}`).join(', ') };
}

// The pair that is not a reversal: cat and mouse swap, "the" and "chased"
// stay put; followed: "chased" (teach/presets.js says why these settings).
const NOT_REVERSED = { ...ALIBI_SWAP, ...ALIBI_SETTINGS, word: 2 };

function thresholdWords(t, form) {
  if (t === null || t === undefined) return '';
  if (t <= 0) return 'np.allclose says False for it at every magnitude, however faint.';
  const max = form.limits.max_scale;
  if (t >= max) return `np.allclose says True for it at every magnitude up to ${exponentText(max)}.`;
  return `np.allclose says True for it only below a magnitude of about ${sig(t, 2)} (the dashed line on the chart).`;
}

// ---- exercise 2: the models trained here (docs/models.md) -----------------
//
// Each step runs one of the three models shipped with the site, asked
// "who bites ?" about "dog bites man" and "man bites dog"; a reveal's runs
// (ctx.verdict) go to the model the step set up, with a few switches changed.

// A model trained here, as trained, asked the lesson's questions.
function trainedView(state, form, model, settings = {}) {
  Object.assign(state, form.withModel(state, model), {
    a: QUESTIONS.a, b: QUESTIONS.b, offsetA: 0, offsetB: 0, word: wordsOf(QUESTIONS.a).length - 1, space: true,
  }, settings);
}
// The live facts of the result when it is a trained model's (null for the
// head or the blocks, where a student may have gone since).
const factsHere = ({ result, state }) => (result.next_a ? factsOf(result, state) : null);
const BOTH_RIGHT = [{ label: 'Both right', value: true }, { label: 'At most one right', value: false }];
// A trained model's reveal: fn(ctx, facts), or what to do when the lab shows another model.
const aboutTrained = (fn) => (ctx) => {
  const f = factsHere(ctx);
  return f ? fn(ctx, f) : ['The lab shows another model now: set this step up again to see its model.'];
};
const tokensLine = (f) => `${f.differ} of ${f.paired} tokens are False between the two sentences (${f.same} True), ` +
  `and the mean says ${TF(f.meanTrue)}.`;
const pointOf = (ctx, key) => lesson(ctx.state.model, ctx.state, ctx.verdict).items.find((i) => i.key === key);

const EXERCISE_2 = [
  {
    title: 'Exercise 2: a model trained here',
    show: '#checkpoint',
    set: (state, form) => trainedView(state, form, 'gpt'),
    intro: () => 'The lab now runs gpt, a small GPT-2 trained here to answer a question about a statement: ' +
      '“who bites ?” asks for the one who bites, “who is bitten ?” for the other. Like GPT-2 it has a learned ' +
      'position table and the causal mask. Both sentences ask “who bites ?”: about “dog bites man” and about ' +
      '“man bites dog”, neither seen in training.',
    question: () => 'Will gpt answer both questions right?',
    choices: BOTH_RIGHT,
    answer: (ctx) => factsHere(ctx)?.bothRight ?? null,
    reveal: aboutTrained((ctx, f) => [`gpt answers ${answersText(f)}.`,
      f.bothRight ? 'The question names neither noun and both are in the statement: only their order says who bit ' +
        `whom, and gpt reads it. ${tokensLine(f)}` : `Not both right here. ${tokensLine(f)}`]),
  },
  {
    title: 'Exercise 2’s figure',
    show: '#checkpoint',
    set: (state, form) => trainedView(state, form, 'gpt'),
    intro: () => 'Exercise 2 compares two sentences by one number: the cosine similarity of the mean last hidden ' +
      'state, the model’s output vectors averaged over each sentence’s tokens. 1 means the two means point the same way.',
    question: () => 'Will the two means be the same vector?',
    choices: SAME_DIFF,
    answer: ({ result }) => result.mean.allclose,
    reveal: ({ result }) => {
      const { mean } = result;
      const lines = [`The cosine similarity of the mean last hidden state is ${sig(result.mean_cosine_similarity)}; ` +
        `np.allclose on the two means says ${TF(mean.allclose)} (max |diff| ${sig(mean.max_abs_diff)}).`];
      if (!mean.allclose && result.mean_cosine_similarity > 0.9) {
        lines.push('Close to 1, yet not equal: a similarity near 1 can hide a difference that np.allclose sees, ' +
          'and that the model answers by. Next: which of its two switches makes the difference.');
      } else if (!mean.allclose) {
        lines.push('Clearly apart. Next: which of its two switches makes the difference.');
      }
      return lines;
    },
  },
  {
    title: 'Take the positions away',
    show: '#lesson',
    set: (state, form) => trainedView(state, form, 'gpt', { positions: false }),
    intro: () => 'gpt’s position table is now off; the causal mask stays on, so each token still sees only ' +
      'itself and the tokens before it.',
    question: () => 'Will gpt’s tokens still differ between the two sentences?',
    choices: [{ label: 'Still different', value: false }, { label: 'All identical', value: true }],
    answer: (ctx) => factsHere(ctx)?.allTrue ?? null,
    reveal: aboutTrained((ctx) => pointOf(ctx, 'mask').lines),
  },
  {
    title: 'Take the mask away too',
    show: '#lesson',
    set: (state, form) => trainedView(state, form, 'gpt', { positions: false, causal: false }),
    intro: () => 'Now the mask is off too: every token sees every token of its sentence, and nothing says where it stands.',
    question: () => 'Will any token still differ between the two sentences?',
    choices: [{ label: 'Some still differ', value: false }, { label: 'All identical', value: true }],
    answer: (ctx) => factsHere(ctx)?.allTrue ?? null,
    reveal: aboutTrained((ctx) => pointOf(ctx, 'neither').lines),
  },
  {
    title: 'bag: trained with neither',
    show: '#lesson',
    set: (state, form) => trainedView(state, form, 'bag'),
    intro: () => 'bag is the same small model trained on the same questions with neither a position table nor a mask.',
    question: () => 'Will bag give the two questions the same answer?',
    choices: [{ label: 'The same answer', value: true }, { label: 'Different answers', value: false }],
    answer: (ctx) => factsHere(ctx)?.alike ?? null,
    reveal: aboutTrained((ctx, f) => [...pointOf(ctx, 'neither').lines,
      f.alike ? 'Training could not help it: with neither switch the two orders are the same input to it.'
        : 'Its answers differ here, so its input differs by more than the order.']),
  },
  {
    title: 'nope: the mask alone',
    show: '#lesson',
    set: (state, form) => trainedView(state, form, 'nope'),
    intro: () => 'nope was trained with the causal mask and no position table at all.',
    question: () => 'Without positions, can nope answer both questions right?',
    choices: BOTH_RIGHT,
    answer: (ctx) => factsHere(ctx)?.bothRight ?? null,
    reveal: aboutTrained((ctx) => [...pointOf(ctx, 'nope').lines,
      ctx.tourStep ? 'Next: GPT-2 itself.'
        : 'The lesson in three switches is below the verdicts. With GPT-2’s files open (Model: GPT-2) the tour ' +
          'has one more step.']),
  },
  {
    title: 'GPT-2: which switch tells it the order?',
    show: '#checkpoint',
    // only while GPT-2 is open: the tour cannot fetch half a gigabyte itself
    only: (ctx) => Boolean(ctx.tourStep),
    set: (state, form) => {
      const module = form.defaultState();
      const folder = takesFolder(state) ? state.checkpoint : '';
      Object.assign(state, form.withModel(state, FILES_MODEL), {
        a: module.a, b: module.b, offsetA: 0, offsetB: 0, word: module.word, space: true, checkpoint: folder,
        positions: false, causal: true,
      });
    },
    intro: () => 'GPT-2 itself, on the module’s two sentences, with its position table off and its causal mask on.',
    question: (ctx) => `Will ${W(ctx)} come out identical in both sentences?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal: aboutWord((ctx, p) => {
      const both = ctx.verdict({ positions: false, causal: false });
      const all = tally(both);
      return [claim(p), `The cosine similarity of the mean last hidden state is ${sig(ctx.result.mean_cosine_similarity)}.`,
        `With the mask off too: ${all.text} ${all.all ? 'Like bag, GPT-2 then sees each sentence as a set of tokens.'
          : 'Not all True: the two sentences are more than a reordering of the same tokens here.'}`,
        'That is the end of the tour; keep exploring with the views below the chart.'];
    }),
  },
];

export const STEPS = [
  {
    title: 'Bare attention: positions off',
    set: (state, form) => moduleView(state, form, {}),
    intro: () => 'The two sentences use the same three words; only the order differs, and with it who bit whom. ' +
      'Positional information is off, so attention gets the words but not where they stand.',
    question: (ctx) => `Will ${W(ctx)} come out as the same vector in both sentences?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal: aboutWord((ctx, p) => {
      if (p.allclose) {
        return [claim(p), 'Attention weighs every pair of words by how well they match, and a match does not ' +
          'depend on where the two words stand. Reorder the sentence and every word still meets the same ' +
          'company, so its output cannot change; only its row moves.'];
      }
      const causes = otherCauses(ctx);
      return [claim(p), 'Bare attention gives True here with the module’s settings, so something else is ' +
        `telling the sentences apart: ${causes.length ? list(causes) : 'the settings under Advanced'}.`];
    }),
  },
  {
    title: 'Switch positional information on',
    set: (state, form) => moduleView(state, form, { positions: true, scheme: 'random', scale: form.defaultScale('random') }),
    intro: ({ result, state }) => {
      const p = followed(result, state);
      const where = p ? ` ${quoted(p.word)} stands at position ${p.index_a} in A and at position ${p.index_b} in B, ` +
        'so it gets a different one added in each.' : '';
      return 'Now each position gets its own fixed random vector (a stand-in for a real encoding), ' +
        `added to the word before attention, at magnitude ${sig(state.scale)}.${where}`;
    },
    question: (ctx) => `Will ${W(ctx)} still come out identical?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal: aboutWord((ctx, p) => {
      const { result, state } = ctx;
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
    }),
  },
  {
    title: 'Make the signal faint',
    show: '#plot', // what its answer points at: brought into view (views/tour.js)
    set: (state, form) => moduleView(state, form, { positions: true, scheme: 'random', scale: 0.001 }),
    intro: () => 'Keep the positional signal, but 500 times weaker: magnitude 0.001.',
    question: (ctx) => `What will np.allclose say about ${W(ctx)} now?`,
    choices: [{ label: 'Still False', value: false }, { label: 'True again', value: true }],
    answer: wordAnswer,
    reveal: aboutWord((ctx, p) => {
      const { state } = ctx;
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
    }),
  },
  {
    title: 'Your own words',
    anyState: true, // the student's words are the point
    set: (state) => Object.assign(state, { positions: false, causal: false, word: wordsOf(state.a).length - 1 }),
    intro: () => 'Type a sentence of your own into Sentence A, and the same words in another order ' +
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
    show: '#plot', // what its answer points at: brought into view (views/tour.js)
    set: (state, form) => moduleView(state, form, { positions: true, scheme: 'sinusoidal', scale: form.defaultScale('sinusoidal') }),
    intro: () => 'The original Transformer does not add random vectors. It adds sine and cosine waves of many ' +
      'wavelengths, so each position gets its own smooth pattern.',
    question: (ctx) => `With these waves at full strength, will ${W(ctx)} come out identical in both sentences?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal: aboutWord((ctx, p) => {
      const { state } = ctx;
      const t = thresholdWords(ctx.threshold(p.index_a), ctx.form);
      return [claim(p), p.allclose
        ? `Here the waves do not move the output past the tolerance (${tolerances(state)}). ${t}`
        : `Like the random stand-in, the waves give the word a different input at each position, and the ` +
          `outputs part ways. ${t}`];
    }),
  },
  {
    title: 'Rotating instead of adding: RoPE',
    // followed: "bites", which keeps its place while its neighbours trade
    // theirs (cosine distance 0.064; "man" moves by 7e-4 here)
    set: (state, form) => moduleView(state, form, { positions: true, scheme: 'rope', scale: form.defaultScale('rope'), word: 1 }),
    intro: () => 'RoPE adds nothing to the words. It turns every query and key by an angle that grows with the ' +
      'position, so how well two words match depends on how far apart they are.',
    question: (ctx) => `The word vectors themselves are untouched. Will ${W(ctx)}, which stands in the middle of ` +
      'both sentences, still come out differently?',
    choices: [{ label: 'Still identical', value: true }, { label: 'Different', value: false }],
    answer: wordAnswer,
    reveal: aboutWord((ctx, p) => {
      const { state } = ctx;
      return [claim(p), p.allclose
        ? `Here the rotation leaves the attention weights too close to tell apart (${tolerances(state)}).`
        : 'Turning queries and keys changes who attends to whom, and that alone is enough. The values are ' +
          'not turned, so each output is still a mix of the same value vectors: only the weights moved (open ' +
          '“Attention weights” below the chart to see them).'];
    }),
  },
  {
    title: 'Order without positions: the causal mask',
    set: (state, form) => moduleView(state, form, { positions: false, causal: true }),
    intro: () => 'Positional information is off again. Instead, a causal mask lets each word look only at itself ' +
      'and the words before it, as in GPT-style models.',
    question: (ctx) => `No positional information at all: will ${W(ctx)} be identical in both sentences?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal: aboutWord((ctx, p) => {
      const { state } = ctx;
      const end = 'That is the path: with neither positions nor a mask, attention is blind to order. ' +
        'Next: two tests of what makes a positional signal a good one.';
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
    }),
  },
  {
    title: 'The shift test: where the sentence starts',
    anyState: true, // it names the scheme shown and runs every other one
    set: (state, form) => shiftTest(state, form, 'rope'),
    intro: ({ state }) => {
      const later = state.offsetB - state.offsetA;
      return 'Sentence B is the very same sentence as A, but it starts ' +
        `${later} position${Math.abs(later) === 1 ? '' : 's'} later, as if it came after other text ` +
        `(the fields under the sentences say where each starts). ${SCHEMES[state.scheme].label} is on.`;
    },
    question: ({ state }) => `Same words, same order, only further along. With ${SCHEMES[state.scheme].label}, ` +
      'will every word come out identical?',
    choices: [{ label: 'All identical', value: true }, { label: 'Some differ', value: false }],
    answer: ({ result }) => tally(result).all,
    reveal(ctx) {
      const { result, state } = ctx;
      const every = everyScheme(ctx);
      const lines = [`With ${SCHEMES[state.scheme].label}: ${tally(result).text}`,
        `The same test with each kind of signal (words that say True): ${every.text}.`];
      const by = Object.fromEntries(every.runs.map((r) => [r.scheme, r.all]));
      if (by.rope && by.alibi && !by.random && !by.sinusoidal) {
        lines.push('The stand-in and sinusoidal add a signal for where each word stands, so starting later ' +
          'changes every input. RoPE and ALiBi see only how far apart words stand, and moving the whole ' +
          'sentence keeps every distance: to them a sentence reads the same wherever it starts. That is what ' +
          '“relative” positions means.');
      } else {
        const causes = otherCauses(ctx).filter((c) => c !== 'positional information is on');
        lines.push('Not the usual split between the schemes that say where a word stands and those that see ' +
          `only distances${causes.length ? `: ${list(causes)}` : ''}. Set this step up again to compare.`);
      }
      return lines;
    },
  },
  {
    title: 'ALiBi: a sentence and its mirror',
    set: (state, form) => moduleView(state, form, ALIBI_SETTINGS),
    intro: ({ state }) => 'ALiBi adds nothing to the words either. It lowers each attention score by how far apart the two ' +
      'words stand: the further apart, the lower (Press et al. 2022). ' +
      (state.heads > 1 ? `Each of the ${state.heads} heads does this at its own rate, the paper’s slopes for ${state.heads} heads`
        : 'One head has one rate, 1/256 per word') +
      `, here times ${sig(state.scale)}, ${state.causal ? 'with' : 'without'} a causal mask.`,
    question: ({ result, state }) => (arrangement(result)?.reversed
      ? `“${state.b}” is “${state.a}” read backwards. With ALiBi, will every word come out identical?`
      : 'With ALiBi, will every word come out identical?'),
    choices: [{ label: 'All identical', value: true }, { label: 'Some differ', value: false }],
    answer: ({ result }) => tally(result).all,
    reveal(ctx) {
      const { result } = ctx;
      const lines = [tally(result).text];
      const facts = arrangement(result);
      if (facts?.reversed && tally(result).all) {
        const [first, last] = [result.pairs[0], result.pairs.at(-1)];
        lines.push(`Reading a sentence backwards keeps every distance: ${quoted(first.word)} and ` +
          `${quoted(last.word)} stand ${Math.abs(last.index_a - first.index_a)} apart in A and ` +
          `${Math.abs(last.index_b - first.index_b)} apart in B. ALiBi sees ${SEES.alibi}, so without a causal ` +
          'mask it cannot tell who did what to whom, however strong it is.');
      } else if (!tally(result).all) {
        const causes = otherCauses(ctx).filter((c) => c !== 'positional information is on');
        lines.push(`Some words differ here: ${causes.length ? list(causes) : 'B is not A read backwards'}.`);
      }
      const other = ctx.verdict(NOT_REVERSED);
      const chased = followed(other, NOT_REVERSED);
      lines.push(`A swap is not a reversal: in ${quoted(NOT_REVERSED.a)} / ${quoted(NOT_REVERSED.b)} ` +
        '“cat” and “mouse” trade places while “the” and “chased” stay, so some distances change. With the same ' +
        `settings ${quoted(chased.word)} says ${TF(chased.allclose)} (cosine distance ${sig(chased.cosine_distance)}) ` +
        `and the sentence mean ${TF(other.mean.allclose)} (cosine distance ${sig(other.mean.cosine_distance)}). ` +
        'It is among the example pairs.');
      const rope = tally(ctx.verdict({ scheme: 'rope', scale: ctx.form.defaultScale('rope') }));
      lines.push(`RoPE, which also sees which word comes first, ${rope.all ? 'cannot tell them apart either' : 'tells them apart'}: ` +
        `with it, ${rope.same} of ${rope.paired} words say True. Next: the whole architecture the module’s claim ` +
        'is about.');
      return lines;
    },
  },
  {
    title: 'A whole transformer: depth keeps the identity',
    show: '#blocks', // what its answer points at: brought into view (views/tour.js)
    set: (state, form) => transformerView(state, form, {}),
    intro: ({ state }) => `The lab now runs GPT-2’s architecture instead of one head: ${state.layers} blocks, each ` +
      `with LayerNorm, ${state.heads}-head attention with an output projection, a GELU MLP and residual ` +
      'connections. Positional information and the mask are off.',
    question: (ctx) => `After ${ctx.state.layers} blocks, will ${W(ctx)} come out as the same vector in both sentences?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal: aboutBlocks((ctx, p, blocks) => {
      const { state } = ctx;
      const lines = [`${blocks.text} (the block-by-block picture under the verdicts).`];
      const deep = ctx.verdict({ layers: ctx.form.property('layers').max });
      const deepWord = followed(deep, state);
      if (blocks.all && p.allclose && !state.positions && !state.causal) {
        lines.push('Everything in a block except attention works on each word alone, and attention with neither ' +
          'positions nor a mask sees the words as a set: stacking blocks cannot tell the two orders apart. ' +
          `With ${ctx.form.property('layers').max} blocks: ${TF(deepWord?.allclose)}. So the module’s claim holds for ` +
          'a transformer without positions and without a mask: an encoder.');
      } else {
        const causes = otherCauses(ctx);
        lines.push(`With ${ctx.form.property('layers').max} blocks: ${TF(deepWord?.allclose)}.` +
          (causes.length ? ` Here ${list(causes)}.` : ''));
      }
      return lines;
    }),
  },
  {
    title: 'GPT-2’s mask: order without positions',
    show: '#blocks', // what its answer points at: brought into view (views/tour.js)
    // at weight scale 1: at GPT-2's initial 0.02 the difference is real but
    // faint (cosine distance 5e-6), and the reveal quotes both
    set: (state, form) => transformerView(state, form, { causal: true, weightStd: 1 }),
    intro: ({ state }) => 'The same blocks, still without positional information, now with the causal mask GPT-2 uses: ' +
      `each word attends only to itself and the words before it. The weight scale is ${sig(state.weightStd)}, so ` +
      'each head’s attention is peaked rather than nearly uniform.',
    question: (ctx) => `Will ${W(ctx)} be identical in both sentences now?`,
    choices: SAME_DIFF,
    answer: wordAnswer,
    reveal: aboutBlocks((ctx, p, blocks) => {
      const { result, state } = ctx;
      const lines = [];
      if (!p.allclose && blocks.none && state.causal && !state.positions) {
        const first = result.layers[0].pairs[p.index_a];
        lines.push(`It differs from block 1 on (cosine distance ${sig(first.cosine_distance, 2)} after block 1). ` +
          'GPT-2 is such a causal decoder: even without its position table it is not order-blind, because the ' +
          'mask alone tells it the order. The module’s “no matter how large” holds for an encoder, not for GPT-2.');
      } else {
        lines.push(`${blocks.text}.`);
      }
      // What the weight scale does to it, computed for both ends.
      const at = (weightStd) => followed(ctx.verdict({ weightStd }), state);
      const small = at(ctx.form.defaultState().weightStd);
      const large = at(1);
      if (small && large) {
        lines.push(`How much it differs depends on the weights: at GPT-2’s initial weight scale ` +
          `${ctx.form.defaultState().weightStd} the attention is nearly uniform and the cosine distance is ` +
          `${sig(small.cosine_distance, 2)}; at weight scale 1 attention is peaked and it is ${sig(large.cosine_distance, 2)}. ` +
          'Next: models trained here, where the same two switches decide what a model answers.');
      }
      return lines;
    }),
  },
  ...EXERCISE_2,
];

export { TOUR_STEPS };
if (STEPS.length !== TOUR_STEPS) throw new Error(`tour_length.js says ${TOUR_STEPS} steps; tour_steps.js has ${STEPS.length}`);
if (STEPS.findIndex((s) => s.only) !== TOUR_STEPS - GPT2_ONLY_STEPS || !STEPS.slice(TOUR_STEPS - GPT2_ONLY_STEPS).every((s) => s.only)) {
  throw new Error(`tour_length.js says the last ${GPT2_ONLY_STEPS} steps are for GPT-2 only; tour_steps.js differs`);
}

// The settings a step sets up, in words, for saying what was changed since.
// Those under Advanced (d, heads, seed, tolerances) are the student's to
// try: every claim is computed for them, and tolerances are named when
// they matter.
const SETTING_WORDS = {
  a: 'sentence A', b: 'sentence B', offsetA: 'where A starts', offsetB: 'where B starts',
  positions: 'positional information', scheme: 'the kind of signal', scale: 'the magnitude', causal: 'the causal mask',
  model: 'the model', layers: 'the number of blocks', weightStd: 'the weight scale',
  space: 'the space before each sentence',
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

// How many steps the tour shows with ctx (a step with `only` is left out
// when it says no): the steps so marked are the last ones.
export const shownSteps = (ctx) => STEPS.filter((s) => !s.only || s.only(ctx)).length;

// When the lab is off a step's setup, the step's own explanation may not
// fit: this one is built only from the live state and result.
const generic = aboutWord((ctx, p) => {
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
});

// What the tour says after a guess at step k: the step's own words when the
// lab shows its setup (or the step's words fit any state: `anyState`),
// otherwise words built from what the lab shows.
export function revealAt(k, ctx) {
  if (STEPS[k].anyState || offSetup(k, ctx.state, ctx.form).length === 0) return STEPS[k].reveal(ctx);
  return generic(ctx);
}
