// A long sweep shows a coarse first curve: at 64 words and d 512 the page
// draws every fifth magnitude first, says so in the chart's caption, then
// replaces it with the full sweep. Both the sweep worker's path and the
// page's own (worker refused) are walked; what is read is what a student
// sees: the caption and the chart's data table. Run `make site` first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { SITE, serveDir, launch, openPage } from './harness.mjs';

let server;
let origin;
let browser;

before(async () => {
  ({ server, origin } = await serveDir(SITE));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
});

const words = (n) => Array.from({ length: n }, (_, i) => `w${String(i + 1).padStart(2, '0')}`);
const LONG = `/#a=${words(64).join('+')}&b=${words(64).reverse().join('+')}&pos=1&scheme=rope&scale=1&dim=512&word=0`;

// Every state of the chart's caption and data table while the page loads.
function recordChart() {
  window.chartStates = [];
  const note = () => {
    const caption = document.querySelector('.chart-caption')?.textContent ?? '';
    const rows = [...document.querySelectorAll('.data-table tbody tr')].map((r) => r.textContent.trim());
    const last = window.chartStates.at(-1);
    if (!last || last.caption !== caption || last.rows.join('\n') !== rows.join('\n')) window.chartStates.push({ caption, rows });
  };
  new MutationObserver(note).observe(document, { childList: true, subtree: true, characterData: true });
}

for (const [name, worker] of [['in the sweep worker', true], ['on the page (worker refused)', false]]) {
  test(`a long sweep draws a coarse curve first, then the full one: ${name}`, { timeout: 120000 }, async () => {
    const context = await browser.newContext();
    await context.addInitScript(recordChart);
    if (!worker) await context.route('**/sweep_worker.js', (route) => route.abort());
    const { page, done } = await openPage(context, origin, LONG); // waits for the full chart
    const states = await page.evaluate(() => window.chartStates);
    const coarse = states.find((s) => s.caption.includes('coarse'));
    assert.ok(coarse, `no coarse curve was shown; captions: ${[...new Set(states.map((s) => s.caption))].join(' | ')}`);
    assert.match(coarse.caption, /A first, coarse curve: 25 of 121 magnitudes; the rest are being computed\./);
    const full = states.at(-1);
    assert.doesNotMatch(full.caption, /coarse/);
    // The coarse curve holds every power of ten of the full one: the
    // table, one row per power of ten (magnitude, both distances, both
    // verdicts), reads the same from both.
    assert.equal(full.rows.length, 13);
    assert.deepEqual(coarse.rows, full.rows);
    await done();
    await context.close();
  });
}
