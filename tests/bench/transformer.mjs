// transformer.mjs - make bench's transformer workloads (issue 14): GPT-2-style
// blocks at (d) 16 words, d 64, 4 blocks, 4 heads and (e) 64 words, d 512,
// 12 blocks, 8 heads. Contestants: the native core (bench_core), the
// WebAssembly core under Node (bench_wasm.mjs), and the page's Copy-as-NumPy
// script (web/teach/numpy_script.js) on Debian's NumPy and on OpenBLAS
// (bench_numpy.py script), which checks its outputs against the CLI's
// first. For scale, OpenBLAS's single-thread DGEMM on the products' shapes.
//
// run.mjs calls transformerBench() and adds transformerMarkdown() and
// transformerTargets() to its report. This part alone, while the machine is
// busy with other things or to try a change:
//
//   POSLAB_OPENBLAS_DIR=... node tests/bench/transformer.mjs [--quick]
//
// prints its markdown and writes build/bench-transformer.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { numpyScript } from '../../web/teach/numpy_script.js';
import { markdownTable } from './markdown.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const here = path.join(root, 'tests/bench');
const CORE = path.join(root, 'build/native/bench_core');
const CLI = path.join(root, 'build/native/poslab');
const PY = '/usr/bin/python3';
const NUMPY = path.join(here, 'bench_numpy.py');

// Scheme `random` at 0.5 (GPT-2's kind of position table, added once before
// the first block), the causal mask (GPT-2 is a decoder) and GPT-2's weight
// scale 0.02; sentence B is sentence A reversed. No sweep: the transformer
// has no shortcut along the scale, so a 121-point sweep at (e) would be 121
// full forward passes.
const words = (n) => Array.from({ length: n }, (_, i) => `w${String(i + 1).padStart(2, '0')}`);
export const TRANSFORMER_WORKLOADS = [
  { id: 'd', label: '(d) transformer, live update', n: 16, d: 64, layers: 4, heads: 4 },
  { id: 'e', label: '(e) transformer, largest', n: 64, d: 512, layers: 12, heads: 8 },
].map((w) => ({ ...w, a: words(w.n).join(' '), b: words(w.n).reverse().join(' '), seed: 2, scheme: 'random',
                scale: 0.5, causal: true, weight_std: 0.02 }));

// Flops of one forward pass of both sentences, counted as the multiply-adds
// of the products (two flops each) as NumPy forms them: per block Q, K, V and
// Wo are n x d x d, W1 and W2 n x d x 4d, and the heads' scores and weighted
// sums n x n x d together (all of them, though the mask leaves half unused).
// LayerNorm, GELU, softmax and the residual additions are O(n d) and not
// counted.
export const forwardFlops = (w) => 2 * w.layers * 2 * (12 * w.n * w.d * w.d + 2 * w.n * w.n * w.d);
// The products' shapes (n, k, m), and how many of each a block has.
const SHAPES = (w) => [[[w.n, w.d, w.d], 4], [[w.n, w.d, 4 * w.d], 1], [[w.n, 4 * w.d, w.d], 1]];

function run(cmd, args, env = process.env) {
  const out = execFileSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').pop());
}
const progress = (s) => process.stderr.write(`bench: ${s}\n`);

function native(w, mode, extra) {
  const args = ['--mode', mode, '--a', w.a, '--b', w.b, '--dim', String(w.d), '--seed', String(w.seed),
                '--scheme', w.scheme, '--scale', String(w.scale), '--model', 'transformer',
                '--layers', String(w.layers), '--heads', String(w.heads), '--weight-std', String(w.weight_std),
                '--causal', String(w.causal), '--warmup', String(extra.warmup ?? 1),
                '--min-reps', String(extra.minReps ?? 5), '--budget', String(extra.budget ?? 2)];
  return run(CORE, args);
}

function wasm(w, mode, extra) {
  const job = { mode, a: w.a, b: w.b, dim: w.d, seed: w.seed, scheme: w.scheme, scale: w.scale, sweep: null,
                model: 'transformer', layers: w.layers, heads: w.heads, weight_std: w.weight_std, causal: w.causal,
                warmup: 1, ...extra };
  return run(process.execPath, [path.join(here, 'bench_wasm.mjs'), JSON.stringify(job)]);
}

// NumPy runs without this environment's OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
// (as run.mjs does); on OpenBLAS when POSLAB_OPENBLAS_DIR names its folder.
function environments() {
  const numpyEnv = { ...process.env };
  delete numpyEnv.OPENBLAS_CORETYPE;
  delete numpyEnv.OPENBLAS_L2_SIZE;
  const dir = process.env.POSLAB_OPENBLAS_DIR;
  const openblas = dir && existsSync(path.join(dir, 'libblas.so.3'))
    ? { ...numpyEnv, LD_LIBRARY_PATH: [dir, numpyEnv.LD_LIBRARY_PATH].filter(Boolean).join(':') } : null;
  return { numpyEnv, openblas };
}

// The page's script for w, and the CLI's full result that it must reproduce.
function scriptFiles(w) {
  const dir = path.join(root, 'build/bench');
  mkdirSync(dir, { recursive: true });
  const cliText = execFileSync(CLI, ['--json', '--full', '--a', w.a, '--b', w.b, '--dim', String(w.d),
    '--seed', String(w.seed), '--scheme', w.scheme, '--scale', String(w.scale), '--model', 'transformer',
    '--layers', String(w.layers), '--heads', String(w.heads), '--weight-std', String(w.weight_std),
    ...(w.causal ? ['--causal'] : [])], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const script = path.join(dir, `transformer_${w.id}.py`), cli = path.join(dir, `transformer_${w.id}.json`);
  writeFileSync(script, numpyScript(JSON.parse(cliText).config));
  writeFileSync(cli, cliText);
  return { script, cli };
}

export function transformerBench({ quick = false } = {}) {
  const { numpyEnv, openblas } = environments();
  const short = (extra) => (quick ? { ...extra, budget: 0.05, minReps: 1, warmup: 0, warmupMs: 0 } : extra);
  const results = {};
  for (const w of TRANSFORMER_WORKLOADS) {
    const big = w.id === 'e';
    const r = (results[w.id] = {});
    progress(`${w.label}: native`);
    r.native = native(w, 'full', short({ budget: big ? 4 : 2 }));
    r.nativeForward = native(w, 'slider', short({ budget: big ? 4 : 1, minReps: big ? 5 : 20 }));
    progress(`${w.label}: WebAssembly${big ? ' (about a minute)' : ''}`);
    r.wasm = wasm(w, 'full', short(big ? { budget: 4, minReps: 3, warmupMs: 0 } : { budget: 1.5, minReps: 5 }));
    r.wasmForward = wasm(w, 'slider', short(big ? { budget: 4, minReps: 3, warmupMs: 0, coreOnly: true }
      : { budget: 1, minReps: 20, coreOnly: true }));
    const files = scriptFiles(w);
    const script = (env, extra) => run(PY, [NUMPY, 'script', JSON.stringify(short(extra)), files.script, files.cli], env);
    progress(`${w.label}: the Copy-as-NumPy script on Debian's NumPy${big ? ' (a minute or two)' : ''}`);
    r.numpy = script(numpyEnv, big ? { warmup: 0, minReps: 2, budget: 0 } : { budget: 1.5 });
    if (openblas) {
      progress(`${w.label}: the Copy-as-NumPy script on OpenBLAS`);
      r.openblas = script(openblas, big ? { warmup: 1, minReps: 3, budget: 3 } : { budget: 1.5 });
      progress(`${w.label}: OpenBLAS DGEMM, one thread, on the blocks' shapes`);
      r.dgemm = run(PY, [NUMPY, 'dgemm', JSON.stringify({ shapes: SHAPES(w).map(([s]) => s), budget: quick ? 0.05 : 0.5 })],
        { ...openblas, OPENBLAS_NUM_THREADS: '1' }).dgemm;
    }
  }
  return results;
}

// ---- the report ------------------------------------------------------------

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => {
    const at = (s.length - 1) * p, lo = Math.floor(at), hi = Math.ceil(at);
    return s[lo] + (s[hi] - s[lo]) * (at - lo);
  };
  return { n: s.length, median: q(0.5), q1: q(0.25), q3: q(0.75) };
}
const num = (x, digits = 3) => {
  if (!Number.isFinite(x)) return '–';
  if (Math.abs(x) >= 100) return x.toFixed(0);
  return Number(x.toPrecision(digits)).toString();
};
const ms = (xs) => { const st = stats(xs); return `${num(st.median)} [${num(st.q1)}–${num(st.q3)}] n=${st.n}`; };
const med = (xs) => stats(xs).median;
const gflops = (w, xs) => forwardFlops(w) / (med(xs) * 1e6);
// The products of one block at DGEMM's speed: flops over the time DGEMM
// takes for them (four n x d x d, one n x d x 4d, one n x 4d x d).
function dgemmRate(w, dgemm) {
  let flops = 0, seconds = 0;
  SHAPES(w).forEach(([[n, k, m], count], i) => {
    flops += count * 2 * n * k * m;
    seconds += count * dgemm[i].ms / 1e3;
  });
  return flops / seconds / 1e9;
}

export function transformerMarkdown(results) {
  const lines = [];
  const out = (s = '') => lines.push(s);
  const table = (head, rows) => markdownTable(head, rows).forEach((line) => out(line));
  const W = TRANSFORMER_WORKLOADS;
  const haveOpenblas = W.every((w) => results[w.id].openblas);
  out('## Transformer blocks, ms');
  out();
  table(['workload', 'words', 'd', 'blocks', 'heads', 'weights', 'flops of one forward pass, both sentences'],
    W.map((w) => [w.label, w.n, w.d, w.layers, w.heads, `${num(w.layers * 12 * w.d * w.d * 8 / 1e6)} MB`,
                  `${num(forwardFlops(w) / 1e6)} M`]));
  out('GPT-2-style pre-LayerNorm blocks (docs/experiment.md), scheme `random` at scale 0.5, the causal mask, ' +
      'weight std 0.02, sentence B the words of A reversed, no sweep.');
  out();
  out('Flops count two per multiply-add of the products: the projections, the MLP, and every head\'s scores and ' +
      'weighted sums in full (the core skips the masked half, NumPy does not).');
  out();
  const head = ['workload', 'native: full run', 'native: forward', 'WebAssembly: full lab.run()',
                'WebAssembly: full poslab_run', 'WebAssembly: forward', 'NumPy (Debian): the script', 'NumPy (Debian): forward'];
  if (haveOpenblas) head.push('NumPy on OpenBLAS: the script', 'NumPy on OpenBLAS: forward');
  table(head, W.map((w) => {
    const r = results[w.id];
    const row = [w.label, ms(r.native.run_ms), ms(r.nativeForward.run_ms), ms(r.wasm.total_ms), ms(r.wasm.run_ms),
                 ms(r.wasmForward.run_ms), ms(r.numpy.total_ms), ms(r.numpy.forward_ms)];
    if (haveOpenblas) row.push(ms(r.openblas.total_ms), ms(r.openblas.forward_ms));
    return row;
  }));
  out('Full run: fresh draws (the seed alternates), both sentences through the blocks and every comparison. ' +
      'Forward: both sentences through the blocks on draws already made (the core: a run where only the scale ' +
      'changes; NumPy: the script\'s `transformer(X1, pa)` and `transformer(X2, pb)`).');
  out();
  out('The script is the page\'s Copy as NumPy for this state; its outputs agreed with the CLI\'s before timing ' +
      '(values checked; largest error as a share of the tolerance, 1e-9 relative + 1e-12): ' +
      W.map((w) => `${w.id} ${results[w.id].numpy.checked}, ${num(100 * results[w.id].numpy.tolerance_used, 2)} %`)
        .join('; ') + '.');
  out();

  out('### Transformer forward, GFLOP/s');
  out();
  const gh = ['workload', 'native', 'WebAssembly', 'NumPy (Debian)'];
  if (haveOpenblas) {
    gh.push('NumPy on OpenBLAS (its threads)', 'OpenBLAS DGEMM, 1 thread: n×d @ d×d, n×d @ d×4d, n×4d @ 4d×d',
            'the same, weighted as a block\'s products', 'native ÷ DGEMM');
  }
  table(gh, W.map((w) => {
    const r = results[w.id];
    const row = [w.label, num(gflops(w, r.nativeForward.run_ms)), num(gflops(w, r.wasmForward.run_ms)),
                 num(gflops(w, r.numpy.forward_ms))];
    if (haveOpenblas) {
      const rate = dgemmRate(w, r.dgemm);
      row.push(num(gflops(w, r.openblas.forward_ms)), r.dgemm.map((g) => num(g.gflops)).join(', '), num(rate),
               `${num(100 * gflops(w, r.nativeForward.run_ms) / rate, 2)} %`);
    }
    return row;
  }));
  out('DGEMM: NumPy\'s `a @ b` on OpenBLAS with one thread, the best of repeated runs, for a block\'s product ' +
      'shapes; weighted: a block\'s product flops over DGEMM\'s time for them. The core sums every product in ' +
      'index order without FMA, so its results do not depend on the machine.');
  out();
  out('WebAssembly memory after the full runs: ' +
      W.map((w) => `${w.id} ${num(results[w.id].wasm.memory_bytes / 2 ** 20)} MiB (heap in use ` +
                   `${num(results[w.id].wasm.heap_bytes / 2 ** 20)} MiB; weights ` +
                   `${num(w.layers * 12 * w.d * w.d * 8 / 2 ** 20)} MiB)`).join(', ') +
      '. It may grow to 2 GiB and never shrinks.');
  out();
  return lines;
}

const verdict = (ok) => (ok ? 'holds' : '**misses**');
const overlap = (p, q) => p.q1 <= q.q3 && q.q1 <= p.q3;

// Rows for run.mjs's targets table.
export function transformerTargets(results) {
  const [d, e] = TRANSFORMER_WORKLOADS;
  const rows = [];
  const ratios = [d, e].map((w) => {
    const r = results[w.id];
    return [w, med(r.wasm.run_ms) / med(r.native.run_ms), med(r.wasmForward.run_ms) / med(r.nativeForward.run_ms)];
  });
  rows.push(['transformer: WebAssembly core within 2× of native at (d) and (e) (poslab_run ÷ poslab_run)',
             verdict(ratios.every(([, full, fwd]) => full <= 2 && fwd <= 2)),
             ratios.map(([w, full, fwd]) => `${w.id} full run ${num(full, 2)}×, forward ${num(fwd, 2)}×`).join('; ')]);
  const rd = results[d.id];
  const faster = med(rd.numpy.total_ms) / med(rd.wasm.total_ms);
  const noise = overlap(stats(rd.numpy.total_ms), stats(rd.wasm.total_ms));
  rows.push(['transformer: WebAssembly faster than the Copy-as-NumPy script on Debian\'s NumPy at (d)',
             verdict(faster > 1 && !noise),
             `lab.run() ${num(med(rd.wasm.total_ms))} ms, the script ${num(med(rd.numpy.total_ms))} ms: ` +
             `${num(faster, 2)}× faster${noise ? ' (IQRs overlap)' : ''}; forward alone ` +
             `${num(med(rd.numpy.forward_ms) / med(rd.wasmForward.run_ms), 2)}×`]);
  const re = results[e.id];
  if (re.dgemm) {
    const rate = dgemmRate(e, re.dgemm), mine = gflops(e, re.nativeForward.run_ms);
    rows.push(['transformer: native forward at least 25 % of single-thread OpenBLAS DGEMM at (e)',
               verdict(mine >= 0.25 * rate),
               `${num(mine)} GFLOP/s of ${num(rate)} (${num(100 * mine / rate, 2)} %)`]);
  } else {
    rows.push(['transformer: native forward at least 25 % of single-thread OpenBLAS DGEMM at (e)', 'not measured',
               'no OpenBLAS (run.sh fetches it)']);
  }
  return rows;
}

// This part alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const quick = process.argv.includes('--quick');
  const results = transformerBench({ quick });
  const lines = transformerMarkdown(results);
  lines.push('| target | verdict | measured |', '|:---|---:|---:|',
             ...transformerTargets(results).map((row) => `| ${row.join(' | ')} |`), '');
  const md = lines.join('\n') + '\n';
  writeFileSync(path.join(root, 'build/bench-transformer.md'), md);
  process.stdout.write(md);
}
