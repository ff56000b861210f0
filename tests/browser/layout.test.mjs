// The result stays in view while a control changes: at 1280x900 and at
// 375x800, with each control that changes the model scrolled into view, a
// verdict is in view too (the cards, or the result bar while they are out of
// sight); on a phone the first screen shows one. And a tour step's answer
// brings what it talks about into view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSite, settled } from './harness.mjs';

const site = useSite();

const CONTROLS = ['#positions', 'input[name="scheme"][value="rope"]', '#scale-slider', '#causal', 'input[name="model"][value="transformer"]'];

// Whether a verdict ("True"/"False" with its sign) is fully inside the window and not covered.
const verdictInView = (page) => page.evaluate(() => {
  const seen = (node) => {
    if (!node || node.closest('[hidden]') || getComputedStyle(node).visibility !== 'visible') return false;
    const r = node.getBoundingClientRect();
    if (r.height === 0 || r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return Boolean(hit && (node === hit || node.contains(hit)));
  };
  return seen(document.querySelector('#card-word .card-verdict .text')) || seen(document.querySelector('#rb-word .rb-verdict .text'));
});
const inView = (page, selector) => page.$eval(selector, (n) => {
  const r = n.getBoundingClientRect();
  return r.bottom > 0 && r.top < innerHeight;
});

for (const [width, height] of [[1280, 900], [375, 800]]) {
  test(`at ${width}x${height} every model control has a verdict in view`, async () => {
    const page = await site.browser.newPage({ viewport: { width, height } });
    await page.goto(`${site.origin}/#pos=1`);
    await page.waitForSelector('html[data-ready="true"]');
    assert.ok(await verdictInView(page), 'the first screen shows a verdict');
    for (const selector of CONTROLS) {
      const control = page.locator(selector);
      await control.scrollIntoViewIfNeeded();
      await page.waitForTimeout(150); // the bar's observer reports after a frame
      assert.ok(await inView(page, selector), `${selector} in view`);
      assert.ok(await verdictInView(page), `a verdict in view beside ${selector}`);
    }
    // and it says the live verdict: the bar follows the cards
    await page.locator('#causal').scrollIntoViewIfNeeded();
    await page.locator('#causal').check();
    await page.waitForTimeout(150);
    const bar = await page.$eval('#rb-word', (n) => n.textContent.replace(/\s+/g, ' ').trim());
    const card = await page.$eval('#card-word .card-verdict .text', (n) => n.textContent);
    assert.match(bar, new RegExp(`^“man” ≠ ${card} cosine distance \\d`));
    await page.close();
  });
}

test('at 1280x900 the controls that change the model are one block: all five on one screen, with a verdict', async () => {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${site.origin}/#pos=1`);
  await page.waitForSelector('html[data-ready="true"]');
  await page.locator('#model-block').scrollIntoViewIfNeeded();
  await page.waitForTimeout(150);
  for (const selector of CONTROLS) assert.ok(await inView(page, selector), `${selector} in view with the others`);
  assert.ok(await verdictInView(page), 'a verdict in view beside the block');
  const { top, bottom } = await page.$eval('#model-block', (n) => n.getBoundingClientRect());
  assert.ok(bottom - top < 520, `the block is ${Math.round(bottom - top)} px tall`);
  await page.close();
});

test('at 1280x900 a tour step opens on the first screen, above the controls it talks about', async () => {
  const page = await site.browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${site.origin}/#tour=1`);
  await page.waitForSelector('.tour-choice');
  const [tour, block] = await Promise.all(['#tour', '#model-block'].map((s) => page.$eval(s, (n) => n.getBoundingClientRect().toJSON())));
  assert.ok(tour.bottom <= 900, `the step ends at ${Math.round(tour.bottom)} px`);
  assert.ok(tour.bottom <= block.top, 'the step comes before the controls');
  await page.close();
});

// On a phone: the sentences, the two switches and the model (what the
// lesson in three switches and exercise 2 turn), then the verdicts and a
// trained model's lesson and tokens; the chart right under the magnitude.
test('on a phone the switches and the model come before the verdicts, a trained model\'s lesson and tokens after them', async () => {
  const page = await site.browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.goto(`${site.origin}/#model=gpt`);
  await page.waitForSelector('#lesson');
  const order = ['#sentences', '[data-group="positions"]', '[data-group="causal"]', '[data-group="model"]', '#verdicts', '#lesson',
    '#checkpoint', '[data-group="magnitude"]', '#plot', '#export', '[data-group="advanced"]'];
  const tops = await page.evaluate((order) => order.map((s) => document.querySelector(s).getBoundingClientRect().top), order);
  assert.deepEqual([...tops].sort((x, y) => x - y), tops, `tops ${tops.map(Math.round)}`);
  const gap = await page.evaluate(() => document.querySelector('#plot').getBoundingClientRect().top -
    document.querySelector('[data-group="magnitude"]').getBoundingClientRect().bottom);
  assert.ok(gap >= 0 && gap < 40, `the chart starts ${Math.round(gap)} px under the magnitude`);
  // The lesson's table: each switch a small card inside the column, every
  // figure with its column's name, the table's structure still read out.
  await page.waitForSelector('#lesson tbody tr td');
  const lesson = await page.evaluate(() => {
    const section = document.querySelector('#lesson');
    const cells = [...section.querySelectorAll('tbody td')];
    const right = section.getBoundingClientRect().right;
    return {
      scrolls: section.scrollWidth - section.clientWidth,
      outside: cells.filter((td) => td.getBoundingClientRect().right > right + 0.5).length,
      labels: cells.map((td) => getComputedStyle(td, '::before').content),
      headerShown: section.querySelector('thead').getBoundingClientRect().height > 1,
    };
  });
  assert.equal(lesson.scrolls, 0, 'the lesson does not scroll sideways');
  assert.equal(lesson.outside, 0, 'no figure is cut off at the right');
  assert.deepEqual(lesson.labels.slice(0, 4), ['"tokens True: "', '"cosine similarity of the means: "', '"next token after A: "', '"next token after B: "']);
  assert.equal(lesson.headerShown, false);
  const snapshot = await page.locator('#lesson table').ariaSnapshot();
  // (the lab's own pair asks the model nothing: what it says next is no answer)
  assert.match(snapshot, /columnheader "next token after B"/);
  assert.match(snapshot, /rowheader "positions and mask off"/);
  await page.close();
});

test('a tour step that points at the chart brings it into view once answered', async () => {
  const page = await site.browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.goto(`${site.origin}/#tour=3`);
  await page.waitForSelector('.tour-choice');
  await page.locator('.tour-choice').first().click();
  await page.waitForTimeout(300);
  assert.ok(await inView(page, '#chart'), 'the chart is in view');
  await page.close();
});

// The tour's panel stands under the controls on a phone, some 1,400 px
// down; its button is near the top. Started from there, the step is
// scrolled into view, its heading focused.
test('on a phone the tour\'s first step opens in view', async () => {
  const page = await site.browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.goto(`${site.origin}/`);
  await settled(page);
  for (let k = 0; k < 3; k++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tour-start');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.tour-choice');
  await page.waitForTimeout(300);
  const title = await page.$eval('#tour-title', (n) => ({ ...n.getBoundingClientRect().toJSON(), focused: n === document.activeElement, y: scrollY }));
  assert.ok(title.focused, 'the step\'s heading has focus');
  assert.ok(title.y > 1000, `the page scrolled down to the panel (${title.y} px)`);
  assert.ok(title.top >= 0 && title.bottom <= 800, `the heading is in the window: ${Math.round(title.top)}..${Math.round(title.bottom)} px`);
  await page.close();
});

test('an answered step out of sight leaves a strip with the tour\'s place: back to the step, or on to the next', async () => {
  for (const [width, height] of [[1280, 900], [375, 800]]) {
    const page = await site.browser.newPage({ viewport: { width, height } });
    await page.goto(`${site.origin}/#tour=12`);
    await page.waitForSelector('.tour-choice');
    await settled(page);
    assert.equal(await page.isVisible('.tour-strip'), false, 'no strip before the answer');
    await page.focus('.tour-choice'); // answered from the keyboard
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('tour').getBoundingClientRect().bottom < 0);
    await page.waitForSelector('.tour-strip', { state: 'visible' });
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(() => document.activeElement.className), 'tour-next tour-strip-next',
      'focus follows into the strip, not left on the choice out of sight');
    const strip = await page.$eval('.tour-strip', (n) => ({ ...n.getBoundingClientRect().toJSON(), text: n.textContent }));
    assert.equal(strip.top, 0);
    assert.ok(strip.height < 60, `one line at ${width} px: ${strip.height} px`);
    assert.match(strip.text, /^Step 12 of 1[78]Back to the stepNext$/);
    await page.click('.tour-strip-back');
    await page.waitForFunction(() => Math.abs(document.getElementById('tour').getBoundingClientRect().top) < 2);
    await page.waitForSelector('.tour-strip', { state: 'hidden' });
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForSelector('.tour-strip', { state: 'visible' });
    await page.click('.tour-strip-next');
    await page.waitForFunction(() => /step 13 of/.test(document.querySelector('.tour-count').textContent));
    await page.waitForFunction(() => Math.abs(document.getElementById('tour').getBoundingClientRect().top) < 2);
    await page.waitForSelector('.tour-strip', { state: 'hidden' });
    await page.close();
  }
});

test('on a phone: the heatmap says it scrolls, the block chart\'s labels are 11 px or more; Guided tour is the third Tab stop', async () => {
  const page = await site.browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.goto(`${site.origin}/#a=the+cat+chased+the+mouse&b=the+mouse+chased+the+cat&pos=1`);
  await page.waitForSelector('html[data-ready="true"]');
  for (let k = 0; k < 3; k++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tour-start');
  await page.click('#heatmap summary');
  await page.waitForSelector('#heat-a td');
  await page.waitForTimeout(200);
  const hint = await page.$eval('#heat-a caption', (c) => [c.parentElement.parentElement.className, getComputedStyle(c, '::after').content]);
  assert.match(hint[0], /scrolls/);
  assert.match(hint[1], /scroll sideways/);
  await page.check('input[name="model"][value="transformer"]');
  await page.waitForSelector('.bl-tick');
  await page.waitForTimeout(300);
  const sizes = await page.$$eval('.bl-tick, .bl-axis', (ticks) => ticks.map((t) => t.getBoundingClientRect().height));
  assert.ok(sizes.length > 5 && Math.min(...sizes) >= 11, `tick labels ${Math.min(...sizes)} px high`);
  // the y labels in the magnitude chart's notation (10⁻⁴, not 1e-4), the top one not cut by the chart's edge
  const ys = await page.$$eval('.bl-tick[text-anchor="end"]', (ticks) => ticks.map((t) => {
    const box = t.getBoundingClientRect(), frame = t.ownerSVGElement.getBoundingClientRect();
    return { text: t.textContent, inside: box.top >= frame.top && box.bottom <= frame.bottom };
  }));
  assert.deepEqual(ys.map((t) => t.text), ['10⁻¹⁶', '10⁻¹²', '10⁻⁸', '10⁻⁴', '1']);
  assert.ok(ys.every((t) => t.inside), JSON.stringify(ys));
  await page.close();
});

// Layout shifts as the page starts (what Lighthouse's CLS sums): the message
// "Loading the lab…" used to stand above the lab and push it down until the
// script hid it, and the script then filled in the scheme and model choices
// and moved the model's controls; everything painted below moved each time.
// At a phone's size with the CPU slowed (Lighthouse's mobile run) and at
// two desktop sizes: nothing moves, up to the chart drawn and a second after.
for (const [width, height, rate] of [[412, 823, 4], [1280, 900, 1], [1024, 768, 1]]) {
  test(`at ${width}x${height}${rate > 1 ? `, CPU ${rate}x slower,` : ''} nothing moves while the page starts`, async () => {
    const context = await site.browser.newContext({ viewport: { width, height } });
    await context.addInitScript(() => {
      window.shifts = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          window.shifts.push({ value: e.value, at: Math.round(e.startTime),
            moved: (e.sources ?? []).map((s) => s.node?.id || s.node?.className || s.node?.nodeName || '?') });
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    const page = await context.newPage();
    if (rate > 1) await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate });
    await page.goto(`${site.origin}/`);
    await settled(page);
    await page.waitForTimeout(1000);
    const shifts = await page.evaluate(() => window.shifts);
    const total = shifts.reduce((sum, s) => sum + s.value, 0);
    assert.equal(total, 0, `layout shifts: ${JSON.stringify(shifts)}`);
    // and the lab is there once started, its message gone
    assert.equal(await page.$eval('#lab', (n) => getComputedStyle(n).visibility), 'visible');
    assert.equal(await page.isVisible('#startup'), false);
    for (const id of ['reset', 'embed-open']) assert.equal(await page.isVisible(`#${id}`), true, `#${id} is offered`);
    await context.close();
  });
}

// The result bar is fixed to the window's foot; at 375 px its text takes
// three lines. A field reached with Tab is scrolled into view above it, not
// under it (the page's scroll padding follows the bar's height).
// The bar stays shown at the page's foot (the cards are far above): the
// footer keeps room for it below its last line, which the bar covered for
// good (1280: the footer's text at 845-867 px, the bar from 837).
test('scrolled to the end, the footer\'s last line is above the result bar, at 1280 and 375 px', async () => {
  for (const [width, height] of [[1280, 900], [375, 800]]) {
    const page = await site.browser.newPage({ viewport: { width, height } });
    await page.goto(`${site.origin}/#pos=1`);
    await settled(page);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForTimeout(300); // (the bar shows once the cards leave the window)
    const at = await page.evaluate(() => {
      window.scrollTo(0, document.documentElement.scrollHeight);
      const bar = document.getElementById('result-bar');
      const range = document.createRange();
      range.selectNodeContents(document.querySelector('.site-footer'));
      return { shown: bar.classList.contains('shown'), barTop: bar.getBoundingClientRect().top, text: range.getBoundingClientRect().bottom };
    });
    assert.ok(at.shown, `${width}: the bar is shown at the page's end`);
    assert.ok(at.text <= at.barTop, `${width}: the footer's text ends at ${Math.round(at.text)} px, the bar starts at ${Math.round(at.barTop)} px`);
    await page.close();
  }
});

// The magnitude's labels over the slider stand over the thumb at their
// values: spread out by space-between, the thumb at 10⁻³ was 13 px left of
// its label (the thumb travels the slider's width less its own). Read from
// the pixels: the thumb is the narrowest run of coloured pixels in any row.
test('the magnitude slider\'s labels stand over the thumb at their values, at 1280 and 375 px', async () => {
  const values = [-9, -6, -3, 0, 3];
  for (const width of [1280, 375]) {
    const page = await site.browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(`${site.origin}/#pos=1`);
    await settled(page);
    await page.locator('#scale-slider').scrollIntoViewIfNeeded();
    for (const [k, v] of values.entries()) {
      await page.evaluate((v) => {
        const s = document.getElementById('scale-slider');
        s.value = String(v);
        s.dispatchEvent(new Event('input', { bubbles: true }));
      }, v);
      await page.waitForTimeout(50);
      const box = await page.locator('#scale-slider').boundingBox();
      const png = await page.screenshot({ clip: box });
      const thumb = await page.evaluate(async ({ b64, w }) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const c = Object.assign(document.createElement('canvas'), { width: img.width, height: img.height });
        const ctx = c.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const data = ctx.getImageData(0, 0, c.width, c.height).data;
        const scale = c.width / w;
        let best = null;
        for (let y = 0; y < c.height; y++) {
          const xs = [];
          for (let x = 0; x < c.width; x++) {
            const i = (y * c.width + x) * 4;
            if (Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 60) xs.push(x);
          }
          if (xs.length > 3 * scale && (!best || xs.length < best.n)) best = { n: xs.length, mid: (xs[0] + xs.at(-1)) / 2 / scale };
        }
        return best?.mid;
      }, { b64: png.toString('base64'), w: box.width });
      const label = await page.evaluate((k) => {
        const range = document.createRange();
        range.selectNodeContents(document.querySelectorAll('.slider-ticks span')[k]); // (the text, not its box)
        const r = range.getBoundingClientRect();
        return r.left + r.width / 2;
      }, k);
      assert.ok(Math.abs(box.x + thumb - label) <= 2, `${width} px, ${v}: thumb at ${(box.x + thumb).toFixed(1)}, label at ${label.toFixed(1)}`);
    }
    await page.close();
  }
});

test('on a phone a field reached with Tab is not under the result bar', async () => {
  const page = await site.browser.newPage({ viewport: { width: 375, height: 740 } });
  await page.goto(`${site.origin}/#model=transformer`);
  await settled(page);
  for (const id of ['sentence-a', 'sentence-b', 'offset-b']) {
    for (let k = 0; k < 30 && await page.evaluate(() => document.activeElement.id) !== id; k++) await page.keyboard.press('Tab');
    await page.waitForTimeout(300); // (the bar shows once the cards leave the window)
    const at = await page.evaluate((id) => {
      const field = document.getElementById(id).getBoundingClientRect();
      const bar = document.getElementById('result-bar');
      return { focused: document.activeElement.id, bottom: field.bottom, barTop: bar.classList.contains('shown') ? bar.getBoundingClientRect().top : innerHeight };
    }, id);
    assert.equal(at.focused, id);
    assert.ok(at.bottom <= at.barTop, `#${id} ends at ${Math.round(at.bottom)} px, the bar starts at ${Math.round(at.barTop)} px`);
  }
  await page.close();
});

test('without JavaScript the page says it needs it, and shows no controls that cannot work', async () => {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${site.origin}/`);
  assert.equal((await page.textContent('.startup.failed')).trim(), 'poslab runs in your browser and needs JavaScript.');
  assert.equal(await page.isVisible('.startup.failed'), true);
  assert.equal(await page.isVisible('#startup'), false, 'no "Loading the lab…" beside it');
  assert.equal(await page.$eval('#lab', (n) => getComputedStyle(n).visibility), 'hidden');
  for (const id of ['reset', 'embed-open']) assert.equal(await page.isVisible(`#${id}`), false, `#${id} is not offered`);
  await context.close();
});

// The threshold lines' labels are drawn on a box of the chart's background;
// none may cover a curve or the marker. At 375 px the whole labels ("“man” ≈
// 4.8e-07") reached across both curves and the marker at magnitude 1.
const labelsOverCurves = (page) => page.evaluate(() => {
  const chart = window.Chart.getChart(document.querySelector('#chart'));
  const boxes = chart.config.plugins.find((p) => p.id === 'poslabShade').labelBoxes ?? [];
  const { x, y } = chart.scales;
  const hits = [];
  for (const set of chart.data.datasets) {
    const points = set.data.filter((p) => p.y !== null && p.y !== undefined);
    for (let k = 0; k < points.length; k++) {
      // each point and the midpoints of its segment: a steep segment crosses between points
      const at = [[points[k].x, points[k].y]];
      if (k + 1 < points.length) at.push([Math.sqrt(points[k].x * points[k + 1].x), Math.sqrt(points[k].y * points[k + 1].y)]);
      for (const [vx, vy] of at) {
        const px = x.getPixelForValue(vx), py = y.getPixelForValue(vy);
        for (const b of boxes) if (px > b.left && px < b.right && py > b.top && py < b.bottom) hits.push(`${b.label} over ${set.label} at ${vx.toExponential(1)}`);
      }
    }
  }
  // nor another threshold's dashed line (at 375 px the mean's ran through "≈" of "≈ 9.1e-08")
  const shade = chart.config.plugins.find((p) => p.id === 'poslabShade');
  const lines = boxes.map((b) => b.line);
  boxes.forEach((b) => lines.forEach((lx) => { if (lx !== b.line && lx > b.left && lx < b.right) hits.push(`${b.label} over the line at ${Math.round(lx)} px`); }));
  return { labels: boxes.map((b) => b.label), hits: [...new Set(hits)], shade: Boolean(shade) };
});

test('on a phone the threshold labels cover no curve and no other threshold\'s line', async () => {
  for (const [width, hash] of [[375, '#pos=1'], [375, '#pos=1&scheme=sinusoidal&scale=1'], [1280, '#pos=1&scheme=sinusoidal&scale=1']]) {
    const page = await site.browser.newPage({ viewport: { width, height: 800 } });
    await page.goto(`${site.origin}/${hash}`);
    await page.waitForSelector('html[data-ready="true"]');
    await page.waitForFunction(() => window.Chart?.getChart(document.querySelector('#chart'))?.data.datasets[1].data.length >= 100);
    await settled(page);
    const { labels, hits } = await labelsOverCurves(page);
    assert.equal(labels.length, 2, `${width} ${hash}: two threshold labels drawn`);
    if (width === 375) assert.ok(labels.every((l) => l.startsWith('≈ ')), `${hash}: short labels on a phone: ${labels}`);
    else assert.ok(labels[0].startsWith('“man” ≈ '), labels[0]);
    assert.deepEqual(hits, [], `${width} ${hash}`);
    await page.close();
  }
});

// The current magnitude's dotted line leaves the rounding band's label
// whole (at 375 px the marker at 0.5 ran between "rounding" and "level"):
// the canvas's pixels in the label's rows at the marker's x are the same
// with the marker there and with it moved away, while above the label they
// are not (the marker is drawn there).
test('on a phone the current magnitude\'s line does not cross the words "rounding level"', async () => {
  const page = await site.browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.goto(`${site.origin}/#pos=1`);
  await page.waitForSelector('html[data-ready="true"]');
  await settled(page);
  const column = () => page.evaluate(() => {
    const chart = window.Chart.getChart(document.querySelector('#chart'));
    const ratio = chart.canvas.width / chart.width;
    const x = Math.round(chart.scales.x.getPixelForValue(0.5) * ratio);
    const band = Math.round(chart.scales.y.getPixelForValue(1e-15) * ratio);
    // (the chart's own font: plot.js takes its size from --plot-font, its family from the figure)
    const figure = document.querySelector('#plot');
    const font = Number(getComputedStyle(figure).getPropertyValue('--plot-font')) || 13;
    const rows = (from, to) => [...chart.canvas.getContext('2d').getImageData(x - 1, from, 3, to - from).data].join();
    // the label's rows (its text stands on the band's top edge), and rows well above it
    return { label: rows(band - Math.round((font + 2) * ratio), band - Math.round(2 * ratio)), above: rows(band - Math.round(60 * ratio), band - Math.round(40 * ratio)),
      inLabel: (() => { const ctx = chart.canvas.getContext('2d'); ctx.save(); ctx.font = `${font}px ${getComputedStyle(figure).fontFamily}`;
        const w = ctx.measureText('rounding level').width; ctx.restore(); return x / ratio > chart.chartArea.right - 6 - w; })() };
  });
  const at = await column();
  assert.ok(at.inLabel, 'at 375 px the marker at 0.5 stands under the label (else this test shows nothing)');
  await page.fill('#scale-text', '1e-6');
  await settled(page);
  const away = await column();
  assert.notEqual(at.above, away.above, 'the marker is drawn above the label');
  assert.equal(at.label, away.label, 'the marker is not drawn through the label');
  await page.close();
});

// On a phone the panels are moved into the order they are seen in (not
// styled into it), so Tab goes down the page: each stop at or below the
// one before (a row's controls share a top). Widened to two columns the
// model's controls are one block again, and narrowed back, the order holds.
const tabStopsDown = async (page, stops) => {
  await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  const seen = [];
  for (let k = 0; k < stops; k++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const el = document.activeElement;
      if (el === document.body) return null; // past the last stop
      return { id: el.id || el.name || el.className || el.tagName, y: Math.round(el.getBoundingClientRect().top + scrollY) };
    });
    if (!at) break;
    seen.push(at);
  }
  const back = seen.filter((s, i) => i > 0 && s.y < seen[i - 1].y - 8);
  assert.deepEqual(back, [], `Tab went up the page: ${seen.map((s) => `${s.id}@${s.y}`).join(' ')}`);
  return seen;
};
test('on a phone Tab goes down the page as the panels are seen, for the head and a trained model; widening and narrowing keeps it', async () => {
  const page = await site.browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.goto(`${site.origin}/`);
  await settled(page);
  const stops = await tabStopsDown(page, 40);
  const ids = stops.map((s) => s.id);
  for (const id of ['sentence-a', 'positions', 'causal', 'plot-word', 'scale-slider'])
    assert.ok(ids.includes(id), `Tab reaches #${id}: ${ids.join(' ')}`);
  assert.ok(ids.indexOf('causal') < ids.indexOf('scale-slider'), 'the mask before the magnitude, as on the screen');
  await page.setViewportSize({ width: 1280, height: 900 });
  const block = () => page.evaluate(() => ({
    block: [...document.getElementById('model-block').children].map((e) => e.dataset.group),
    controls: [...document.querySelector('.controls').children].map((e) => e.dataset.group ?? e.className),
  }));
  assert.deepEqual(await block(), { block: ['positions', 'scheme', 'magnitude', 'causal', 'model'], controls: ['words', 'advanced'] });
  await page.setViewportSize({ width: 375, height: 800 });
  await tabStopsDown(page, 40);
  await page.goto(`${site.origin}/#model=gpt`);
  await page.waitForSelector('#lesson:not([hidden])');
  await settled(page);
  await tabStopsDown(page, 60);
  await page.close();
});
