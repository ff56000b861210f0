// chart_table.js - the chart's numbers as a table, the text alternative to
// the canvas (screen readers, and anyone who wants the figures): one row per
// power of ten of the sweep, with the cosine distance and the np.allclose
// verdict (as words) for the plotted word and the sentence mean. Rebuilt only
// when the sweep or the plotted word changes. Text goes in through textContent only.
import { sig, decadeOf } from '../app/format.js';

const verdictText = (p) => (p === undefined ? '–' : p.allclose ? 'True' : 'False');
const distanceText = (p) => (p === undefined ? '–' : sig(p.cosine_distance));

export function createChartTable(details) {
  const body = details.querySelector('tbody');
  const wordHead = details.querySelector('.col-word');
  const wordVerdictHead = details.querySelector('.col-word-verdict');
  let shown = { sweep: null, sel: -1, word: '' };

  // sweep: {scales, mean, pairs} (undefined while it is computed); sel: the
  // plotted pair's index; word: its quoted word; paired: whether B has it.
  function update(sweep, sel, word, paired) {
    if (!sweep || (shown.sweep === sweep && shown.sel === sel && shown.word === word)) return;
    shown = { sweep, sel, word };
    wordHead.textContent = `${word}: cosine distance`;
    wordVerdictHead.textContent = `${word}: np.allclose`;
    const series = paired ? sweep.pairs[sel] : [];
    const rows = [];
    sweep.scales.forEach((scale, i) => {
      const exp = decadeOf(scale);
      if (exp === null) return;
      const row = document.createElement('tr');
      const head = document.createElement('th');
      head.scope = 'row';
      head.textContent = exp === 0 ? '1' : `1e${exp}`;
      row.append(head);
      for (const text of [distanceText(series[i]), verdictText(series[i]), distanceText(sweep.mean[i]), verdictText(sweep.mean[i])]) {
        const cell = document.createElement('td');
        cell.textContent = text;
        row.append(cell);
      }
      rows.push(row);
    });
    body.replaceChildren(...rows);
  }

  return { update };
}
