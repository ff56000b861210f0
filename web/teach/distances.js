// distances.js - what a relative scheme can see of two sentences. RoPE sees
// only how far apart two words stand and which comes first; ALiBi only how
// far apart. So when every pair of words keeps its distance from A to B,
// they cannot tell the sentences apart, however strong the signal. Read
// from the core's pairing (result.pairs) and where each sentence starts
// (result.config); no DOM.
import { SCHEMES } from './schemes.js';

// How B's words stand compared with A's, for a result whose B is a
// reordering of A (null otherwise):
//   shift     how many positions every word moved, when all moved alike; else null
//   reversed  B is A read backwards
//   distances every pair of words is as far apart in B as in A
export function arrangement(result) {
  if (!result.permutation) return null;
  const { offset_a: startA = 0, offset_b: startB = 0 } = result.config;
  const pairs = result.pairs;
  const moves = pairs.map((p) => (startB + p.index_b) - (startA + p.index_a));
  const n = pairs.length;
  let distances = true;
  for (const p of pairs) {
    for (const q of pairs) {
      if (Math.abs(p.index_a - q.index_a) !== Math.abs(p.index_b - q.index_b)) distances = false;
    }
  }
  return {
    shift: moves.every((m) => m === moves[0]) ? moves[0] : null,
    reversed: n > 1 && pairs.every((p) => p.index_b === n - 1 - p.index_a),
    distances,
  };
}

// Whether `scheme` is blind to the difference between the two sentences:
// nothing it adds depends on what changed. A causal mask sees order, so a
// reversal shows through it even where ALiBi cannot.
export function blindTo(scheme, facts, causal) {
  if (!facts) return false;
  const relative = SCHEMES[scheme]?.kind === 'relative';
  if (facts.shift !== null) return relative || facts.shift === 0;
  return relative && SCHEMES[scheme].seesOrder === false && facts.distances && !causal;
}

const positions = (k) => `${Math.abs(k)} position${Math.abs(k) === 1 ? '' : 's'}`;

// B against A in words: "B is the same sentence, starting 5 positions later".
export function arrangementWords(facts) {
  if (facts.shift !== null) {
    if (facts.shift === 0) return 'every word of B stands where it stands in A';
    return `B is the same sentence, starting ${positions(facts.shift)} ${facts.shift > 0 ? 'later' : 'earlier'}`;
  }
  if (facts.reversed) return 'B is A read backwards';
  if (facts.distances) return 'every pair of words is as far apart in B as in A';
  return 'some pairs of words stand at other distances in B than in A';
}

// What each relative scheme sees, in a student's words (its teaching entry's).
export const SEES = Object.fromEntries(Object.entries(SCHEMES).filter(([, e]) => e.sees).map(([name, e]) => [name, e.sees]));
