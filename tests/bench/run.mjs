// run.mjs - `make bench`: every contestant on every workload in one run, and
// the tables in docs/benchmarks.md (printed as well). run.sh calls it after
// the native build and the site are built; README.md in this folder says
// what each part measures.
//
//   node tests/bench/run.mjs [--quick]
//
// Contestants: the native core in-process (bench_core), the WebAssembly core
// under Node through the page's wrapper (bench_wasm.mjs), NumPy as the course
// module's code computes it (bench_numpy.py, Debian's NumPy as installed and,
// when POSLAB_OPENBLAS_DIR names a folder with OpenBLAS's libblas.so.3, the
// same NumPy on OpenBLAS) and plain JavaScript (plain.js). NumPy and plain JS
// check their numbers against the core's before they are timed. --quick runs
// every step once or twice, to try the script, not to measure, and writes
// build/bench-quick.md instead of docs/benchmarks.md.
//
// README.md at the top keeps at most three headline ratios from these
// tables, written by hand, with no date.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserBench, browserMarkdown, transformerMarkdown as pageTransformerMarkdown, percentile, roundP95, THROTTLE, SLOWER } from './browser.mjs';
import { simdBench, simdMarkdown } from './simd.mjs';
import { keystrokeSplit, splitMarkdown } from './keystroke_split.mjs';
import { markdownTable } from './markdown.mjs';
import { lighthouseBench, lighthouseMarkdown } from './lighthouse.mjs';
import { transformerBench, transformerMarkdown, transformerTargets } from './transformer.mjs';
import { memoryBench, memoryMarkdown, memoryTarget } from './memory.mjs';
import { checkpointPageBench, checkpointPageMarkdown } from './checkpoint_page.mjs';
import { machineFigures, machineAgainstLast } from './last_run.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const here = path.join(root, 'tests/bench');
const site = path.join(root, 'build/site');
const quick = process.argv.includes('--quick'); // smoke test of the script itself
const started = Date.now();

// ---- workloads -----------------------------------------------------------

const words = (n) => Array.from({ length: n }, (_, i) => `w${String(i + 1).padStart(2, '0')}`);
const sentences = (n) => (n === 3 ? ['dog bites man', 'man bites dog']
  : [words(n).join(' '), words(n).reverse().join(' ')]);
const SWEEP = { lo: 1e-9, hi: 1e3, count: 121 };
const WORKLOADS = [
  { id: 'a', label: '(a) module defaults', n: 3, d: 6 },
  { id: 'b', label: '(b) live update', n: 16, d: 64 },
  { id: 'c', label: '(c) largest', n: 64, d: 512 },
].map((w) => {
  const [a, b] = sentences(w.n);
  return { ...w, a, b, seed: 2, scale: 0.5, sweep: SWEEP };
});
const SCALING_N = 16;
const SCALING_DIMS = [32, 64, 128, 256, 512];
const SCALING_SCHEMES = [['random', 0.5], ['sinusoidal', 1], ['rope', 1]];

// ---- operation counts ------------------------------------------------------
// Flops of the algorithm each contestant runs, both sentences of n words,
// scheme `random`: a product (n x d)(d x d) is 2nd^2, the scores and A V
// 2n^2 d each, softmax about 5n^2 (scale, max, subtract, exp, divide), and
// comparisons about 10d per pair. The core forms XW and PW once (12 products)
// and, for one scale, moves along XW + sPW (6nd); its sweep of an additive
// scheme also forms the scores' three coefficient matrices once per sentence
// (four n x n x d products), after which a point's scores cost 4n^2
// (s0 + s s1 + s^2 s2). The module's code redoes (X + sP) W, three products
// per sentence, at every scale.
const attention = (n, d) => 4 * n * n * d + 5 * n * n + n * d; // scores, softmax, AV, mean
const compares = (n, d) => 10 * d * (n + 1);
const flops = {
  corePrepare: (n, d) => 2 * 6 * 2 * n * d * d,
  corePoint: (n, d) => 2 * (6 * n * d + attention(n, d)) + compares(n, d), // one run; a RoPE sweep point
  sweepPrepare: (n, d) => 2 * 4 * 2 * n * n * d,
  sweepPoint: (n, d) => 2 * (2 * n * d + 4 * n * n + 5 * n * n + 2 * n * n * d + n * d) + compares(n, d),
  naivePoint: (n, d) => 2 * (2 * n * d + 3 * 2 * n * d * d + attention(n, d)) + compares(n, d),
};
const coreFull = (w) => flops.corePrepare(w.n, w.d) + flops.corePoint(w.n, w.d) + flops.sweepPrepare(w.n, w.d) +
                        w.sweep.count * flops.sweepPoint(w.n, w.d);
const naiveFull = (w) => (w.sweep.count + 1) * flops.naivePoint(w.n, w.d);

// ---- running the contestants ---------------------------------------------

function run(cmd, args, env = process.env) {
  const out = execFileSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 1 << 26,
                                        stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').pop());
}
const progress = (s) => process.stderr.write(`bench: ${s}\n`);
const jobOf = (w, extra) => ({ a: w.a, b: w.b, dim: w.d, seed: w.seed, scale: w.scale, sweep: w.sweep, ...extra });
const budgetOf = (extra) => (quick ? { ...extra, budget: 0.05, minReps: 1, warmupMs: 0 } : extra);

const CORE = path.join(root, 'build/native/bench_core');
const CLI = path.join(root, 'build/native/poslab');
function native(job) {
  const args = ['--mode', job.mode, '--a', job.a, '--b', job.b, '--dim', String(job.dim),
                '--seed', String(job.seed), '--scheme', job.scheme ?? 'random', '--scale', String(job.scale),
                '--warmup', String(job.warmup ?? 2), '--min-reps', String(job.minReps ?? 5),
                '--budget', String(job.budget ?? 2)];
  if (job.sweep && job.mode !== 'slider') args.push('--sweep', `${job.sweep.lo}:${job.sweep.hi}:${job.sweep.count}`);
  return run(CORE, args);
}
const wasm = (job) => run(process.execPath, [path.join(here, 'bench_wasm.mjs'), JSON.stringify(job)]);
const plain = (job) => run(process.execPath, [path.join(here, 'bench_plain.mjs'), JSON.stringify(job)]);

// NumPy runs without this environment's OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
const numpyEnv = { ...process.env };
delete numpyEnv.OPENBLAS_CORETYPE;
delete numpyEnv.OPENBLAS_L2_SIZE;
const openblasDir = process.env.POSLAB_OPENBLAS_DIR;
const haveOpenblas = Boolean(openblasDir && existsSync(path.join(openblasDir, 'libblas.so.3')));
const openblasEnv = { ...numpyEnv, LD_LIBRARY_PATH: [openblasDir, numpyEnv.LD_LIBRARY_PATH].filter(Boolean).join(':') };
const PY = '/usr/bin/python3';
const NUMPY = path.join(here, 'bench_numpy.py');
const numpy = (job, env) => run(PY, [NUMPY, 'run', JSON.stringify(job), CLI], env);

// ---- statistics ------------------------------------------------------------

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => {
    const at = (s.length - 1) * p, lo = Math.floor(at), hi = Math.ceil(at);
    return s[lo] + (s[hi] - s[lo]) * (at - lo);
  };
  return { n: s.length, median: q(0.5), q1: q(0.25), q3: q(0.75), p95: q(0.95), min: s[0], max: s[s.length - 1] };
}
const num = (x, digits = 3) => {
  if (!Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 100) return x.toFixed(0);
  return Number(x.toPrecision(digits)).toString();
};
const ms = (st) => `${num(st.median)} [${num(st.q1)}–${num(st.q3)}] n=${st.n}`;
const times = (x) => `${num(x, 2)}×`;
const gflops = (f, st) => num(f / (st.median * 1e6), 2);
const bytes = (b) => b.toLocaleString('en-US');

// ---- machine ----------------------------------------------------------------

function sh(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return 'not found';
  }
}
const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
const field = (name) => (cpuinfo.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm')) || [])[1] ?? '?';
const flags = field('flags').split(' ');
const machine = {
  cpu: field('model name'),
  family: `family ${field('cpu family')} model ${field('model')}`,
  mhz: field('cpu MHz'),
  simd: ['avx2', 'fma', 'avx512f'].filter((f) => flags.includes(f)).join(', '),
  cores: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
  gcc: sh('gcc', ['--version']).split('\n')[0],
  emcc: sh('emcc', ['--version']).split('\n')[0].replace(/^emcc \(.*?\) /, 'emcc ').replace(' ()', ''),
  node: process.version,
  loadStart: os.loadavg(),
};
progress('NumPy and BLAS information');
const numpyInfo = run(PY, [NUMPY, 'info'], numpyEnv);
const openblasInfo = haveOpenblas ? run(PY, [NUMPY, 'info'], openblasEnv) : null;

// ---- the side-by-side runs ------------------------------------------------

const results = {};
for (const w of WORKLOADS) {
  const big = w.id === 'c';
  const r = (results[w.id] = {});
  progress(`${w.label}: native`);
  r.native = native(jobOf(w, budgetOf({ mode: 'full', budget: big ? 4 : 2 })));
  r.nativeSlider = native(jobOf(w, budgetOf({ mode: 'slider', budget: 1, minReps: 20 })));
  progress(`${w.label}: WebAssembly`);
  r.wasm = wasm(jobOf(w, budgetOf({ mode: 'full', budget: big ? 4 : 1.5, minReps: 5 })));
  r.wasmSlider = wasm(jobOf(w, budgetOf({ mode: 'slider', budget: 1, minReps: 20 })));
  progress(`${w.label}: NumPy${big ? ' (about a minute)' : ''}`);
  r.numpy = numpy(jobOf(w, budgetOf(big ? { warmup: 0, minReps: 3, budget: 0 } : { budget: 1.5 })), numpyEnv);
  if (haveOpenblas) {
    progress(`${w.label}: NumPy on OpenBLAS`);
    r.openblas = numpy(jobOf(w, budgetOf({ budget: big ? 4 : 1.5 })), openblasEnv);
  }
  progress(`${w.label}: plain JavaScript${big ? ' (a minute or two)' : ''}`);
  r.plain = plain(jobOf(w, budgetOf(big ? { warmup: 0, minReps: 2, budget: 0 } : { budget: 1.5 })));
}

// ---- transformer blocks (issue 14): tests/bench/transformer.mjs -------------

const transformer = transformerBench({ quick });

progress(`sweep point cost vs d at ${SCALING_N} words`);
// Three rounds over all cells, keeping each cell's smallest median: a burst of
// load from elsewhere then spoils one round of a cell, not the cell.
const scaling = SCALING_DIMS.map((d) => ({ d, native: {}, wasm: {} }));
const keepMin = (o, k, x) => { o[k] = Math.min(o[k] ?? Infinity, x); };
for (let round = 0; round < (quick ? 1 : 3); round++) {
  for (const row of scaling) {
    const [a, b] = sentences(SCALING_N);
    for (const [scheme, scale] of SCALING_SCHEMES) {
      const job = { mode: 'sweep', a, b, dim: row.d, seed: 2, scheme, scale, sweep: SWEEP, budget: 0.2 };
      keepMin(row.native, scheme, stats(native(budgetOf(job)).run_ms).median / (SWEEP.count + 1));
      keepMin(row.wasm, scheme, stats(wasm(budgetOf({ ...job, coreOnly: true, warmupMs: 100 })).run_ms).median /
                                (SWEEP.count + 1));
    }
  }
}
machine.loadEnd = os.loadavg();

// ---- the site's size ------------------------------------------------------

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}
const siteFiles = existsSync(site) ? files(site).map((p) => {
  const data = readFileSync(p);
  return { name: path.relative(site, p), bytes: data.length, gzip: gzipSync(data, { level: 9 }).length };
}) : [];
// The groups are made once the browser run has seen what the page loads.


// ---- the report ---------------------------------------------------------------

const S = (r, key = 'total_ms') => stats(r[key]);
const lines = [];
const out = (s = '') => lines.push(s);
const table = (head, rows, options) => markdownTable(head, rows, options).forEach((line) => out(line));
const blasName = (info) => (info.openblas_core
  ? `OpenBLAS (${info.openblas_config.split(' ')[1]}, kernel ${info.openblas_core}, ${info.openblas_threads} threads)`
  : `${(info.blas_library || ['?'])[0]} (reference BLAS, 1 thread)`);

out('# poslab benchmarks');
out();
out(`Written by \`make bench\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC` +
    `${quick ? ' (**--quick: smoke run, numbers not meaningful**)' : ''}. ` +
    'The checkpoint benchmarks, which `make bench` does not run, are in ' +
    '[benchmarks-checkpoint.md](benchmarks-checkpoint.md).');
out();
table(['machine', ''], [
  ['CPU', `${machine.cpu} (${machine.family}), ${machine.mhz} MHz, ${machine.simd}`],
  ['cores', `${machine.cores}; load average ${machine.loadStart.map((x) => x.toFixed(2)).join(' ')} at the start, ` +
            `${machine.loadEnd.map((x) => x.toFixed(2)).join(' ')} at the end`],
  ['native', `${machine.gcc}, as CMakeLists.txt builds it (-O3 -ffp-contract=off), one thread`],
  ['WebAssembly', `${machine.emcc}, as CMakeLists.txt builds it (objects -O3 with -msimd128, linked -Oz); Node ${machine.node}`],
  ['NumPy', `${numpyInfo.numpy} (Debian python3-numpy, /usr/bin/python3) on ${blasName(numpyInfo)}; ` +
            `DGEMM ${numpyInfo.dgemm_n}² ${num(numpyInfo.dgemm_gflops)} GFLOP/s`],
  ['NumPy on OpenBLAS', openblasInfo
    ? `the same NumPy with LD_LIBRARY_PATH on Debian's libopenblas0-pthread: ${blasName(openblasInfo)}; ` +
      `DGEMM ${openblasInfo.dgemm_n}² ${num(openblasInfo.dgemm_gflops)} GFLOP/s (the machine's practical limit)`
    : 'not run (no OpenBLAS found; run.sh fetches it with apt-get download)'],
]);
out('OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for the NumPy runs only. Times are wall-clock ms: ' +
    'median [interquartile range] over n repetitions after warm-up runs. Every repetition of a full run ' +
    'draws afresh (the seed alternates between 2 and 3), so no contestant reuses anything from the one before.');
out();
const machineLine = lines.length; // the paragraph on the last run goes here, once the page is measured

out('## Workloads');
out();
table(['workload', 'words', 'd', 'what is timed', 'flops, core algorithm', 'flops, recomputing per scale'],
  WORKLOADS.map((w) => [w.label, w.n, w.d,
                        `draws, projections, the run at scale 0.5 and a ${w.sweep.count}-point sweep ` +
                        `${w.sweep.lo}…${w.sweep.hi}`,
                        num(coreFull(w) / 1e6, 3) + ' M', num(naiveFull(w) / 1e6, 3) + ' M']));
// Paragraphs of the report stay under about 400 characters: a table holds the rest.
out('Sentences: (a) "dog bites man" / "man bites dog"; (b) and (c) n distinct words w01 … wNN and the ' +
    'same words reversed. Scheme `random` at scale 0.5.');
out();
out('The core forms XW and PW once and takes a sweep\'s scores from a quadratic in the scale. NumPy and plain JS ' +
    'do what the module\'s code does: rebuild X + sP and redo the projections at every scale, so they do more ' +
    'flops (last column).');
out();

out('## Side by side: full experiment plus sweep, ms');
out();
const head = ['workload', 'native C', 'WebAssembly (Node)', 'NumPy (Debian)'];
if (haveOpenblas) head.push('NumPy on OpenBLAS');
head.push('plain JS');
table(head, WORKLOADS.map((w) => {
  const r = results[w.id];
  const row = [w.label, ms(S(r.native, 'run_ms')), ms(S(r.wasm)), ms(S(r.numpy))];
  if (haveOpenblas) row.push(ms(S(r.openblas)));
  row.push(ms(S(r.plain)));
  return row;
}));
out('native C: poslab_run in-process (the core\'s work; with the CLI\'s JSON text see the breakdown below). ' +
    'WebAssembly: `lab.run()` of build/site/poslab.js, the page\'s wrapper: config parsing, poslab_run and ' +
    'the result as JS values, as the page gets it. NumPy and plain JS produce the same figures as ' +
    'Python/JS values.');
out();

out('### Speed relative to NumPy (NumPy\'s time / contestant\'s time; above 1 is faster than NumPy)');
out();
const rel = ['workload', 'WebAssembly ÷ native (time)', 'native vs NumPy', 'WebAssembly vs NumPy', 'plain JS vs NumPy'];
if (haveOpenblas) rel.push('native vs NumPy on OpenBLAS', 'WebAssembly vs NumPy on OpenBLAS');
rel.push('WebAssembly vs plain JS');
table(rel, WORKLOADS.map((w) => {
  const r = results[w.id];
  const m = (x) => S(x).median, n = S(r.native, 'run_ms').median;
  const row = [w.label, times(m(r.wasm) / n), times(m(r.numpy) / n),
               times(m(r.numpy) / m(r.wasm)), times(m(r.numpy) / m(r.plain))];
  if (haveOpenblas) row.push(times(m(r.openblas) / n), times(m(r.openblas) / m(r.wasm)));
  row.push(times(m(r.plain) / m(r.wasm)));
  return row;
}));

out('### Achieved GFLOP/s (each contestant\'s own flop count ÷ median time)');
out();
const gh = ['workload', 'native C', 'WebAssembly', 'NumPy (Debian)'];
if (haveOpenblas) gh.push('NumPy on OpenBLAS');
gh.push('plain JS', 'practical limit (OpenBLAS DGEMM, 2 cores)');
const limit = openblasInfo ? num(openblasInfo.dgemm_gflops) : '?';
table(gh, WORKLOADS.map((w) => {
  const r = results[w.id];
  const row = [w.label, gflops(coreFull(w), S(r.native, 'run_ms')), gflops(coreFull(w), S(r.wasm)),
               gflops(naiveFull(w), S(r.numpy))];
  if (haveOpenblas) row.push(gflops(naiveFull(w), S(r.openblas)));
  row.push(gflops(naiveFull(w), S(r.plain)), limit);
  return row;
}));

out('### Where the WebAssembly time goes (medians, ms)');
out();
table(['workload', 'native poslab_run', 'native + poslab_json (the CLI\'s JSON text)', 'wasm poslab_run',
       'wasm ÷ native, poslab_run', 'wasm lab.run()', 'wrapper share of lab.run()'],
  WORKLOADS.map((w) => {
    const r = results[w.id];
    const run1 = S(r.wasm, 'run_ms').median, all = S(r.wasm).median, n = S(r.native, 'run_ms').median;
    return [w.label, num(n), num(S(r.native).median), num(run1), times(run1 / n), num(all),
            all > run1 ? `${num(100 * (all - run1) / all, 2)} %` : '≈ 0 (below the noise)'];
  }));

out('## Slider step: only the scale changes, no sweep (cached projections), ms');
out();
table(['workload', 'native poslab_run', 'WebAssembly lab.run()', 'WebAssembly p95', 'wasm poslab_run alone',
       'flops, core'],
  WORKLOADS.map((w) => {
    const r = results[w.id];
    return [w.label, ms(S(r.nativeSlider, 'run_ms')), ms(S(r.wasmSlider)), num(S(r.wasmSlider).p95),
            num(S(r.wasmSlider, 'run_ms').median), num(flops.corePoint(w.n, w.d) / 1e6) + ' M'];
  }));

out(`## Sweep point cost vs d (${SCALING_N} words, projections cached), µs per point`);
out();
const sh2 = ['d', 'flops per point, core (additive / RoPE)', 'flops per point if the projections were redone'];
for (const [s] of SCALING_SCHEMES) sh2.push(`native ${s}`);
for (const [s] of SCALING_SCHEMES) sh2.push(`wasm ${s}`);
table(sh2, scaling.map((row) => [row.d,
  `${num(flops.sweepPoint(SCALING_N, row.d) / 1e3)} k / ${num(flops.corePoint(SCALING_N, row.d) / 1e3)} k`,
  num(flops.naivePoint(SCALING_N, row.d) / 1e3) + ' k',
  ...SCALING_SCHEMES.map(([s]) => num(row.native[s] * 1e3)),
  ...SCALING_SCHEMES.map(([s]) => num(row.wasm[s] * 1e3))]));
const first = scaling[0], last = scaling[scaling.length - 1];
const dRatio = last.d / first.d;
// least-squares slope of log(time) against log(d): the exponent of the growth
function exponent(ys) {
  const xs = scaling.map((row) => Math.log(row.d)), ls = ys.map(Math.log);
  const mx = xs.reduce((a, b) => a + b) / xs.length, my = ls.reduce((a, b) => a + b) / ls.length;
  let sxy = 0, sxx = 0;
  xs.forEach((x, i) => { sxy += (x - mx) * (ls[i] - my); sxx += (x - mx) ** 2; });
  return sxy / sxx;
}
const slopes = [];
for (const who of ['native', 'wasm']) {
  for (const [s] of SCALING_SCHEMES) {
    slopes.push([`${who} ${s}`, last[who][s] / first[who][s], exponent(scaling.map((row) => row[who][s]))]);
  }
}
out('A point is one sweep step of poslab_run on cached products (the run and its 121 points divided by 122): ' +
    'both sentences\' attention, the additive schemes\' scores from the quadratic in the scale, RoPE\'s from ' +
    'rotated XWq, XWk. Each cell is the smallest of three rounds\' medians.');
out();
table(['contestant', `time per point, d ${first.d} to d ${last.d}`, 'fitted exponent'],
  slopes.map(([k, r, e]) => [k, `×${num(r, 3)}`, num(e, 2)]));
out(`O(words² × d) predicts ×${dRatio} (exponent 1), O(words × d²) ×${dRatio ** 2} (exponent 2). The exponent is ` +
    'the least-squares slope of log(time) on log(d); below d 128 fixed per-point costs (softmax, RoPE\'s sines ' +
    'and cosines) can pull it under 1.');
out();

// ---- transformer blocks (issue 14), the report -----------------------------

for (const line of transformerMarkdown(transformer)) out(line);

// ---- the page in headless Chromium -----------------------------------------

progress('the page in headless Chromium');
const page = await browserBench({ quick });
const group = (pred) => siteFiles.filter(pred).reduce((t, f) => ({ bytes: t.bytes + f.bytes, gzip: t.gzip + f.gzip,
                                                                  names: [...t.names, f.name] }),
                                                     { bytes: 0, gzip: 0, names: [] });
const pageFiles = new Set(page.loaded);
const PAGE_JS = /^(main|poslab|poslab-core|sweep_worker|chunks\/[\w-]+)\.js$/;
const loaded = (f) => pageFiles.has(f.name);
const sizes = [
  ['WebAssembly (poslab.wasm)', group((f) => loaded(f) && f.name === 'poslab.wasm')],
  ['page JS: the page\'s modules (main.js and the chunks it shares with parts loaded on demand), the wrapper and the Emscripten glue, which the sweep worker shares, and the worker',
    group((f) => loaded(f) && PAGE_JS.test(f.name))],
  ['HTML', group((f) => loaded(f) && f.name.endsWith('.html'))],
  ['CSS', group((f) => loaded(f) && f.name.endsWith('.css'))],
  ['Chart.js (vendor/chart.min.js, loaded after the first verdicts)', group((f) => loaded(f) && f.name === 'vendor/chart.min.js')],
  ['other files the page loads', group((f) => loaded(f) && !PAGE_JS.test(f.name) && !/^(poslab\.wasm|vendor\/chart\.min\.js)$|\.(html|css)$/.test(f.name))],
];
const pageTotal = group(loaded);
const chartBytes = sizes[4][1].bytes;
// Parts the page fetches when a student first opens them (the tour, the
// heatmaps, Copy as NumPy, the Why panel), and files in the site for
// scripts (docs/interfaces.md) that the page does not load.
const ON_DEMAND = /^(chunks\/[\w-]+|why_panel)\.js$/;
const onDemand = group((f) => !loaded(f) && ON_DEMAND.test(f.name));
const forScripts = group((f) => !loaded(f) && !ON_DEMAND.test(f.name) && /\.(m?js|wasm)$/.test(f.name));

out('## The page in headless Chromium, ms');
out();
out('Measured with the Performance API inside the page (tests/bench/browser.mjs), from a few seconds after it ' +
    'opened. The numbers depend on the words only through which of them are the same, so a keystroke is timed ' +
    'in four kinds; the targets are judged on all four.');
out();
table(['measure', 'what changes', 'timed until'], [
  ['slider step', 'the magnitude', 'the input handler returns (verdicts, table and chart drawn), layout forced'],
  ['new sentence', 'the first word becomes a copy of another (w02 to w16 in turn): a new sweep', 'the chart.draw() of ' +
    'the new sweep returns ("full curve"); or the first curve drawn, coarse (every tenth point) for a sweep expected ' +
    'to take over 60 ms ("first curve")'],
  ['drawn afresh', 'the count of distinct words (n, n + 1, n, ...), so the draws are made again', 'the full curve'],
  ['a word more or less', 'sentence A\'s length (n - 1, n, ...), so the table gains or loses a row', 'the full curve'],
  ['inside a word', 'the first word\'s spelling (k00, k01, ...), no number', 'the chart is drawn with the new name'],
], { left: 3 });
out('The page times a sweep at start and again once settled, then sends each sweep it expects to take over 14 ms ' +
    'to its two sweep workers (every other point each), unless their answer would come no sooner (up to 30 ms). ' +
    'After a sweep, the expectation for its kind (scheme, heads, width) is what it took.');
out();
out('Chromium cannot throttle workers, so under CPU throttling the sweep workers slow themselves by the same ' +
    'factor. Throttling is not a slow device: a short WebAssembly task sometimes runs unthrottled, and the ' +
    'throttled thread burns CPU the workers would use, so throttled figures err both ways.');
out();
out('Chromium runs headless with software rendering (--disable-gpu), which slows canvas drawing and the first ' +
    'paint, and without the omnibox popup (tests/browser/harness.mjs says why).');
out();
for (const line of browserMarkdown(page)) out(line);
out();
progress('where a keystroke\'s time goes at (b) under 2x (about seven minutes)');
out(splitMarkdown(await keystrokeSplit({ quick })));
out();
out('### Transformer blocks in the page');
out();
out('The transformer has no shortcut through a slider step: every magnitude is a new run of every block. A run ' +
    'expected to take over 8 ms goes to a worker, which computes it a block of one sentence at a time ' +
    '(lab.runSteps) and drops it for a newer one.');
out();
out('A slider step keeps the worker and its drawn weights; a state with other draws ends the worker, and a spare ' +
    'takes over. The chart\'s sweep runs in the same worker once the verdicts are shown, and gives way to a newer run.');
out();
out('(d) is timed as the slider steps above; (e) as a fast drag of 20 steps, one a frame: the longest main-thread ' +
    'task until the final verdicts (tasks of 50 ms and more) and the time from the last step to them, beside one ' +
    'run in the worker. Workers are not throttled, so their runs keep full speed.');
out();
for (const line of pageTransformerMarkdown(page.transformer)) out(line);
out();

// the WebAssembly memory of the page and its workers at (e), and after it (memory.mjs)
progress('WebAssembly memory at (e) and after it (about two minutes)');
const memory = await memoryBench();
out('### WebAssembly memory at (e)');
out();
for (const line of memoryMarkdown(memory)) out(line);
out();

// the models trained here in the page (checkpoint_page.mjs)
progress('the models trained here in the page (about five minutes)');
out('### The models trained here in the page');
out();
out('Slider steps and keystrokes with gpt, nope and bag as trained, and the module\'s head on the same sentences, ' +
  'each timed to its handler\'s end plus the layout it leaves owing (tests/bench/checkpoint_page.mjs).');
out();
out('A checkpoint\'s chart is computed on the page\'s thread in slices of about 8 ms, so the longest main-thread ' +
  'task is reported too. The window is 1280 x 900; the sections below the fold are drawn once the steps pause ' +
  'for 150 ms or come into sight, as for a student.');
out();
for (const line of checkpointPageMarkdown(await checkpointPageBench({ quick }))) out(line);
out();

// what the SIMD core gains over the fallback (simd.mjs)
for (const line of simdMarkdown(await simdBench({ quick }))) out(line);

out('## Built site (build/site), bytes before compression');
out();
table(['part', 'bytes', 'gzip -9', 'files'], [
  ...sizes.map(([label, g]) => [label, bytes(g.bytes), bytes(g.gzip), g.names.join(', ') || '(none)']),
  ['**everything the page loads**', `**${bytes(pageTotal.bytes)}**`, bytes(pageTotal.gzip), ''],
  ['loaded on demand: the tour, the heatmaps, Copy as NumPy, the Why panel', bytes(onDemand.bytes), bytes(onDemand.gzip),
    onDemand.names.join(', ')],
]);
out(forScripts.names.length
  ? `Also in the site, not loaded by the page: ${forScripts.names.join(', ')} (${bytes(forScripts.bytes)} bytes), and source maps.`
  : 'The wrapper the page loads, poslab.js with poslab-core.js, is the one scripts import (docs/interfaces.md); ' +
    'the site also holds source maps, which the page does not load.');
out();

// ---- targets -------------------------------------------------------------------

const verdict = (ok) => (ok ? 'holds' : '**misses**');
const targets = [];
const med = (r) => S(r).median;
const describe = (pairs, text) => pairs.map(([w, x]) => `${w.id} ${text(x)}`).join(', ');
const fasterText = (x) => (x >= 1 ? `${num(x, 2)}× faster` : `${num(1 / x, 2)}× slower`);
// a win whose interquartile ranges overlap is not a win the noise allows to call
const overlap = (p, q) => p.q1 <= q.q3 && q.q1 <= p.q3;
for (const [other, label] of [['numpy', 'NumPy (Debian)'], ...(haveOpenblas ? [['openblas', 'NumPy on OpenBLAS']] : []),
                               ['plain', 'plain JS']]) {
  const b = WORKLOADS.map((w) => [w, med(results[w.id][other]) / med(results[w.id].wasm),
                                  overlap(S(results[w.id][other]), S(results[w.id].wasm))]);
  const clear = b.every(([, x, o]) => x > 1 && !o);
  const ties = b.filter(([, x, o]) => o || x <= 1);
  targets.push([`WebAssembly faster than ${label} on every workload`,
                clear ? 'holds' : ties.every(([, x, o]) => o) ? '**a tie within the noise**' : '**misses**',
                b.map(([w, x, o]) => `${w.id} ${fasterText(x)}${o ? ' (IQRs overlap)' : ''}`).join(', ')]);
}
const nat = WORKLOADS.map((w) => [w, med(results[w.id].wasm) / S(results[w.id].native, 'run_ms').median]);
const core = WORKLOADS.map((w) => [w, S(results[w.id].wasm, 'run_ms').median /
                                      S(results[w.id].native, 'run_ms').median]);
const cli = WORKLOADS.map((w) => [w, med(results[w.id].wasm) / med(results[w.id].native)]);
targets.push(['WebAssembly core within 2× of native (poslab_run ÷ poslab_run)', verdict(core.every(([, x]) => x <= 2)),
              describe(core, (x) => `${num(x, 2)}×`) + '; the page\'s lab.run() ÷ native poslab_run: ' +
              describe(nat, (x) => `${num(x, 2)}×`) + '; lab.run() ÷ native poslab_run + poslab_json (the CLI): ' +
              describe(cli, (x) => `${num(x, 2)}×`)]);
const worstSlope = Math.max(...slopes.map(([, , e]) => e));
targets.push(['sweep point O(words² × d), not O(words × d²)', verdict(worstSlope < 1.5),
              `largest fitted growth exponent in d ${num(worstSlope, 2)} (1 linear, 2 quadratic)`]);
const wasmBytes = sizes[0][1].bytes;
targets.push(['WebAssembly module under 50 KiB (51,200 bytes)', verdict(wasmBytes > 0 && wasmBytes < 50 * 1024),
              `${bytes(wasmBytes)} bytes (${num(wasmBytes / 1024, 3)} KiB)`]);
targets.push(['whole page under 300 KiB (307,200 bytes)', verdict(pageTotal.bytes < 300 * 1024),
              `${bytes(pageTotal.bytes)} bytes (${num(pageTotal.bytes / 1024, 3)} KiB); ` +
              `Chart.js alone ${bytes(chartBytes)}`]);
// The page's targets, at full speed and under Chromium's CPU throttling at
// THROTTLE (a machine half as fast); SLOWER's figures are reported beside
// them, not judged. A keystroke is judged as its target is written,
// "verdicts and redrawn chart": on the full curve for the new words; the
// first curve, coarse for a long sweep, is reported with it.
const keyBudget = (label) => (label.startsWith('(c)') ? 500 : 16);
const judged = (throttle) => throttle <= THROTTLE;
const judge = (throttle, ok) => (judged(throttle) ? verdict(ok) : `reported (${throttle}x: ${ok ? 'would hold' : 'would miss'})`);
for (const row of page.rows) {
  const each = (what) => row.rounds.map((r) => num(r[what], 3)).join(', ');
  const slider = roundP95(row, 'slider');
  const keys = roundP95(row, 'keys');
  const firsts = roundP95(row, 'firsts');
  const cpu = row.throttle > 1 ? `, CPU ${row.throttle}x slower` : '';
  targets.push([`slider step p95 under 16 ms, ${row.label}${cpu}`, judge(row.throttle, slider < 16),
                `p95 ${num(slider, 3)} ms (median of rounds: ${each('slider')})`]);
  targets.push([`keystroke making a new sentence: p95 under ${keyBudget(row.label)} ms (verdicts and the full redrawn curve), ${row.label}${cpu}`,
                judge(row.throttle, keys < keyBudget(row.label)), `full curve p95 ${num(keys, 3)} ms (median of rounds: ` +
                `${each('keys')}); first curve p95 ${num(firsts, 3)} ms (median of rounds: ${each('firsts')})`]);
  const drawn = roundP95(row, 'drawn');
  targets.push([`keystroke making a new sentence drawn afresh: p95 under ${keyBudget(row.label)} ms (verdicts and the full redrawn curve), ${row.label}${cpu}`,
                judge(row.throttle, drawn < keyBudget(row.label)), `full curve p95 ${num(drawn, 3)} ms (median of rounds: ${each('drawn')})`]);
  const length = roundP95(row, 'length');
  targets.push([`keystroke adding or removing a word: p95 under ${keyBudget(row.label)} ms (verdicts and the full redrawn curve), ${row.label}${cpu}`,
                judge(row.throttle, length < keyBudget(row.label)), `full curve p95 ${num(length, 3)} ms (median of rounds: ${each('length')})`]);
  const words = roundP95(row, 'words');
  targets.push([`keystroke inside a word: p95 under ${keyBudget(row.label)} ms (verdicts and the chart redrawn), ${row.label}${cpu}`,
                judge(row.throttle, words < keyBudget(row.label)), `p95 ${num(words, 3)} ms (median of rounds: ${each('words')})`]);
}
for (const throttle of [THROTTLE, SLOWER]) {
  for (const [label] of [['(b)'], ['(c)']]) {
    const these = page.schemes.filter((r) => r.label.startsWith(label) && r.throttle === throttle);
    if (!these.length) continue;
    const worst = (what) => these.reduce((w, r) => (percentile(r[what], 95) > percentile(w[what], 95) ? r : w));
    const s = worst('slider'), k = worst('keys'), first = worst('firsts'), w = worst('words');
    const name = (r) => `${r.scheme}, ${r.heads} head${r.heads > 1 ? 's' : ''}`;
    targets.push([`every scheme, 1 and 8 heads, ${these[0].label}, CPU ${throttle}x slower: slider p95 under 16 ms, ` +
                  `keystroke p95 (new sentence: full curve; inside a word) under ${keyBudget(these[0].label)} ms`,
                  judge(throttle, percentile(s.slider, 95) < 16 && percentile(k.keys, 95) < keyBudget(these[0].label) &&
                    percentile(w.words, 95) < keyBudget(these[0].label)),
                  `slowest: slider p95 ${num(percentile(s.slider, 95), 3)} ms (${name(s)}), new sentence p95 to the full curve ` +
                  `${num(percentile(k.keys, 95), 3)} ms (${name(k)}), to the first curve ${num(percentile(first.firsts, 95), 3)} ms (${name(first)}), ` +
                  `inside a word ${num(percentile(w.words, 95), 3)} ms (${name(w)})`]);
  }
}
// Judged on the paint: a verdict in the DOM that is not yet on the screen
// has not been rendered for anyone; and in the fresh browser, as a student
// opens the page, with the loads after the other page benchmarks beside.
{
  const { start, end } = page.render;
  const m = (xs) => num(percentile(xs, 50), 3);
  targets.push(['first render of the verdicts under 300 ms (painted), in a fresh browser', verdict(percentile(start.painted, 50) < 300),
                `painted: median ${m(start.painted)} ms; text in the page: median ${m(start.first)} ms, ` +
                `p95 ${num(percentile(start.first, 95), 3)} ms; the same HTML and CSS without the script first paints at ` +
                `median ${m(start.staticPage)} ms, a page of one line at ${m(start.blankPage)} ms. After the other page ` +
                `benchmarks: painted ${m(end.painted)} ms, the page of one line ${m(end.blankPage)} ms`]);
}
out('## Targets of the core and the page, measured here');
out();
table(['target', 'verdict', 'measured'], targets);

// Issue 14's targets, in their own table: the core's (transformer.mjs), then
// the page's: (d) like (b); (e) never blocks.
const issue14Targets = [...transformerTargets(transformer), memoryTarget(memory)];
for (const row of page.transformer) {
  const cpu = row.throttle > 1 ? `, CPU ${row.throttle}x slower` : '';
  const each = (what) => row.rounds.map((r) => num(r[what], 3)).join(', ');
  if (row.slider) {
    issue14Targets.push([`slider step p95 under 16 ms, ${row.label}${cpu}`, verdict(roundP95(row, 'slider') < 16),
      `p95 ${num(roundP95(row, 'slider'), 3)} ms (rounds: ${each('slider')})`]);
    continue;
  }
  const longest = Math.max(...row.rounds.map((r) => r.longest));
  issue14Targets.push([`no main-thread task over 50 ms from the first of 20 fast slider steps to the final verdicts, ${row.label}${cpu}`, verdict(longest <= 50),
    longest === 0 ? `no long task in ${row.rounds.length} rounds` : `longest ${num(longest, 3)} ms (rounds: ${each('longest')})`]);
  const late = row.rounds.map((r) => r.latency - r.runMs);
  issue14Targets.push([`final verdicts within one run + 100 ms, ${row.label}${cpu}`, verdict(late.every((x) => x <= 100)),
    `after the last step: ${each('latency')} ms; one run in the worker: ${each('runMs')} ms`]);
}
out('## Targets of the transformer, measured here');
out();
table(['target', 'verdict', 'measured'], issue14Targets);
out('NumPy and plain JS agreed with the core before timing (figures checked; largest error as a share of the ' +
    'tolerance, 1e-9 relative + 1e-12): ' +
    WORKLOADS.map((w) => {
      const r = results[w.id];
      return `${w.id} ${r.numpy.checked} + ${r.plain.checked}, ` +
             `${num(100 * Math.max(r.numpy.tolerance_used, r.plain.tolerance_used), 2)} %`;
    }).join('; ') + '.');
out();
out(`WebAssembly module load and instantiation under Node: ${num(results.a.wasm.load_ms)} ms. ` +
    `Everything above took ${num((Date.now() - started) / 1000, 3)} s.`);

// ---- Lighthouse (lighthouse.mjs) -------------------------------------------

progress('Lighthouse, mobile preset, five runs per way of serving (two to three minutes)');
const lighthouseStarted = Date.now();
const lighthouseRows = await lighthouseBench({ quick });
out();
out('## Lighthouse');
out();
for (const line of lighthouseMarkdown(lighthouseRows)) out(line);
out();
out(`Lighthouse took ${num((Date.now() - lighthouseStarted) / 1000, 3)} s, after the rest; the whole run ` +
    `${num((Date.now() - started) / 1000, 3)} s, building the core and the site not counted.`);
out();

// Beside the machine table: its figures that run none of our code, against
// the last run in docs/benchmarks.md (read before a full run overwrites it).
const benchmarksMd = path.join(root, 'docs', 'benchmarks.md');
const lastRun = machineAgainstLast({
  openblas: openblasInfo?.dgemm_gflops, reference: numpyInfo.dgemm_gflops,
  blankPage: percentile(page.render.start.blankPage, 50),
}, existsSync(benchmarksMd) ? machineFigures(readFileSync(benchmarksMd, 'utf8')) : null, (x) => num(x, 3));
if (lastRun) lines.splice(machineLine, 0, lastRun, '');

const md = lines.join('\n') + '\n';
// a --quick run must not overwrite the measured table
writeFileSync(quick ? path.join(root, 'build/bench-quick.md') : benchmarksMd, md);
process.stdout.write(md);
