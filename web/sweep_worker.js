// sweep_worker.js - the chart's sweep and thresholds, computed on a thread of
// their own with a second copy of the core, so that typing never waits for
// them: at 64 words and d 512 a sweep takes about 0.2 s, which on the page's
// thread held up every keystroke. Requests are answered in order (the page,
// model.js, has at most two out); the last sweep is kept, so asking for
// another word's threshold on the same sentences does not sweep again.
//
//   request: {id, key (the sweep key), config, sweep (the range), pairs: [pair, ...], haveSweep}
//   replies: {id, sweep, ms} first, unless the page has that sweep already
//            (so it can draw the curves while the thresholds are computed),
//            then {id, thresholds: [[pair, value], ...]};
//            or {id, error: message} when the core refuses the config,
//            or {id, broken: message} when this copy of the core could not start
import { createLab } from './poslab.js';
import { thresholdFor } from './sweep.js';

const loading = createLab();
let last = { key: null, sweep: null };

self.onmessage = async ({ data }) => {
  const { id, key, config, sweep: range, pairs, haveSweep } = data;
  let lab;
  try {
    lab = await loading;
  } catch (e) {
    self.postMessage({ id, broken: String(e?.message ?? e) });
    return;
  }
  try {
    let ms = null;
    if (last.key !== key) {
      const t0 = performance.now();
      last = { key, sweep: lab.run({ ...config, sweep: range }).sweep };
      ms = performance.now() - t0;
    }
    if (!haveSweep) self.postMessage({ id, sweep: last.sweep, ms });
    const thresholds = pairs.map((pair) => [pair, thresholdFor(lab, config, last.sweep, pair)]);
    self.postMessage({ id, thresholds });
  } catch (e) {
    self.postMessage({ id, error: String(e?.message ?? e) });
  }
};
