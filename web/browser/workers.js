// workers.js - starts the page's workers (browser/sweeper.js's pools) from
// their scripts, in the site or in the single file.
import { SINGLE_FILE } from '../lib/bundled.js';
import { createSweeper } from './sweeper.js';

// A worker (browser/sweeper.js's) of the script `name`: a module beside the
// page, or, in the single file, a classic script made from the code it
// carries, with the cores in front (bundled.js says how), as a blob: URL,
// which a browser starts even for a page opened from disk.
// `base`: the page's module URL (main.js's import.meta.url), which the
// site's worker scripts sit beside.
const workerUrls = new Map();
export function startWorker(name, options, base) {
  if (!SINGLE_FILE) return createSweeper(new URL(`./${name}.js`, base), options);
  if (!workerUrls.has(name)) {
    const cores = `globalThis.POSLAB_SINGLE_FILE = ${JSON.stringify({ cores: SINGLE_FILE.cores })};\n`;
    workerUrls.set(name, URL.createObjectURL(new Blob([cores, SINGLE_FILE.workers[name]], { type: 'text/javascript' })));
  }
  return createSweeper(workerUrls.get(name), { ...options, type: 'classic' });
}
