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
