// blocks_story.js - what the transformer's block-by-block figures say, in
// words, read from the live result (JSON `layers`: the residual stream
// after each block, and `pairs`/`mean`: the output after the final
// LayerNorm). No DOM here.
import { sig } from '../app/format.js';

const quoted = (word) => `“${word}”`;
const TF = (v) => (v ? 'True' : 'False');

// The series the picture draws for the followed word (index `word` of A)
// and the mean: one point per block, then the output. A point is
// {label, allclose, cosine} or null (a word without a partner).
export function blockSeries(result, word) {
  const k = Math.min(word, result.pairs.length - 1);
  const point = (figures, label) => (figures ? { label, allclose: figures.allclose, cosine: figures.cosine_distance } : null);
  const paired = result.pairs[k].index_b !== null;
  const labels = [...result.layers.map((_, b) => String(b + 1)), 'out'];
  return {
    word: result.pairs[k].word,
    paired,
    labels,
    word_points: [...result.layers.map((l, b) => point(paired ? l.pairs[k] : null, String(b + 1))),
      point(paired ? result.pairs[k] : null, 'out')],
    mean_points: [...result.layers.map((l, b) => point(l.mean, String(b + 1))), point(result.mean, 'out')],
  };
}

// "blocks 1–3", "block 4"
function blockRange(from, to) {
  return from === to ? `block ${from}` : `blocks ${from}–${to}`;
}

// Runs of equal verdicts over the blocks: "True after blocks 1–2, False after blocks 3–4".
function runs(points) {
  const parts = [];
  let start = 0;
  for (let b = 1; b <= points.length; b++) {
    if (b === points.length || points[b].allclose !== points[start].allclose) {
      parts.push(`${TF(points[start].allclose)} after ${blockRange(start + 1, b)}`);
      start = b;
    }
  }
  return parts.join(', ');
}

// Sentences about one series (the word's or the mean's) over L blocks.
function seriesText(name, points) {
  const blocks = points.slice(0, -1);
  const out = points.at(-1);
  const L = blocks.length;
  if (points.every((p) => p.allclose)) {
    return `${name} is True after ${L === 1 ? 'the one block' : `every one of the ${L} blocks`} and at the output.`;
  }
  if (points.every((p) => !p.allclose)) {
    const grow = L > 1 ? `, ${sig(blocks.at(-1).cosine, 2)} after block ${L}` : '';
    return `${name} is False from block 1 on: cosine distance ${sig(blocks[0].cosine, 2)} after block 1${grow}, ` +
      `${sig(out.cosine, 2)} at the output.`;
  }
  return `${name}: ${runs(blocks)}; ${TF(out.allclose)} at the output (cosine distance ${sig(out.cosine, 2)}).`;
}

// The picture's sentences: the followed word, the mean, and why.
export function blocksStory(result, state) {
  const s = blockSeries(result, state.word);
  const lines = [];
  lines.push(s.paired ? seriesText(quoted(s.word), s.word_points)
    : `${quoted(s.word)} has no partner in sentence B, so only the sentence mean is drawn.`);
  lines.push(seriesText('The sentence mean', s.mean_points));
  const all = [...(s.paired ? s.word_points : []), ...s.mean_points];
  const alwaysTrue = all.every((p) => p.allclose);
  const anyFalse = all.some((p) => !p.allclose);
  if (!state.positions && !state.causal && alwaysTrue && result.permutation) {
    lines.push('With no positions and no mask each block treats the words as a set: LayerNorm, the MLP and the ' +
      'residual connections work word by word and attention cannot see order, so depth never tells the two apart.');
  } else if (!state.positions && state.causal && anyFalse) {
    lines.push('No positions, yet False: the causal mask lets each word see only the words before it, and those ' +
      'differ between the sentences. GPT-2 is such a causal decoder, so the mask alone tells it the order.');
  }
  return lines;
}
