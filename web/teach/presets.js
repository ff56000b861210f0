// presets.js - example sentence pairs: the same words, a different meaning
// (and one pair that is not a reordering, to show what the notes say).
export const PRESETS = [
  { a: 'dog bites man', b: 'man bites dog' },
  { a: 'the cat chased the mouse', b: 'the mouse chased the cat' },
  { a: 'the teacher thanked the student', b: 'the student thanked the teacher' },
  { a: 'she left before he ate', b: 'he left before she ate' },
  { a: 'dog bites man', b: 'man bites cat' },
];
