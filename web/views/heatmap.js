// heatmap.js - the two attention matrices as tables side by side: row i is
// word i looking at the sentence, column j the word it looks at, each row
// adding up to 1. Every cell shows its weight as a number; its shade comes
// from the CSS custom property --w (set with style.setProperty, which the
// page's CSP allows). "Line B up in A's order" permutes B's rows and columns
// by the word pairing, so that with positions off the two are visibly the
// same matrix. With several heads, a menu picks the head whose weights are
// shown. Words reach the DOM only through textContent.
import { sig, ROUNDING_LEVEL } from '../app/format.js';
import { el, setText, setHidden } from './dom.js';
import { h } from './markup.js';

// The section's body around its controls (which index.html has, so that Tab
// reaches them the moment it opens): drawn only once the section is opened.
function addMarkup(tools) {
  const box = (id, which) => h('div', { class: 'heat-box' }, h('table', { class: 'heat', id }, h('caption', {}, h('span', { class: 'which' }, which))));
  tools.before(h('p', { class: 'hint' }, 'Row: the word looking. Column: the word it looks at. Each row adds up to 1; the stronger the ' +
    'colour, the more attention. The small number under a word is its position.'));
  tools.after(
    h('p', { class: 'hint', id: 'heat-align-hint', hidden: '' }, 'Only possible when sentence B is a reordering of sentence A.'),
    h('div', { class: 'heatmaps' }, box('heat-a', 'Sentence A'), box('heat-b', 'Sentence B')),
    h('p', { class: 'heat-note', id: 'heat-note' }));
}

// The weight as the cell shows it: exact zeros (masked) as "0".
export const weightText = (w) => (w === null ? 'nan' : w === 0 ? '0' : w.toFixed(2));

// B's matrix in A's word order: row/column k is the partner of A's word k.
export function lineUp(matrix, order) {
  return order.map((i) => order.map((j) => matrix[i][j]));
}

// The largest |difference| between two matrices of the same shape.
export function maxAbsDiff(x, y) {
  let worst = 0;
  x.forEach((row, i) => row.forEach((v, j) => { worst = Math.max(worst, Math.abs(v - y[i][j])); }));
  return worst;
}

// One table: fills `table` for `labels` (words with their positions) and
// `matrix`, rebuilding the cells only when the labels change.
function fill(table, labels, matrix) {
  const key = JSON.stringify(labels);
  if (table.dataset.key !== key) {
    const caption = table.querySelector('caption');
    const head = el('tr');
    const corner = el('td', 'corner');
    corner.append(el('span', 'visually-hidden', 'rows: the word looking; columns: the word looked at'));
    head.append(corner);
    for (const { word, at } of labels) {
      const th = el('th', 'col');
      th.scope = 'col';
      th.append(el('span', 'heat-word', word), el('span', 'heat-pos', String(at)));
      head.append(th);
    }
    const body = el('tbody');
    for (const { word, at } of labels) {
      const row = el('tr');
      const th = el('th', 'row');
      th.scope = 'row';
      th.append(el('span', 'heat-word', word), el('span', 'heat-pos', String(at)));
      row.append(th, ...labels.map(() => el('td', 'w')));
      body.append(row);
    }
    const thead = el('thead');
    thead.append(head);
    table.replaceChildren(caption, thead, body);
    table.dataset.key = key;
  }
  const rows = table.tBodies[0].rows;
  matrix.forEach((values, i) => {
    values.forEach((w, j) => {
      const cell = rows[i].cells[j + 1];
      const text = weightText(w);
      setText(cell, text);
      cell.style.setProperty('--w', String(w ?? 0));
      cell.classList.toggle('hot', (w ?? 0) > 0.55);
    });
  });
}

// The head menu: one option per head, rebuilt when the count changes; the
// head picked stays picked while it exists. With one head there is nothing
// to pick, and the note says where more are set. Returns the head to show.
function pickHead({ pick, select, note }, heads) {
  if (select.options.length !== heads) {
    const was = Number(select.value) || 0;
    select.replaceChildren(...Array.from({ length: heads }, (_, h) => {
      const option = document.createElement('option');
      option.value = String(h);
      option.textContent = `${h + 1} of ${heads}`;
      return option;
    }));
    select.value = String(Math.min(was, heads - 1));
    setHidden(pick, heads === 1);
    setText(note, heads === 1 ? 'One attention head (set more under Advanced)' : '');
  }
  return Number(select.value);
}

// section: the <details> whose body this fills (#heat-a, #heat-b,
// #heat-align, the head menu and #heat-note); onChange: called when the
// student lines B up or picks another head.
export function createHeatmaps(section, onChange) {
  addMarkup(section.querySelector('.heat-tools'));
  for (const id of ['#heat-align', '#heat-head']) section.querySelector(id).addEventListener('change', onChange);
  const tableA = section.querySelector('#heat-a');
  const tableB = section.querySelector('#heat-b');
  const align = section.querySelector('#heat-align');
  const alignHint = section.querySelector('#heat-align-hint');
  const captionB = tableB.querySelector('caption .which');
  const note = section.querySelector('#heat-note');
  const head = {
    pick: section.querySelector('#heat-head-pick'),
    select: section.querySelector('#heat-head'),
    note: section.querySelector('#heat-head-note'),
  };

  // result: a `full` lab result.
  function render(result) {
    // a checkpoint's rows are its tokens
    const { offset_a: startA, offset_b: startB } = result.config;
    const wordsA = result.tokens_a?.map((t) => t.text) ?? result.config.sentence_a;
    const wordsB = result.tokens_b?.map((t) => t.text) ?? result.config.sentence_b;
    const h = pickHead(head, result.attention_heads_a.length);
    const A = result.attention_heads_a[h];
    const B = result.attention_heads_b[h];
    // Side by side while both fit, one above the other when they do not.
    section.querySelector('.heatmaps').style.setProperty('--n', String(Math.max(wordsA.length, wordsB.length)));
    // a word's position: where its sentence starts, plus its index
    fill(tableA, wordsA.map((word, i) => ({ word, at: startA + i })), A);
    align.disabled = !result.permutation;
    setHidden(alignHint, result.permutation);
    const lined = align.checked && result.permutation;
    section.classList.toggle('lined-up', lined);
    let text;
    if (lined) {
      const order = result.pairs.map((p) => p.index_b);
      const same = lineUp(B, order);
      fill(tableB, order.map((j) => ({ word: wordsB[j], at: startB + j })), same);
      captionB.textContent = 'Sentence B, lined up in A’s word order';
      const diff = maxAbsDiff(A, same);
      text = diff < ROUNDING_LEVEL
        ? `Lined up, the two matrices are the same: no weight differs by more than ${sig(diff)} (rounding). ` +
          'Reordering the words only reordered the matrix.'
        : `Lined up, the two matrices still differ, by up to ${sig(diff)} in one weight: ` +
          'the words attend to each other differently in the two sentences.';
    } else {
      fill(tableB, wordsB.map((word, j) => ({ word, at: startB + j })), B);
      captionB.textContent = 'Sentence B';
      text = result.permutation
        ? 'Rows and columns follow each sentence’s own word order. Line B up in A’s order to compare like with like.'
        : 'Sentence B is not a reordering of A, so the two cannot be lined up word for word.';
    }
    setText(note, text);
    // A matrix wider than its box (5 words at 375 px) says that it scrolls.
    requestAnimationFrame(() => {
      for (const table of [tableA, tableB]) {
        const box = table.parentElement;
        box.classList.toggle('scrolls', box.scrollWidth > box.clientWidth + 1);
      }
    });
  }

  return { render };
}
