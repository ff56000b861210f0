// The page in headless Chromium (Debian's chromium driven by playwright-core):
// it serves build/site itself, reads the numbers the page shows, and fails on
// any console error, uncaught exception, alert() or request to another host.
// Screenshots go to tests/artifacts/. Run `make site` first (make test does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';

import { ROOT, ARTIFACTS, settled, openPage, chartGeometry, useSite } from './harness.mjs';

const { sig } = await import(`${ROOT}web/app/format.js`); // how the page writes numbers

const site = useSite({ context: {} });

const open = (url, options) => openPage(site.context, site.origin, url, options);

// Waits until the chart shows the current state (its sweep is computed just
// after the verdicts are painted).

// What the verdict table shows: one entry per row, the mean last.
function table(page) {
  return page.$$eval('#verdict-rows tr', (rows) => rows.map((r) => ({
    word: r.querySelector('.w').textContent,
    where: r.querySelector('.where').textContent,
    allclose: r.querySelector('.verdict .text').textContent,
    maxDiff: r.querySelector('.maxdiff .num').textContent,
    cosine: r.querySelector('.cosine .num').textContent,
  })));
}

async function rowOf(page, word) {
  const rows = await table(page);
  const row = rows.find((r) => r.word === word);
  assert.ok(row, `no row for ${word} in ${JSON.stringify(rows)}`);
  return row;
}

const card = (page, id) => page.$eval(`#${id}`, (c) => ({
  word: c.querySelector('.card-word').textContent,
  verdict: c.querySelector('.card-verdict .text').textContent,
  icon: c.querySelector('.card-verdict .icon').textContent,
  text: c.querySelector('.card-text').textContent,
  meaning: c.querySelector('.card-meaning').textContent,
}));

// What the chart shows: its data table, legend, caption, name, and pixels.
const chartSeen = (page) => page.evaluate(() => ({
  head: [...document.querySelectorAll('#chart-data thead th')].map((th) => th.textContent),
  rows: [...document.querySelectorAll('#chart-data tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
  legend: [...document.querySelectorAll('.chart-legend li')].map((li) => (li.hidden ? '' : li.textContent)),
  caption: document.querySelector('.chart-caption').textContent,
  label: document.getElementById('chart').getAttribute('aria-label'),
  pixels: document.getElementById('chart').toDataURL(),
}));

async function type(page, selector, text) {
  await page.fill(selector, text);
  await settled(page);
}

async function switchOn(page, id) {
  await page.check(`#${id}`);
  await settled(page);
}

test('opens with positions off, and "man" is the same vector in both sentences', async () => {
  const { page, done } = await open('/');
  assert.equal(await page.inputValue('#sentence-a'), 'dog bites man');
  assert.equal(await page.inputValue('#sentence-b'), 'man bites dog');
  assert.equal(await page.isChecked('#positions'), false);
  assert.equal(await page.isChecked('#causal'), false);
  assert.equal(await page.textContent('#positions-state'), 'off');
  const man = await rowOf(page, 'man');
  assert.equal(man.allclose, 'True');
  assert.equal(man.where, 'out_a[2] vs out_b[0]');
  const rows = await table(page);
  assert.deepEqual(rows.map((r) => r.allclose), ['True', 'True', 'True', 'True']);
  assert.equal(rows.at(-1).word, 'sentence mean');
  const c = await card(page, 'card-word');
  assert.deepEqual([c.word, c.verdict, c.icon], ['“man”', 'True', '=']);
  // what the verdict says about word order, in words
  assert.equal(c.meaning, 'Same vector in both sentences: attention cannot tell the two orders apart.');
  assert.equal((await card(page, 'card-mean')).meaning, 'Same average in both sentences: attention cannot tell the two orders apart.');
  // The verdicts are announced politely; the chart explains why it is flat.
  assert.equal(await page.getAttribute('#verdict-status', 'aria-live'), 'polite');
  assert.ok(await page.isVisible('.chart-overlay'));
  assert.match(await page.textContent('.chart-overlay'), /Positional information is off: every magnitude gives identical outputs, so the lines lie flat at rounding level/);
  const meanCurve = () => page.evaluate(() => window.Chart.getChart(document.querySelector('#plot canvas')).data.datasets[1].data.map((p) => p.value));
  assert.ok((await meanCurve()).every((v) => Math.abs(v) < 1e-12), 'the mean\'s curve lies at rounding level');
  // No inline script or style: the CSP meta tag is there and nothing broke it.
  assert.match(await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content'), /script-src 'self' 'wasm-unsafe-eval'/);
  const html = await (await fetch(`${site.origin}/index.html`)).text();
  assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
  await page.screenshot({ path: path.join(ARTIFACTS, 'desktop-light.png'), fullPage: true });
  // A causal mask lets order in even without positions.
  await switchOn(page, 'causal');
  assert.equal((await rowOf(page, 'man')).allclose, 'False');
  assert.match(await page.innerText('#causal-hint'), /GPT-style decoders can partly work out positions/);
  assert.match(await page.textContent('.chart-overlay'), /causal mask already makes the outputs differ/);
  // Other words in B: flat too, but far from rounding level, and the chart says why.
  await page.uncheck('#causal');
  await page.fill('#sentence-b', 'man bites cat');
  await settled(page);
  const other = await meanCurve();
  assert.ok(other.length > 100 && other.every((v) => v === other[0] && v > 1e-3), `flat and high: ${other[0]}`);
  assert.match(await page.textContent('.chart-overlay'), /They sit high because sentence B is not a reordering of sentence A/);
  await done();
});

test('positions on gives the module\'s False figures for "man" and the mean', async () => {
  const { page, done } = await open('/');
  await switchOn(page, 'positions');
  assert.equal(await page.textContent('#positions-state'), 'on');
  assert.equal(await page.isChecked('input[name="scheme"][value="random"]'), true);
  assert.equal(await page.inputValue('#scale-text'), '0.5');
  const man = await rowOf(page, 'man');
  assert.deepEqual([man.allclose, man.maxDiff, man.cosine], ['False', '12.54', '0.9416']);
  const rows = await table(page);
  assert.deepEqual([rows.at(-1).allclose, rows.at(-1).cosine], ['False', '0.5351']);
  const c = await card(page, 'card-word');
  assert.deepEqual([c.verdict, c.icon], ['False', '≠']);
  assert.equal(c.meaning, 'Different vectors: the order reached the output.');
  // colours that say neither right nor wrong: no green, no red
  const colours = await page.$$eval('.card-verdict', (v) => v.map((n) => getComputedStyle(n).color));
  for (const colour of colours) {
    const [r, g, b] = colour.match(/\d+/g).map(Number);
    assert.ok(!(g > r + 40 && g > b + 40) && !(r > g + 80 && r > b + 80), `a verdict in ${colour}`);
  }
  assert.match(c.text, /12\.54/);
  assert.equal((await card(page, 'card-mean')).verdict, 'False');
  assert.ok(await page.isHidden('.chart-overlay'));
  assert.match(page.url(), /[#&]pos=1(&|$)/);
  assert.match(await page.textContent('.chart-caption'), /np\.allclose says True for “man” only below a magnitude of about/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'positions-on.png'), fullPage: true });
  await done();
});

test('exercise 3: magnitude 0.001 is still False, yet very close', async () => {
  const { page, done } = await open('/');
  await switchOn(page, 'positions');
  await type(page, '#scale-text', '0.001');
  let man = await rowOf(page, 'man');
  assert.deepEqual([man.allclose, man.cosine], ['False', '3.235e-05']);
  assert.equal(Number(await page.inputValue('#scale-slider')), -3);
  assert.equal(await page.getAttribute('#scale-slider', 'aria-valuetext'), '0.001');
  await type(page, '#scale-text', '1e-3'); // the same number, written as a power of ten
  man = await rowOf(page, 'man');
  assert.deepEqual([man.allclose, man.cosine], ['False', '3.235e-05']);
  assert.match(page.url(), /[#&]scale=0\.001(&|$)/);
  // Far below the threshold np.allclose gives up and says True.
  await type(page, '#scale-text', '1e-9');
  assert.equal((await rowOf(page, 'man')).allclose, 'True');
  // Switching the scheme keeps the magnitude the student typed (the faint-signal exercise across schemes).
  await type(page, '#scale-text', '0.001');
  await page.check('input[name="scheme"][value="rope"]');
  await settled(page);
  assert.equal(await page.inputValue('#scale-text'), '0.001');
  // Start over: the default applies again until a magnitude is chosen.
  await page.click('#reset');
  await switchOn(page, 'positions');
  await page.check('input[name="scheme"][value="rope"]');
  await settled(page);
  assert.equal(await page.inputValue('#scale-text'), '1');
  assert.equal((await rowOf(page, 'man')).allclose, 'False');
  await done();
});

test('Back after Start over brings the settings back', async () => {
  const { page, done } = await open('/#a=alice+paid+bob&b=bob+paid+alice&pos=1&scheme=sinusoidal&scale=0.01&dim=8&heads=2');
  const before = await table(page);
  await page.click('#reset');
  await settled(page);
  assert.equal(await page.inputValue('#sentence-a'), 'dog bites man');
  await page.waitForFunction(() => !document.documentElement.dataset.hash);
  await page.goBack();
  await page.waitForFunction(() => document.getElementById('sentence-a').value === 'alice paid bob');
  await settled(page);
  assert.equal(await page.inputValue('#scale-text'), '0.01');
  assert.ok(await page.isChecked('input[name="scheme"][value="sinusoidal"]'));
  assert.deepEqual(await table(page), before);
  assert.match(page.url(), /scheme=sinusoidal/);
  // and Forward is the fresh start again
  await page.goForward();
  await page.waitForFunction(() => document.getElementById('sentence-a').value === 'dog bites man');
  await done();
});

test('another same-words pair is True again with positions off', async () => {
  const { page, done } = await open('/');
  await type(page, '#sentence-a', 'alice paid bob');
  await type(page, '#sentence-b', 'bob paid alice');
  const rows = await table(page);
  assert.deepEqual(rows.map((r) => r.word), ['alice', 'paid', 'bob', 'sentence mean']);
  assert.deepEqual(rows.map((r) => r.allclose), ['True', 'True', 'True', 'True']);
  assert.deepEqual(await page.$$eval('#plot-word option', (o) => o.map((x) => x.textContent)),
    ['1. alice', '2. paid', '3. bob']);
  assert.equal((await card(page, 'card-word')).word, '“bob”');
  // Positions on breaks it, off restores it.
  await switchOn(page, 'positions');
  assert.equal((await rowOf(page, 'bob')).allclose, 'False');
  await page.uncheck('#positions');
  await settled(page);
  assert.equal((await rowOf(page, 'bob')).allclose, 'True');
  // Reverse, shuffle and the examples keep the same words, so still True.
  await page.click('#reverse-b');
  assert.equal(await page.inputValue('#sentence-b'), 'alice paid bob');
  await page.click('#shuffle-b');
  assert.deepEqual((await page.inputValue('#sentence-b')).split(' ').sort(), ['alice', 'bob', 'paid']);
  await page.selectOption('#presets', { label: 'the cat chased the mouse / the mouse chased the cat' });
  await settled(page);
  assert.equal(await page.inputValue('#sentence-a'), 'the cat chased the mouse');
  assert.ok((await table(page)).every((r) => r.allclose === 'True'));
  // Emoji and other Unicode are words like any other.
  await type(page, '#sentence-a', '🐶 bites 男の人');
  await type(page, '#sentence-b', '男の人 bites 🐶');
  assert.equal((await rowOf(page, '🐶')).allclose, 'True');
  // A pair that is not a reordering says so.
  await type(page, '#sentence-b', '男の人 bites cat');
  assert.match(await page.textContent('#notes'), /not a reordering/);
  assert.match(await page.textContent('#notes'), /No partner in B: “🐶”/);
  assert.match(await page.textContent('#notes'), /No partner in A: “cat”/);
  assert.equal((await rowOf(page, '🐶')).allclose, 'n/a');
  // A word A has more often than B: the note says so, not that B lacks it.
  await type(page, '#sentence-a', 'dog dog bites');
  await type(page, '#sentence-b', 'bites dog');
  assert.equal(await page.textContent('#notes'),
    'Sentence B is not a reordering of sentence A, so only the words they share are compared.No partner in B: “dog” (A has it twice, B once).');
  await type(page, '#sentence-a', '🐶 bites 男の人');
  await type(page, '#sentence-b', '男の人 bites cat');
  // The word menu follows sentence A as it grows and shrinks.
  const options = () => page.$$eval('#plot-word option', (o) => o.map((x) => `${x.value}:${x.textContent}`));
  assert.deepEqual(await options(), ['0:1. 🐶', '1:2. bites', '2:3. 男の人']);
  // So does the verdict table, leaving the rows it keeps where they are
  // (put back all at once, each was laid out again: 20 ms a keystroke
  // under 2x throttling): what it took out, counted by an observer.
  const watchRows = () => page.evaluate(() => {
    window.rowsOut = [];
    window.rowsObserver?.disconnect();
    window.rowsObserver = new MutationObserver((records) => {
      for (const r of records) window.rowsOut.push(...[...r.removedNodes].map((n) => n.querySelector('.w')?.textContent));
    });
    window.rowsObserver.observe(document.getElementById('verdict-rows'), { childList: true });
  });
  await watchRows();
  await type(page, '#sentence-a', 'a b c d e');
  assert.deepEqual(await options(), ['0:1. a', '1:2. b', '2:3. c', '3:4. d', '4:5. e']);
  assert.deepEqual((await table(page)).map((r) => r.word), ['a', 'b', 'c', 'd', 'e', 'sentence mean']);
  assert.deepEqual(await page.evaluate(() => window.rowsOut), [], 'two rows added, none taken out');
  await watchRows();
  await type(page, '#sentence-a', 'z b');
  assert.deepEqual(await options(), ['0:1. z', '1:2. b']);
  assert.deepEqual((await table(page)).map((r) => r.word), ['z', 'b', 'sentence mean']);
  assert.deepEqual(await page.evaluate(() => window.rowsOut), ['e', 'd', 'c'], 'only the three rows no longer wanted taken out');
  assert.equal(await page.inputValue('#plot-word'), '1');
  await done();
});

test('the URL reopens exactly the same view', async () => {
  const first = await open('/');
  const { page } = first;
  await page.selectOption('#presets', { label: 'the cat chased the mouse / the mouse chased the cat' });
  await switchOn(page, 'positions');
  await page.check('input[name="scheme"][value="sinusoidal"]');
  await type(page, '#scale-text', '0.02');
  await switchOn(page, 'causal');
  await page.click('details.advanced summary');
  await type(page, '#dim', '8');
  await type(page, '#seed', '7');
  await page.selectOption('#plot-word', '1');
  await settled(page);
  const read = async (p) => ({
    a: await p.inputValue('#sentence-a'),
    b: await p.inputValue('#sentence-b'),
    positions: await p.isChecked('#positions'),
    scheme: await p.$eval('input[name="scheme"]:checked', (r) => r.value),
    scale: await p.inputValue('#scale-text'),
    causal: await p.isChecked('#causal'),
    dim: await p.inputValue('#dim'),
    seed: await p.inputValue('#seed'),
    word: await p.inputValue('#plot-word'),
    rows: await table(p),
    card: await card(p, 'card-word'),
    chart: await chartSeen(p),
  });
  const before = await read(page);
  assert.equal(before.card.word, '“cat”');
  assert.equal(before.chart.rows.length, 13);
  assert.deepEqual(before.chart.legend, ['“cat”', 'sentence mean', 'current magnitude']);
  assert.equal(before.scale, '0.02');
  const url = page.url();

  // The Embed button gives an iframe snippet for this very state.
  await page.click('#embed-open');
  await page.waitForSelector('#embed-dialog[open]'); // its code loads on the first click
  assert.ok(await page.isVisible('#embed-dialog'));
  assert.equal(await page.getAttribute('#embed-code', 'readonly'), '');
  const hash = new URL(url).hash.replace(/&/g, '&amp;');
  let snippet = await page.inputValue('#embed-code');
  assert.ok(snippet.startsWith(`<iframe src="${site.origin}/?embed=1${hash}" width="100%" height="`), snippet);
  assert.match(snippet, / title="poslab"/);
  await page.check('#embed-hide input[value="plot"]');
  await page.check('#embed-hide input[value="advanced"]');
  snippet = await page.inputValue('#embed-code');
  assert.ok(snippet.startsWith(`<iframe src="${site.origin}/?embed=1&amp;hide=advanced,plot${hash}"`), snippet);
  assert.equal(await page.inputValue('#embed-link'), url);
  await page.click('#embed-close');
  assert.ok(await page.isHidden('#embed-dialog'));
  await first.done();

  const second = await open(url.slice(site.origin.length));
  assert.deepEqual(await read(second.page), before);
  assert.ok(await second.page.isHidden('#notice'));
  await second.done();
});

test('a malicious word is shown as text, never as HTML', async () => {
  const evil = '<img src=x onerror=alert(1)>';
  const { page, done } = await open('/');
  await type(page, '#sentence-a', `${evil} bites man`);
  await type(page, '#sentence-b', `man bites ${evil}`);
  await type(page, '#sentence-a', '<img/src=x/onerror=alert(1)> <b>bold</b> man');
  await type(page, '#sentence-b', 'man <b>bold</b> <img/src=x/onerror=alert(1)>');
  const rows = await table(page);
  assert.deepEqual(rows.map((r) => r.word), ['<img/src=x/onerror=alert(1)>', '<b>bold</b>', 'man', 'sentence mean']);
  assert.ok(rows.every((r) => r.allclose === 'True'));
  await page.selectOption('#plot-word', '0');
  await settled(page);
  assert.equal((await card(page, 'card-word')).word, '“<img/src=x/onerror=alert(1)>”');
  assert.equal(await page.$$eval('img, b, #verdicts [onerror]', (n) => n.length), 0);
  await done();
});

// What the chart shows, read the way a student reads it: its data table
// (the canvas's text alternative), the caption, and the canvas's pixels.
const chartTable = (page) => page.evaluate(() => ({
  head: [...document.querySelectorAll('#chart-data thead th')].map((th) => th.textContent),
  rows: [...document.querySelectorAll('#chart-data tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
}));

// Keeps a copy of the canvas's pixels in the page under `name`.
const keepPixels = (page, name) => page.evaluate((key) => {
  const canvas = document.getElementById('chart');
  (window.pixelCopies ??= {})[key] = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data.slice();
}, name);

// The canvas columns (x in canvas pixels) where the pixels now differ from copy `name`.
const changedColumns = (page, name) => page.evaluate((key) => {
  const canvas = document.getElementById('chart');
  const now = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const was = window.pixelCopies[key];
  const columns = new Set();
  for (let i = 0; i < now.length; i += 4) {
    if (now[i] !== was[i] || now[i + 1] !== was[i + 1] || now[i + 2] !== was[i + 2]) columns.add((i / 4) % canvas.width);
  }
  return [...columns].sort((p, q) => p - q);
}, name);

// The most common colour of canvas column x between the area's top and
// bottom (the fill under any curve or line that crosses it), and the
// colour of the canvas's corner (the chart's background).
const columnColour = (page, x, area) => page.evaluate(({ x, top, bottom }) => {
  const ctx = document.getElementById('chart').getContext('2d');
  const hex = ([r, g, b]) => `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
  const column = ctx.getImageData(x, Math.ceil(top), 1, Math.floor(bottom - top)).data;
  const counts = new Map();
  for (let i = 0; i < column.length; i += 4) {
    const c = hex(column.slice(i, i + 3));
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const [mode] = [...counts].sort((p, q) => q[1] - p[1])[0];
  return { mode, background: hex(ctx.getImageData(1, 1, 1, 1).data) };
}, { x, ...area });

test('the chart follows the slider without recomputing the sweep', async () => {
  const { page, done } = await open('/');
  await switchOn(page, 'positions');
  // The sweep, as the chart's table gives it: 1e-9 to 1e3, "man" and the mean.
  const start = await chartTable(page);
  assert.deepEqual(start.head, ['magnitude', '“man”: cosine distance', '“man”: np.allclose',
    'sentence mean: cosine distance', 'np.allclose']);
  assert.equal(start.rows.length, 13);
  assert.equal(start.rows[0][0], '1e-9');
  assert.equal(start.rows[12][0], '1e3');
  // The sweep agrees with the verdict table at 1e-3 (the module's exercise 3).
  assert.deepEqual(start.rows.find((r) => r[0] === '1e-3'), ['1e-3', '3.235e-05', 'False', '6.805e-05', 'False']);
  assert.match(await page.textContent('.chart-caption'), /only below a magnitude of about 9\.1e-08/);

  // The shaded np.allclose-True region for "man" runs from the left edge to
  // the threshold the caption names: shaded at 3e-9 and 6e-8, not at 1.5e-7,
  // 3e-4 or 30.
  await page.locator('#chart').scrollIntoViewIfNeeded();
  const shadeAt = [3e-9, 6e-8, 1.5e-7, 3e-4, 30];
  const geometry = await chartGeometry(page, shadeAt);
  const colours = [];
  for (const x of geometry.xs) colours.push(await columnColour(page, x, geometry.area));
  const [in1, in2, out1, out2, out3] = colours;
  assert.notEqual(in1.mode, in1.background, 'shaded where np.allclose is True');
  assert.equal(in2.mode, in1.mode, 'the same shade up to the threshold');
  for (const out of [out1, out2, out3]) assert.equal(out.mode, out.background, 'no shade where np.allclose is False');

  // Pointing at the chart draws the readout box at the pointer (its text is
  // the table's row above), and leaving the chart takes all of it away.
  await keepPixels(page, 'before hover');
  const box = await page.locator('#chart').boundingBox();
  const [at1e3] = (await chartGeometry(page, [1e-3])).xs;
  await page.mouse.move(box.x + at1e3 / geometry.ratio + 1, box.y + box.height / 2);
  await page.waitForFunction(() => {
    const canvas = document.getElementById('chart');
    const now = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    return now.some((v, i) => v !== window.pixelCopies['before hover'][i]);
  });
  const hovered = await changedColumns(page, 'before hover');
  assert.ok(hovered.includes(at1e3), 'the readout\'s hairline is at the pointer\'s magnitude');
  await page.mouse.move(box.x - 20, box.y - 20); // off the chart: the readout goes
  await page.waitForFunction(() => {
    const canvas = document.getElementById('chart');
    const now = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    return now.every((v, i) => v === window.pixelCopies['before hover'][i]);
  });

  // Slider steps move the marker line and nothing else: the pixels change
  // only around the old and the new magnitude, the sweep's table keeps its
  // rows (it is rebuilt only for a new sweep).
  // chart.update() is counted through Chart.js itself: what is tested is a
  // cost (a new layout per step), which no pixel shows.
  await page.evaluate(() => {
    const chart = window.Chart.getChart(document.getElementById('chart'));
    const update = chart.update;
    window.chartUpdates = 0;
    chart.update = function (...args) { window.chartUpdates += 1; return update.apply(this, args); };
    // a recomputed sweep would be drawn in full, not as a marker step
    const draw = chart.draw;
    window.chartDraws = 0;
    chart.draw = function (...args) { window.chartDraws += 1; return draw.apply(this, args); };
  });
  await keepPixels(page, 'before slider');
  await page.focus('#scale-slider');
  // the arrows step along 1, 2, 5 (0.5 -> 0.2 -> 0.1), Page Down by a decade
  for (let k = 0; k < 2; k++) await page.keyboard.press('ArrowLeft');
  await settled(page);
  assert.equal(await page.inputValue('#scale-text'), '0.1');
  await page.keyboard.press('PageUp');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('PageDown');
  await settled(page);
  const scale = Number(await page.inputValue('#scale-text'));
  assert.equal(scale, 0.05, 'Page Up to 1, an arrow to 0.5, Page Down to 0.05');
  const thumb = Number(await page.inputValue('#scale-slider')); // (its step is 0.05)
  assert.ok(Math.abs(thumb - Math.log10(0.05)) <= 0.025, `the thumb moved with the keys: at 10^${thumb}`);
  assert.equal(await page.evaluate(() => window.chartUpdates), 0);
  const [oldX, newX] = (await chartGeometry(page, [0.5, scale])).xs;
  const moved = await changedColumns(page, 'before slider');
  const near = (x, c) => Math.abs(x - c) <= 8 * geometry.ratio; // the line, its dashes and the rings on the curves
  assert.ok(moved.some((x) => Math.abs(x - newX) <= 1), `the marker is drawn at the new magnitude (x ${newX})`);
  assert.ok(moved.some((x) => Math.abs(x - oldX) <= 1), `the marker left the old magnitude (x ${oldX})`);
  assert.deepEqual(moved.filter((x) => !near(x, oldX) && !near(x, newX)), [], 'nothing else on the canvas changed');
  assert.deepEqual(await chartTable(page), start, 'same sweep');
  assert.equal(await page.evaluate(() => window.chartDraws), 0, 'the sweep was not recomputed');

  // Anything else recomputes the sweep, and the new curves are drawn
  // without a chart.update() either: the axes never change.
  await keepPixels(page, 'before rope');
  await page.check('input[name="scheme"][value="rope"]');
  await settled(page);
  const rope = await chartTable(page);
  assert.equal(rope.rows.length, 13);
  assert.notDeepEqual(rope.rows, start.rows);
  const redrawn = await changedColumns(page, 'before rope');
  assert.ok(redrawn.length > (geometry.area.right - geometry.area.left) / 2, 'the new curves are drawn');
  assert.equal(await page.evaluate(() => window.chartUpdates), 0);
  await done();
});

// The numbers depend on the words only through which of them are the same,
// so a keystroke inside a word draws the curves the page has under the
// word's new name; one that makes a word equal to another computes anew.
test('typing inside a word keeps the curves and renames them; a repeated word makes new ones', async () => {
  const { page, done } = await open('/?debug#a=the+dog+bites+man&b=man+bites+dog&pos=1&word=3');
  const swept = () => page.evaluate(() => { const s = window.poslabDebug.sweeps(); return s.page + s.worker; });
  const before = await chartTable(page);
  assert.equal(before.head[1], '“man”: cosine distance');
  const count = await swept();
  assert.ok(count >= 1);
  for (const text of ['a dog bites man', 'an dog bites man', 'any dog bites man']) await type(page, '#sentence-a', text);
  assert.deepEqual(await chartTable(page), before, 'the same curves');
  assert.equal(await swept(), count, 'no sweep computed for a keystroke inside a word');
  assert.equal((await table(page))[0].word, 'any');
  // following the renamed word: the chart names it
  await page.selectOption('#plot-word', '0');
  await settled(page);
  assert.match((await chartSeen(page)).legend.join(' '), /“any”/);
  // "dog" twice is another sentence: new curves, computed
  await page.selectOption('#plot-word', '3');
  await settled(page);
  await type(page, '#sentence-a', 'dog dog bites man');
  const repeated = await chartTable(page);
  assert.equal(await swept(), count + 1);
  assert.notDeepEqual(repeated.rows, before.rows);
  await done();
});

// tests/bench/keystroke_split.mjs splits a keystroke into the core's time
// and the page's through ?debug: it must see the runs of the lab the page
// computes with, each keystroke's apart.
test('?debug times the runs of the page\'s own lab', async () => {
  const { page, done } = await open('/?debug#a=the+dog+bites+man&b=man+bites+dog&pos=1&word=3');
  await page.evaluate(() => window.poslabDebug.timeCore());
  await type(page, '#sentence-a', 'dog dog bites man');
  const times = await page.evaluate(() => window.poslabDebug.coreTimes());
  assert.ok(times.length >= 1, 'the new words were run');
  assert.ok(times.every((ms) => Number.isFinite(ms) && ms >= 0), JSON.stringify(times));
  assert.deepEqual(await page.evaluate(() => window.poslabDebug.coreTimes()), [], 'taken once');
  assert.equal((await table(page))[0].word, 'dog');
  await done();
});

// A new sweep's draw paints the axes from the copy kept after the last
// layout and draws only the curves, shading and marker over it: Chart.js
// does not draw the axes again, and the picture is the very one Chart.js
// draws when it draws everything.
test('new curves are drawn over the kept axes, the same pixels as a full draw', async () => {
  const { page, done } = await open('/#a=the+cat+chased+the+mouse&b=the+mouse+chased+the+cat&pos=1&scheme=rope&scale=0.3&word=2');
  await settled(page);
  await page.evaluate(() => {
    const chart = window.Chart.getChart(document.getElementById('chart'));
    window.axisDraws = 0;
    for (const scale of Object.values(chart.scales)) {
      for (const part of ['drawGrid', 'drawLabels', 'drawTitle']) {
        const own = scale[part];
        scale[part] = function (...args) { window.axisDraws += 1; return own.apply(this, args); };
      }
    }
  });
  const before = await chartTable(page);
  await page.evaluate(() => { window.tableRows = [...document.querySelectorAll('#chart-data tbody tr')]; });
  await page.fill('#sentence-a', 'mouse the chased the cat'); // "chased": True only below a threshold
  await settled(page);
  assert.notDeepEqual(await chartTable(page), before, 'a new sweep was drawn');
  // the chart's table kept its rows and rewrote their figures
  assert.ok(await page.evaluate(() => window.tableRows.length === 13 &&
    window.tableRows.every((row, k) => document.querySelectorAll('#chart-data tbody tr')[k] === row)), 'the same 13 rows');
  assert.equal(await page.evaluate(() => window.axisDraws), 0, 'the axes came from the kept copy');
  // Typing made no copy of the canvas for slider steps (a full-canvas copy
  // each time): the first slider step makes it, the next ones paint it back.
  assert.deepEqual(await page.evaluate(async () => {
    const canvas = document.getElementById('chart');
    const drawImage = CanvasRenderingContext2D.prototype.drawImage;
    let copies = 0;
    CanvasRenderingContext2D.prototype.drawImage = function (source, ...rest) {
      if (source === canvas) copies += 1;
      return drawImage.call(this, source, ...rest);
    };
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const counts = [];
    const input = document.getElementById('sentence-a');
    input.value = 'mouse the chased a cat';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    for (let k = 0; k < 5; k++) await frame(); // the thresholds' draw too
    counts.push(copies);
    const slider = document.getElementById('scale-slider');
    for (const step of [0.1, 0.2]) {
      slider.value = String(Number(slider.value) - step);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      counts.push(copies);
    }
    input.value = 'mouse the chased the cat';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await frame();
    CanvasRenderingContext2D.prototype.drawImage = drawImage;
    return counts;
  }), [0, 1, 1], 'copies of the canvas after a keystroke, then after each of two slider steps');
  await settled(page);
  await keepPixels(page, 'over kept axes');
  // chart.update() lays the chart out again, which drops the copy: Chart.js draws everything
  await page.evaluate(() => window.Chart.getChart(document.getElementById('chart')).update('none'));
  assert.ok(await page.evaluate(() => window.axisDraws) > 0, 'Chart.js drew the axes itself');
  assert.deepEqual(await changedColumns(page, 'over kept axes'), [], 'the same pixels');
  await done();
});

// 64 words at d 512 (the largest allowed) with RoPE, whose sweep has no
// shortcut: ~0.2 s, far longer than the page's own share of a keystroke.
const LARGE = (() => {
  const words = Array.from({ length: 64 }, (_, i) => `w${String(i + 1).padStart(2, '0')}`);
  return `/#a=${words.join('+')}&b=${[...words].reverse().join('+')}&pos=1&scheme=rope&scale=0.5&dim=512&word=0`;
})();

test('a large sweep is computed off the page\'s thread, so typing never waits for it', async () => {
  const { page, done } = await open(LARGE);
  const workerScripts = [];
  page.on('request', (r) => { if (r.url().endsWith('/sweep_worker.js')) workerScripts.push(r.url()); });
  // A new first word: its verdicts at once, the chart later; meanwhile the
  // page's thread keeps running (a zero-delay message loop measures the
  // longest time it was held), where a sweep on the page would hold it for
  // as long as the chart is pending.
  const seen = await page.evaluate(() => new Promise((resolve) => {
    const input = document.getElementById('sentence-a');
    input.value = `zz${input.value.slice(3)}`;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const first = document.querySelector('#verdict-rows tr .w').textContent;
    const busy = () => document.getElementById('plot').getAttribute('aria-busy') === 'true';
    const startedBusy = busy();
    const channel = new MessageChannel();
    const t0 = performance.now();
    let last = t0;
    let longest = 0;
    channel.port1.onmessage = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (busy() && now - t0 < 20000) channel.port2.postMessage(0);
      else resolve({ first, startedBusy, pending: now - t0, longest });
    };
    channel.port2.postMessage(0);
  }));
  assert.equal(seen.first, 'zz');
  assert.ok(seen.startedBusy, 'the chart is pending right after the keystroke');
  assert.ok(seen.longest < seen.pending / 2,
    `the page's thread was held at most ${seen.longest.toFixed(0)} ms of the ${seen.pending.toFixed(0)} ms the chart was pending`);
  await settled(page);
  // The chart shows the new sentence's sweep, the same as the page's own
  // copy of the core computes (poslab.js, imported into the page).
  const core = await page.evaluate(async () => {
    const { createLab } = await import('./poslab.js');
    const lab = await createLab();
    const a = document.getElementById('sentence-a').value;
    const b = document.getElementById('sentence-b').value;
    const { sweep } = lab.run({ sentence_a: a, sentence_b: b, dim: 512, scheme: 'rope', scale: 0.5, sweep: { lo: 1e-9, hi: 1e3, count: 121 } });
    lab.dispose();
    return sweep.mean.filter((p, i) => i % 10 === 0); // the mean at each power of ten
  });
  const words = (p) => (p.allclose ? 'True' : 'False');
  const seenNow = await chartSeen(page);
  // (“zz” has no partner in B: its columns are empty, only the mean is drawn)
  assert.deepEqual(seenNow.rows.map((r) => r.slice(1)), core.map((m) => ['–', '–', sig(m.cosine_distance), words(m)]),
    'the chart\'s table is the core\'s sweep of the new sentences');
  assert.equal(seenNow.legend[0], '“zz”');
  // Another word to follow: the page has the sweep, so the worker computes
  // only that word's threshold, from the page's sweep.
  await page.selectOption('#plot-word', '1');
  await settled(page);
  const thresholds = await page.evaluate(async () => {
    const { createLab } = await import('./poslab.js');
    const lab = await createLab();
    const config = { sentence_a: document.getElementById('sentence-a').value, sentence_b: document.getElementById('sentence-b').value,
      dim: 512, scheme: 'rope', scale: 0.5 };
    const whole = lab.threshold(config, 1, { lo: 1e-12, hi: 1e6, relTol: 1e-3 });
    lab.dispose();
    return { whole, legend: document.querySelector('.legend-word').textContent, caption: document.querySelector('.chart-caption').textContent };
  });
  assert.equal(thresholds.legend, '“w02”');
  // (its words for a curve True again higher up are teaching.test's)
  const at = sig(thresholds.whole, 2);
  assert.ok([`only below a magnitude of about ${at}:`, `below a magnitude of about ${at}, and again from about`]
    .some((words) => thresholds.caption.includes(`np.allclose says True for “w02” ${words}`)), JSON.stringify(thresholds));
  assert.equal(workerScripts.length, 0, 'the worker was started before this keystroke, once');
  // A 65th word is refused beside the field; the worker, which was asked
  // before the page knew, fails quietly, and the chart keeps the last sweep.
  await page.fill('#sentence-a', `${await page.inputValue('#sentence-a')} w65`);
  await settled(page);
  assert.match(await page.textContent('#sentence-a-error'), /65 words given; allowed: 1 to 64 words/);
  assert.equal(await page.textContent('.legend-word'), '“w02”');
  await done();
});

test('without its worker the page computes the chart itself', async () => {
  const page = await site.context.newPage();
  page.setDefaultTimeout(10000);
  const warnings = [];
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'warning') warnings.push(m.text());
    if (m.type() === 'error' && !/sweep_worker\.js|404/.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.route('**/sweep_worker.js', (route) => route.fulfill({ status: 404, body: 'not here' }));
  await page.goto(`${site.origin}/#pos=1`);
  await settled(page);
  const row = await page.$$eval('#chart-data tbody tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent))
    .find((r) => r[0] === '1e-3'));
  assert.equal(row[3], '6.805e-05'); // the mean at 1e-3, as in the test above, computed on the page
  assert.match(await page.textContent('.chart-caption'), /only below a magnitude of about 9\.1e-08/);
  assert.ok(warnings.some((w) => /sweep worker failed/.test(w)), warnings.join(' | '));
  assert.deepEqual(problems, []);
  await page.close();
});

test('bad input shows a message beside the field and keeps the last result', async () => {
  const { page, done } = await open('/');
  await switchOn(page, 'positions');
  const good = await table(page);
  const expectRefused = async (selector, text, pattern) => {
    await type(page, selector, text);
    const error = `${selector}-error`;
    assert.ok(await page.isVisible(error), `${selector}: message shown for ${JSON.stringify(text).slice(0, 40)}`);
    assert.match(await page.textContent(error), pattern);
    assert.equal(await page.getAttribute(selector, 'aria-invalid'), 'true');
    assert.deepEqual(await table(page), good, 'the last valid result stays');
  };
  await expectRefused('#scale-text', 'abc', /"abc" is not a number; allowed: a finite number from 0 to 1e6/);
  await expectRefused('#scale-text', '-1', /"-1" is out of range/);
  await expectRefused('#scale-text', '1e7', /allowed/);
  await type(page, '#scale-text', '0.5');
  assert.ok(await page.isHidden('#scale-text-error'));
  assert.equal(await page.getAttribute('#scale-text', 'aria-invalid'), 'false');

  await expectRefused('#sentence-a', '', /has no words/);
  await expectRefused('#sentence-a', '   ', /has no words/);
  await expectRefused('#sentence-a', Array.from({ length: 65 }, (_, k) => `w${k}`).join(' '), /65 words given; allowed: 1 to 64 words/);
  await expectRefused('#sentence-b', `${'x'.repeat(65)} bites man`, /65 bytes long; allowed: 1 to 64 bytes per word/);
  await expectRefused('#sentence-b', `${'é'.repeat(33)} bites man`, /66 bytes long/);
  // The URL only ever holds valid settings.
  assert.match(page.url(), /[#&]a=dog\+bites\+man(&|$)/);

  await page.click('details.advanced summary');
  await expectRefused('#dim', '0', /"0" is out of range; allowed: an integer from 1 to 512/);
  await expectRefused('#dim', '2.5', /"2.5" is not an integer; allowed: an integer from 1 to 512/);
  await expectRefused('#seed', '-1', /allowed: an integer from 0 to 4294967295/);
  await expectRefused('#rtol', 'nan', /"nan" is not a finite number; allowed/);
  // Leaving a refused field keeps the text and its message.
  await page.focus('#sentence-b');
  assert.equal(await page.inputValue('#rtol'), 'nan');
  assert.ok(await page.isVisible('#rtol-error'));
  // 64 words are fine; fixing a field clears its message.
  await type(page, '#sentence-a', Array.from({ length: 64 }, (_, k) => `w${k}`).join(' '));
  assert.ok(await page.isHidden('#sentence-a-error'));
  assert.equal((await table(page)).length, 65);
  await done();
});

test('garbage in the link falls back to defaults with a notice', async () => {
  const words = Array.from({ length: 70 }, (_, k) => `w${k}`).join('+');
  const evil = encodeURIComponent('<img src=x onerror=alert(1)>');
  const { page, done } = await open(`/#a=${words}&scale=abc&dim=0&scheme=foo&pos=maybe&seed=NaN&word=9&zzz=1&b=cat+sat&${evil}=${evil}`);
  assert.ok(await page.isVisible('#notice'));
  const notice = await page.textContent('#notice');
  for (const what of ['sentence A', 'magnitude', 'dim', 'scheme', 'positional information', 'seed', 'plotted word', 'unknown setting "zzz"']) {
    assert.ok(notice.includes(what), `the notice names ${what}: ${notice}`);
  }
  assert.ok(!notice.includes('sentence B'), 'a valid field is used');
  assert.ok(notice.includes('unknown setting "<img src=x onerror=a'), 'link text is quoted as text');
  assert.equal(await page.$$eval('img', (n) => n.length), 0);
  assert.equal(await page.inputValue('#sentence-a'), 'dog bites man');
  assert.equal(await page.inputValue('#sentence-b'), 'cat sat');
  assert.equal(await page.inputValue('#dim'), '6');
  assert.equal(await page.isChecked('#positions'), false);
  assert.match(page.url(), /#a=dog\+bites\+man&b=cat\+sat&oa=0&ob=0&pos=0&scheme=random&scale=0\.5&/);
  await page.click('#notice-close');
  assert.ok(await page.isHidden('#notice'));

  // A huge hash pasted into the address bar of the open page. (state.test.mjs
  // reads a 1 MB one; in Chromium a 1 MB address alone takes seconds.)
  await page.evaluate(() => { window.location.hash = `a=${'x'.repeat(1 << 17)}&pos=1`; });
  await page.waitForSelector('#notice:not([hidden])');
  await settled(page);
  assert.match(await page.textContent('#notice'), /sentence A \(“x{32}… \(131072 characters\)”\)/);
  assert.equal(await page.isChecked('#positions'), true);
  assert.equal((await rowOf(page, 'man')).maxDiff, '12.54');
  assert.ok(page.url().length < 200, 'the address holds the state actually used');
  await done();
});

test('embed mode hides the chrome and the hide= groups', async () => {
  const { page, done } = await open('/?embed=1&hide=words,scheme,advanced,plot,intro#pos=1', { width: 800, height: 640 });
  assert.ok(await page.isHidden('.site-header'));
  assert.ok(await page.isHidden('.intro'));
  for (const group of ['words', 'scheme', 'advanced', 'plot']) {
    assert.ok(await page.isHidden(`[data-group="${group}"]`), `${group} hidden`);
  }
  for (const group of ['positions', 'magnitude', 'causal']) {
    assert.ok(await page.isVisible(`[data-group="${group}"]`), `${group} shown`);
  }
  assert.equal((await rowOf(page, 'man')).allclose, 'False');
  assert.ok(await page.isVisible('#open-full'));
  assert.match(await page.getAttribute('#open-full', 'href'), /^http:\/\/127\.0\.0\.1:\d+\/#a=dog\+bites\+man&.*pos=1/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'embed.png'), fullPage: true });
  await done();
});

test('375 px wide: no horizontal scrolling, even with long words', async () => {
  const { page, done } = await open('/', { width: 375, height: 812 });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 375);
  await page.screenshot({ path: path.join(ARTIFACTS, 'mobile-375.png'), fullPage: true });
  await switchOn(page, 'positions');
  const long = 'w'.repeat(64);
  await type(page, '#sentence-a', `${long} bites ${long}x`.slice(0, 200));
  assert.ok(await page.isVisible('#sentence-a-error'));
  await type(page, '#sentence-a', `${long} bites man`);
  await type(page, '#sentence-b', `man bites ${long}`);
  await page.click('#embed-open');
  await page.waitForSelector('#embed-dialog[open]'); // its code loads on the first click
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 375);
  await page.click('#embed-close');
  await done();
});

test('dark mode takes its colours from the CSS, chart included', async () => {
  const { page, done } = await open('/#pos=1', { colorScheme: 'dark' });
  await page.locator('#chart').scrollIntoViewIfNeeded();
  // The canvas's own pixels: its corner is the panel colour, and right of
  // 1e-2 (no threshold or label there) the word's curve is in --plot-word.
  const geometry = await chartGeometry(page, [1e-2]);
  const colours = await page.evaluate(({ from, area }) => {
    const canvas = document.getElementById('chart');
    const ctx = canvas.getContext('2d');
    const hex = (d, i) => `#${[d[i], d[i + 1], d[i + 2]].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
    const property = (name) => getComputedStyle(canvas).getPropertyValue(name).trim();
    const right = ctx.getImageData(from, area.top, Math.floor(area.right - from), Math.floor(area.bottom - area.top)).data;
    let word = 0;
    for (let i = 0; i < right.length; i += 4) if (hex(right, i) === property('--plot-word')) word += 1;
    return { background: getComputedStyle(document.body).backgroundColor, corner: hex(ctx.getImageData(1, 1, 1, 1).data, 0),
      panel: property('--panel'), word, columns: Math.floor(area.right - from) };
  }, { from: geometry.xs[0], area: geometry.area });
  assert.equal(colours.background, 'rgb(15, 17, 21)');
  assert.equal(colours.corner, colours.panel, 'the canvas\'s background is --panel');
  assert.equal(colours.panel, '#181b21');
  assert.ok(colours.word > colours.columns / 2, `the word's curve in --plot-word: ${JSON.stringify(colours)}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'desktop-dark.png'), fullPage: true });
  await done();
});
