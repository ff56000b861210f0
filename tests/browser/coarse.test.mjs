// A long sweep shows a coarse first curve: at 64 words and d 512 the page
// draws one magnitude per power of ten first, says so in the chart's caption, then
// replaces it with the full sweep. Both the sweep worker's path and the
// page's own (worker refused) are walked; what is read is what a student
// sees: the caption and the chart's data table. Run `make site` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { openPage, chartGeometry, useSite } from './harness.mjs';

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
  const { sig, ROUNDING_LEVEL } = await import('../../web/app/format.js');
  // the cosine column as the page writes it (a rounding-level negative reads "≈ 0")
  const figureText = (v) => (v < 0 && v > -ROUNDING_LEVEL ? '≈ 0' : sig(v));
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
  assert.deepEqual(shown, core.map(([d, c]) => [sig(d), figureText(c)]), 'every row, the last included, shows the final magnitude');
  // the last word's row was out of sight and still showed an earlier magnitude during the drag
  assert.notEqual(during.last, shown.at(-2)[1]);
  await done();
  await context.close();
});

// The hover readout names the point of the chart nearest the pointer, with
// a hairline through it. When new words bring a new sweep, it stays with
// the pointer, on the coarse curve's 13 points and then on the full 121 (it
// once kept its index, past the end of the coarse curve, and the page's
// render threw). Read as a student sees it: the caption says which curve
// is drawn, and the hairline is found in the canvas's pixels; only where
// a magnitude lands on the canvas comes from Chart.js (chartGeometry).
test('the hover readout keeps its magnitude through a coarse curve and the full one', { timeout: 120000 }, async () => {
  const context = await site.browser.newContext();
  await context.route('**/sweep_worker.js', (route) => route.abort());
  // 8 heads: a keystroke's sweep takes long enough for a coarse curve first
  const { page, done } = await openPage(context, site.origin, `${LONG}&heads=8`);
  await page.locator('#chart').scrollIntoViewIfNeeded();
  const box = await page.locator('#chart').boundingBox();
  const POINTER = 0.62; // of the canvas's width
  await page.mouse.move(box.x + box.width * POINTER, box.y + box.height * 0.5);
  const magnitudes = Array.from({ length: 121 }, (_, k) => 10 ** (-9 + k / 10));
  const { xs, ratio } = await chartGeometry(page, magnitudes);
  const pointer = POINTER * box.width * ratio;
  const nearestTo = (ks) => ks.reduce((best, k) => (Math.abs(xs[k] - pointer) < Math.abs(xs[best] - pointer) ? k : best));
  const full = nearestTo(magnitudes.map((_, k) => k));
  const coarse = nearestTo(magnitudes.map((_, k) => k).filter((k) => k % 10 === 0)); // a power of ten
  assert.notEqual(full % 10, 0, 'the pointer is not on a power of ten');
  const SPAN = 40; // canvas pixels either side of the pointer searched for the hairline
  // The readout's hairline near the pointer: the columns that hold one and
  // the same colour along most of the plot's height, a shade of the
  // hairline's (the page's --muted grey over the panel; a curve is
  // coloured, the grid much lighter), in canvas pixels; null if none.
  const findHairline = (near, span) => {
    const canvas = document.getElementById('chart');
    const chart = window.Chart.getChart(canvas);
    const k = canvas.width / chart.width;
    const y0 = Math.ceil(chart.chartArea.top * k) + 2;
    const height = Math.floor(chart.chartArea.bottom * k) - 2 - y0;
    const x0 = Math.round(near - span);
    const width = 2 * span + 1;
    const { data } = canvas.getContext('2d').getImageData(x0, y0, width, height);
    const probe = document.createElement('canvas').getContext('2d');
    probe.fillStyle = getComputedStyle(document.getElementById('plot')).getPropertyValue('--muted').trim();
    probe.fillRect(0, 0, 1, 1);
    const muted = [...probe.getImageData(0, 0, 1, 1).data.slice(0, 3)];
    // how far a colour is from the greys between --muted (t = 0) and white (t = 1)
    const fromGrey = (c) => {
      const d = muted.map((m) => 255 - m);
      const t = Math.min(1, Math.max(0, c.reduce((sum, v, j) => sum + (v - muted[j]) * d[j], 0) / d.reduce((sum, v) => sum + v * v, 0)));
      return { t, off: Math.hypot(...c.map((v, j) => v - (muted[j] + t * d[j]))) };
    };
    let sum = 0;
    let weight = 0;
    for (let x = 0; x < width; x++) {
      const colours = new Map();
      for (let y = 0; y < height; y++) {
        const i = 4 * (y * width + x);
        const { t, off } = fromGrey([data[i], data[i + 1], data[i + 2]]);
        if (t > 0.7 || off > 20) continue;
        const c = `${data[i]},${data[i + 1]},${data[i + 2]}`;
        colours.set(c, (colours.get(c) ?? 0) + 1);
      }
      const rows = Math.max(0, ...colours.values());
      if (rows >= 0.7 * height) { sum += (x0 + x) * rows; weight += rows; }
    }
    return weight ? sum / weight : null;
  };
  const caption = () => page.textContent('.chart-caption');
  await page.waitForFunction(({ fn, near, span }) => new Function(`return (${fn})`)()(near, span) !== null,
    { fn: findHairline.toString(), near: pointer, span: SPAN });
  const hairline = () => page.evaluate(({ fn, near, span }) => new Function(`return (${fn})`)()(near, span),
    { fn: findHairline.toString(), near: pointer, span: SPAN });
  const at = (x, k, what) => assert.ok(x !== null && Math.abs(x - xs[k]) <= 1.5 * ratio,
    `${what}: the hairline at x ${x}, expected ${xs[k]} (magnitude ${magnitudes[k].toPrecision(3)})`);
  assert.doesNotMatch(await caption(), /coarse/);
  at(await hairline(), full, 'before');
  // New words: the coarse curve first, then the full one. Each change of
  // the caption is noted with the hairline as drawn then (a mutation
  // observer's callback runs once the task that drew it is done, before
  // the next: the coarse curve may stay up for just one task).
  const seen = await page.evaluate(({ fn, near, span }) => new Promise((resolve) => {
    const find = new Function(`return (${fn})`)();
    const caption = document.querySelector('.chart-caption');
    const out = [];
    const note = () => {
      if (out.at(-1)?.caption !== caption.textContent) out.push({ caption: caption.textContent, x: find(near, span) });
    };
    const observer = new MutationObserver(note);
    observer.observe(caption, { childList: true, subtree: true, characterData: true });
    const input = document.getElementById('sentence-a');
    input.value = `z${input.value}`;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const t0 = performance.now();
    const check = () => {
      note();
      const coarseSeen = out.some((s) => /coarse/.test(s.caption));
      const done = coarseSeen && !/coarse/.test(out.at(-1).caption) && document.getElementById('plot').getAttribute('aria-busy') !== 'true';
      if (done || performance.now() - t0 > 60000) {
        observer.disconnect();
        resolve(out);
      } else setTimeout(check, 20);
    };
    check();
  }), { fn: findHairline.toString(), near: pointer, span: SPAN });
  const first = seen.find((s) => /coarse/.test(s.caption));
  assert.ok(first, `a coarse curve was drawn; captions: ${[...new Set(seen.map((s) => s.caption))].join(' | ')}`);
  assert.match(first.caption, /A first, coarse curve: 13 of 121 magnitudes/);
  at(first.x, coarse, 'on the coarse curve, the power of ten nearest the pointer');
  const last = seen.at(-1);
  assert.doesNotMatch(last.caption, /coarse/);
  at(last.x, full, 'back at the hovered magnitude on the full curve');
  await done();
  await context.close();
});
