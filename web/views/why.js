// why.js - "Why each scheme works": one short explanation per scheme, with
// the numbers that back it (teach/why_claims.js computes them; this only
// draws). The panel follows the scheme picked above unless the student
// chooses another in its own list. Heatmaps are tables, as the attention
// heatmaps are: the shade comes from --w (0..1) and every cell carries its
// number as text, so nothing is said by colour alone.
import { sig, ROUNDING_LEVEL } from '../app/format.js';
import { el, setText, setHidden } from './dom.js';
import { setVerdict } from './verdicts.js';
import { SCHEMES, appliesTo } from '../teach/schemes.js';

// Every scheme's label, "none" included (the teaching table's).
export const WHY_LABELS = Object.fromEntries(Object.entries(SCHEMES).map(([name, e]) => [name, e.label]));

const size = (d) => (d === 0 ? '0' : d < ROUNDING_LEVEL ? `${sig(d)}, rounding` : sig(d));
const TF = (v) => (v ? 'True' : 'False');

// 1/256 for a slope that is one over a whole number, else its digits.
export function slopeText(m) {
  const inverse = 1 / m;
  return Number.isInteger(inverse) ? `1/${inverse}` : sig(m);
}

// A True/False badge in the verdicts' style, and a line that starts with it.
function badge() {
  const node = el('span', 'verdict why-verdict');
  const icon = el('span', 'icon');
  icon.setAttribute('aria-hidden', 'true');
  node.append(icon, ' ', el('span', 'text'));
  return node;
}
function claimLine() {
  const line = el('p', 'why-claim');
  const verdict = badge();
  const text = el('span', 'why-claim-text');
  line.append(verdict, ' ', text);
  return {
    line,
    set(value, words) {
      setVerdict(verdict, value);
      setText(text, words);
    },
  };
}

// A heatmap table, named by a paragraph above it (a <caption> would wrap
// to the table's width): `head` labels the columns, `side` the rows (each
// {main, sub, hidden}: a hidden label is there for screen readers only);
// rebuilt only when they change. cells(i, j) -> {w: shade 0..1, text};
// `visible`: the numbers are shown, else only read out. `scrolls`: the
// table may be wider than the panel (one row and column per word).
function heatTable(id, scrolls) {
  const table = el('table', `heat why-heat ${id}`);
  const caption = el('p', 'why-caption');
  caption.id = `${id}-caption`;
  table.setAttribute('aria-labelledby', caption.id);
  const box = el('div', 'heat-box why-box');
  box.append(table);
  // A long sentence's matrix scrolls: its box then takes the keyboard.
  if (scrolls) {
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    box.setAttribute('aria-labelledby', caption.id);
  }
  let key = '';
  let drawn = null;
  let shades = [];
  const label = (tag, scope, { main, sub, hidden }) => {
    const th = el(tag, scope === 'col' ? 'col' : 'row');
    th.scope = scope;
    th.append(el('span', hidden ? 'visually-hidden' : 'heat-word', main));
    if (sub !== undefined) th.append(el('span', 'heat-pos', sub));
    return th;
  };
  return {
    nodes: [caption, box],
    caption,
    // A hidden block keeps no cells: the same state, the same document.
    clear() {
      table.replaceChildren();
      key = '';
      drawn = null;
      shades = [];
    },
    // source: the claims drawn (the same object again: nothing to do)
    fill(source, head, side, corner, cells, visible) {
      if (source === drawn) return;
      drawn = source;
      const k = JSON.stringify([head, side]);
      if (k !== key) {
        const top = el('tr');
        const c = el('td', 'corner');
        c.append(el('span', 'visually-hidden', corner));
        top.append(c, ...head.map((h) => label('th', 'col', h)));
        const body = el('tbody');
        for (const s of side) {
          const row = el('tr');
          row.append(label('th', 'row', s), ...head.map(() => el('td', 'w')));
          body.append(row);
        }
        const thead = el('thead');
        thead.append(top);
        table.replaceChildren(thead, body);
        key = k;
        shades = [];
      }
      const rows = table.tBodies[0].rows;
      side.forEach((_, i) => head.forEach((__, j) => {
        const cell = rows[i].cells[j + 1];
        const { w, text } = cells(i, j);
        // a style write restyles the cell even with the same value
        const at = i * head.length + j;
        if (shades[at] !== w) {
          cell.style.setProperty('--w', String(w));
          shades[at] = w;
        }
        if (visible) setText(cell, text);
        else if (cell.textContent !== text) cell.replaceChildren(el('span', 'visually-hidden', text));
      }));
    },
  };
}

// The shift test's words as a table: word, positions, allclose, max |diff|.
function shiftTable() {
  const table = el('table', 'data-table why-table');
  const caption = el('caption', '', 'Each word’s attention scores, before the softmax, in A and in the moved copy');
  const thead = el('thead');
  const top = el('tr');
  for (const name of ['word', 'position', 'allclose', 'max |diff|']) {
    const th = el('th', '', name);
    th.scope = 'col';
    top.append(th);
  }
  thead.append(top);
  const body = el('tbody');
  table.append(caption, thead, body);
  return {
    table,
    clear: () => body.replaceChildren(),
    render(words) {
      while (body.rows.length > words.length) body.lastElementChild.remove();
      while (body.rows.length < words.length) {
        const tr = el('tr');
        const th = el('th');
        th.scope = 'row';
        const verdict = el('td');
        verdict.append(badge());
        tr.append(th, el('td'), verdict, el('td'));
        body.append(tr);
      }
      words.forEach((w, i) => {
        const cells = body.rows[i].cells;
        setText(cells[0], w.word);
        setText(cells[1], `${w.at[0]} → ${w.at[1]}`);
        setVerdict(cells[2].firstChild, w.allclose);
        setText(cells[3], sig(w.maxDiff));
      });
    },
  };
}

const para = (className, text) => el('p', className, text);

// ALiBi's matrix shows at most this many words: more would not be read,
// only scrolled, and would cost every slider step a restyle of n² cells.
const SHOWN = 12;

// ---- one block per scheme ------------------------------------------------------

function sinusoidalBlock() {
  const root = el('div', 'why-block');
  const intro = para('why-intro');
  const grid = heatTable('why-grid', false);
  const diagonals = claimLine();
  const rotation = claimLine();
  const odd = para('hint');
  const shift = para('why-note');
  root.append(el('h3', '', 'Sinusoidal: only the distance counts'), intro, ...grid.nodes, diagonals.line, rotation.line, odd, shift);
  return {
    root,
    clear: grid.clear,
    render({ sinusoidal: s, shift: test }) {
      const n = s.span;
      setText(intro, `Each position p gets a vector PE(p) of sines and cosines, one pair per frequency. ` +
        `The grid shows the dot product PE(p) · PE(q) for positions 0 to ${n - 1} at d = ${s.dim}: ` +
        `the darker, the larger.`);
      setText(grid.caption, `PE(p) · PE(q): rows p, columns q; from ${sig(s.min, 3)} (lightest) to ` +
        `${sig(s.max, 3)} (darkest)`);
      const span = s.max - s.min || 1;
      const ticks = Array.from({ length: n }, (_, k) => ({ main: String(k), hidden: k % 5 !== 0 }));
      grid.fill(s, ticks, ticks, 'rows: position p; columns: position q',
        (p, q) => ({ w: (s.dots[p][q] - s.min) / span, text: sig(s.dots[p][q], 3) }), false);
      const d = s.diagonals;
      diagonals.set(d.allclose, d.allclose
        ? `Every diagonal is constant: along each line q − p = const the values differ by at most ${size(d.spread)}. ` +
          'So PE(p) · PE(q) depends only on how far apart p and q are.'
        : `The diagonals are not constant: along a line q − p = const the values differ by up to ${sig(d.spread)}.` +
          (s.oddColumn ? ' With an odd d the last column is a sine with no cosine beside it, and that column’s ' +
            'product depends on p and q themselves.' : ''));
      const r = s.rotation;
      setHidden(rotation.line, !r);
      if (r) {
        rotation.set(r.allclose, `Moving ${s.shift} positions ${r.allclose ? 'is' : 'is not, at these tolerances,'} ` +
          `one fixed rotation. From PE(${s.shift}) alone ` +
          `we build R, which turns each (sine, cosine) pair of columns by its own angle, ${s.shift}·ω. ` +
          `R · PE(p) and PE(p + ${s.shift}) are ${r.allclose ? 'allclose' : 'not allclose'} for every p from 0 to ` +
          `${n - 1} (max |diff| ${size(r.maxDiff)}).`);
      }
      setHidden(odd, !s.oddColumn);
      setText(odd, r ? 'd is odd: the last column has no partner to turn with, so it is left out of the rotation.'
        : 'With d = 1 there is no pair of columns to turn.');
      setText(shift, test.allclose
        ? `At magnitude ${sig(test.scale)} the shift test (sentence A against itself, starting later) gives True (max |diff| ${size(test.maxDiff)}): ` +
          'the positions are too faint for np.allclose to see.'
        : 'Yet adding PE to the word vectors does not make attention see distances only: each word and its ' +
          `position get mixed before the dot product. The shift test (sentence A against itself, starting later) gives False here (max |diff| ` +
          `${size(test.maxDiff)}).`);
    },
  };
}

function ropeBlock() {
  const root = el('div', 'why-block');
  const intro = para('why-intro');
  const summary = claimLine();
  const table = shiftTable();
  const box = el('div', 'why-scroll');
  box.append(table.table);
  const heads = para('why-note');
  const contrast = para('why-note');
  root.append(el('h3', '', 'RoPE: scores see how far apart two words are'), intro, summary.line, box, heads, contrast);
  return {
    root,
    clear: table.clear,
    render({ shift: t, contrast: others }) {
      const [from, to] = t.offsets;
      setText(intro, 'RoPE turns each query and key by an angle that grows with its position. The dot product of ' +
        'two turned vectors only feels the difference of the two angles. The shift test: sentence A is used as ' +
        `both sentences, the copy starting at position ${to} instead of ${from}, at magnitude ${sig(t.scale)}.`);
      const all = t.words.length;
      const same = t.words.filter((w) => w.allclose).length;
      summary.set(t.allclose, t.allclose
        ? `Every score is the same after the move (max |diff| ${size(t.maxDiff)}).`
        : `${same} of ${all} words keep their scores (max |diff| ${size(t.maxDiff)}).`);
      table.render(t.words);
      setHidden(heads, t.heads.length < 2);
      setText(heads, `Head by head: ${t.heads.map((h, k) => `${k + 1} ${TF(h.allclose)}`).join(', ')}.`);
      setText(contrast, `The same test with schemes that add a vector for where each word stands: ${others.map((o) =>
        `${WHY_LABELS[o.scheme]} (magnitude ${sig(o.scale)}): ${TF(o.allclose)}, max |diff| ${size(o.maxDiff)}`).join('; ')}.`);
    },
  };
}

function alibiBlock(changed) {
  const root = el('div', 'why-block');
  const intro = para('why-intro');
  const pick = el('p', 'why-head-pick');
  const select = el('select');
  select.id = 'why-head';
  const label = el('label', '', 'Head ');
  label.htmlFor = 'why-head';
  pick.append(label, select);
  select.addEventListener('change', changed);
  const grid = heatTable('why-bias', true);
  const formula = claimLine();
  const reversal = claimLine();
  const outputs = claimLine();
  const mask = para('hint');
  root.append(el('h3', '', 'ALiBi: a penalty that grows with distance'), intro, pick, ...grid.nodes, formula.line, reversal.line,
    outputs.line, mask);
  return {
    root,
    clear() {
      grid.clear();
      select.replaceChildren();
    },
    head: () => Number(select.value || 0),
    render({ alibi: a }) {
      setText(intro, 'ALiBi leaves the vectors alone. Each head subtracts from every score a penalty in ' +
        'proportion to the distance between the two words: s·m·|i − j|, where s is the magnitude and m the ' +
        'head’s own slope.');
      setHidden(pick, a.heads < 2);
      if (select.options.length !== a.heads) {
        select.replaceChildren(...Array.from({ length: a.heads }, (_, h) => el('option', '', String(h + 1))));
        for (const [h, option] of [...select.options].entries()) option.value = String(h);
      }
      select.value = String(a.head);
      const part = a.words.length > SHOWN ? `, its first ${SHOWN} of ${a.words.length} words (the checks below ` +
        'cover them all)' : '';
      setText(grid.caption, `What head ${a.head + 1} adds to sentence A’s scores${part}: the scores at magnitude ` +
        `${sig(a.scale)} minus the scores at 0`);
      const labels = a.words.slice(0, SHOWN).map((word, i) => ({ main: word, sub: String(a.offset + i) }));
      grid.fill(a, labels, labels, 'rows: the word looking; columns: the word looked at',
        (i, j) => ({ w: a.min < 0 ? a.bias[i][j] / a.min : 0, text: sig(a.bias[i][j], 2) }), true);
      formula.set(a.formula.allclose, `It ${a.formula.allclose ? 'is' : 'is not'} −s·m·|i − j| with s = ` +
        `${sig(a.scale)} and m = ${slopeText(a.slope)}, ` +
        `the core’s slope for this head (max |diff| ${size(a.formula.maxDiff)}).`);
      reversal.set(a.reversal.allclose, `Read backwards it is ${a.reversal.allclose ? 'the same' : 'another'} matrix: ` +
        'turning both the rows and the columns around (word i becomes word n − 1 − i) ' +
        `${a.reversal.allclose ? 'changes no entry' : 'changes it'} ` +
        `(max |diff| ${size(a.reversal.maxDiff)}).`);
      outputs.set(a.outputs.allclose, 'Reversing a sentence keeps every distance, so ALiBi adds the same ' +
        'penalties to it. Sentence A against A backwards (word i against word n − 1 − i): the outputs are ' +
        `${a.outputs.allclose ? 'the same' : 'not the same'} (max |diff| ${size(a.outputs.maxDiff)}).` +
        (a.outputs.allclose ? ' Word for word and without a causal mask, ALiBi cannot tell a sentence from its reversal.'
          : a.causal ? ' The causal mask is on: the mask is not symmetric, and it is what sees the order here.' : ''));
      setHidden(mask, !a.causal);
      setText(mask, 'The bias above is computed without the causal mask, so that every pair of words has one.');
    },
  };
}

// A scheme with nothing more to explain than its shift test: `explain`,
// then what the test says, in the words of `says` ({true, false}).
function shiftOnlyBlock(title, explain, says) {
  const root = el('div', 'why-block');
  const line = claimLine();
  root.append(el('h3', '', title), para('why-intro', explain), line.line);
  return {
    root,
    clear() {},
    render({ shift: t }) {
      line.set(t.allclose, `The shift test (sentence A against itself moved ${Math.abs(t.offsets[1] - t.offsets[0])} ` +
        `positions later): max |diff| ${size(t.maxDiff)}. ${says[t.allclose]}`);
    },
  };
}

// A scheme's teaching entry as a block: its line, and the shift test read
// as its kind predicts.
function plainBlock({ label, hint, kind }) {
  const relative = kind === 'relative';
  return shiftOnlyBlock(label, `${label}: ${hint}.`, {
    true: relative ? 'It sees only how far apart words stand, and moving the sentence keeps every distance.'
      : 'At this magnitude its signal is too faint for np.allclose to see.',
    false: relative ? 'So it sees more than how far apart words stand.'
      : 'Moving the sentence changes where every word stands, and so what is added to it.',
  });
}

// section: the <details id="why"> with #why-scheme and #why-body;
// changed(): asks the page to render again (the panel opened, or a choice
// in it changed).
export function createWhy(section, changed) {
  const select = section.querySelector('#why-scheme');
  const body = section.querySelector('#why-body');
  const figure = section.querySelector('summary .summary-figure');
  const follow = select.querySelector('option[value=""]');
  section.addEventListener('toggle', changed);
  select.addEventListener('change', changed);
  const alibi = alibiBlock(changed);
  const blocks = {
    none: shiftOnlyBlock('No positional information: nothing to explain',
      'Nothing is added, so nothing marks where a word stands.', {
        true: 'Passing it means little here: attention cannot see the order of the words either.',
        false: 'That is unexpected: nothing here depends on where the sentence starts.',
      }),
    random: shiftOnlyBlock('Random stand-in: no pattern to explain',
      'The stand-in adds a random vector for each position, drawn from the seed. Nothing links one position ' +
      'to the next: it marks where each word stands, and that is all.', {
        true: 'At this magnitude the random vectors are too faint for np.allclose to see.',
        false: 'Moving the sentence gives every word a new random vector.',
      }),
    sinusoidal: sinusoidalBlock(),
    rope: ropeBlock(),
    alibi,
  };
  // The panel's runs are the one head's: it explains the schemes that take it.
  const explained = Object.keys(SCHEMES).filter((name) => appliesTo(name, 'head'));
  // A scheme with no explanation of its own yet gets its teaching entry's
  // line and the shift test.
  for (const name of explained) blocks[name] ??= plainBlock(SCHEMES[name]);
  select.append(...explained.map((name) => {
    const option = el('option', '', SCHEMES[name].label);
    option.value = name;
    return option;
  }));
  const wait = para('hint', 'Starting the lab for this panel…');
  body.append(wait);
  for (const block of Object.values(blocks)) {
    block.root.hidden = true;
    body.append(block.root);
  }

  return {
    // What the student asked to see: {scheme (null: the one picked), head}.
    choice: () => ({ scheme: select.value || null, head: alibi.head() }),
    // claims: teach/why_claims.js's, for choice(); null while the panel's
    // lab is starting, {failed} if it could not start.
    render(claims) {
      const ready = claims !== null && !claims.failed;
      setHidden(wait, ready);
      if (!ready) {
        setText(wait, claims ? `The lab for this panel could not start: ${claims.failed.message}` : 'Starting the lab for this panel…');
        for (const block of Object.values(blocks)) setHidden(block.root, true);
        return;
      }
      for (const [name, block] of Object.entries(blocks)) {
        if (name !== claims.scheme && !block.root.hidden) block.clear();
      }
      setText(follow, `Picked above: ${WHY_LABELS[claims.picked]}`);
      setText(figure, WHY_LABELS[claims.scheme]);
      for (const [name, block] of Object.entries(blocks)) setHidden(block.root, name !== claims.scheme);
      blocks[claims.scheme].render(claims);
    },
  };
}
