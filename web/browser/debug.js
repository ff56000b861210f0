// debug.js - what a page opened with ?debug lets a test watch (loaded only
// then): the size of the WebAssembly memory and the heap's bytes in use
// (numbers; the heap itself stays inside poslab.js), the transformer's
// runs, where the chart's sweeps were computed, and the memory of every
// copy of the core, the workers' too.
import { wasmMemory } from './memory_report.js';

// page() and settled(): the page's render once it exists, and whether the
// page has timed the device once more after settling (Model.recalibrate).
export function exposeDebug({ lab, model, page, settled }) {
  window.poslabDebug = Object.freeze({ memoryBytes: () => lab.memoryBytes(), heapBytesInUse: () => lab.heapBytesInUse(),
    // the transformer's runs in the worker: {asked, finished, dropped}
    transformerRuns: () => page().runStats(),
    // where the chart's sweeps were computed, what calibrate() measured,
    // and how much later than their own time the workers' last sweep came back
    sweeps: () => ({ ...model.swept, calibration: model.calibration, settled: settled(), workerWaitMs: model.workerWaitMs }),
    // a promise of [{what, bytes, heap}]
    wasmMemory: () => wasmMemory(page().copies()) });
}
