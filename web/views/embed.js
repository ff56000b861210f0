// embed.js - how the page is framed, not what it computes: ?embed=1 for
// compact chrome inside an iframe, ?hide=a,b,c to hide control groups for a
// lesson (like tensorflow/playground's *_hide flags), and the "Embed" panel
// that writes the iframe snippet, a Jupyter cell and the link for the
// current view. These live in the query string; the lab's state lives in
// the hash.
import { excerpt } from '../app/state.js';

// Groups a lesson can hide (elements with data-group="name"), with the words
// the Embed panel shows, and roughly how tall each is (px) for a suggested
// iframe height (`height` in the controls column, `results` in the results
// column; the teaching views below the chart open on demand, so they count
// closed).
export const GROUPS = [
  { name: 'intro', label: 'Introduction', height: 0 },
  { name: 'words', label: 'Sentences and examples', height: 375 },
  { name: 'positions', label: 'Positional information switch', height: 150 },
  { name: 'scheme', label: 'Kind of positional signal', height: 440 },
  { name: 'magnitude', label: 'Magnitude', height: 251 },
  { name: 'causal', label: 'Causal mask', height: 212 },
  { name: 'model', label: 'Model (one head or transformer blocks)', height: 455 },
  { name: 'advanced', label: 'Advanced settings', height: 53 },
  { name: 'blocks', label: 'Transformer: block by block', height: 0, results: 0 },
  { name: 'plot', label: 'Chart', height: 0 },
  { name: 'tour', label: 'Guided tour', height: 0, results: 0 },
  { name: 'export', label: 'Copy as NumPy and downloads', height: 0, results: 56 },
  { name: 'heatmap', label: 'Attention heatmaps', height: 0, results: 62 },
  { name: 'permutation', label: 'Reordering: what moves, what stays', height: 0, results: 62 },
  { name: 'baseline', label: 'Averaging baseline', height: 0, results: 62 },
  { name: 'why', label: 'Why each scheme works', height: 0, results: 62 },
];
const NAMES = GROUPS.map((g) => g.name);

// {embed, hide: Set of group names, ignored: [{label, value, reason}]}
export function readView(search) {
  const params = new URLSearchParams(search);
  const embed = ['1', 'true', 'yes'].includes(params.get('embed') ?? '');
  const hide = new Set();
  const ignored = [];
  for (const name of (params.get('hide') ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (NAMES.includes(name)) hide.add(name);
    else ignored.push({ label: 'hide', value: excerpt(name, 20), reason: `allowed: ${NAMES.join(', ')}` });
  }
  return { embed, hide, ignored };
}

export function applyView(view, doc = document) {
  doc.documentElement.classList.toggle('embed', view.embed);
  for (const node of doc.querySelectorAll('[data-group]')) {
    node.hidden = view.hide.has(node.dataset.group);
  }
}

// This page's address with the given view and state hash.
export function viewUrl(hash, { embed = false, hide = [] } = {}) {
  const url = new URL(window.location.href);
  const query = [];
  if (embed) query.push('embed=1');
  if (hide.length) query.push(`hide=${[...hide].join(',')}`);
  url.search = query.length ? `?${query.join('&')}` : '';
  url.hash = hash;
  return url.href;
}

const attribute = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;')
  .replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function iframeSnippet(src, width, height) {
  return `<iframe src="${attribute(src)}" width="${attribute(width)}" height="${attribute(height)}" ` +
    'title="poslab" loading="lazy" style="border:0"></iframe>';
}

// A Jupyter notebook cell that shows the lab at `src` in its output: IPython's
// IFrame writes an <iframe> like iframeSnippet's, so a notebook needs nothing
// installed. A JSON string is also a Python string literal (quotes and
// backslashes escaped); a size of digits alone is a number.
const python = (value) => (/^\d+$/.test(String(value)) ? String(value) : JSON.stringify(String(value)));

export function jupyterSnippet(src, width, height) {
  return `from IPython.display import IFrame\nIFrame(${python(src)}, width=${python(width)}, height=${python(height)})`;
}

// A height that shows the embedded view of a three-word pair without inner
// scrolling in an iframe about 800 px wide (measured there).
export function suggestedHeight(hide) {
  const controls = GROUPS.reduce((sum, g) => sum + (hide.has(g.name) ? 0 : g.height), 0);
  const views = GROUPS.reduce((sum, g) => sum + (hide.has(g.name) ? 0 : g.results ?? 0), 0);
  const results = 730 + (hide.has('plot') ? 0 : 382) + views;
  return Math.max(controls, results) + 50;
}

async function copyText(text, field, status) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    field.select(); // no clipboard permission (e.g. inside an iframe)
    document.execCommand('copy');
  }
  status.textContent = 'Copied';
  setTimeout(() => { status.textContent = ''; }, 2000);
}

// The Embed dialog. getHash() returns the current state's hash text.
export function createEmbedPanel({ dialog, openButton, getHash, view }) {
  const list = dialog.querySelector('#embed-hide');
  const width = dialog.querySelector('#embed-width');
  const height = dialog.querySelector('#embed-height');
  const code = dialog.querySelector('#embed-code');
  const jupyter = dialog.querySelector('#embed-jupyter');
  const link = dialog.querySelector('#embed-link');
  let heightEdited = false;

  const boxes = GROUPS.map((group) => {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = group.name;
    box.checked = view.hide.has(group.name);
    label.append(box, ` ${group.label}`);
    list.append(label);
    return box;
  });

  function refresh() {
    const hide = new Set(boxes.filter((b) => b.checked).map((b) => b.value));
    if (!heightEdited) height.value = String(suggestedHeight(hide));
    const w = width.value.trim().replace(/px$/i, '');
    const h = height.value.trim().replace(/px$/i, '');
    const wOk = /^\d{1,5}%?$/.test(w);
    const hOk = /^\d{1,5}$/.test(h);
    width.setAttribute('aria-invalid', String(!wOk));
    height.setAttribute('aria-invalid', String(!hOk));
    const order = GROUPS.map((g) => g.name).filter((n) => hide.has(n));
    const src = viewUrl(getHash(), { embed: true, hide: order });
    const size = [wOk ? w : '100%', hOk ? h : String(suggestedHeight(hide))];
    code.value = iframeSnippet(src, ...size);
    jupyter.value = jupyterSnippet(src, ...size);
    link.value = viewUrl(getHash(), { embed: view.embed, hide: [...view.hide] });
  }

  list.addEventListener('change', refresh);
  width.addEventListener('input', refresh);
  height.addEventListener('input', () => { heightEdited = true; refresh(); });
  openButton.addEventListener('click', () => {
    refresh();
    dialog.showModal();
    code.focus();
    code.select();
  });
  dialog.querySelector('#embed-close').addEventListener('click', () => dialog.close());
  dialog.querySelector('#embed-copy').addEventListener('click',
    () => copyText(code.value, code, dialog.querySelector('#embed-copied')));
  dialog.querySelector('#jupyter-copy').addEventListener('click',
    () => copyText(jupyter.value, jupyter, dialog.querySelector('#jupyter-copied')));
  dialog.querySelector('#link-copy').addEventListener('click',
    () => copyText(link.value, link, dialog.querySelector('#link-copied')));
  // A click on the backdrop closes the dialog.
  dialog.addEventListener('click', (e) => { if (e.target === dialog) dialog.close(); });
  return { refresh };
}
