// export.js - taking the numbers away: "Copy as NumPy" (the script from
// numpy_script.js, through the clipboard or, where the browser refuses, in a
// dialog with the text selected), and downloads of the current numbers as
// JSON (the CLI's `--json --full --sweep` shape) and CSV (with the
// transformer's figures after each block), and of the chart as
// PNG. Downloads are Blob URLs on an <a download>; nothing leaves the page.
import { track, laterStyles } from '../browser/loading.js';
import { h } from './markup.js';
import { isCheckpointModel, modelOf, coreOf } from '../app/models.js';
import { SINGLE_FILE } from '../lib/bundled.js';

// Where a checkpoint model's files are, for Copy as NumPy's script: a model
// trained here in the site's models/ folder, GPT-2 in a course host's
// folder or the student's own (then only its name is known); null for the
// head and the blocks.
export function checkpointFiles(state) {
  if (!isCheckpointModel(state.model)) return null;
  const trained = modelOf(state.model).files === 'site';
  const folder = trained ? `models/${state.model}/` : state.checkpoint || `${state.model}/`;
  // the single file carries the models (in its data blocks) but has no folder beside it
  const carried = trained && SINGLE_FILE?.carried ? (file) => SINGLE_FILE.carried(`models/${state.model}/${file}`) : null;
  const url = !SINGLE_FILE && (trained || state.checkpoint) ? new URL(folder, window.location.href).href : null;
  return { name: state.model, trained, folder, url, carried };
}

// The files Copy as NumPy's checkpoint script reads.
const SCRIPT_FILES = ['config.json', 'model.safetensors', 'vocab.json'];

// Copy as NumPy's script writer is a chunk of its own, fetched as soon as a
// student heads for the button (pointer, touch or keyboard focus), so that
// the click normally finds it loaded and writes to the clipboard at once:
// Safari allows that only close to the click.
let scriptWriter = null;
const loadScriptWriter = () => (scriptWriter ??= track(Promise.all([import('../teach/numpy_script.js'),
  import('../teach/numpy_checkpoint.js')]).then(([head, checkpoint]) => ({ ...head, ...checkpoint }))));
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

// Lines of `text` that fit `width` on ctx.
function wrap(ctx, text, width) {
  const lines = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && ctx.measureText(next).width > width) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines;
}

// The chart as a picture for a worksheet: a title, the settings in one
// line, a legend (which curve is the followed word, which the mean), the
// chart with its dashed thresholds, and the thresholds in words; 1600 px
// wide, a landscape page at about 190 dpi. In the theme's colours.
export const PICTURE_WIDTH = 1600;
function chartPicture(chart, { title, settings, legend, caption }) {
  const css = getComputedStyle(document.documentElement);
  const colour = (name) => css.getPropertyValue(name).trim();
  const pad = 48;
  const inner = PICTURE_WIDTH - 2 * pad;
  const src = chart.canvas;
  const chartHeight = Math.round((src.height * inner) / src.width);
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d');
  const font = (size, weight = 400) => `${weight} ${size}px system-ui, sans-serif`;
  ctx.font = font(24);
  const settingLines = wrap(ctx, settings, inner);
  const captionLines = wrap(ctx, caption, inner);
  canvas.width = PICTURE_WIDTH;
  canvas.height = pad + 44 + settingLines.length * 32 + 16 + 36 + 16 + chartHeight + 16 + captionLines.length * 32 + pad;
  ctx.fillStyle = colour('--panel');
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = colour('--fg');
  ctx.textBaseline = 'top';
  let y = pad;
  ctx.font = font(34, 700);
  ctx.fillText(title, pad, y);
  y += 44;
  ctx.font = font(24);
  for (const line of settingLines) { ctx.fillText(line, pad, y); y += 32; }
  y += 16;
  let x = pad;
  for (const { label, color, dash } of legend) {
    ctx.strokeStyle = color;
    ctx.lineWidth = 4;
    ctx.setLineDash(dash);
    ctx.beginPath();
    ctx.moveTo(x, y + 14);
    ctx.lineTo(x + 48, y + 14);
    ctx.stroke();
    ctx.fillStyle = colour('--fg');
    ctx.fillText(label, x + 60, y);
    x += 60 + ctx.measureText(label).width + 40;
  }
  ctx.setLineDash([]);
  y += 52;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(src, pad, y, inner, chartHeight);
  y += chartHeight + 16;
  for (const line of captionLines) { ctx.fillText(line, pad, y); y += 32; }
  return new Promise((resolve) => { canvas.toBlob(resolve, 'image/png'); });
}

// The settings in one line: "“dog bites man” vs “man bites dog”, random
// stand-in at magnitude 0.5, no mask, d 6, 1 head, seed 2, rtol 1e-05, atol 1e-08".
// (a checkpoint's config has no d, heads or seed, which are its own: `name`
// says which model; the line said "d undefined, undefined heads")
export function settingsLine(c, name = 'checkpoint') {
  const signal = c.scheme === 'none' ? 'no positional information' : `${c.scheme} positions at magnitude ${c.scale}`;
  const { drawn, layers } = coreOf(c);
  const model = layers ? `, ${c.layers} transformer blocks (weight scale ${c.weight_std})` : '';
  const starts = c.offset_a || c.offset_b ? `, A from position ${c.offset_a}, B from ${c.offset_b}` : '';
  const weights = !drawn ? `, model ${name}` : `, d ${c.dim}, ${c.heads} head${c.heads === 1 ? '' : 's'}${model}`;
  return `“${c.sentence_a.join(' ')}” vs “${c.sentence_b.join(' ')}”: ${signal}, ${c.causal ? 'causal mask' : 'no mask'}` +
    `${weights}${starts}${!drawn ? '' : `, seed ${c.seed}`}, rtol ${c.rtol}, atol ${c.atol}`;
}

// root: the export row; dialog: the NumPy fallback dialog; get: {result()
// (the verdicts shown now), everything() (the same with sweep and full),
// chart() (the Chart.js chart or null), link() (this view's address),
// state() (the lab's state, for a checkpoint model's files)}.
// The fallback dialog's body, which index.html leaves out.
function dialogMarkup() {
  return h('div', { class: 'dialog-body' },
    h('h2', { id: 'numpy-title' }, 'NumPy script for this view'),
    h('p', { id: 'numpy-why' }, 'This browser did not let the page copy by itself. The script below is selected: press Ctrl+C ' +
      '(⌘C on a Mac) to copy it, then paste it into Python.'),
    // a checkpoint model's script reads its files: where they are
    h('p', { id: 'numpy-note', hidden: '' }),
    // the single file's own copies of them, which have no folder to be run from
    h('div', { class: 'button-row', id: 'numpy-files', hidden: '' }),
    h('textarea', { id: 'numpy-code', readonly: '', rows: '14', spellcheck: 'false', 'aria-labelledby': 'numpy-title' }),
    h('div', { class: 'button-row' }, h('button', { type: 'button', class: 'quiet dialog-close', id: 'numpy-close' }, 'Close')));
}

export function createExport(root, dialog, get) {
  dialog.replaceChildren(dialogMarkup());
  const checkpoint = () => checkpointFiles(get.state());
  const status = root.querySelector('#export-status');
  const code = dialog.querySelector('#numpy-code');
  const why = dialog.querySelector('#numpy-why');
  const note = dialog.querySelector('#numpy-note');
  let timer = 0;

  function say(text) {
    status.textContent = text;
    clearTimeout(timer);
    timer = setTimeout(() => { status.textContent = ''; }, 4000);
  }

  // A checkpoint model's script reads the checkpoint's files, so the dialog
  // says where they are, whether or not the clipboard took the script.
  function filesNote(ck) {
    const reads = `This script reads ${ck.name}’s files ${SCRIPT_FILES.slice(0, -1).join(', ')} and ${SCRIPT_FILES.at(-1)}`;
    if (ck.carried) {
      return `${reads}. This page is one file that carries them inside it, with no folder beside it: save the three ` +
        `below into a folder named ${ck.name}, then give that folder as the script's argument: ` +
        `python3 poslab_${ck.name}.py path/to/${ck.name}/`;
    }
    const where = ck.url ? ` (this lab has them at ${ck.url})` : '';
    return `${reads}${where}. Run it ` +
      `from the folder that holds ${ck.folder}, or give the folder that holds them as its argument: ` +
      `python3 poslab_${ck.name}.py path/to/${ck.name}/`;
  }
  const files = dialog.querySelector('#numpy-files');
  function offerFiles(ck) {
    files.hidden = !ck?.carried;
    files.replaceChildren(...(ck?.carried ? SCRIPT_FILES.map((file) => {
      const button = h('button', { type: 'button' }, `Save ${file}`);
      button.addEventListener('click', () => download(file, new Blob([ck.carried(file)], { type: 'application/octet-stream' })));
      return button;
    }) : []));
  }

  async function copyNumpy() {
    const writers = await loadScriptWriter();
    const ck = checkpoint();
    let script;
    try {
      script = ck ? writers.numpyCheckpointScript(get.result(), { folder: ck.folder, trained: ck.trained, link: get.link() })
        : writers.numpyScript(get.result().config, { link: get.link() });
    } catch (e) {
      say(`Could not write the script: ${e.message}`);
      return;
    }
    let copied = true;
    try {
      await navigator.clipboard.writeText(script);
    } catch {
      copied = false; // no clipboard here (permission refused, an iframe, plain http)
    }
    if (copied && !ck) {
      say('Copied: paste it into Python or a notebook');
      return;
    }
    // Shown selected, ready for Ctrl+C, where the clipboard refused it.
    code.value = script;
    why.hidden = copied;
    note.hidden = !ck;
    note.textContent = ck ? `${copied ? 'Copied. ' : ''}${filesNote(ck)}` : '';
    offerFiles(ck);
    await laterStyles().catch(() => {}); // the dialog's styles; unstyled is still usable
    dialog.showModal();
    code.focus();
    code.select();
    say(copied ? 'Copied: see where to run it' : '');
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
    // the thresholds the page states (chart, tour), beside the CLI's keys
    // (the page's checkpoint has no path on disk: the JSON names its folder or model, as the CLI's names --checkpoint)
    const config = !coreOf(result.config).drawn && !result.config.checkpoint
      ? { ...result.config, checkpoint: checkpoint()?.folder ?? '' } : result.config;
    const json = { ...result, config, thresholds: get.thresholds().map(({ pair, threshold }) => (pair < 0 ? { row: 'mean', threshold }
      : { row: 'pair', word: result.pairs[pair]?.word, index_a: pair, threshold })) };
    download(fileName(result.config, 'numbers', 'json', checkpoint()?.name), new Blob([`${JSON.stringify(json, null, 1)}\n`], { type: 'application/json' }));
    say('Downloaded the numbers as JSON');
  });
  root.querySelector('#download-csv').addEventListener('click', async () => {
    const [result, { fileName, toCsv }] = await Promise.all([numbers(), loadFiles()]);
    if (!result) return;
    const name = checkpoint()?.name;
    download(fileName(result.config, 'numbers', 'csv', name), new Blob([toCsv(result, get.thresholds(), name)], { type: 'text/csv' }));
    say('Downloaded the numbers as CSV');
  });
  const png = root.querySelector('#download-png');
  png.addEventListener('click', async () => {
    const chart = get.chart();
    if (!chart) return;
    const { config } = get.result();
    const plot = document.querySelector('#plot');
    const text = (sel) => plot.querySelector(sel)?.textContent.replace(/\s+/g, ' ').trim() ?? '';
    const css = getComputedStyle(document.documentElement);
    const image = await chartPicture(chart, { // the chart as it is at the click
      title: text('#plot-title'),
      settings: settingsLine(config, checkpoint()?.name),
      legend: [
        { label: `followed word: ${text('.legend-word .legend-label')}`, color: css.getPropertyValue('--plot-word').trim(), dash: [] },
        { label: 'sentence mean', color: css.getPropertyValue('--plot-mean').trim(), dash: [10, 6] },
        { label: 'current magnitude', color: css.getPropertyValue('--plot-marker').trim(), dash: [3, 5] },
      ],
      caption: text('.chart-caption'),
    });
    const { fileName } = await loadFiles();
    download(fileName(config, 'chart', 'png', checkpoint()?.name), image);
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
