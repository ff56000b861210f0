// presets.js - example sentence pairs: the same words, a different meaning
// (and one pair that is not a reordering, to show what the notes say), and
// the pairs that test what a positional scheme sees. Each sets where the
// sentences start; `settings` adds what else its lesson needs (with a
// scheme, its magnitude: the one given, else the scheme's default), and the
// rest stays as the student left it. `label` names a pair in the menu when
// its words are not enough.
const START = { offsetA: 0, offsetB: 0 };
// `word`: the word followed, one whose output moves clearly (cosine distance
// above 1e-3) once positions are on, with the stand-in, sinusoidal or RoPE
// at its default magnitude. A word that keeps its place and its neighbours
// ("chased" in the cat and the mouse) hardly moves with the stand-in.
const pair = (a, b, word) => ({ a, b, settings: { ...START, word } });

// ALiBi's two pairs share their settings, so that the one difference between
// them is the arrangement of the words. With one head ALiBi's slope is 1/256:
// across five words the penalty moves a score by 4/256 at most, while the
// random weights spread the scores over several units, so a swap changes
// the outputs by a cosine distance of 1e-9 and looks like no difference at
// all. Three heads take the paper's slopes for three (1/16, 1/256, 1/4), and
// magnitude 16 makes the steepest head's penalty 4 per word of distance,
// the size of the scores themselves: then the distances decide where
// attention goes. Followed: "chased", which stands at position 2 in both
// sentences, yet has "cat" beside it in A and "mouse" beside it in B (cosine
// distance 0.11; every word and the mean above 5e-3, tests/node/teaching).
// No causal mask: with one, a reversal is no longer invisible to ALiBi.
export const ALIBI_SETTINGS = { ...START, dim: 12, heads: 3, positions: true, scheme: 'alibi', scale: 16, causal: false };
export const ALIBI_SWAP = { a: 'the cat chased the mouse', b: 'the mouse chased the cat' };

export const PRESETS = [
  pair('dog bites man', 'man bites dog', 1),
  pair('the cat chased the mouse', 'the mouse chased the cat', 1),
  pair('the teacher thanked the student', 'the student thanked the teacher', 1),
  pair('she left before he ate', 'he left before she ate', 2),
  pair('dog bites man', 'man bites cat', 2),
  // Absolute schemes see where the sentence starts; relative ones do not.
  {
    label: 'Shift test: one sentence, B starting 5 positions later',
    a: 'the cat chased the mouse',
    b: 'the cat chased the mouse',
    settings: { offsetA: 0, offsetB: 5, dim: 16, heads: 1, positions: true, scheme: 'sinusoidal' },
  },
  // A reversal keeps every distance, so ALiBi without a mask cannot see it.
  {
    label: 'ALiBi, no mask, a reversal: dog bites man / man bites dog',
    a: 'dog bites man',
    b: 'man bites dog',
    settings: ALIBI_SETTINGS,
  },
  {
    label: 'ALiBi, no mask, not a reversal: the cat chased the mouse / the mouse chased the cat',
    ...ALIBI_SWAP,
    settings: { ...ALIBI_SETTINGS, word: 2 },
  },
];
