// The table of tests/bench/checkpoint.sh from its three JSON lines.
import { readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';

const [dir, nativeText, wasmText, numpyText] = process.argv.slice(2);
const native = JSON.parse(nativeText), wasm = JSON.parse(wasmText), numpy = JSON.parse(numpyText);
const config = JSON.parse(readFileSync(`${dir}/config.json`, 'utf8'));
const file = statSync(`${dir}/model.safetensors`).size;
const { n_embd: C, n_layer: L, vocab_size: V } = config;
const MB = 1e6;

// multiply-adds x 2 of one sentence of n tokens: the blocks' products
// (q|k|v, c_proj, c_fc, mlp.c_proj: 24 n C^2 a block), attention (4 n^2 C a
// block) and the next token's scores over the vocabulary (2 C V)
const flops = (n) => L * (24 * n * C * C + 4 * n * n * C) + 2 * C * V;
const fmt = (x, d = 3) => Number(x).toPrecision(d);
const lines = [];
lines.push(`Checkpoint with GPT-2 small's shapes (C ${C}, ${L} blocks, V ${V}), F32, ${fmt(file / MB, 4)} MB on disk;`,
  `${cpus()[0].model}, ${cpus().length} cores, shared with other jobs while measured (figures vary by tens of percent);`,
  'so every time is CPU time of the process (user + system), the best of several runs; load wall-clock times beside;',
  'files in the page cache (loading measures reading and converting, not the disk).', '');
lines.push('| load from disk | CPU s | MB/s | wall s | peak memory | peak / file size |', '|---|---|---|---|---|---|');
lines.push(`| native (fread, 1 MB chunks) | ${fmt(native.load_seconds)} | ${fmt(file / MB / native.load_seconds)} | ${fmt(native.load_wall_seconds)} | ` +
  `${fmt(native.peak_rss / MB, 4)} MB | ${fmt(native.peak_rss / file)} |`);
lines.push(`| WebAssembly under Node (streamed, 1 MB chunks) | ${fmt(wasm.load_seconds)} | ${fmt(file / MB / wasm.load_seconds)} | ${fmt(wasm.load_wall_seconds)} | ` +
  `${fmt(wasm.peak_rss / MB, 4)} MB (Node itself ${fmt(wasm.rss_before / MB, 3)} MB) | ${fmt(wasm.peak_rss / file)} |`);
lines.push('', `The weights take ${fmt(wasm.bytes_needed / MB, 4)} MB as float32 (GPT-2's mask buffers are skipped).`, '');
lines.push('| one run, both sentences | native s | GFLOP/s | WebAssembly s | GFLOP/s | wasm / native | NumPy DGEMM s (same products) | GFLOP/s | native speed / DGEMM\'s | NumPy reference s |',
  '|---|---|---|---|---|---|---|---|---|---|');
native.runs.forEach((r, k) => {
  const w = wasm.runs[k], p = numpy.runs[k];
  const f = flops(r.tokens_a) + flops(r.tokens_b);
  lines.push(`| ${r.tokens_a} + ${r.tokens_b} tokens | ${fmt(r.seconds)} | ${fmt(f / r.seconds / 1e9)} | ${fmt(w.seconds)} | ` +
    `${fmt(f / w.seconds / 1e9)} | ${fmt(w.seconds / r.seconds)} | ${fmt(p.dgemm_seconds)} | ${fmt(f / p.dgemm_seconds / 1e9)} | ` +
    `${fmt(p.dgemm_seconds / r.seconds)} | ${fmt(p.reference_seconds)} |`);
});
lines.push('', `NumPy: ${numpy.blas.join(', ') || 'BLAS not found in the process'} with OPENBLAS_NUM_THREADS=${numpy.threads}.`,
  'A run counts the products of every block, attention and the next-token scores (2 x multiply-adds); the native and',
  'WebAssembly times include the comparisons, per-block states and the softmax over the vocabulary.');
console.log(lines.join('\n'));
