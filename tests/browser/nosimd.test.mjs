// The site in a browser without WebAssembly SIMD, as far as the page can be
// made to believe it: WebAssembly.validate refuses everything, as such an
// engine refuses poslab.js's SIMD probe. The page then fetches and runs
// poslab-nosimd.wasm and shows the module's figures. (The init script does
// not reach the sweep worker, which finds SIMD and loads its usual module.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, settled, verdictColumn, useSite } from './harness.mjs';

const site = useSite();

async function wasmFetched(simd) {
  const context = await site.browser.newContext();
  if (!simd) await context.addInitScript(() => { WebAssembly.validate = () => false; });
  const fetched = [];
  context.on('request', (r) => { if (r.url().endsWith('.wasm')) fetched.push(new URL(r.url()).pathname); });
  const { page, done } = await openPage(context, site.origin, '/');
  await page.check('#positions');
  await settled(page);
  assert.deepEqual(await verdictColumn(page), ['False', 'False', 'False', 'False']);
  const man = await page.$eval('#verdict-rows tr:nth-child(3) .cosine .num', (c) => c.textContent);
  assert.equal(man, '0.9416');
  await done();
  await context.close();
  return fetched;
}

test('without SIMD the page fetches the fallback and shows the same figures; with it, only the SIMD module', async () => {
  // the preload asks for poslab.wasm in any browser (see README), and the
  // sweep worker, which the init script does not reach, loads it too
  const without = await wasmFetched(false);
  assert.deepEqual(without.filter((p) => p === '/poslab-nosimd.wasm'), ['/poslab-nosimd.wasm'], String(without));
  const withSimd = await wasmFetched(true);
  assert.ok(withSimd.length >= 1 && withSimd.every((p) => p === '/poslab.wasm'), String(withSimd));
});
