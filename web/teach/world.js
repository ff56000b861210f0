// world.js - the world the models trained here were trained on
// (models/world.py, which trains them; tests/node/lesson.test.mjs holds the
// two to the same words): a statement "doer verb receiver ." and a question
// for one of the two. Their answer after anything else is no answer.
export const NOUNS = ['dog', 'man', 'cat', 'woman', 'child', 'teacher', 'student', 'horse',
  'bird', 'fox', 'king', 'queen', 'doctor', 'nurse', 'farmer', 'baker'];
// present tense and participle
export const VERBS = [['bites', 'bitten'], ['chases', 'chased'], ['sees', 'seen'],
  ['helps', 'helped'], ['pushes', 'pushed'], ['thanks', 'thanked'],
  ['kicks', 'kicked'], ['follows', 'followed']];
