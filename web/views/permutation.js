// permutation.js - two views beside the verdicts, both from the result the
// page already has (no extra run):
//   the permutation view: when B is a reordering of A, do the outputs
//     simply move with the words (equivariance: each output row of B is the
//     matching row of A) and does the sentence average stay put
//     (invariance)? Both hold with positions off and break once they are on.
//   the averaging baseline: the mean of the raw word vectors (a bag of
//     vectors) compared between the sentences: cosine similarity 1 for any
//     reordering, the same blindness in a simpler model.
// Loaded when one of the two is first opened; their closed summaries' figures
// are app/reordering.js's, set by the page with every result.
import { sig, ROUNDING_LEVEL } from '../app/format.js';
import { permutationFacts } from '../app/reordering.js';
import { setText, setHidden } from './dom.js';
import { setVerdict } from './verdicts.js';

const quoted = (word) => `“${word}”`;

// The two properties' badges, in the verdicts' style.
const HOLDS = ['holds', 'breaks'];

const size = (d) => (d < ROUNDING_LEVEL ? `${sig(d)}, which is rounding` : sig(d));

export function createPermutation(section) {
  const order = section.querySelector('#perm-order');
  const props = section.querySelector('#perm-props');
  const equi = section.querySelector('#prop-equi');
  const inv = section.querySelector('#prop-inv');
  const summary = section.querySelector('#perm-summary');

  function render(result, state) {
    const facts = permutationFacts(result);
    setHidden(props, !facts);
    if (!facts) {
      setText(order, 'Sentence B is not a reordering of sentence A (the words differ), so there is no ' +
        'reordering to follow. Use the same words in another order.');
      setText(summary, '');
      return;
    }
    const wordsA = result.pairs; // (a checkpoint's: its tokens)
    const moves = result.pairs.map((p) => `${quoted(p.word)} ${p.index_a}→${p.index_b}`).join(', ');
    setText(order, `Sentence B is sentence A reordered: ${moves} (word: position in A → position in B).`);

    setVerdict(equi.querySelector('.verdict'), facts.equivariant, HOLDS);
    setText(equi.querySelector('.prop-text'), `Each word’s output row in A against its row in B, for all ` +
      `${wordsA.length} words: the largest difference is ${size(facts.rowsMaxDiff)}` +
      (facts.rowsMaxDiff >= ROUNDING_LEVEL ? ` (at ${quoted(facts.worstWord)}).` : '.') +
      (facts.equivariant ? ' Every row passes np.allclose: reordering the words only reorders the outputs.'
        : ' Not every row passes np.allclose: a word’s output depends on where it stands.'));

    setVerdict(inv.querySelector('.verdict'), facts.invariant, HOLDS);
    setText(inv.querySelector('.prop-text'), `out_a.mean(0) against out_b.mean(0): max |diff| ` +
      `${size(facts.meanMaxDiff)}. ` + (facts.invariant
      ? 'The average of the outputs does not care about order, so anything reading only the average ' +
        'cannot tell the sentences apart.'
      : 'The average changes with the order, so even a reader of the average can tell the sentences apart.'));

    const cause = state.positions ? 'positional information is on' : state.causal ? 'the causal mask is on' : '';
    let line;
    if (facts.equivariant && facts.invariant) {
      line = 'Both hold: attention without positions or a mask treats a sentence as a bag of words.';
    } else if (!facts.equivariant && !facts.invariant) {
      line = `Both break${cause ? ` because ${cause}` : ''}: the outputs now depend on word order.`;
    } else {
      line = `One holds and one breaks${cause ? ` (${cause})` : ''}.`;
    }
    setText(summary, line);
  }

  return { render };
}

export function createBaseline(section) {
  const figure = section.querySelector('#baseline-cos');
  const verdict = section.querySelector('#baseline-verdict');
  const text = section.querySelector('#baseline-text');

  function render(result, state) {
    const b = result.baseline;
    setText(figure, sig(b.cosine_similarity));
    setVerdict(verdict, b.allclose);
    // What attention does right now, read from the verdicts.
    const blind = result.mean.allclose && result.pairs.every((p) => p.index_b === null || p.allclose);
    const source = state.positions ? 'positional information gives it the order'
      : state.causal ? 'the causal mask gives it the order' : 'see the settings under Advanced';
    const attention = blind
      ? 'Attention, as set up now, is just as blind: every verdict above is True.'
      : `Attention, as set up now, does tell the two apart (the False verdicts above): ${source}.`;
    setText(text, result.permutation
      ? 'Averaging throws the order away before anything else happens, so for any reordering the two ' +
        'averages are the same vector and their cosine similarity is 1, up to rounding. No switch on this ' +
        `page changes that. ${attention}`
      : 'The two sentences do not have the same words, so even the averages differ: this simpler model ' +
        'only notices which words there are, never their order.');
  }

  return { render };
}
