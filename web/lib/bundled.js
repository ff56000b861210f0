// bundled.js - what a page built as one file carries inside itself instead of
// beside itself. In the site and the package this module is empty: poslab.js
// fetches the compiled core from beside it, and the page starts its workers
// from sweep_worker.js and run_worker.js. `make dist` builds dist/poslab.html
// (web/dist/single_file.mjs) with this module replaced by one that holds both
// cores as base64 text and both workers' bundled code, which the page
// starts from blob: URLs (main.js's workerUrl); in those workers this module
// reads the cores the page put in front of their code.
export const SINGLE_FILE = null; // there: { cores: { simd, nosimd: '<base64>' }, workers: { sweep_worker, run_worker: '<js>' } }
