// csv.js - the current numbers as a CSV file for a spreadsheet, and the
// downloads' file names. No DOM; export.js loads it when a download is asked
// for.
import { coreOf } from './models.js';

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

// The settings every row carries (a tidy table: each row stands alone).
const SETTINGS = ['sentence_a', 'sentence_b', 'offset_a', 'offset_b', 'dim', 'heads', 'seed', 'scheme', 'causal', 'rtol', 'atol',
  'model', 'layers', 'weight_std'];
export const CSV_COLUMNS = ['observation', 'block', 'scale', 'row', 'word', 'index_a', 'index_b', 'allclose', 'max_abs_diff',
  'cosine_distance', 'threshold', ...SETTINGS];

// A result with sweep (and optionally full) as one tidy table: one header,
// one row per observation.
//   observation  output (at the magnitude shown), block (a transformer's
//                residual stream after block `block`), sweep (at `scale`)
//   row          pair, mean or bag_of_vectors
//   threshold    on output rows: the magnitude below which np.allclose
//                says True for that row, where the page has worked it out
//                (`thresholds`: [{pair, threshold}], pair -1 the mean)
//   model        a checkpoint's rows name the page's model (`modelName`:
//                gpt, nope, bag, gpt2), not just "checkpoint"
export function toCsv(result, thresholds = [], modelName = null) {
  const c = { ...result.config, ...(!coreOf(result.config).drawn && modelName ? { model: modelName } : {}) };
  const settings = SETTINGS.map((k) => (Array.isArray(c[k]) ? c[k].join(' ') : c[k]));
  const limit = new Map(thresholds.map((t) => [t.pair, t.threshold]));
  const out = (observation, block, scale, kind, p, f, threshold = null) => row([observation, block, scale, kind,
    p?.word ?? '', p?.index_a ?? '', p?.index_b ?? '', f ? f.allclose : '', f?.max_abs_diff, f?.cosine_distance, threshold, ...settings]);
  const lines = [row(CSV_COLUMNS)];
  result.pairs.forEach((p, k) => lines.push(out('output', '', c.scale, 'pair', p, p.index_b === null ? null : p, limit.get(k))));
  lines.push(out('output', '', c.scale, 'mean', null, result.mean, limit.get(-1)));
  lines.push(out('output', '', c.scale, 'bag_of_vectors', null, result.baseline));
  (result.layers ?? []).forEach((layer, b) => {
    result.pairs.forEach((p, k) => lines.push(out('block', b + 1, c.scale, 'pair', p, layer.pairs[k])));
    lines.push(out('block', b + 1, c.scale, 'mean', null, layer.mean));
  });
  if (result.sweep) {
    const s = result.sweep;
    s.scales.forEach((scale, t) => {
      result.pairs.forEach((p, k) => { if (s.pairs[k]?.length) lines.push(out('sweep', '', scale, 'pair', p, s.pairs[k][t])); });
      lines.push(out('sweep', '', scale, 'mean', null, s.mean[t]));
    });
  }
  return `${lines.join('\r\n')}\r\n`;
}

// Up to `n` words of a sentence for a file name: "dog-bites-man".
const slug = (words, n = 4) => words.slice(0, n).join('-').normalize('NFKD').replace(/[^A-Za-z0-9-]+/g, '').slice(0, 32) || 'words';

// A file name that says what the file holds, e.g.
// poslab-dog-bites-man-vs-man-bites-dog-random-0.5-d6-numbers.csv.
// A checkpoint's width is its own: its name (`modelName`) stands for it:
// poslab-dog-bites-man-vs-man-bites-dog-learned-1-causal-gpt-numbers.csv.
export function fileName(config, what, ext, modelName = null) {
  const scheme = config.scheme === 'none' ? 'no-positions' : `${config.scheme}-${config.scale}`;
  const { drawn, layers } = coreOf(config);
  const model = layers ? `-${config.layers}-blocks` : '';
  const heads = config.heads > 1 ? `-${config.heads}-heads` : '';
  const width = !drawn ? `-${slug([modelName ?? config.model])}` : `-d${config.dim}${heads}${model}`;
  return `poslab-${slug(config.sentence_a)}-vs-${slug(config.sentence_b)}-${scheme}${config.causal ? '-causal' : ''}` +
    `${width}-${what}.${ext}`;
}
