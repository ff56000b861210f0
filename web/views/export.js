// export.js - taking the numbers away: "Copy as NumPy" (the script from
// numpy_script.js, through the clipboard or, where the browser refuses, in a
// dialog with the text selected), and downloads of the current numbers as
// JSON (the CLI's `--json --full --sweep` shape) and CSV (with the
// transformer's figures after each block), and of the chart as
// PNG. Downloads are Blob URLs on an <a download>; nothing leaves the page.
import { track, laterStyles } from '../browser/loading.js';

// Copy as NumPy's script writer is a chunk of its own, fetched as soon as a
// student heads for the button (pointer, touch or keyboard focus), so that
// the click normally finds it loaded and writes to the clipboard at once:
// Safari allows that only close to the click.
let scriptWriter = null;
const loadScriptWriter = () => (scriptWriter ??= track(import('../teach/numpy_script.js')));
// The CSV writer and file names, once a download is asked for.
const loadFiles = () => track(import('../app/csv.js'));

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
      await laterStyles().catch(() => {}); // the dialog's styles; unstyled is still usable
      dialog.showModal();
      code.focus();
      code.select();
      say('');
    }
  }

  const copy = root.querySelector('#copy-numpy');
  for (const early of ['pointerenter', 'pointerdown', 'focus']) copy.addEventListener(early, loadScriptWriter, { once: true });
  // this module itself loads as the pointer or focus reaches the row (main.js)
  if (copy.matches(':hover, :focus')) loadScriptWriter();
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
    const [result, { fileName }] = await Promise.all([numbers(), loadFiles()]);
    if (!result) return;
    download(fileName(result.config, 'json'), new Blob([`${JSON.stringify(result, null, 1)}\n`], { type: 'application/json' }));
    say('Downloaded the numbers as JSON');
  });
  root.querySelector('#download-csv').addEventListener('click', async () => {
    const [result, { fileName, toCsv }] = await Promise.all([numbers(), loadFiles()]);
    if (!result) return;
    download(fileName(result.config, 'csv'), new Blob([toCsv(result)], { type: 'text/csv' }));
    say('Downloaded the numbers as CSV');
  });
  const png = root.querySelector('#download-png');
  png.addEventListener('click', async () => {
    const chart = get.chart();
    if (!chart) return;
    const image = dataUrlBlob(chart.toBase64Image('image/png', 1)); // the chart as it is at the click
    const { fileName } = await loadFiles();
    download(fileName(get.result().config, 'png'), image);
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
