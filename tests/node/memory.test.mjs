// The WebAssembly heap must not grow across many updates of changing size:
// every run reuses the lab's memory, and every call frees what it took.
// Measured as the allocator's bytes in use (lab.heapBytesInUse()), not the
// size of the memory: memory.buffer.byteLength never shrinks, so a leak
// under its high-water mark would go unseen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { near } from '../near.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab } = await import(`${root}build/site/poslab.js`);

// A small deterministic generator, so a failure can be replayed.
let s = 12345;
const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
const pick = (list) => list[Math.floor(rand() * list.length)];
const words = (n) => Array.from({ length: n }, (_, i) => `w${i % 40}`).join(' ');

// The loop's largest transformer: its states stay at or under this size,
// so that the lab's buffers (kept at their largest, for reuse) reach their
// high-water mark before the count starts.
const TRANSFORMER = { words: 24, dim: 48, layers: 3 };

// A config from every corner of the option table: the core's own list of
// schemes (so a scheme added later is covered too), 1 to 8 heads (those that
// divide d), offsets, the mask, and the transformer's blocks.
function anyConfig(i, schemes) {
  const transformer = i % 5 === 0;
  const most = transformer ? TRANSFORMER.words : 24;
  const dim = transformer ? pick([8, 16, 24, 32, 40, 48]) : 1 + Math.floor(rand() * 48);
  const several = [2, 4, 8].filter((h) => dim % h === 0);
  const heads = i % 2 === 0 || several.length === 0 ? 1 : pick(several);
  return {
    sentence_a: words(1 + Math.floor(rand() * most)), sentence_b: words(1 + Math.floor(rand() * most)),
    dim, heads, seed: Math.floor(rand() * 2 ** 32),
    scheme: schemes[i % schemes.length], scale: 10 ** (rand() * 8 - 6), causal: rand() < 0.5,
    offset_a: rand() < 0.5 ? 0 : Math.floor(rand() * 1025), offset_b: rand() < 0.5 ? 0 : Math.floor(rand() * 1025),
    ...(transformer ? { model: 'transformer', layers: 1 + Math.floor(rand() * TRANSFORMER.layers),
                        weight_std: pick([0.02, 1]) } : {}),
  };
}

test('10,000 updates over every option, runs dropped mid-way included, leave the heap as it was', async () => {
  // What the heap holds with no lab: a fresh core (each createLab has its
  // own) whose lab is made and disposed at once.
  const empty = await createLab();
  empty.dispose();
  const withoutLab = empty.heapBytesInUse();

  const lab = await createLab();
  const schemes = lab.options.schemes.map((row) => row.name);
  assert.ok(schemes.includes('alibi') && schemes.length >= 5, schemes.join(', '));
  // the largest state of each model first: the lab's buffers reach their high-water mark
  const big = { sentence_a: words(64), sentence_b: words(64).split(' ').reverse().join(' '), dim: 512, heads: 8,
    scheme: 'rope', sweep: { lo: 1e-9, hi: 1e3, count: 121 }, full: true };
  lab.run(big);
  lab.threshold(big, -1);
  const bigTransformer = { sentence_a: words(TRANSFORMER.words), sentence_b: words(TRANSFORMER.words), dim: TRANSFORMER.dim,
    heads: 8, model: 'transformer', layers: TRANSFORMER.layers, sweep: { lo: 1e-9, hi: 1e3, count: 121 }, full: true };
  lab.run(bigTransformer);
  lab.threshold(bigTransformer, -1);
  const before = lab.heapBytesInUse();
  const memoryBefore = lab.memoryBytes();
  assert.ok(before > withoutLab, `the lab's buffers are in use (${before} > ${withoutLab} bytes)`);
  const seen = { schemes: new Set(), heads: new Set(), offsets: 0, transformers: 0, dropped: 0 };
  for (let i = 0; i < 10000; i++) {
    const config = { ...anyConfig(i, schemes), sweep: i % 50 === 1 || i % 1000 === 5 ? { lo: 1e-9, hi: 1e3, count: 121 } : undefined,
                     full: i % 3 === 0 };
    seen.schemes.add(config.scheme);
    seen.heads.add(config.heads);
    if (config.offset_a || config.offset_b) seen.offsets += 1;
    if (config.model) seen.transformers += 1;
    if (i % 7 === 0) {
      // a run in steps, as the page's worker takes it, left a few steps in
      // for a newer state: the next call ends it
      const steps = lab.runSteps(config);
      let finished = false;
      for (let k = 1 + Math.floor(rand() * 4); k > 0 && !finished; k--) finished = steps.next().done;
      const next = anyConfig(i + 1, schemes);
      if (i % 2 === 0) lab.run(next);
      else for (const step of lab.runSteps(next)) {} // eslint-disable-line no-empty
      if (finished) continue;
      assert.throws(() => steps.next(), /dropped/);
      seen.dropped += 1;
      continue;
    }
    lab.run(config);
    if (i % 500 === 0) lab.threshold(config, -1);
    if (i % 1000 === 0) assert.throws(() => lab.run({ ...config, dim: 0 }), /dim/); // error paths free too
  }
  assert.deepEqual([...seen.schemes].sort(), [...schemes].sort(), 'every scheme');
  assert.deepEqual([...seen.heads].sort(), [1, 2, 4, 8], 'one head and several');
  assert.ok(seen.offsets > 1000 && seen.transformers > 1000 && seen.dropped > 500, JSON.stringify(seen));
  assert.equal(lab.heapBytesInUse(), before, 'heap bytes in use after 10,000 updates');
  assert.equal(lab.memoryBytes(), memoryBefore, 'memory.buffer.byteLength grew');
  // a run dropped mid-way by dispose() frees what it held too
  const steps = lab.runSteps(bigTransformer);
  steps.next();
  steps.next();
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
  for (const [got, want] of [[first.mean, cli.mean], ...first.pairs.map((p, i) => [p, cli.pairs[i]]),
                             ...first.layers.map((l, i) => [l.mean, cli.layers[i].mean])]) {
    assert.equal(got.allclose, want.allclose);
    assert.ok(near(got.cosine_distance, want.cosine_distance), `${got.cosine_distance} vs ${want.cosine_distance}`);
    assert.ok(near(got.max_abs_diff, want.max_abs_diff), `${got.max_abs_diff} vs ${want.max_abs_diff}`);
  }
  lab.dispose();
});
