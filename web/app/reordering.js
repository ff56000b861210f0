// reordering.js - what a result says about reordering the words, as the two
// sections below the verdicts (views/permutation.js) state it. Their closed
// summaries carry the answer, so it is worked out with every result; their
// bodies' code loads when one is opened.
import { sig } from './format.js';

// The two properties for a result, or null when B is not a reordering of A.
export function permutationFacts(result) {
  if (!result.permutation) return null;
  const pairs = result.pairs;
  const worst = pairs.reduce((m, p) => (p.max_abs_diff > m.max_abs_diff ? p : m), pairs[0]);
  return {
    order: pairs.map((p) => p.index_b),
    equivariant: pairs.every((p) => p.allclose),
    rowsMaxDiff: worst.max_abs_diff,
    worstWord: worst.word,
    invariant: result.mean.allclose,
    meanMaxDiff: result.mean.max_abs_diff,
  };
}

// The summaries' figures: [the permutation view's, the averaging baseline's].
export function reorderingBadges(result) {
  const facts = permutationFacts(result);
  const held = facts && facts.equivariant + facts.invariant;
  return [facts ? ['both break', 'one holds', 'both hold'][held] : 'not a reordering',
    `cosine similarity ${sig(result.baseline.cosine_similarity)}`];
}
