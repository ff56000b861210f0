// chart_table.js - the chart's numbers as a table, the text alternative to
// the canvas (screen readers, and anyone who wants the figures): one row per
// power of ten of the sweep, with the cosine distance and the np.allclose
// verdict (as words) for the plotted word and the sentence mean. Rewritten
// only when the sweep or the plotted word changes, and then in place: a new
// sweep (every keystroke) changes the figures, not the rows, so its cells'
// text is rewritten where it differs (dom.js) instead of building 65 new
// elements each time. Text goes in through textContent only.
import { sig, decadeOf } from '../app/format.js';
import { curveOf } from '../app/sweep.js';
import { setText } from './dom.js';

// Point i of a packed sweep's curve (null: the word has no partner).
const verdictText = (curve, i) => (!curve ? '–' : curve.close[i] === 1 ? 'True' : 'False');
const distanceText = (curve, i) => (!curve ? '–' : sig(curve.cosine[i])); // (NaN: 'nan', as for null)

// A new last row of `body`: the magnitude's header cell, then the word's
// and the mean's distance and verdict.
function addRow(body) {
  const row = body.insertRow();
  const head = document.createElement('th');
  head.scope = 'row';
  row.append(head);
  for (let c = 0; c < 4; c++) row.insertCell();
  return row;
}

export function createChartTable(details) {
  const body = details.querySelector('tbody');
  const wordHead = details.querySelector('.col-word');
  const wordVerdictHead = details.querySelector('.col-word-verdict');
  let shown = { sweep: null, sel: -1, word: '' };

  // sweep: packed (app/sweep.js; undefined while it is computed); sel: the
  // plotted pair's index; word: its quoted word; paired: whether B has it.
  function update(sweep, sel, word, paired) {
    if (!sweep || (shown.sweep === sweep && shown.sel === sel && shown.word === word)) return;
    shown = { sweep, sel, word };
    setText(wordHead, `${word}: cosine distance`);
    setText(wordVerdictHead, `${word}: np.allclose`);
    const curve = paired ? curveOf(sweep, 1 + sel) : null;
    const mean = curveOf(sweep, 0);
    let count = 0;
    sweep.scales.forEach((scale, i) => {
      const exp = decadeOf(scale);
      if (exp === null) return;
      const row = body.rows[count] ?? addRow(body);
      const texts = [exp === 0 ? '1' : `1e${exp}`, distanceText(curve, i), verdictText(curve, i),
        distanceText(mean, i), verdictText(mean, i)];
      texts.forEach((text, c) => setText(row.cells[c], text));
      count += 1;
    });
    while (body.rows.length > count) body.lastElementChild.remove();
  }

  return { update };
}
