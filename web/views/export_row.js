// export_row.js - the export row's buttons before their code has loaded.
import { track } from '../browser/loading.js';
import { showFailure } from './controls.js';

// The export row's code (views/export.js) loads as a student heads for one
// of its buttons (pointer, touch or focus); a click that comes before it
// has loaded waits for it and is then passed on.
export function exportOnDemand(root, dialog, get) {
  let loaded = null;
  let loading = null;
  const load = () => (loading ??= track(import('./export.js')).then(({ createExport }) => { loaded = createExport(root, dialog, get); }));
  for (const button of root.querySelectorAll('button')) {
    for (const early of ['pointerenter', 'pointerdown', 'focus']) button.addEventListener(early, () => load().catch(() => {}), { once: true });
  }
  root.addEventListener('click', async (e) => {
    const button = e.target.closest('button');
    if (loaded || !button) return;
    e.stopImmediatePropagation();
    try {
      await load();
    } catch (error) {
      showFailure(document, 'The downloads could not be loaded', error);
      return;
    }
    button.click();
  }, { capture: true });
  // The chart button only when there is a chart.
  return { render: ({ hasChart }) => { root.ownerDocument.getElementById('download-png').hidden = !hasChart; } };
}
