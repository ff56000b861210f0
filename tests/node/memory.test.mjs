// The WebAssembly heap must not grow across many updates of changing size:
// every run reuses the lab's memory, and every call frees what it took.
// Measured as the allocator's bytes in use (lab.heapBytesInUse()), not the
// size of the memory: memory.buffer.byteLength never shrinks, so a leak
// under its high-water mark would go unseen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab } = await import(`${root}build/site/poslab.js`);

// A small deterministic generator, so a failure can be replayed.
let s = 12345;
const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
const words = (n) => Array.from({ length: n }, (_, i) => `w${i % 40}`).join(' ');

test('10,000 updates of changing size leave the heap as it was', async () => {
  // What the heap holds with no lab: a fresh core (each createLab has its
  // own) whose lab is made and disposed at once.
  const empty = await createLab();
  empty.dispose();
  const withoutLab = empty.heapBytesInUse();

  const lab = await createLab();
  // the largest state first: the lab's buffers reach their high-water mark
  const big = { sentence_a: words(64), sentence_b: words(64).split(' ').reverse().join(' '), dim: 512,
    scheme: 'rope', sweep: { lo: 1e-9, hi: 1e3, count: 121 }, full: true };
  lab.run(big);
  lab.threshold(big, -1);
  const before = lab.heapBytesInUse();
  const memoryBefore = lab.memoryBytes();
  assert.ok(before > withoutLab, `the lab's buffers are in use (${before} > ${withoutLab} bytes)`);
  const schemes = ['none', 'random', 'sinusoidal', 'rope', 'alibi'];
  for (let i = 0; i < 10000; i++) {
    const n = 1 + Math.floor(rand() * 24);
    const config = {
      sentence_a: words(n), sentence_b: words(1 + Math.floor(rand() * 24)),
      dim: 1 + Math.floor(rand() * 48), seed: Math.floor(rand() * 2 ** 32),
      scheme: schemes[i % 4], scale: 10 ** (rand() * 8 - 6), causal: rand() < 0.5,
      sweep: i % 50 === 0 ? { lo: 1e-9, hi: 1e3, count: 121 } : undefined, full: i % 3 === 0,
    };
    lab.run(config);
    if (i % 500 === 0) lab.threshold(config, -1);
    if (i % 1000 === 0) assert.throws(() => lab.run({ ...config, dim: 0 }), /dim/); // error paths free too
  }
  assert.equal(lab.heapBytesInUse(), before, 'heap bytes in use after 10,000 updates');
  assert.equal(lab.memoryBytes(), memoryBefore, 'memory.buffer.byteLength grew');
  lab.dispose();
  assert.equal(lab.heapBytesInUse(), withoutLab, 'heap bytes in use after dispose()');
});

// The largest transformer, bench workload (e): 12 blocks of 12 d^2 weights at
// d 512 are 302 MB, which the WebAssembly memory must grow to hold (it may
// grow to 2 GiB, Emscripten's default maximum). Both sentences' figures
// must be those of the native CLI, and a second run with new draws must
// reuse the same buffers.
test('the largest transformer (64 words, d 512, 12 blocks, 8 heads) runs under Node', async () => {
  const { execFileSync } = await import('node:child_process');
  const lab = await createLab();
  const tokens = Array.from({ length: 64 }, (_, i) => `w${i}`);
  const config = { sentence_a: tokens.join(' '), sentence_b: tokens.reverse().join(' '), dim: 512, heads: 8,
    model: 'transformer', layers: 12, scheme: 'random', causal: true };
  const first = lab.run({ ...config, seed: 2 });
  const weights = 12 * 12 * 512 * 512 * 8;
  assert.ok(lab.heapBytesInUse() > weights, `the weights are in the heap (${lab.heapBytesInUse()} bytes in use)`);
  assert.ok(lab.memoryBytes() < 2 ** 30, `memory ${lab.memoryBytes()} bytes, under 1 GiB`);
  const inUse = lab.heapBytesInUse();
  lab.run({ ...config, seed: 3 });
  assert.equal(lab.heapBytesInUse(), inUse, 'a second run of the same size allocates nothing more');

  const cli = JSON.parse(execFileSync(`${root}build/native/poslab`, ['--json', '--a', config.sentence_a,
    '--b', config.sentence_b, '--dim', '512', '--heads', '8', '--model', 'transformer', '--layers', '12',
    '--scheme', 'random', '--causal', '--seed', '2'], { encoding: 'utf8', maxBuffer: 1 << 26 }));
  const near = (got, want) => Math.abs(got - want) <= 1e-12 + 1e-9 * Math.abs(want);
  for (const [got, want] of [[first.mean, cli.mean], ...first.pairs.map((p, i) => [p, cli.pairs[i]]),
                             ...first.layers.map((l, i) => [l.mean, cli.layers[i].mean])]) {
    assert.equal(got.allclose, want.allclose);
    assert.ok(near(got.cosine_distance, want.cosine_distance), `${got.cosine_distance} vs ${want.cosine_distance}`);
    assert.ok(near(got.max_abs_diff, want.max_abs_diff), `${got.max_abs_diff} vs ${want.max_abs_diff}`);
  }
  lab.dispose();
});
