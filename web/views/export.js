// export.js - taking the numbers away: "Copy as NumPy" (the script from
// numpy_script.js, through the clipboard or, where the browser refuses, in a
// dialog with the text selected), and downloads of the current numbers as
// JSON (the CLI's `--json --full --sweep` shape) and CSV (with the
// transformer's figures after each block), and of the chart as
// PNG. Downloads are Blob URLs on an <a download>; nothing leaves the page.
import { track } from '../browser/loading.js';

// Copy as NumPy's script writer is a chunk of its own, fetched as soon as a
// student heads for the button (pointer, touch or keyboard focus), so that
// the click normally finds it loaded and writes to the clipboard at once:
// Safari allows that only close to the click.
let scriptWriter = null;
const loadScriptWriter = () => (scriptWriter ??= track(import('../teach/numpy_script.js')));

// ---- CSV (no DOM) ----------------------------------------------------------

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

// ---- the page --------------------------------------------------------------

function download(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// A data: URL (chart.toBase64Image) as a Blob, without fetching it.
function dataUrlBlob(dataUrl) {
  const [head, base64] = dataUrl.split(',');
  const bytes = Uint8Array.from(atob(base64), (ch) => ch.charCodeAt(0));
  return new Blob([bytes], { type: head.slice(5).split(';')[0] });
}

// root: the export row; dialog: the NumPy fallback dialog; get: {result()
// (the verdicts shown now), everything() (the same with sweep and full),
// chart() (the Chart.js chart or null), link() (this view's address)}.
export function createExport(root, dialog, get) {
  const status = root.querySelector('#export-status');
  const code = dialog.querySelector('#numpy-code');
  let timer = 0;

  function say(text) {
    status.textContent = text;
    clearTimeout(timer);
    timer = setTimeout(() => { status.textContent = ''; }, 4000);
  }

  async function copyNumpy() {
    const { numpyScript } = await loadScriptWriter();
    const script = numpyScript(get.result().config, { link: get.link() });
    try {
      await navigator.clipboard.writeText(script);
      say('Copied: paste it into Python or a notebook');
    } catch {
      // No clipboard here (permission refused, an iframe, plain http):
      // show the script selected, ready for Ctrl+C.
      code.value = script;
      dialog.showModal();
      code.focus();
      code.select();
      say('');
    }
  }

  const copy = root.querySelector('#copy-numpy');
  for (const early of ['pointerenter', 'pointerdown', 'focus']) copy.addEventListener(early, loadScriptWriter, { once: true });
  copy.addEventListener('click', copyNumpy);
  // everything() may be a promise (a transformer's, computed in a worker).
  async function numbers() {
    say('Preparing the numbers…');
    try {
      return await get.everything();
    } catch (e) {
      say(`Could not compute the numbers: ${e?.message ?? 'the page moved on'}`);
      return null;
    }
  }
  root.querySelector('#download-json').addEventListener('click', async () => {
    const result = await numbers();
    if (!result) return;
    download(fileName(result.config, 'json'), new Blob([`${JSON.stringify(result, null, 1)}\n`], { type: 'application/json' }));
    say('Downloaded the numbers as JSON');
  });
  root.querySelector('#download-csv').addEventListener('click', async () => {
    const result = await numbers();
    if (!result) return;
    download(fileName(result.config, 'csv'), new Blob([toCsv(result)], { type: 'text/csv' }));
    say('Downloaded the numbers as CSV');
  });
  const png = root.querySelector('#download-png');
  png.addEventListener('click', () => {
    const chart = get.chart();
    if (!chart) return;
    download(fileName(get.result().config, 'png'), dataUrlBlob(chart.toBase64Image('image/png', 1)));
    say('Downloaded the chart as PNG');
  });
  dialog.querySelector('#numpy-close').addEventListener('click', () => dialog.close());
  dialog.addEventListener('click', (e) => { if (e.target === dialog) dialog.close(); });

  // The chart button only when there is a chart.
  function render({ hasChart }) {
    png.hidden = !hasChart;
  }

  return { render };
}
