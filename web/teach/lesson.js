// lesson.js - "the lesson in three switches" for the models trained here
// (docs/models.md): with positions off and the mask on, a model still tells
// the two sentences apart; with both off, every token is True and the model
// answers both sentences alike; and `nope` learned the order from the mask
// alone. No DOM here, and nothing written in advance: every verdict, count
// and answer in the text is read from runs of the open model, and when a
// run says something else than the lesson expects, the text says what is
// seen instead. The tour's exercise-2 steps use the same facts.
import { sig } from '../app/format.js';
import { wordsOf } from '../app/state.js';
import { MODELS, modelOf } from '../app/models.js';
import { NOUNS, VERBS } from './world.js';

// The model the lesson's last point is about: trained here with the mask
// and no position table (nope).
const MASK_ONLY = MODELS.find((m) => m.lesson === 'switches' && m.defaults.causal && !m.defaults.positions).name;

// The three settings of the two switches the lesson compares.
export const SWITCHES = [
  { key: 'both', positions: true, causal: true, label: 'positions on, mask on' },
  { key: 'mask', positions: false, causal: true, label: 'positions off, mask on' },
  { key: 'neither', positions: false, causal: false, label: 'positions and mask off' },
];

// The questions of the models' world for the module's pair: who did it, who
// had it done to them. The page's sentences are these when a student
// follows the lesson's link.
export const QUESTIONS = {
  a: 'dog bites man . who bites ?',
  b: 'man bites dog . who bites ?',
};

const PARTICIPLE = new Map(VERBS);

// The questions about the student's own statements when both are of the
// models' world ("cat chases dog" and "dog chases cat" ask "cat chases dog
// . who chases ?" and "dog chases cat . who chases ?"), else QUESTIONS.
export function questionsFor(state) {
  const statement = (sentence) => {
    const w = wordsOf(sentence.replace(/\.\s*$/, ''));
    return w.length === 3 && NOUNS.includes(w[0]) && PARTICIPLE.has(w[1]) && NOUNS.includes(w[2]) ? w : null;
  };
  const [a, b] = [statement(state.a), statement(state.b)];
  if (!a || !b) return QUESTIONS;
  const ask = (w) => `${w.join(' ')} . who ${w[1]} ?`;
  return { a: ask(a), b: ask(b) };
}

// A state asking questionsFor(state), the word followed being their "?",
// the token after which the answer comes.
export function asking(state) {
  const questions = questionsFor(state);
  return { ...state, ...questions, word: wordsOf(questions.a).length - 1 };
}

// The right answer to a prompt of the models' world ("X verb Y . who verb ?"
// asks for X, "X verb Y . who is participle ?" for Y, with the world's nouns
// and verbs: world.js), or null for other text, a question the models were
// never asked included ("dog eats man . who eats ?", "... who is seen ?"
// after "bites"), whose answer is no more right than wrong.
export function rightAnswer(sentence) {
  const w = wordsOf(sentence);
  const statement = w.length >= 7 && NOUNS.includes(w[0]) && PARTICIPLE.has(w[1]) && NOUNS.includes(w[2]) &&
    w[3] === '.' && w[4] === 'who' && w[w.length - 1] === '?';
  if (!statement) return null;
  if (w.length === 7 && w[5] === w[1]) return w[0];
  if (w.length === 8 && w[5] === 'is' && w[6] === PARTICIPLE.get(w[1])) return w[2];
  return null;
}

// Whether the sentence ends in a question ("... ?"): one of another world
// gets no mark, and the panel says why.
export const questionLike = (sentence) => wordsOf(sentence).at(-1) === '?';

// A probability as the page says it: near 1, how far from 1.
export const probability = (p) => (p > 0.999 ? `1 − ${sig(1 - p, 2)}` : sig(p, 4));

// What one run says: how many paired tokens are True, the mean, exercise
// 2's figure, and the model's answer after each sentence (right or wrong
// when the sentence is a question of the world, else null).
export function factsOf(result, state) {
  const paired = result.pairs.filter((p) => p.index_b !== null);
  const same = paired.filter((p) => p.allclose).length;
  const answer = (next, sentence) => {
    const word = next[0].text.trim();
    const want = rightAnswer(sentence);
    return { word, probability: next[0].probability, want, right: want === null ? null : word === want };
  };
  const a = answer(result.next_a, state.a);
  const b = answer(result.next_b, state.b);
  return {
    paired: paired.length, same, differ: paired.length - same, reordered: Boolean(result.permutation),
    unpaired: result.pairs.length - paired.length,
    allTrue: paired.length > 0 && same === paired.length && result.mean.allclose,
    meanTrue: result.mean.allclose, similarity: result.mean_cosine_similarity,
    a, b, alike: a.word === b.word, bothRight: a.right === true && b.right === true,
    asked: a.want !== null && b.want !== null,
  };
}

const q = (w) => `“${w}”`;
const right = (x) => (x.right === null ? '' : x.right ? ', right' : `, wrong: the answer is ${q(x.want)}`);
// "“dog” after A (probability 1 − 1.1e-07, right) and “man” after B (...)"
export const answersText = (f) => `${q(f.a.word)} after A (probability ${probability(f.a.probability)}${right(f.a)}) and ` +
  `${q(f.b.word)} after B (probability ${probability(f.b.probability)}${right(f.b)})`;
const lonely = (f) => (f.unpaired ? ` (${f.unpaired === 1 ? '1 token' : `${f.unpaired} tokens`} of A with no partner in B)` : '');
const tokens = (f) => (f.paired
  ? `${f.differ} of ${f.paired} tokens False, ${f.same} True${lonely(f)}, the mean ${f.meanTrue ? 'True' : 'False'}`
  : `no token of A is in B, the mean ${f.meanTrue ? 'True' : 'False'}`);
// Said when B is not A's tokens in another order (a student's own words):
// then what tells the two apart may be their tokens, not their order.
const NOT_REORDERED = 'The two sentences are not the same tokens in another order: they differ in what they hold, ' +
  'so the switches cannot show here what the order does.';

// The lesson for the open model `model` (gpt, nope or bag) on `state`:
// run(changes) is the open model's result for the state with a few
// settings changed (the lab's run, synchronous once the model is open).
// Returns {asked, rows, items}: rows, one per setting of the switches
// ({label, changes, facts}); items, the three points of the lesson
// ({key, title, lines, holds, needs}): `holds` is whether the live numbers
// show the point (null when the open model cannot show it; `needs` then
// names the model that can).
export function lesson(model, state, run) {
  // (positions on at another magnitude than the table as trained: the row says at which)
  const scaled = (s) => (s.positions && state.scale !== 1 ? s.label.replace('positions on', `positions on at magnitude ${sig(state.scale)}`) : s.label);
  const rows = SWITCHES.map((s) => {
    const changes = { positions: s.positions, causal: s.causal };
    return { key: s.key, label: scaled(s), changes, facts: factsOf(run(changes), { ...state, ...changes }) };
  });
  const at = (key) => rows.find((r) => r.key === key).facts;
  const mask = at('mask');
  const neither = at('neither');
  const asked = mask.asked;

  // (a) positions off, mask on
  const a = { key: 'mask', title: 'Positions off, mask on: the mask still tells the order' };
  a.holds = mask.reordered && !mask.allTrue;
  a.lines = [!mask.reordered ? `${model} with its positions off and the causal mask on: ${tokens(mask)}. ${NOT_REORDERED}`
    : a.holds
    ? `${model} with its positions off and the causal mask on: ${tokens(mask)}. It still tells the two sentences ` +
      'apart: under the mask each token sees only the tokens before it, and those differ between the two orders.'
    : `${model} with its positions off and the causal mask on: ${tokens(mask)}. Here the mask does not tell the ` +
      'two sentences apart (their tokens before each word are the same).'];
  if (asked) {
    a.lines.push(`It answers ${answersText(mask)}.`);
    if (a.holds && mask.alike) {
      a.lines.push(`Its hidden states differ, yet it answers both alike: ${model} did not learn to read the order ` +
        'from the mask. ' + (modelOf(model).defaults?.causal === false ? 'It was trained without the mask and never met it.'
        : modelOf(model).defaults?.positions ? 'It learned to read the order from its position table, although the mask was there all along.' : ''));
    }
  }

  // (b) positions and mask off
  const b = { key: 'neither', title: 'Positions and mask off: a bag of words' };
  b.holds = neither.allTrue && (!asked || neither.alike);
  b.lines = [neither.allTrue
    ? `${model} with neither: every token True (${neither.same} of ${neither.paired}) and the mean True. ` +
      'Each token sees the same set of tokens in both sentences, so nothing in the model can tell their order.'
    : `${model} with neither: ${tokens(neither)}. ` + (neither.reordered
      ? 'Not every token is True here, although the two sentences are the same tokens in another order.'
      : NOT_REORDERED)];
  if (asked) {
    b.lines.push(neither.alike
      ? `It answers both sentences alike: ${answersText(neither)}. The same answer for both means at most one is right.`
      : `It answers ${answersText(neither)}: not alike, so something besides the order differs between the two.`);
  }

  // (c) nope: the order from the mask alone
  const c = { key: MASK_ONLY, title: 'nope: order learned from the mask alone' };
  if (model !== MASK_ONLY) {
    c.holds = null;
    c.needs = MASK_ONLY;
    c.lines = ['Choose nope, trained with the causal mask and no position table, to see whether a model can ' +
      'learn the order from the mask alone.'];
  } else {
    c.holds = asked && mask.bothRight && !mask.allTrue;
    c.lines = [!asked ? 'Ask nope the questions (the link below) to see whether it answers from the order.'
      : mask.bothRight
        ? `nope has no position table, yet with the mask it answers ${answersText(mask)}: both right, so it ` +
          `learned the order from the mask alone. Its tokens: ${tokens(mask)}.`
        : `nope with the mask answers ${answersText(mask)}: not both right here. Its tokens: ${tokens(mask)}.`];
  }
  // A point the live numbers do not show here keeps its title, marked so:
  // the lines under it say what is seen instead.
  for (const item of [a, b, c]) if (item.holds === false) item.title += ' (not seen with these sentences)';
  return { asked, rows, items: [a, b, c] };
}
