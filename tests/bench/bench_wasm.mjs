// bench_wasm.mjs - the WebAssembly core under Node, through build/site/poslab.js,
// the wrapper the page uses.
//
//   node tests/bench/bench_wasm.mjs JOB_JSON
//
// JOB_JSON: {mode, a, b, dim, seed, scheme, scale, sweep: {lo, hi, count} | null,
//            warmup, warmupMs, minReps, maxReps, budget, coreOnly, and for the
//            transformer workloads model, layers, heads, weight_std, causal}; the modes are
// bench_core.c's:
//   full    lab.run() of the whole experiment and sweep, seeds alternating so
//           that nothing is reused from the repetition before;
//   slider  lab.run() with only the scale changed (cached projections);
//   sweep   the sweep alone on cached projections.
// "total_ms" times lab.run(): parsing the options into the core's config,
// poslab_run and getting the result out as JS values, all of which the
// page pays. "run_ms" times poslab_run alone, called on the wrapper's core
// (a breakdown for the benchmark, not an interface); coreOnly skips the
// lab.run() timing. Prints one JSON object, with the memory the runs took.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const t0 = performance.now();
const { createLab } = await import(`${root}build/site/poslab.js`);
const lab = await createLab();
const loadMs = performance.now() - t0;

const job = JSON.parse(process.argv[2]);
const { mode, warmup = 2, warmupMs = 300, minReps = 5, maxReps = 1000, budget = 2 } = job;
const base = {
  sentence_a: job.a, sentence_b: job.b, dim: job.dim, seed: job.seed, scheme: job.scheme ?? 'random',
  scale: job.scale, sweep: mode === 'slider' ? null : job.sweep,
  ...Object.fromEntries(['model', 'layers', 'heads', 'weight_std', 'causal'].filter((k) => k in job).map((k) => [k, job[k]])),
};
const configAt = (i) => ({
  ...base,
  seed: mode === 'full' ? job.seed + ((i + 1) & 1) : job.seed, // never the cached seed
  scale: mode === 'slider' && !(i & 1) ? job.scale * 1.001 : job.scale,
});

// Repeats fn(i) until minReps and the time budget are both reached, after
// `warmup` untimed calls that last at least warmupMs together (V8 runs a
// WebAssembly function with its baseline compiler until it is hot).
function repeat(fn) {
  const times = [];
  const begun = performance.now();
  let started = begun, warm = warmup === 0;
  for (let i = 0; times.length < maxReps; i++) {
    if (warm && times.length >= minReps && performance.now() - started >= budget * 1e3) break;
    const ms = fn(i);
    if (warm) times.push(ms);
    else if (i + 1 >= warmup && performance.now() - begun >= warmupMs) {
      warm = true;
      started = performance.now();
    }
  }
  return times;
}

lab.run(base); // prime the cache for slider and sweep
let sink = 0;
// poslab_run alone, on the wrapper's core, with its config parsed outside
// the timing. Beside lab.run() it is timed in the same loop, each
// repetition one of each, so that both medians see the same moments of a
// shared machine: timed one after the other, a busy spell once made
// poslab_run alone slower than the lab.run() that includes it.
const { core } = lab;
const configs = [0, 1].map((i) => lab.configure(configAt(i)));
const message = core._malloc(320);
const runCore = (config) => {
  const start = performance.now();
  const status = core._poslab_run(lab.lab, config, message, 320);
  const ms = performance.now() - start;
  if (status !== 0) throw new Error(core.UTF8ToString(message));
  return ms;
};
const totalMs = [];
let runMs = [];
if (job.coreOnly) {
  lab.run(base);
  runMs = repeat((i) => runCore(configs[i & 1]));
} else {
  // lab.run() with configAt(0) and poslab_run with configAt(1): each call's
  // seed (full) or scale (slider) differs from the one before it
  const timed = repeat(() => {
    const start = performance.now();
    const result = lab.run(configAt(0));
    const ms = performance.now() - start;
    sink += result.mean.cosine_distance;
    const coreMs = runCore(configs[1]);
    totalMs.push(ms);
    runMs.push(coreMs);
    return ms + coreMs;
  });
  // the lists also hold the warm-up's calls, which repeat() does not count
  totalMs.splice(0, totalMs.length - timed.length);
  runMs.splice(0, runMs.length - timed.length);
}
configs.forEach((c) => core._poslab_config_free(c));
core._free(message);
// what the runs took of WebAssembly memory (it never shrinks) and of its heap
const memory = { memory_bytes: lab.memoryBytes(), heap_bytes: lab.heapBytesInUse() };
lab.dispose();

console.log(JSON.stringify({ mode, load_ms: loadMs, total_ms: totalMs, run_ms: runMs, ...memory, sink }));
