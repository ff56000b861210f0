// embed_dialog.js - the Embed dialog: the <iframe> snippet, the Jupyter cell
// and the link for the current view, with the groups a lesson hides (see
// embed.js). Loaded on the first click of the Embed button.
import { GROUPS, viewUrl, publishedBase } from './embed.js';
import { h } from './markup.js';
import { excerpt } from '../app/state.js';

const attribute = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;')
  .replace(/</g, '&lt;').replace(/>/g, '&gt;');

// The lab in a frame posts its height (browser/frame.js); these lines on
// the course page size each poslab frame to it, so that it fits at
// whatever width the page gives it, and tell each frame which part of it
// is in sight as the page scrolls (inside any scrolling box: the listener
// captures), where the lab keeps its result bar. Without them (a page that
// strips scripts) the height attribute stands and the frame scrolls itself.
export const FIT_SCRIPT = '<script>(function(){var q=0,all=function(){return document.querySelectorAll("iframe[data-poslab]");};' +
  'function view(){if(q)return;q=requestAnimationFrame(function(){q=0;all().forEach(function(f){var r=f.getBoundingClientRect();' +
  'if(f.contentWindow)f.contentWindow.postMessage({poslab:"view",top:-r.top,bottom:innerHeight-r.top},"*");});});}' +
  'addEventListener("message",function(e){var d=e.data;if(!d||d.poslab!=="height")return;all().forEach(function(f){' +
  'if(f.contentWindow===e.source)f.style.height=d.height+"px";});view();});' +
  'addEventListener("scroll",view,true);addEventListener("resize",view);})();</script>';

// A frame from another site may not write to the clipboard unless allowed:
// the lab's Copy buttons (its NumPy script, its link) need it.
const CLIPBOARD = 'allow="clipboard-write"';

export function iframeSnippet(src, width, height) {
  return `<iframe src="${attribute(src)}" width="${attribute(width)}" height="${attribute(height)}" ` +
    `title="poslab" loading="lazy" style="border:0" ${CLIPBOARD} data-poslab></iframe>\n${FIT_SCRIPT}`;
}

// Where the lab is published, for a page opened from disk or this machine,
// whose own address no notebook or course page elsewhere can load: the
// address the teacher pasted (carried by the view's link as ?site=, and
// kept in this browser), or the one `make dist SITE_URL=...` wrote into
// the page.
const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;
export const isLocal = (loc) => loc.protocol === 'file:' || LOCAL.test(loc.hostname);
const PUBLISHED_KEY = 'poslab.published';
function remembered() {
  try { return localStorage.getItem(PUBLISHED_KEY) ?? ''; } catch { return ''; }
}
function remember(address) {
  try { localStorage.setItem(PUBLISHED_KEY, address); } catch { /* private mode: for this visit only */ }
}
const builtIn = () => document.querySelector('meta[name="poslab-site"]')?.content ?? '';
// A Jupyter notebook cell that shows the lab at `src` in its output: IPython's
// IFrame writes an <iframe> like iframeSnippet's, so a notebook needs nothing
// installed. A JSON string is also a Python string literal (quotes and
// backslashes escaped); a size of digits alone is a number.
const python = (value) => (/^\d+$/.test(String(value)) ? String(value) : JSON.stringify(String(value)));

export function jupyterSnippet(src, width, height) {
  return `from IPython.display import IFrame\nIFrame(${python(src)}, width=${python(width)}, height=${python(height)}, ` +
    `extras=[${python(CLIPBOARD)}])`;
}

// A height that shows the embedded view of a three-word pair without inner
// scrolling in an iframe about 800 px wide (measured there).
export function suggestedHeight(hide) {
  const controls = GROUPS.reduce((sum, g) => sum + (hide.has(g.name) ? 0 : g.height), 0);
  const views = GROUPS.reduce((sum, g) => sum + (hide.has(g.name) ? 0 : g.results ?? 0), 0);
  const results = 730 + (hide.has('plot') ? 0 : 382) + views;
  return Math.max(controls, results) + 50;
}

// What the "Published at" field holds, in a line under it: a red field
// alone does not say what an address needs.
export function baseWords(text, pasted) {
  if (pasted) return `The snippets below open the lab at ${pasted}`;
  const given = String(text).trim();
  if (!given) return 'Until an address is given, the snippets below use this page\'s own, which works only on this computer.';
  return `“${excerpt(given, 40)}” is not a web address; allowed: one starting with http:// or https://, such as https://school.example/poslab/`;
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

// The Embed dialog. getHash() returns the current state's hash text;
// open() fills it in for the current view and shows it.
// The dialog's body, which index.html leaves out: it is needed only once
// Embed is clicked, and opening the lab is weighed by the byte.
function dialogMarkup() {
  const text = (id, attrs = {}) => h('input', { type: 'text', id, autocomplete: 'off', ...attrs });
  const copyRow = (button, label, status, ...more) => h('div', { class: 'button-row' },
    h('button', { type: 'button', id: button }, label), h('span', { class: 'copied', id: status, role: 'status' }), ...more);
  const code = (id, rows) => h('textarea', { id, readonly: '', rows, spellcheck: 'false' });
  return h('div', { class: 'dialog-body' },
    h('h2', { id: 'embed-title' }, 'Embed this view'),
    h('p', {}, 'Paste the HTML into a course page, or the cell into a Jupyter notebook. The lab opens with exactly ' +
      'the settings you see now.'),
    h('div', { class: 'embed-local', id: 'embed-local', hidden: '' },
      h('p', {}, 'This lab is open from this computer (a file or localhost), an address no course page or notebook ' +
        'elsewhere can load. Paste the address where the lab is published; the snippets below use it.'),
      h('label', {}, 'Published at ', text('embed-base', { placeholder: 'https://…/poslab/', spellcheck: 'false',
        'aria-describedby': 'embed-base-hint' })),
      h('p', { class: 'field-hint', id: 'embed-base-hint', 'aria-live': 'polite' })),
    h('fieldset', { class: 'embed-hide' }, h('legend', {}, 'Hide in the embed'), h('div', { class: 'embed-hide-list', id: 'embed-hide' })),
    h('div', { class: 'embed-size' },
      h('label', {}, 'Width ', text('embed-width', { class: 'number', value: '100%', 'aria-describedby': 'embed-size-hint' })),
      h('label', {}, 'Height ', text('embed-height', { class: 'number', 'aria-describedby': 'embed-size-hint' })),
      h('p', { class: 'field-hint', id: 'embed-size-hint', 'aria-live': 'polite' })),
    h('label', { class: 'block-label', for: 'embed-code' }, 'HTML'),
    code('embed-code', '6'),
    copyRow('embed-copy', 'Copy', 'embed-copied'),
    h('label', { class: 'block-label', for: 'embed-jupyter' }, 'Jupyter notebook cell (Python)'),
    code('embed-jupyter', '4'),
    copyRow('jupyter-copy', 'Copy cell', 'jupyter-copied'),
    h('label', { class: 'block-label', for: 'embed-link' }, 'Link to this view'),
    h('input', { type: 'text', id: 'embed-link', readonly: '', spellcheck: 'false' }),
    copyRow('link-copy', 'Copy link', 'link-copied', h('button', { type: 'button', class: 'quiet dialog-close', id: 'embed-close' }, 'Close')));
}

export function createEmbedPanel({ dialog, getHash, view }) {
  dialog.prepend(dialogMarkup());
  const list = dialog.querySelector('#embed-hide');
  const width = dialog.querySelector('#embed-width');
  const height = dialog.querySelector('#embed-height');
  const code = dialog.querySelector('#embed-code');
  const jupyter = dialog.querySelector('#embed-jupyter');
  const link = dialog.querySelector('#embed-link');
  const baseField = dialog.querySelector('#embed-base');
  const baseHint = dialog.querySelector('#embed-base-hint');
  const sizeHint = dialog.querySelector('#embed-size-hint');
  const local = isLocal(window.location);
  dialog.querySelector('#embed-local').hidden = !local;
  baseField.value = view.site || remembered() || builtIn();
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
    const size = [wOk ? w : '100%', hOk ? h : String(suggestedHeight(hide))];
    sizeHint.textContent = [
      wOk ? '' : `Width “${excerpt(width.value.trim(), 12)}” is not a size; allowed: pixels (800) or a percentage (100%). The snippets use ${size[0]}.`,
      hOk ? '' : `Height “${excerpt(height.value.trim(), 12)}” is not a size; allowed: pixels (1200). The snippets use ${size[1]}.`,
    ].filter(Boolean).join(' ');
    const order = GROUPS.map((g) => g.name).filter((n) => hide.has(n));
    const pasted = publishedBase(baseField.value);
    baseField.setAttribute('aria-invalid', String(local && !pasted));
    baseHint.textContent = local ? baseWords(baseField.value, pasted) : '';
    const base = local && pasted ? pasted : window.location.href;
    const src = viewUrl(getHash(), { embed: true, hide: order, base });
    code.value = iframeSnippet(src, ...size);
    jupyter.value = jupyterSnippet(src, ...size);
    link.value = viewUrl(getHash(), { embed: view.embed, hide: [...view.hide], base });
  }

  list.addEventListener('change', refresh);
  // A pasted address goes into this page's own address too (?site=, beside
  // ?embed and ?hide), so a bookmark or a reload of this copy keeps it.
  baseField.addEventListener('input', () => {
    const pasted = publishedBase(baseField.value);
    if (pasted) {
      remember(pasted);
      view.site = pasted;
      window.history.replaceState(window.history.state, '', viewUrl(getHash(), { embed: view.embed, hide: [...view.hide], site: pasted }));
    }
    refresh();
  });
  width.addEventListener('input', refresh);
  height.addEventListener('input', () => { heightEdited = true; refresh(); });
  dialog.querySelector('#embed-close').addEventListener('click', () => dialog.close());
  dialog.querySelector('#embed-copy').addEventListener('click',
    () => copyText(code.value, code, dialog.querySelector('#embed-copied')));
  dialog.querySelector('#jupyter-copy').addEventListener('click',
    () => copyText(jupyter.value, jupyter, dialog.querySelector('#jupyter-copied')));
  dialog.querySelector('#link-copy').addEventListener('click',
    () => copyText(link.value, link, dialog.querySelector('#link-copied')));
  // A click on the backdrop closes the dialog.
  dialog.addEventListener('click', (e) => { if (e.target === dialog) dialog.close(); });
  function open() {
    refresh();
    dialog.showModal();
    // Opened from this computer with no published address yet, that address
    // is the first thing to give: the snippets frame nothing without it.
    if (local && !publishedBase(baseField.value)) {
      baseField.focus();
      return;
    }
    // The HTML selected, ready to copy, without scrolling to it: on a phone
    // the dialog then opened at its third screen, below what it is for.
    code.focus({ preventScroll: true });
    code.select();
    dialog.scrollTop = 0;
  }
  return { open, refresh };
}
