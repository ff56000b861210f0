// debug.js - what a page opened with ?debug lets a test watch (loaded only
// then): the size of the WebAssembly memory and the heap's bytes in use
// (numbers; the heap itself stays inside poslab.js), the transformer's
// runs, where the chart's sweeps were computed, and the memory of every
// copy of the core, the workers' too.
import { wasmMemory } from './memory_report.js';

// page() and settled(): the page's render once it exists, and whether the
// page has timed the device once more after settling (Model.recalibrate).
export function exposeDebug({ lab, model, page, settled }) {
  const core = coreSplit(lab);
  window.poslabDebug = Object.freeze({ memoryBytes: () => lab.memoryBytes(), heapBytesInUse: () => lab.heapBytesInUse(),
    // the transformer's runs in the worker: {asked, finished, dropped}
    transformerRuns: () => page().runStats(),
    // where the chart's sweeps were computed, what calibrate() measured,
    // and how much later than their own time the workers' last sweep came back
    sweeps: () => ({ ...model.swept, calibration: model.calibration, settled: settled(), workerWaitMs: model.workerWaitMs }),
    // a promise of [{what, bytes, heap}]
    wasmMemory: () => wasmMemory(page().copies()),
    // How much of a keystroke is the core's (tests/bench/keystroke_split.mjs)
    timeCore: core.time,
    coreTimes: core.take });
}

// The core's work on the page's own thread (its runs, and the threshold
// searches that follow a sweep), timed once time() is called: take() gives
// the ms of each call since the last take(). Every answer is kept, and
// with time({memoise: true}) a call made before is answered from it, so
// that the core costs (nearly) nothing and what a keystroke still takes is
// the page's own work: its other JavaScript, Chart.js, style, layout and
// paint. The two ways can take turns on one page (keystroke_split.mjs
// takes them 15 keystrokes at a time, and says why not one by one).
function coreSplit(lab) {
  let times = null, memoised = false;
  const answers = new Map();
  const timed = (name) => {
    const call = lab[name].bind(lab);
    return (...args) => {
      const t0 = performance.now();
      try {
        const key = JSON.stringify([name, ...args]);
        if (!memoised || !answers.has(key)) answers.set(key, call(...args));
        return answers.get(key);
      } finally {
        times.push(performance.now() - t0);
      }
    };
  };
  return {
    time({ memoise = false } = {}) {
      if (!times) lab.run = timed('run'), lab.threshold = timed('threshold');
      times = [];
      memoised = memoise;
    },
    take() {
      const taken = times ?? [];
      if (times) times = [];
      return taken;
    },
  };
}
