// csv.js - the current numbers as a CSV file for a spreadsheet, and the
// downloads' file names. No DOM; export.js loads it when a download is asked
// for.

// Text a spreadsheet would run as a formula is prefixed with ' (OWASP's
// advice for CSV files), so a word like "=1+1" stays a word.
const FORMULA = /^[=+\-@\t\r]/;

function textField(s) {
  const t = FORMULA.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

// Numbers as JavaScript writes them (they read back to the same double);
// non-finite values (null in the JSON) as empty fields; booleans as Python does.
function field(x) {
  if (x === null || x === undefined) return '';
  if (typeof x === 'boolean') return x ? 'True' : 'False';
  if (typeof x === 'number') return Number.isFinite(x) ? String(x) : '';
  return textField(String(x));
}

const row = (cells) => cells.map(field).join(',');

// A result with sweep (and optionally full) as CSV: the settings, then one
// row per word of A and the sentence mean (and the bag-of-vectors baseline),
// then the sweep: one row per magnitude, two columns per curve.
export function toCsv(result) {
  const c = result.config;
  const lines = [
    row(['setting', 'value']),
    row(['sentence_a', c.sentence_a.join(' ')]),
    row(['sentence_b', c.sentence_b.join(' ')]),
    ...['offset_a', 'offset_b', 'dim', 'heads', 'seed', 'scheme', 'scale', 'causal', 'rtol', 'atol', 'model', 'layers', 'weight_std']
      .map((k) => row([k, c[k]])),
    '',
    row(['row', 'word', 'index_a', 'index_b', 'allclose', 'max_abs_diff', 'cosine_distance']),
    ...result.pairs.map((p) => row(['pair', p.word, p.index_a, p.index_b, p.allclose, p.max_abs_diff, p.cosine_distance])),
    row(['mean', '', '', '', result.mean.allclose, result.mean.max_abs_diff, result.mean.cosine_distance]),
    row(['bag_of_vectors', '', '', '', result.baseline.allclose, result.baseline.max_abs_diff, result.baseline.cosine_distance]),
  ];
  if (result.layers) {
    // the transformer's residual stream after each block, compared like the outputs
    const figures = (f) => (f ? [f.allclose, f.max_abs_diff, f.cosine_distance] : ['', '', '']);
    lines.push('', row(['block', 'row', 'word', 'index_a', 'index_b', 'allclose', 'max_abs_diff', 'cosine_distance']));
    result.layers.forEach((layer, b) => {
      result.pairs.forEach((p, k) => lines.push(row([b + 1, 'pair', p.word, p.index_a, p.index_b, ...figures(layer.pairs[k])])));
      lines.push(row([b + 1, 'mean', '', '', '', ...figures(layer.mean)]));
    });
  }
  if (result.sweep) {
    const s = result.sweep;
    const curves = [{ name: 'mean', points: s.mean }]
      .concat(result.pairs.map((p, k) => ({ name: `${p.word} [${p.index_a}]`, points: s.pairs[k] }))
        .filter((curve) => curve.points.length > 0));
    lines.push('', row(['scale', ...curves.flatMap((cv) => [`${cv.name} cosine_distance`, `${cv.name} allclose`])]));
    s.scales.forEach((scale, t) => {
      lines.push(row([scale, ...curves.flatMap((cv) => [cv.points[t].cosine_distance, cv.points[t].allclose])]));
    });
  }
  return `${lines.join('\r\n')}\r\n`;
}

// A file name for the current view, e.g. poslab-random-0.5.json.
export function fileName(config, ext) {
  const scale = config.scheme === 'none' ? '' : `-${config.scale}`;
  return `poslab-${config.scheme}${scale}${config.causal ? '-causal' : ''}.${ext}`;
}
