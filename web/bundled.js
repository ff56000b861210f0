// bundled.js - what a page built as one file carries inside itself instead of
// beside itself. In the site and the package this module is empty: poslab.js
// fetches the compiled core from beside it, and the page starts its sweep
// worker from sweep_worker.js. `make dist` builds dist/poslab.html
// (web/dist/single_file.mjs) with this module replaced by one that holds both
// cores as base64 text; that file has no worker script beside it, so its page
// computes sweeps itself.
export const SINGLE_FILE = null; // there: { cores: { simd: '<base64>', nosimd: '<base64>' } }
