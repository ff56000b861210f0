// verdicts.js - the verdicts: two large cards (the plotted word and the
// sentence mean), one line saying what is going on, notes about unpaired
// words, and a table with every word of sentence A. User text reaches the
// DOM only through textContent. Text is rewritten only when it changes. A
// screen reader hears one short live line, #verdict-status, and only when a
// verdict flips: not every number of the table on every slider step.
import { sig, ROUNDING_LEVEL } from '../app/format.js';
import { tokenName } from '../app/state.js';
import { SCHEMES } from '../teach/schemes.js';
import { arrangement, arrangementWords, blindTo, SEES } from '../teach/distances.js';
import { setText, el, setHidden, setAttr, withRole } from './dom.js';
import { createSight } from './sight.js';

const quoted = (word) => `“${tokenName(word)}”`;

const times = (n) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);

// The unpaired tokens `indices` of a sentence (`texts`; `others`: the other
// sentence's) as the notes name them. A word a trained model has no token
// for comes in pieces, down to single bytes (GPT-2's " zebra" is " ", "z",
// "e", ... for the models trained here): consecutive unpaired pieces of one
// word (after the first, none starts with a space) are named once, with
// their count, instead of byte by byte. A word that is there more often
// than in the other sentence says so, since "no partner" alone read as if
// the other sentence lacked it.
function lonely(indices, texts, others, pieces, [mine, theirs]) {
  const runs = [];
  for (const i of indices) {
    const last = runs[runs.length - 1];
    if (pieces && last && i === last.end + 1 && !texts[i].startsWith(' ')) {
      last.text += texts[i];
      last.end = i;
      last.count += 1;
    } else {
      runs.push({ text: texts[i], end: i, count: 1 });
    }
  }
  return runs.map(({ text, count }) => {
    if (count > 1) return `${quoted(text.trim() || text)} (${count} tokens)`;
    const here = texts.filter((t) => t === text).length, there = others.filter((t) => t === text).length;
    return there ? `${quoted(text)} (${mine} has it ${times(here)}, ${theirs} ${times(there)})` : quoted(text);
  });
}

// true / false / null as "True" / "False" / "n/a" (or other words) with an
// icon, so colour is never the only signal. Also the permutation view's badges.
export function setVerdict(node, verdict, words = ['True', 'False']) {
  const kind = verdict === true ? 'is-true' : verdict === false ? 'is-false' : 'is-none';
  // Touched only on a change: a class change restyles the :has() cards.
  if (!node.classList.contains(kind)) {
    node.classList.remove('is-true', 'is-false', 'is-none');
    node.classList.add(kind);
  }
  // = and ≠ (same, different), not ✓ and ✗: neither verdict is the right one
  setText(node.querySelector('.icon'), verdict === true ? '=' : verdict === false ? '≠' : '–');
  setText(node.querySelector('.text'), verdict === true ? words[0] : verdict === false ? words[1] : 'n/a');
}

function verdictNode(className) {
  const node = el('span', className);
  const icon = el('span', 'icon');
  icon.setAttribute('aria-hidden', 'true');
  node.append(icon, ' ', el('span', 'text'));
  return node;
}

// A number cell: the figure, plus a quiet tag when it is only rounding.
// cell: {num, tag}, the cell's two spans.
// A negative figure at rounding level is shown as "≈ 0": a cosine distance
// of -2.22e-16 reads as an error, not as rounding. The exact value is its
// title (and in the CSV, the JSON and the NumPy script).
export const figureText = (value) => (value < 0 && value > -ROUNDING_LEVEL ? '≈ 0' : sig(value));
function setFigure(cell, value) {
  const missing = value === undefined;
  setText(cell.num, missing ? '–' : figureText(value));
  const rounding = !missing && value !== null && Math.abs(value) < ROUNDING_LEVEL;
  setText(cell.tag, rounding ? 'rounding' : '');
  if (rounding && value !== 0) setAttr(cell.cell, 'title', `exactly ${sig(value)}`);
  else if (cell.cell.hasAttribute('title')) cell.cell.removeAttribute('title');
}


function figureCell(className, label) {
  const cell = withRole(el('td', `figure ${className}`), 'cell');
  cell.dataset.label = label;
  const num = el('span', 'num');
  const tag = el('span', 'tag');
  cell.append(num, tag);
  return { cell, num, tag };
}

// One table row: the <tr> and the nodes a render rewrites, kept so that a
// slider step at 64 words does not look up ~500 nodes again.
function makeRow() {
  const tr = withRole(el('tr'), 'row');
  const word = withRole(el('th', 'word'), 'rowheader');
  word.scope = 'row';
  const w = el('span', 'w');
  const where = el('span', 'where');
  word.append(w, where);
  const cell = withRole(el('td', 'allclose'), 'cell');
  cell.dataset.label = 'np.allclose';
  const verdict = verdictNode('verdict');
  cell.append(verdict);
  const maxdiff = figureCell('maxdiff', 'max |diff|');
  const cosine = figureCell('cosine', 'cosine distance');
  tr.append(word, cell, maxdiff.cell, cosine.cell);
  return { tr, w, where, verdict, maxdiff, cosine };
}

function fillRow(row, { word, where, verdict, maxDiff, cosine }) {
  setText(row.w, word);
  setText(row.where, where);
  setVerdict(row.verdict, verdict);
  setFigure(row.maxdiff, maxDiff);
  setFigure(row.cosine, cosine);
}

// The figures under a card's verdict (its meaning is the line above them).
function cardText(figures) {
  if (!figures || figures.allclose === undefined) return 'has no partner in sentence B, so there is nothing to compare';
  const d = sig(figures.max_abs_diff);
  const c = figureText(figures.cosine_distance);
  if (figures.allclose) {
    if (figures.max_abs_diff === 0) return 'max |diff| 0: equal to the last bit';
    return figures.max_abs_diff < ROUNDING_LEVEL ? `max |diff| ${d}: rounding`
      : `max |diff| ${d}, cosine distance ${c}: not identical, but within np.allclose’s tolerance`;
  }
  return `max |diff| ${d}, cosine distance ${c}`;
}

// What a verdict means for word order, in one plain line beside it. For the
// mean, `averages`.
export function meaning(figures, permutation, averages = false) {
  if (!figures || figures.allclose === undefined) return '';
  const what = averages ? 'average' : 'vector';
  if (figures.allclose) {
    return figures.max_abs_diff < ROUNDING_LEVEL
      ? `Same ${what} in both sentences: attention cannot tell the two orders apart.`
      : `The same ${what} as far as np.allclose can tell: to it, the two orders look alike.`;
  }
  return permutation ? `Different ${what}s: the order reached the output.`
    : `Different ${what}s: the sentences differ in more than their order.`;
}

// Up to this magnitude the story calls a signal faint (the tour's faint step is 0.001).
const FAINT_SCALE = 0.01;

// One sentence on what the student is looking at.
function story(result, state, wordPair) {
  if (!state.positions && !state.causal && !result.permutation) {
    return 'Positional information is off, so word order alone changes nothing; any difference here comes ' +
      'from the words the two sentences do not share, since every word attends to all the others.';
  }
  if (!state.positions && !state.causal) {
    return 'Positional information is off: attention treats each sentence as a bag of words, ' +
      'so a word’s output does not depend on where it stands.';
  }
  if (!state.positions) {
    return 'Positional information is off, but the causal mask lets each word look only at itself and the words ' +
      'before it, so word order still changes the outputs.';
  }
  const scheme = SCHEMES[state.scheme].label;
  const at = `${scheme} at magnitude ${sig(state.scale)}${state.causal ? ', with the causal mask' : ''}`;
  // (no scheme does anything at 0: nothing added, nothing turned, no bias)
  if (state.scale === 0) {
    return `Positional information is on (${at}), but at magnitude 0 it has no effect: the outputs are those ` +
      'with positional information off.';
  }
  // Relative schemes cannot see a change that keeps every distance, at any magnitude.
  const facts = arrangement(result);
  const how = facts && arrangementWords(facts);
  // Every word where it stands in A: whatever the scheme gives a position,
  // it gives both sentences alike (the magnitude is not why they agree).
  if (facts?.shift === 0) {
    return `Positional information is on (${at}), yet ${how}, so each word gets the same positional signal in both ` +
      'sentences and no magnitude can tell them apart.';
  }
  if (blindTo(state.scheme, facts, state.causal) && SEES[state.scheme]) {
    const kept = facts.shift !== null ? 'every distance and order between words is kept'
      : 'every distance between words is kept';
    return `Positional information is on (${at}), yet ${how}. ${scheme} sees ${SEES[state.scheme]}, and ` +
      `${kept}, so ${state.scheme === 'alibi' ? 'without a causal mask ' : ''}it cannot tell the two sentences apart at any magnitude.`;
  }
  if (facts && facts.shift && !SEES[state.scheme]) {
    return `Positional information is on (${at}), and ${how}. ${scheme} adds a signal for where each word stands, ` +
      'so moving the whole sentence changes every input. RoPE and ALiBi see only distances: try them here.';
  }
  const same = wordPair && wordPair.allclose === true;
  if (SEES[state.scheme]) {
    const start = `Positional information is on (${at}): ${scheme} sees ${SEES[state.scheme]}, and here ` +
      `${how ?? 'the two sentences hold different words'}` +
      (state.causal && facts?.distances ? ', while the causal mask sees which word comes first' : '');
    return same ? `${start}, so outputs can change; for ${quoted(wordPair.word)} the change is too small for ` +
      'np.allclose to see.' : `${start}, so the same word comes out differently in the two sentences.`;
  }
  if (same) {
    // Faint only where the magnitude is: at 0.5 with d 512 a word can come
    // out the same while the mean does not (its attention all on a word at
    // the same place in both), and at large magnitudes the softmax saturates.
    const w = quoted(wordPair.word);
    const others = result.mean?.allclose === false ? ' The mean is False: other words’ outputs do change.' : '';
    const how = state.scale <= FAINT_SCALE ? 'but it is so faint that' : 'yet at this magnitude';
    return `Positional information is on (${at}), ${how} np.allclose cannot tell ${w} in A from ${w} in B.${others}`;
  }
  return `Positional information is on (${at}): each word’s input now depends on its position, ` +
    'so the same word comes out differently in the two sentences.';
}

// The result bar: the followed word and the mean in one line, fixed to the
// window while the cards are out of sight, so that a control anywhere on the
// page has its verdict in view (style.css places it).
function createBar(root) {
  const bar = root.querySelector('#result-bar');
  const item = (id) => ({ name: bar.querySelector(`#${id} .rb-name`), verdict: bar.querySelector(`#${id} .rb-verdict`),
    cos: bar.querySelector(`#${id} .rb-cos`) });
  const word = item('rb-word');
  const mean = item('rb-mean');
  const meaningLine = bar.querySelector('.rb-meaning');
  const cards = root.querySelector('.cards');
  if (typeof IntersectionObserver === 'function') {
    new IntersectionObserver(([e]) => bar.classList.toggle('shown', e.intersectionRatio < 0.5), { threshold: [0, 0.5, 1] })
      .observe(cards);
  }
  // The page's status line (#run-status, fixed to the window's bottom edge
  // too) stands above the bar while it is shown: it learns the bar's height
  // here, on the status line alone (a property on the root would restyle
  // the whole page whenever the bar's text takes another line).
  // So does the window's scroll padding (style.css's 5rem is one line of
  // the bar; at 375 px it takes three): a control focused or scrolled into
  // view stops above the bar, not under it. (scroll-padding is not
  // inherited: setting it restyles the root alone.)
  // And the footer keeps that much room below it, so that the page's last
  // line scrolls up out from under the bar.
  const status = root.ownerDocument.getElementById('run-status');
  const footer = root.ownerDocument.querySelector('.site-footer');
  const html = root.ownerDocument.documentElement;
  if (status && typeof ResizeObserver === 'function') {
    new ResizeObserver(() => {
      const height = Math.ceil(bar.getBoundingClientRect().height);
      status.style.setProperty('--result-bar-height', `${height}px`);
      footer?.style.setProperty('--result-bar-height', `${height}px`);
      html.style.scrollPaddingBottom = `${height + 16}px`;
    }).observe(bar);
  }
  const fill = (slot, figures) => {
    setVerdict(slot.verdict, figures ? figures.allclose : null);
    setText(slot.cos, figures ? `cosine distance ${figureText(figures.cosine_distance)}` : 'no partner in B');
  };
  return {
    render(pair, result) {
      const paired = pair.index_b === null ? null : pair;
      // a line, not a paragraph: a long word (a pasted megabyte) is cut short here
      setText(word.name, quoted(pair.word.length > 24 ? `${pair.word.slice(0, 24)}…` : pair.word));
      fill(word, paired);
      fill(mean, result.mean);
      setText(meaningLine, meaning(paired ?? result.mean, result.permutation, !paired));
    },
  };
}

export function createVerdicts(root) {
  const wordCard = root.querySelector('#card-word');
  const meanCard = root.querySelector('#card-mean');
  const bar = createBar(root);
  for (const card of [wordCard, meanCard]) {
    card.querySelector('.card-verdict').replaceWith(verdictNode('card-verdict verdict'));
  }
  const storyLine = root.querySelector('#story');
  const status = root.querySelector('#verdict-status');
  const notes = root.querySelector('#notes');
  const body = root.querySelector('#verdict-rows');
  const meanRow = makeRow();
  meanRow.tr.classList.add('mean-row');
  const rows = [];
  const table = body.closest('table');

  // Rows out of sight are filled a moment later (views/sight.js): the
  // followed word and the mean at once, the rest as they come into sight,
  // within 200 px, or once renders pause. At 64 words their figures were
  // most of a slider step. The table says aria-busy meanwhile.
  const sight = createSight({ quietMs: 120, busyOf: () => table });

  // `told`: the story line in another view's words (a checkpoint's), or undefined.
  function render(result, state, told) {
    // a checkpoint compares tokens (GPT-2's pieces), not words
    const wordsA = result.pairs;
    const wordsB = result.tokens_b?.map((t) => t.text) ?? result.config.sentence_b;
    const selected = Math.min(state.word, result.pairs.length - 1);
    const pair = result.pairs[selected];

    // The cards.
    setText(wordCard.querySelector('.card-word'), quoted(pair.word));
    setText(wordCard.querySelector('.card-call'), pair.index_b === null
      ? `word ${pair.index_a + 1} of A`
      : `np.allclose(out_a[${pair.index_a}], out_b[${pair.index_b}])`);
    setVerdict(wordCard.querySelector('.card-verdict'), pair.index_b === null ? null : pair.allclose);
    setText(wordCard.querySelector('.card-text'), cardText(pair.index_b === null ? null : pair));
    setText(wordCard.querySelector('.card-meaning'), meaning(pair.index_b === null ? null : pair, result.permutation));
    setText(meanCard.querySelector('.card-meaning'), meaning(result.mean, result.permutation, true));
    bar.render(pair, result);
    setVerdict(meanCard.querySelector('.card-verdict'), result.mean.allclose);
    setText(meanCard.querySelector('.card-text'), cardText(result.mean));

    setText(storyLine, told ?? story(result, state, pair.index_b === null ? null : pair));
    const said = (x) => (x ? 'True' : 'False');
    setText(status, `${pair.index_b === null ? `${quoted(pair.word)} has no partner in sentence B`
      : `${quoted(pair.word)}: np.allclose ${said(pair.allclose)}`}. Sentence mean: np.allclose ${said(result.mean.allclose)}.`);

    // Notes on words that have no partner.
    const textsA = result.pairs.map((p) => p.word);
    const pieces = Boolean(result.tokens_a);
    const lonelyA = lonely(result.pairs.filter((p) => p.index_b === null).map((p) => p.index_a), textsA, wordsB, pieces, ['A', 'B']);
    const lonelyB = lonely(result.unpaired_b ?? [], wordsB, textsA, pieces, ['B', 'A']);
    const lines = [];
    if (!result.permutation) {
      lines.push('Sentence B is not a reordering of sentence A, so only the words they share are compared.');
    }
    if (lonelyA.length) lines.push(`No partner in B: ${lonelyA.join(', ')}.`);
    if (lonelyB.length) lines.push(`No partner in A: ${lonelyB.join(', ')}.`);
    while (notes.children.length > lines.length) notes.lastElementChild.remove();
    lines.forEach((line, k) => {
      if (!notes.children[k]) notes.append(el('li'));
      setText(notes.children[k], line);
    });
    setHidden(notes, lines.length === 0);

    // The table: one row per word of A, then the mean.
    while (rows.length > wordsA.length) {
      const gone = rows.pop().tr;
      sight.forget(gone);
      gone.remove();
    }
    while (rows.length < wordsA.length) rows.push(makeRow());
    result.pairs.forEach((p, k) => {
      const row = rows[k];
      row.tr.classList.toggle('selected', k === selected);
      const figures = {
        word: tokenName(p.word),
        where: p.index_b === null ? `out_a[${p.index_a}], no partner in B` : `out_a[${p.index_a}] vs out_b[${p.index_b}]`,
        verdict: p.index_b === null ? null : p.allclose,
        maxDiff: p.max_abs_diff,
        cosine: p.cosine_distance,
      };
      sight[k === selected ? 'now' : 'draw'](row.tr, () => fillRow(row, figures));
    });
    fillRow(meanRow, {
      word: 'sentence mean',
      where: 'out_a.mean(0) vs out_b.mean(0)',
      verdict: result.mean.allclose,
      maxDiff: result.mean.max_abs_diff,
      cosine: result.mean.cosine_distance,
    });
    sight.settle();
    // New rows go in before the mean's, the rest stay where they are: put
    // back all at once, every row was laid out (and announced) afresh, about
    // 20 ms under 2x CPU throttling each time a token more or less was typed.
    if (meanRow.tr.parentNode !== body) body.append(meanRow.tr);
    for (const row of rows) if (row.tr.parentNode !== body) body.insertBefore(row.tr, meanRow.tr);
  }

  return { render };
}
