// embed.js - how the page is framed, not what it computes: ?embed=1 for
// compact chrome inside an iframe, ?hide=a,b,c to hide control groups for a
// lesson (like tensorflow/playground's *_hide flags); the "Embed" dialog
// that writes the iframe snippet, a Jupyter cell and the link for the
// current view is embed_dialog.js. These live in the query string; the lab's
// state lives in the hash.
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

// This page's address (or `base`, where the lab is published) with the
// given view and state hash.
export function viewUrl(hash, { embed = false, hide = [], base = window.location.href } = {}) {
  const url = new URL(base);
  const query = [];
  if (embed) query.push('embed=1');
  if (hide.length) query.push(`hide=${[...hide].join(',')}`);
  url.search = query.length ? `?${query.join('&')}` : '';
  url.hash = hash;
  return url.href;
}
