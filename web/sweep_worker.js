// sweep_worker.js - the chart's sweep and thresholds, computed on a thread of
// their own with a second copy of the core, so that typing never waits for
// them: at 64 words and d 512 a sweep takes about 0.2 s, which on the page's
// thread held up every keystroke. Requests are answered in order (the page,
// model.js, has at most two out).
//
//   request: {id, config, range (the sweep's), pairs: [pair, ...], sweep}
//            sweep: the page's copy when it has one (it then needs only
//            thresholds, and the worker does not sweep again), else null
//   replies: {id, sweep, ms} first if the request had none (so the page can
//            draw the curves while the thresholds are computed),
//            then {id, thresholds: [[pair, value], ...]};
//            or {id, error: message} when the core refuses the config,
//            or {id, broken: message} when this copy of the core could not start
import { createLab } from './poslab.js';
import { thresholdFor } from './sweep.js';

const loading = createLab();

self.onmessage = async ({ data }) => {
  const { id, config, range, pairs } = data;
  let lab;
  try {
    lab = await loading;
  } catch (e) {
    self.postMessage({ id, broken: String(e?.message ?? e) });
    return;
  }
  try {
    let { sweep } = data;
    if (!sweep) {
      const t0 = performance.now();
      sweep = lab.run({ ...config, sweep: range }).sweep;
      self.postMessage({ id, sweep, ms: performance.now() - t0 });
    }
    const thresholds = pairs.map((pair) => [pair, thresholdFor(lab, config, sweep, pair)]);
    self.postMessage({ id, thresholds });
  } catch (e) {
    self.postMessage({ id, error: String(e?.message ?? e) });
  }
};
