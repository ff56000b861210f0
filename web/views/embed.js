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
  { name: 'words', label: 'Sentences and examples', height: 366 },
  { name: 'positions', label: 'Positional information switch', height: 124 },
  { name: 'scheme', label: 'Kind of positional signal', height: 195 },
  { name: 'magnitude', label: 'Magnitude', height: 184 },
  { name: 'causal', label: 'Causal mask', height: 123 },
  { name: 'model', label: 'Model', height: 325 },
  { name: 'advanced', label: 'Advanced settings', height: 44 },
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

// An http(s) address, or null: where the lab is published.
export function publishedBase(text) {
  try {
    const url = new URL(String(text).trim());
    return /^https?:$/.test(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

// {embed, hide: Set of group names, site: where the lab is published (a
// teacher's saved link from a copy on disk carries it) or null,
// ignored: [{label, value, reason}]}
export function readView(search) {
  const params = new URLSearchParams(search);
  // A bare `?embed` asks for it too; a value that is not a yes or a no is said.
  const asked = params.get('embed');
  const embed = ['', '1', 'true', 'yes'].includes(asked);
  const site = params.has('site') ? publishedBase(params.get('site')) : null;
  const hide = new Set();
  const ignored = [];
  for (const name of (params.get('hide') ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (NAMES.includes(name)) hide.add(name);
    else ignored.push({ label: 'hide', value: excerpt(name, 20), reason: `allowed: ${NAMES.join(', ')}` });
  }
  if (!embed && asked !== null && !['0', 'false', 'no'].includes(asked)) ignored.push({ label: 'embed', value: excerpt(asked, 20), reason: 'allowed: 1 or 0' });
  if (params.has('site') && !site) ignored.push({ label: 'site', value: excerpt(params.get('site'), 30), reason: 'allowed: an http or https address' });
  return { embed, hide, site, ignored };
}

export function applyView(view, doc = document) {
  doc.documentElement.classList.toggle('embed', view.embed);
  for (const node of doc.querySelectorAll('[data-group]')) {
    node.hidden = view.hide.has(node.dataset.group);
  }
}

// This page's address (or `base`, where the lab is published) with the
// given view and state hash; `site`: the published address, carried by a
// link to a copy on disk or this machine.
export function viewUrl(hash, { embed = false, hide = [], base = window.location.href, site = null } = {}) {
  const url = new URL(base);
  const query = [];
  if (embed) query.push('embed=1');
  if (hide.length) query.push(`hide=${[...hide].join(',')}`);
  if (site) query.push(`site=${encodeURIComponent(site)}`);
  url.search = query.length ? `?${query.join('&')}` : '';
  url.hash = hash;
  return url.href;
}
