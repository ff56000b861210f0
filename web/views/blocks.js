// blocks.js - the transformer's block-by-block picture: the cosine distance
// between the two sentences for the followed word and the sentence mean
// after each block and at the output (log scale; filled dots False, rings
// True, so colour is never the only signal), the same figures as a table
// (its text alternative), and what they say in words (teach/blocks_story.js).
// An SVG styled from the page's CSS, so dark mode and 375 px just work.
import { sig, powerOfTen } from '../app/format.js';
import { blockSeries, blocksStory } from '../teach/blocks_story.js';
import { tokenName } from '../app/state.js';
import { setText, setAttr, el } from './dom.js';
import { h } from './markup.js';

const SVG = 'http://www.w3.org/2000/svg';
// The SVG's own coordinates (its viewBox): room for the labels.
const BOX = { width: 360, height: 170, left: 46, right: 12, top: 16, bottom: 30 };
// Cosine distances of 0 or tiny negatives (rounding) are drawn on the floor.
const FLOOR_EXP = -17;
const TOP_EXP = 0.4; // a cosine distance is at most 2
const TICKS = [-16, -12, -8, -4, 0];

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

const yOf = (cosine) => {
  const exp = cosine > 0 ? Math.min(TOP_EXP, Math.max(FLOOR_EXP, Math.log10(cosine))) : FLOOR_EXP;
  const h = BOX.height - BOX.top - BOX.bottom;
  return BOX.top + h * (TOP_EXP - exp) / (TOP_EXP - FLOOR_EXP);
};

const verdictText = (p) => (p ? (p.allclose ? 'True' : 'False') : '–');
const distanceText = (p) => (p ? sig(p.cosine) : '–');

// The section's body: index.html has only its heading, since a student who
// never switches to transformer blocks never needs the rest, and opening
// the lab is weighed by the byte (tests/browser/weight.test.mjs).
function sectionMarkup() {
  const col = (text, className) => h('th', className ? { scope: 'col', class: className } : { scope: 'col' }, text);
  return [
    h('p', { class: 'blocks-story', id: 'blocks-story' }),
    h('ul', { class: 'bl-legend', 'aria-hidden': 'true' },
      h('li', { class: 'bl-legend-word' }, h('span', { class: 'legend-line' }), h('span', { class: 'blocks-legend-word' }, 'the word')),
      h('li', { class: 'bl-legend-mean' }, h('span', { class: 'legend-line' }), 'sentence mean'),
      h('li', { class: 'legend-dots' }, h('span', { class: 'dot dot-true' }), 'True ', h('span', { class: 'dot dot-false' }), 'False')),
    h('svg', { class: 'blocks-chart', id: 'blocks-chart', role: 'img', 'aria-labelledby': 'blocks-chart-label blocks-story',
      viewBox: `0 0 ${BOX.width} ${BOX.height}` }),
    h('p', { class: 'bl-caption', id: 'blocks-chart-label' }),
    h('details', { class: 'chart-data bl-data', id: 'blocks-data' },
      h('summary', {}, 'The numbers as a table'),
      h('div', { class: 'chart-data-scroll', role: 'region', 'aria-label': 'Block by block, as numbers', tabindex: '0' },
        h('table', { class: 'bl-table' },
          h('caption', {}, 'Cosine distance between sentence A and sentence B after each block (the residual stream, ' +
            'before the final LayerNorm) and at the output, and the np.allclose verdict'),
          h('thead', {}, h('tr', {}, col('after'), col('word: cosine distance', 'blocks-col-word'), col('np.allclose'),
            col('sentence mean: cosine distance'), col('np.allclose'))),
          h('tbody')))),
  ];
}

// The model group's notes on the transformer, which come with this view
// (the page's markup has empty paragraphs for them).
const NOTES = {
  'model-hint': 'With no positions and no mask, every word stays True through every block: depth, LayerNorm and the ' +
    'MLPs keep the identity. With the causal mask it is False even with no positions: GPT-2 is a causal decoder, and ' +
    'the mask alone tells it the order.',
  'weight-std-hint': 'Why it matters: at GPT-2’s 0.02 every attention is nearly uniform before training, so relative ' +
    'schemes (RoPE, ALiBi) barely move the outputs; at 1 it is peaked.',
};

export function createBlocks(root) {
  root.append(...sectionMarkup());
  for (const [id, text] of Object.entries(NOTES)) {
    const note = document.getElementById(id);
    if (note && !note.textContent) note.textContent = text;
  }
  const chart = root.querySelector('#blocks-chart');
  const story = root.querySelector('#blocks-story');
  const caption = root.querySelector('#blocks-chart-label');
  const legendWord = root.querySelector('.blocks-legend-word');
  const body = root.querySelector('tbody');
  const wordHead = root.querySelector('.blocks-col-word');
  let shown = { result: null, word: -1 };

  // The chart's frame (grid, ticks, labels) and the table's rows are built
  // when the number of blocks changes; a slider step only moves the lines
  // and dots and rewrites the cells whose text changed, since rebuilding
  // them was a third of a step's layout at 4 blocks under 2x throttling.
  let frame = null; // {n, xOf, lines: {mean, word}, dots: {mean, word}, cells}

  function build(series) {
    const n = series.labels.length;
    const w = BOX.width - BOX.left - BOX.right;
    const xOf = (i) => BOX.left + (n === 1 ? w / 2 : (w * i) / (n - 1));
    const parts = [];
    for (const exp of TICKS) {
      const y = yOf(10 ** exp);
      parts.push(svg('line', { class: 'bl-grid', x1: BOX.left, x2: BOX.width - BOX.right, y1: y, y2: y }));
      parts.push(svg('text', { class: 'bl-tick', x: BOX.left - 4, y: y + 3.5, 'text-anchor': 'end' }, powerOfTen(exp)));
    }
    // Every label when they fit; at 12 blocks every other one, and the output.
    const step = n > 9 ? 2 : 1;
    series.labels.forEach((label, i) => {
      if (i % step === 0 || i === n - 1) {
        parts.push(svg('text', { class: 'bl-tick', x: xOf(i), y: BOX.height - BOX.bottom + 13, 'text-anchor': 'middle' }, label));
      }
    });
    parts.push(svg('text', { class: 'bl-axis', x: BOX.left + w / 2, y: BOX.height - 3, 'text-anchor': 'middle' },
      'after block … and at the output'));
    const lines = {}, dots = {};
    for (const which of ['mean', 'word']) { // the word's line over the mean's
      lines[which] = svg('polyline', { class: `bl-line bl-${which}` });
      dots[which] = series.labels.map((_, i) => svg('circle', { cx: xOf(i), r: 3.6 }));
      parts.push(lines[which], ...dots[which]);
    }
    chart.replaceChildren(...parts);

    const cells = series.labels.map((label) => {
      const row = el('tr');
      const head = el('th', '', label === 'out' ? 'output' : `block ${label}`);
      head.scope = 'row';
      const tds = [0, 1, 2, 3].map(() => el('td', ''));
      row.append(head, ...tds);
      return tds;
    });
    body.replaceChildren(...cells.map((tds) => tds[0].parentNode));
    frame = { n, xOf, lines, dots, cells };
  }

  // A line's points and dots; hidden where the word has no partner.
  function plot(which, points) {
    const xy = points.map((p, i) => (p ? `${frame.xOf(i).toFixed(1)},${yOf(p.cosine).toFixed(1)}` : null)).filter(Boolean);
    frame.lines[which].toggleAttribute('hidden', xy.length === 0); // SVG has no .hidden
    setAttr(frame.lines[which], 'points', xy.join(' '));
    frame.dots[which].forEach((dot, i) => {
      const p = points[i];
      dot.toggleAttribute('hidden', !p);
      if (!p) return;
      setAttr(dot, 'cy', yOf(p.cosine).toFixed(2));
      setAttr(dot, 'class', `bl-dot bl-${which} ${p.allclose ? 'is-true' : 'is-false'}`);
    });
  }

  function draw(series) {
    if (frame?.n !== series.labels.length) build(series);
    plot('mean', series.mean_points);
    plot('word', series.paired ? series.word_points : series.word_points.map(() => null));
  }

  function table(series) {
    setText(wordHead, `“${tokenName(series.word)}”: cosine distance`);
    frame.cells.forEach((tds, i) => {
      const w = series.word_points[i];
      const m = series.mean_points[i];
      [distanceText(w), verdictText(w), distanceText(m), verdictText(m)].forEach((text, k) => setText(tds[k], text));
    });
  }

  // result: a transformer's (with `layers`); state: the lab's.
  function render(result, state) {
    if (!result.layers || (shown.result === result && shown.word === state.word)) return;
    shown = { result, word: state.word };
    const series = blockSeries(result, state.word);
    const lines = blocksStory(result, state);
    setText(story, lines.join(' '));
    setText(legendWord, `“${tokenName(series.word)}”`);
    setText(caption, `Cosine distance between the sentences after each of the ${result.layers.length} ` +
      `block${result.layers.length === 1 ? '' : 's'} (before the final LayerNorm) and at the output, on a log scale; ` +
      '0 and rounding-level values sit on the floor.');
    draw(series);
    table(series);
  }

  return { render };
}
