// presets.js - example sentence pairs: the same words, a different meaning
// (and one pair that is not a reordering, to show what the notes say), and
// the pairs that test what a positional scheme sees. Each sets where the
// sentences start; `settings` adds what else its lesson needs (a scheme
// starts at its own default magnitude), and the rest stays as the student
// left it. `label` names a pair in the menu when its words are not enough.
const START = { offsetA: 0, offsetB: 0 };
const pair = (a, b) => ({ a, b, settings: START });

export const PRESETS = [
  pair('dog bites man', 'man bites dog'),
  pair('the cat chased the mouse', 'the mouse chased the cat'),
  pair('the teacher thanked the student', 'the student thanked the teacher'),
  pair('she left before he ate', 'he left before she ate'),
  pair('dog bites man', 'man bites cat'),
  // Absolute schemes see where the sentence starts; relative ones do not.
  {
    label: 'Shift test: one sentence, B starting 5 positions later',
    a: 'the cat chased the mouse',
    b: 'the cat chased the mouse',
    settings: { offsetA: 0, offsetB: 5, dim: 16, heads: 1, positions: true, scheme: 'sinusoidal' },
  },
  // A reversal keeps every distance, so ALiBi cannot see it.
  {
    label: 'ALiBi reversal: dog bites man / man bites dog',
    a: 'dog bites man',
    b: 'man bites dog',
    settings: { ...START, positions: true, scheme: 'alibi' },
  },
  {
    label: 'ALiBi, not a reversal: the cat chased the mouse / the mouse chased the cat',
    a: 'the cat chased the mouse',
    b: 'the mouse chased the cat',
    settings: { ...START, dim: 16, heads: 1, positions: true, scheme: 'alibi' },
  },
];
