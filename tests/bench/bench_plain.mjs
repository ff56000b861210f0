// bench_plain.mjs - times plain.js, the experiment in plain JavaScript, after
// checking that it computes the WebAssembly core's numbers.
//
//   node tests/bench/bench_plain.mjs JOB_JSON
//
// JOB_JSON as for bench_wasm.mjs (mode full only). Repetitions alternate the
// seed as the other contestants' do. With warmup 0 the checked run is also
// the first timed one (the largest workload takes tens of seconds a run) and
// there is no warm-up.
// Prints one JSON object; exits 1 if a number disagrees.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runExperiment } from './plain.js';
import { near as agree, RTOL, ATOL } from '../near.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab } = await import(`${root}build/site/poslab.js`);

const job = JSON.parse(process.argv[2]);
const { warmup = 2, warmupMs = 300, minReps = 5, maxReps = 1000, budget = 2 } = job;
const config = (seed) => ({ sentence_a: job.a, sentence_b: job.b, dim: job.dim, seed, scale: job.scale,
                            sweep: job.sweep });

// the tests' one comparator (docs/experiment.md's tolerance)
let checked = 0, worst = 0;
function near(got, want, where) {
  const err = Math.abs(got - want);
  if (!agree(got, want)) {
    console.error(`bench_plain: ${where}: plain JS ${got}, WebAssembly ${want} (differ by ${err})`);
    process.exit(1);
  }
  checked++;
  worst = Math.max(worst, err / (ATOL + RTOL * Math.abs(want))); // the share of the tolerance used
}

const lab = await createLab();
const wasm = lab.run({ ...config(job.seed), scheme: 'random' });
lab.dispose();
const begun = performance.now();
let start = begun;
const mine = runExperiment(config(job.seed));
const firstMs = performance.now() - start;
mine.pairs.forEach((p, k) => {
  if (wasm.pairs[k].index_b === null) return;
  for (const key of ['max_abs_diff', 'cosine_distance']) near(p[key], wasm.pairs[k][key], `pairs[${k}].${key}`);
});
for (const key of ['max_abs_diff', 'cosine_distance']) near(mine.mean[key], wasm.mean[key], `mean.${key}`);
if (job.sweep) {
  mine.sweep.mean.forEach((p, t) => near(p.cosine_distance, wasm.sweep.mean[t].cosine_distance, `sweep.mean[${t}]`));
  mine.sweep.pairs.forEach((row, k) => row.forEach((p, t) =>
    near(p.cosine_distance, wasm.sweep.pairs[k][t].cosine_distance, `sweep.pairs[${k}][${t}]`)));
}

// then `warmup` untimed runs (the checked one the first) that last at least
// warmupMs together, for the JIT
const times = warmup === 0 ? [firstMs] : [];
let sink = 0, warm = warmup === 0 || (warmup === 1 && firstMs >= warmupMs);
start = performance.now();
for (let i = 1; times.length < maxReps; i++) {
  if (warm && times.length >= minReps && performance.now() - start >= budget * 1e3) break;
  const t0 = performance.now();
  sink += runExperiment(config(job.seed + (i & 1))).mean.cosine_distance;
  const ms = performance.now() - t0;
  if (warm) times.push(ms);
  else if (i + 1 >= warmup && performance.now() - begun >= warmupMs) {
    warm = true;
    start = performance.now();
  }
}
console.log(JSON.stringify({ mode: 'full', total_ms: times, checked, tolerance_used: worst, sink }));
