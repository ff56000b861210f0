// WebAssembly memory across the page and its workers, read through ?debug's
// wasmMemory() (each worker answers with its memory.buffer.byteLength).
// A transformer whose weights alone pass 64 MiB (8 words, d 512, 3 blocks:
// 3 x 12 d^2 doubles, 72 MiB) stands in for the largest one (302 MB), which
// behaves the same but takes seconds to draw:
//  - one copy of the weights: the run worker computes the verdicts and the
//    chart on the same draws (a second worker for the chart once drew them
//    again), and new draws replace the old copy (a spare draws while the
//    old worker is ended): never more than one held plus one being drawn;
//  - memory comes back: WebAssembly memory never shrinks, so going back to
//    the one head must end the worker that held the weights; within 10 s
//    the page and its workers hold under 64 MiB together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSite, openPage, verdictColumn } from './harness.mjs';

const site = useSite();
const MiB = 2 ** 20;
const LIMIT = 64 * MiB;
const words = Array.from({ length: 8 }, (_, k) => `w${k}`);
const BIG = { dim: 512, layers: 3, heads: 8 };
const WEIGHTS = BIG.layers * 12 * BIG.dim ** 2 * 8;
const HASH = `#a=${words.join('+')}&b=${[...words].reverse().join('+')}&pos=1&scheme=rope&dim=${BIG.dim}` +
  `&heads=${BIG.heads}&layers=${BIG.layers}`;

const memory = (page) => page.evaluate(() => window.poslabDebug.wasmMemory());
const total = (parts) => parts.reduce((sum, p) => sum + p.bytes, 0);
const describe = (parts) => parts.map((p) => `${p.what} ${(p.bytes / MiB).toFixed(1)} MiB`).join(', ');
// The copies of the core big enough to hold the weights.
const holding = (parts) => parts.filter((p) => p.bytes >= WEIGHTS);
// The verdicts are shown (the chart may still be computed).
const verdictsShown = (page) => page.waitForFunction(() => document.getElementById('verdicts').getAttribute('aria-busy') === 'false');
const model = async (page, which) => {
  await page.check(`input[name="model"][value="${which}"]`);
  await verdictsShown(page);
};

test('a large transformer: one copy of its weights, and its memory given back after going back to the one head', { timeout: 120000 }, async () => {
  assert.ok(WEIGHTS > LIMIT, 'the stand-in needs more than the limit');
  const context = await site.browser.newContext();
  const { page, done } = await openPage(context, site.origin, `/?debug${HASH}`); // the head, at these settings
  assert.ok(total(await memory(page)) < LIMIT);
  await model(page, 'transformer');
  const first = await verdictColumn(page);
  const samples = [await memory(page)];
  assert.ok(total(samples[0]) > LIMIT + WEIGHTS / 2, `the weights are held: ${describe(samples[0])}`);
  // The chart is computed now, for a few seconds: in the run worker, on its copy.
  for (let k = 0; k < 8; k++) {
    await page.waitForTimeout(250);
    samples.push(await memory(page));
  }
  // New draws (another seed): a spare draws them while the old copy is ended.
  await page.click('details.advanced summary');
  await page.fill('#seed', '7');
  for (let k = 0; k < 8; k++) {
    samples.push(await memory(page));
    await page.waitForTimeout(150);
  }
  await verdictsShown(page);
  samples.push(await memory(page));
  for (const parts of samples) assert.ok(holding(parts).length <= 2, `at most one copy held and one drawn: ${describe(parts)}`);
  assert.ok(samples.slice(0, 9).every((parts) => holding(parts).length === 1), 'one copy while the chart is computed: ' +
    samples.slice(0, 9).map(describe).join(' | '));
  const peak = Math.max(...samples.map(total));
  console.log(`# peak ${(peak / MiB).toFixed(1)} MiB over the page and its workers`);

  // Back to the one head: the transformer's worker is ended.
  await model(page, 'head');
  const t0 = Date.now();
  let parts = await memory(page);
  while (total(parts) >= LIMIT && Date.now() - t0 < 10000) {
    await page.waitForTimeout(250);
    parts = await memory(page);
  }
  const after = Date.now() - t0;
  assert.ok(total(parts) < LIMIT, `after 10 s on the head: ${(total(parts) / MiB).toFixed(1)} MiB (${describe(parts)})`);
  console.log(`# ${(total(parts) / MiB).toFixed(1)} MiB ${after} ms after going back to the head: ${describe(parts)}`);

  // And the transformer comes back, on a new worker, with the same figures.
  await page.fill('#seed', '0');
  await model(page, 'transformer');
  assert.deepEqual(await verdictColumn(page), first);
  assert.equal(holding(await memory(page)).length, 1);
  await done();
  await context.close();
});
