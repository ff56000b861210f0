// A long sweep shows a coarse first curve: at 64 words and d 512 the page
// draws one magnitude per power of ten first, says so in the chart's caption, then
// replaces it with the full sweep. Both the sweep worker's path and the
// page's own (worker refused) are walked; what is read is what a student
// sees: the caption and the chart's data table. Run `make site` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { openPage, useSite } from './harness.mjs';

const site = useSite();

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
    const context = await site.browser.newContext();
    await context.addInitScript(recordChart);
    if (!worker) await context.route('**/sweep_worker.js', (route) => route.abort());
    const { page, done } = await openPage(context, site.origin, LONG); // waits for the full chart
    const states = await page.evaluate(() => window.chartStates);
    const coarse = states.find((s) => s.caption.includes('coarse'));
    assert.ok(coarse, `no coarse curve was shown; captions: ${[...new Set(states.map((s) => s.caption))].join(' | ')}`);
    assert.match(coarse.caption, /A first, coarse curve: 13 of 121 magnitudes; the rest are being computed\./);
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

// Rows of the verdict table out of sight are filled once the slider rests:
// during a drag they wait (the table says aria-busy), and then every row
// shows the core's figures for the final magnitude.
test('rows out of sight catch up with the slider once it rests', { timeout: 60000 }, async () => {
  const { sig } = await import('../../web/app/format.js');
  const context = await site.browser.newContext();
  const url = `/#a=${words(48).join('+')}&b=${words(48).reverse().join('+')}&pos=1&scheme=rope&scale=0.01&dim=64&word=0`;
  const { page, done } = await openPage(context, site.origin, url, { width: 1280, height: 700 });
  const during = await page.evaluate(() => {
    const slider = document.getElementById('scale-slider');
    for (const v of [-1.5, -1, -0.5, 0, 0.5]) {
      slider.value = String(v);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }
    const rows = [...document.querySelectorAll('#verdict-rows tr')];
    return { busy: document.querySelector('.verdict-table').getAttribute('aria-busy'), last: rows.at(-2).querySelector('.cosine .num').textContent };
  });
  assert.equal(during.busy, 'true', 'the table says it is catching up');
  await page.waitForFunction(() => document.querySelector('.verdict-table').getAttribute('aria-busy') === 'false');
  const [shown, core] = await Promise.all([
    page.$$eval('#verdict-rows tr', (rows) => rows.map((r) => [r.querySelector('.maxdiff .num').textContent, r.querySelector('.cosine .num').textContent])),
    page.evaluate(async () => {
      const { createLab } = await import('./poslab.js');
      const lab = await createLab();
      const scale = Number(document.getElementById('scale-text').value);
      const r = lab.run({ sentence_a: document.getElementById('sentence-a').value, sentence_b: document.getElementById('sentence-b').value,
        dim: 64, scheme: 'rope', scale });
      lab.dispose();
      return [...r.pairs, r.mean].map((p) => [p.max_abs_diff, p.cosine_distance]);
    }),
  ]);
  assert.equal(shown.length, 49);
  assert.deepEqual(shown, core.map(([d, c]) => [sig(d), sig(c)]), 'every row, the last included, shows the final magnitude');
  // the last word's row was out of sight and still showed an earlier magnitude during the drag
  assert.notEqual(during.last, shown.at(-2)[1]);
  await done();
  await context.close();
});

// The hover readout names the point of the chart nearest the pointer. When
// new words bring a new sweep, it stays with the pointer, on the coarse
// curve's 13 points and then on the full 121 (it once kept its index, past
// the end of the coarse curve, and the page's render threw). Chart.js caches
// what chart.options resolves, so the readout is read from chart.config.
test('the hover readout keeps its magnitude through a coarse curve and the full one', { timeout: 120000 }, async () => {
  const context = await site.browser.newContext();
  await context.route('**/sweep_worker.js', (route) => route.abort());
  // 8 heads: a keystroke's sweep takes long enough for a coarse curve first
  const { page, done } = await openPage(context, site.origin, `${LONG}&heads=8`);
  await page.locator('#chart').scrollIntoViewIfNeeded();
  const box = await page.locator('#chart').boundingBox();
  await page.mouse.move(box.x + box.width * 0.62, box.y + box.height * 0.5);
  await page.waitForFunction(() => window.Chart.getChart(document.getElementById("chart")).config.options.plugins.poslabReadout.index !== null);
  const readout = () => page.evaluate(() => {
    const chart = window.Chart.getChart(document.getElementById('chart'));
    const { index, lines } = chart.config.options.plugins.poslabReadout;
    const points = chart.data.datasets[1].data;
    return { index, first: lines[0], count: points.length, x: index === null ? null : points[index].x };
  });
  const before = await readout();
  assert.equal(before.count, 121);
  assert.ok(before.index !== null && before.index > 0 && before.index < 120, `a point under the pointer (${before.index})`);
  // New words: the coarse curve first, then the full one.
  const seen = await page.evaluate(async () => {
    const chart = window.Chart.getChart(document.getElementById('chart'));
    const input = document.getElementById('sentence-a');
    const out = [];
    let shown = chart.data.datasets[1].data; // the old words' curve
    input.value = `z${input.value}`;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    for (let k = 0; k < 2000 && out.at(-1)?.count !== 121; k++) {
      await new Promise((resolve) => { setTimeout(resolve, 5); });
      const points = chart.data.datasets[1].data;
      if (points === shown) continue;
      shown = points;
      const { index, lines } = chart.config.options.plugins.poslabReadout;
      out.push({ count: points.length, index, first: lines[0], x: index === null ? null : points[index]?.x });
    }
    return out;
  });
  const coarse = seen.find((s) => s.count === 13);
  assert.ok(coarse, `a coarse curve was drawn (${seen.map((s) => s.count).join(', ')})`);
  // the power of ten nearest (on the log axis) to the hovered magnitude
  const nearest = 10 ** Math.round(Math.log10(before.x));
  assert.ok(Math.abs(coarse.x / nearest - 1) < 1e-9, `coarse readout at ${coarse.x}, expected ${nearest}`);
  assert.match(coarse.first, /^magnitude /);
  const full = seen.at(-1);
  assert.equal(full.count, 121);
  assert.equal(full.x, before.x, 'back at the hovered magnitude on the full curve');
  await done();
  await context.close();
});
