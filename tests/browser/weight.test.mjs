// What opening the lab costs in bytes: everything the page fetches until
// it has drawn its verdicts and chart, and the scripts and style sheets
// among it, stay within their budgets (tests/sizes.json) by gzip size, as a
// static host serves them; and the parts a student may never open (the
// guided tour, Copy as NumPy's script writer, the heatmaps, the reordering
// views, the Why panel) are not among it: they are fetched when first
// used, and then work. New code a student does not see at open belongs in
// a chunk loaded when first used. Run `make site`.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { openPage, settled, useSite } from './harness.mjs';
import { gzipBytes, judge } from '../sizes.mjs';

const site = useSite();

test('the page as opened fits its gzip budgets; the tour, Copy as NumPy and the heatmaps load when used', async (t) => {
  const context = await site.browser.newContext();
  const fetched = new Map(); // path -> gzip bytes
  context.on('response', async (r) => {
    const url = new URL(r.url());
    if (url.origin !== site.origin) return;
    fetched.set(url.pathname, gzipBytes(await r.body()));
  });
  const { page, done } = await openPage(context, site.origin, '/');
  await page.waitForLoadState('networkidle');
  const atOpen = new Map(fetched);
  const sum = (paths) => paths.reduce((a, p) => a + atOpen.get(p), 0);
  const total = sum([...atOpen.keys()]);
  const list = [...atOpen].map(([p, n]) => `${p} ${n}`).join(', ');
  // the checkpoint module and the models trained here come when a model is picked
  assert.deepEqual([...atOpen.keys()].filter((p) => /poslab-checkpoint|\/models\//.test(p)), [], 'no checkpoint code or model at open');
  assert.ok(atOpen.has('/poslab.wasm') && atOpen.has('/vendor/chart.min.js'), `the core and Chart.js were fetched: ${list}`);
  for (const [part, gzip] of [['page at open', total], ['JS and CSS at open', sum([...atOpen.keys()].filter((p) => /\.(js|css)$/.test(p)))]]) {
    const { ok, line } = judge(part, gzip);
    t.diagnostic(line);
    assert.ok(ok, `${line}; gzip bytes by file: ${list}`);
  }
  const lazy = /tour|numpy_script|heatmap|permutation|why_panel/;
  assert.deepEqual([...atOpen.keys()].filter((p) => lazy.test(p)), [], 'nothing a student has not opened');

  // Each part, once used, arrives and does its job.
  await page.click('#tour-start');
  await page.waitForSelector('#tour:not([hidden]) .tour-choice');
  await settled(page);
  assert.match(await page.textContent('#tour .tour-count'), /^Guided tour · step 1 of \d+$/);
  await page.click('#tour .tour-skip');
  await page.hover('#copy-numpy');
  await page.waitForFunction(() => document.documentElement.dataset.loading === undefined);
  await page.click('#heatmap summary');
  await settled(page);
  assert.ok(await page.$$eval('#heat-a td', (cells) => cells.length) >= 9, 'the heatmap of A has its cells');
  await page.click('#permutation summary');
  await settled(page);
  assert.match(await page.textContent('#prop-equi .prop-text'), /largest difference is/);
  const later = [...fetched.keys()].filter((p) => !atOpen.has(p));
  for (const part of ['tour', 'numpy_script', 'heatmap', 'permutation']) {
    assert.ok(later.some((p) => p.includes(part)), `${part} fetched once used (later: ${later.join(', ')})`);
  }
  t.diagnostic(`opening fetched ${atOpen.size} files; later: ${later.join(', ')}`);
  await done();
  await context.close();
});

// The code main.js imports at once (chunks esbuild split off, which parts
// loaded later share) is preloaded by index.html, so the browser asks for
// it with main.js instead of a round trip later, once main.js is parsed:
// every chunk the page fetches before its first verdicts is asked for
// before main.js has arrived.
test('index.html preloads every chunk main.js imports at once: they are asked for before main.js arrives', async () => {
  const context = await site.browser.newContext();
  const page = await context.newPage();
  await page.goto(`${site.origin}/`);
  await settled(page);
  const { chunks, mainEnd } = await page.evaluate(() => {
    const entries = performance.getEntriesByType('resource');
    return { chunks: entries.filter((e) => /\/chunks\/chunk-/.test(e.name)).map((e) => ({ name: e.name.split('/').pop(), start: e.startTime })),
      mainEnd: entries.find((e) => e.name.endsWith('/main.js')).responseEnd };
  });
  const preloaded = await page.$$eval('link[rel="modulepreload"]', (links) => links.map((l) => l.getAttribute('href')));
  assert.ok(chunks.length >= 1, 'main.js imports shared chunks');
  for (const { name, start } of chunks) {
    assert.ok(preloaded.includes(`chunks/${name}`), `${name} has a modulepreload link (${preloaded.join(', ')})`);
    assert.ok(start < mainEnd, `${name} asked for at ${start.toFixed(1)} ms, main.js arrived at ${mainEnd.toFixed(1)} ms`);
  }
  await context.close();
});

// Typing costs no request. The page writes its state into the address as a
// student types (history.replaceState, up to five times a second), and
// Chromium fetches a page's linked icon again after each such write; an SVG
// icon was then parsed as a document on the page's thread, 6 to 9 ms at 2x
// CPU throttling, inside the keystrokes being timed. The icon is a data:
// URL in the page, which the browser only decodes.
// A worker the page starts meanwhile fetches its script and its own copy of
// the core, and that may happen while typing: the chart's second sweep
// worker starts with the first sweep the page sends to the workers (on a
// slow machine, a keystroke's) and again after ten idle seconds, and a
// worker still sweeping words already typed past may be ended and replaced. CI's
// run of 2026-12-06 saw one such start. Those requests are set against the
// workers started; nothing else may be asked for.
const WORKER_FETCHES = ['/poslab.js', '/poslab-core.js', '/poslab.wasm']; // besides the worker's script
function unexplainedRequests(asked, workersStarted) {
  const left = [...asked];
  for (const script of workersStarted) {
    for (const path of [script, ...WORKER_FETCHES]) {
      const i = left.indexOf(path);
      if (i >= 0) left.splice(i, 1);
    }
  }
  return left;
}

test('the requests a worker started while typing are set against it, and only they', () => {
  const oneWorker = ['/sweep_worker.js', '/poslab.js', '/poslab-core.js', '/poslab.wasm'];
  assert.deepEqual(unexplainedRequests(oneWorker, ['/sweep_worker.js']), []);
  assert.deepEqual(unexplainedRequests(oneWorker, []), oneWorker);
  assert.deepEqual(unexplainedRequests([...oneWorker, '/favicon.svg', '/poslab.wasm'], ['/sweep_worker.js']),
    ['/favicon.svg', '/poslab.wasm']);
});

test('typing in the sentences fetches nothing from the server but the workers it starts, the page icon included', async () => {
  const context = await site.browser.newContext();
  const { page, done } = await openPage(context, site.origin, '/');
  await page.waitForLoadState('networkidle');
  assert.match(await page.getAttribute('link[rel="icon"]', 'href'), /^data:image\/png;base64,/);
  const asked = [];
  const workers = [];
  page.on('request', (r) => { if (!r.url().startsWith('data:')) asked.push(new URL(r.url()).pathname); });
  page.on('worker', (w) => workers.push(new URL(w.url()).pathname));
  const words = ['cat', 'bird', 'fish', 'ant', 'bee'];
  for (const word of words) {
    await page.fill('#sentence-a', `dog bites ${word}`);
    await page.waitForFunction((w) => window.location.hash.includes(w), word); // the address written
    await settled(page);
  }
  assert.deepEqual(unexplainedRequests(asked, workers), [],
    `${words.length} writes of the address asked for ${asked.join(', ')} (workers started: ${workers.join(', ') || 'none'})`);
  await done();
  await context.close();
});
