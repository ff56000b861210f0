// Transformer blocks on the page, in headless Chromium: the Model group,
// the verdicts and the block-by-block picture against the WebAssembly lab
// (and NumPy's figures of the transformer in docs/experiment.md), the URL,
// bad input, and a large transformer computed off the page's thread: no
// long task during fast slider steps, stale runs dropped, the final
// state's verdicts shown. Expected numbers come from the core
// (build/site/poslab.js under Node), never from copies.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ROOT, SITE, settled, openPage, useSite } from './harness.mjs';

const { createLab } = await import(`${SITE}/poslab.js`);
const { sig } = await import(`${ROOT}web/app/format.js`);
const lab = await createLab();
const option = (name) => lab.options.options.find((o) => o.name === name);

const site = useSite({ context: {} });

const open = (url, options) => openPage(site.context, site.origin, url, options);

// The verdict column as a student reads it, the mean last.
const verdicts = (page) => page.$$eval('#verdict-rows tr .verdict .text', (cells) => cells.map((c) => c.textContent));
// The block-by-block table: [after, word's cosine, word's verdict, mean's cosine, mean's verdict].
const blockRows = (page) => page.$$eval('#blocks tbody tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));

// The rows the picture's table should hold for a core result, following pair k.
function expectedRows(result, k) {
  const cell = (f) => (f ? [sig(f.cosine_distance), f.allclose ? 'True' : 'False'] : ['–', '–']);
  return [
    ...result.layers.map((l, b) => [`block ${b + 1}`, ...cell(l.pairs[k]), ...cell(l.mean)]),
    ['output', ...cell(result.pairs[k]), ...cell(result.mean)],
  ];
}

// The figures' settings (docs/experiment.md, "Figures of the transformer").
const FIGURES = { model: 'transformer', layers: 4, heads: 2, dim: 16 };

test('switching to transformer blocks: True without positions or mask, False with the mask, block by block as the core', async () => {
  const { page, done } = await open('/');
  assert.equal(await page.isHidden('#layers'), true, 'the blocks field belongs to the transformer');
  assert.equal(await page.isHidden('#blocks'), true);
  await page.check('input[name="model"][value="transformer"]');
  await page.click('details.advanced summary');
  await page.fill('#dim', '16');
  await page.selectOption('#heads', '2');
  await page.fill('#layers', '4');
  await settled(page);
  assert.match(page.url(), /&model=transformer&layers=4&ws=0\.02$/);
  assert.match(page.url(), /&dim=16&heads=2&/);

  // No positions, no mask: every word and the mean True, after every block.
  const plain = lab.run({ ...FIGURES, scheme: 'none' });
  assert.deepEqual(await verdicts(page), ['True', 'True', 'True', 'True']);
  assert.deepEqual(await blockRows(page), expectedRows(plain, 2));
  assert.ok(plain.layers.every((l) => l.mean.allclose && l.pairs.every((p) => p.allclose)));
  assert.match(await page.textContent('#blocks-story'), /“man” is True after every one of the 4 blocks and at the output\./);
  assert.equal(await page.$$eval('#blocks-chart circle', (c) => c.length), 2 * 5, 'five points for each curve');
  assert.equal(await page.$$eval('#blocks-chart circle.is-false', (c) => c.length), 0);

  // The causal mask alone: False from block 1 on, with NumPy's figures.
  await page.check('#causal');
  await settled(page);
  const masked = lab.run({ ...FIGURES, scheme: 'none', causal: true });
  assert.deepEqual(await verdicts(page), ['False', 'False', 'False', 'False']);
  assert.deepEqual(await blockRows(page), expectedRows(masked, 2));
  const man = masked.layers.map((l) => l.pairs[2].cosine_distance);
  assert.ok(Math.abs(man[0] - 7.0e-7) < 0.05e-7 && Math.abs(man[3] - 5.2e-6) < 0.05e-6, `NumPy: 7.0e-7 after block 1, 5.2e-6 after block 4; ${man}`);
  assert.ok(Math.abs(masked.pairs[2].cosine_distance - 5.06e-6) < 0.005e-6);
  assert.match(await page.textContent('#blocks-story'), /the mask alone tells it the order/);
  assert.equal(await page.$$eval('#blocks-chart circle.is-true', (c) => c.length), 0);

  // The weight scale: at 1 RoPE takes "man" to a cosine distance of 0.390 (NumPy).
  await page.uncheck('#causal');
  await page.check('#positions');
  await page.check('input[name="scheme"][value="rope"]');
  await page.fill('#weight-std', '1');
  await settled(page);
  const peaked = lab.run({ ...FIGURES, scheme: 'rope', scale: 1, weight_std: 1 });
  assert.equal(sig(peaked.pairs[2].cosine_distance, 3), '0.39');
  assert.deepEqual(await blockRows(page), expectedRows(peaked, 2));
  // The chart's dots move with the figures (a slider step updates them in
  // place), and a new number of blocks gives a new frame.
  const dotYs = () => page.$$eval('#blocks-chart circle.bl-word:not([hidden])', (c) => c.map((d) => Number(d.getAttribute('cy'))));
  const before = await dotYs();
  await page.fill('#weight-std', '0.02');
  await settled(page);
  const after = await dotYs();
  assert.equal(after.length, 5);
  assert.ok(after.every((y, i) => y > before[i]), `smaller distances sit lower: ${before} -> ${after}`);
  await page.fill('#layers', '2');
  await settled(page);
  assert.deepEqual(await blockRows(page), expectedRows(lab.run({ ...FIGURES, scheme: 'rope', scale: 1, layers: 2 }), 2));
  assert.equal(await page.$$eval('#blocks-chart circle:not([hidden])', (c) => c.length), 2 * 3, 'three points for each curve');
  await done();
});

test('a transformer link reopens exactly; the page says why the weight scale matters', async () => {
  const hash = '#a=the+cat+chased+the+mouse&b=the+mouse+chased+the+cat&pos=1&scheme=alibi&scale=1&dim=8&heads=4' +
    '&word=4&model=transformer&layers=3&ws=0.5';
  const { page, done } = await open(`/${hash}`);
  assert.equal(await page.isChecked('input[name="model"][value="transformer"]'), true);
  assert.equal(await page.inputValue('#layers'), '3');
  assert.equal(await page.inputValue('#weight-std'), '0.5');
  assert.match(await page.textContent('#weight-std-hint'), /0\.02.*nearly uniform.*at 1 it is peaked/s);
  const result = lab.run({ sentence_a: 'the cat chased the mouse', sentence_b: 'the mouse chased the cat', scheme: 'alibi',
    scale: 1, dim: 8, heads: 4, model: 'transformer', layers: 3, weight_std: 0.5 });
  assert.deepEqual(await blockRows(page), expectedRows(result, 4));
  const params = new URLSearchParams(new URL(page.url()).hash.slice(1));
  assert.deepEqual(['model', 'layers', 'ws'].map((k) => params.get(k)), ['transformer', '3', '0.5']);
  // Back to the module's one head: the picture goes, the settings stay in the link.
  await page.check('input[name="model"][value="head"]');
  await settled(page);
  assert.equal(await page.isHidden('#blocks'), true);
  assert.match(page.url(), /&model=head&layers=3&ws=0\.5$/);
  await done();
});

test('bad values: a link opens with defaults and a notice; typed ones get the core\'s words and keep the last result', async () => {
  const { page, done } = await open('/#model=gpt3&layers=13&ws=0');
  const notice = await page.$$eval('#notice-list li', (li) => li.map((l) => l.textContent));
  assert.deepEqual(notice, [
    // the core's models, then the checkpoints the page opens itself
    `model (“gpt3”): allowed: ${option('model').allowed}, gpt, nope, bag, gpt2`,
    `transformer blocks (“13”): allowed: ${option('layers').allowed}`,
    `weight scale (“0”): allowed: ${option('weight-std').allowed}`,
  ]);
  assert.equal(await page.isChecked('input[name="model"][value="head"]'), true);
  await page.check('input[name="model"][value="transformer"]');
  await page.check('#causal');
  await settled(page);
  const before = await blockRows(page);
  const url = page.url();
  for (const [id, key, raw] of [['layers', 'layers', '0'], ['layers', 'layers', '1.5'], ['weight-std', 'weight_std', '-1'],
    ['weight-std', 'weight_std', '11'], ['weight-std', 'weight_std', 'nan']]) {
    await page.fill(`#${id}`, raw);
    let words;
    assert.throws(() => lab.run({ model: 'transformer', [key]: raw }), (e) => { words = e.message; return true; });
    assert.equal(await page.textContent(`#${id}-error strong`), words.slice(key.length + 2), `${id} ${raw}`);
    assert.equal(await page.getAttribute(`#${id}`, 'aria-invalid'), 'true');
    assert.deepEqual(await blockRows(page), before, 'the last valid result stays');
    assert.equal(page.url(), url);
    await page.fill(`#${id}`, id === 'layers' ? '2' : '0.02'); // valid again
  }
  await done();
});

const tourText = (page) => page.$eval('#tour', (t) => ({
  count: t.querySelector('.tour-count').textContent,
  title: t.querySelector('.tour-title').textContent,
  lines: [...t.querySelectorAll('.tour-lines p')].map((p) => p.textContent),
}));

test('the tour\'s transformer steps: depth keeps the identity, the mask breaks it; every figure the core\'s', async () => {
  const { STEPS } = await import(`${ROOT}web/teach/tour_steps.js`);
  // the transformer's two steps, wherever the tour has them (exercise 2 comes after)
  const first = STEPS.findIndex((step) => step.title === 'A whole transformer: depth keeps the identity') + 1;
  assert.ok(first > 0);
  const { page, done } = await open(`/#tour=${first}`);
  let t = await tourText(page);
  assert.match(t.count, new RegExp(`^Guided tour · step ${first} of \\d+$`));
  assert.equal(t.title, 'A whole transformer: depth keeps the identity');
  assert.equal(await page.isChecked('input[name="model"][value="transformer"]'), true);
  assert.equal(await page.inputValue('#layers'), '4');
  await page.click('.tour-choice >> text="Identical"');
  await settled(page);
  t = await tourText(page);
  const plain = lab.run({ ...FIGURES, scheme: 'none' });
  const deep = lab.run({ ...FIGURES, scheme: 'none', layers: option('layers').max });
  assert.ok(plain.pairs[2].allclose && deep.pairs[2].allclose);
  assert.match(t.lines[0], /^np\.allclose\(out_a\[2\], out_b\[0\]\) says True/);
  assert.equal(t.lines[1], '“man” is True after 4 of the 4 blocks (the block-by-block picture under the verdicts).');
  assert.match(t.lines[2], /With 12 blocks: True\. So the module’s claim holds for a transformer without positions and without a mask/);

  await page.click('.tour-next');
  await settled(page);
  t = await tourText(page);
  assert.equal(t.title, 'GPT-2’s mask: order without positions');
  assert.equal(await page.isChecked('#causal'), true);
  await page.click('.tour-choice >> text="Identical"');
  await settled(page);
  t = await tourText(page);
  const masked = lab.run({ ...FIGURES, scheme: 'none', causal: true });
  const peaked = lab.run({ ...FIGURES, scheme: 'none', causal: true, weight_std: 1 });
  assert.match(t.lines[0], /says False/);
  assert.equal(await page.inputValue('#weight-std'), '1', 'the step shows the mask at a peaked weight scale');
  assert.ok(t.lines[1].startsWith(`It differs from block 1 on (cosine distance ${sig(peaked.layers[0].pairs[2].cosine_distance, 2)} after block 1)`), t.lines[1]);
  assert.match(t.lines[1], /the mask alone tells it the order/);
  assert.ok(t.lines[2].includes(`the cosine distance is ${sig(masked.pairs[2].cosine_distance, 2)}; at weight scale 1 attention is ` +
    `peaked and it is ${sig(peaked.pairs[2].cosine_distance, 2)}`), t.lines[2]);
  assert.equal(await page.textContent('.tour-next'), first + 1 < STEPS.length ? 'Next' : 'Finish');
  await done();
});

// 64 words, d 512, 12 blocks, 8 heads: about a second a run. The page must
// never block on it: every run goes to the worker, each slider step drops
// the one before, and the final state's verdicts are the core's.
test('a large transformer never blocks the page: no long task during fast slider steps, stale runs dropped', { timeout: 180000 }, async (t) => {
  const words = Array.from({ length: 64 }, (_, i) => `w${String(i + 1).padStart(2, '0')}`);
  const hash = `#a=${words.join('+')}&b=${[...words].reverse().join('+')}&pos=1&scheme=rope&scale=1&dim=512&heads=8` +
    '&word=0&model=transformer&layers=12';
  const page = await site.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  await page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, ms: e.duration }); })
      .observe({ type: 'longtask', buffered: true });
    // what ran in each long frame: the page's scripts apart from the browser's rendering
    window.longFrames = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.longFrames.push({ start: e.startTime, ms: e.duration, script: e.scripts.reduce((t, x) => t + x.duration, 0) });
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
  });
  await page.goto(`${site.origin}/?debug${hash}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready &&
    document.getElementById('verdicts').getAttribute('aria-busy') === 'false', null, { timeout: 60000 });
  const first = await page.evaluate(() => window.poslabDebug.transformerRuns());
  assert.deepEqual({ ...first, lastMs: undefined }, { asked: 1, finished: 1, dropped: 0, lastMs: undefined, restarts: 0 },
    'the first verdicts came from the worker');
  assert.ok(first.lastMs > 50, `a run of the worker's took ${first.lastMs} ms`);

  // 20 steps, one a frame (a fast drag); each step's handler timed, and the
  // long tasks (50 ms or more) seen during them.
  const drag = () => page.evaluate(async () => {
    const slider = document.getElementById('scale-slider');
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const before = window.poslabDebug.transformerRuns();
    const start = performance.now();
    const handlers = [];
    for (let i = 0; i < 20; i++) {
      await frame();
      const t0 = performance.now();
      slider.value = String(Number(slider.value) - 0.05);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      handlers.push(performance.now() - t0);
    }
    const end = performance.now();
    const lastStep = end - handlers.at(-1);
    const busy = document.getElementById('verdicts').getAttribute('aria-busy');
    const status = document.getElementById('run-status').textContent;
    while (document.getElementById('verdicts').getAttribute('aria-busy') === 'true' ||
      document.querySelector('.verdict-table').getAttribute('aria-busy') === 'true') await frame();
    const shownAfter = performance.now() - lastStep;
    await new Promise((r) => setTimeout(r, 100)); // long-task entries arrive a moment later
    const after = window.poslabDebug.transformerRuns();
    return { busy, status, handlers, scale: document.getElementById('scale-text').value, ms: end - start,
      shownAfter, lastMs: after.lastMs,
      long: window.longTasks.filter((t) => t.start + t.ms > start && t.start < end),
      frames: window.longFrames.filter((t) => t.start + t.ms > start && t.start < end),
      runs: { asked: after.asked - before.asked, dropped: after.dropped - before.dropped, finished: after.finished - before.finished,
        restarts: after.restarts - before.restarts } };
  });
  // On two cores shared with other work (here: four helpers' builds and
  // browsers), the browser can stall a frame past 50 ms whatever the page
  // does, so a drag with a long task (or a slow step) is tried again, up to
  // three times. If none is clean, every step and every long frame's script
  // time (the Long Animation Frames API) must still stay far below one run:
  // a page that computed the blocks itself would block for a whole run
  // (a second or more) at every step of every drag.
  let steps;
  const clean = (r) => r.long.length === 0 && Math.max(...r.handlers) < 50;
  for (let attempt = 0; attempt < 3; attempt++) {
    steps = await drag();
    assert.equal(steps.busy, 'true', 'the verdicts say they are being computed');
    assert.match(steps.status, /Computing 12 transformer blocks/);
    // One run asked per step. Only the magnitude changes, so the worker is
    // never ended (it keeps its draws): it drops the run it is computing at
    // its next block when a newer one arrives, and skips the queued ones.
    // Every run is dropped but the final state's, unless the drag outlasted
    // a whole run (a loaded machine), when one more may finish.
    const { asked, dropped, finished, restarts } = steps.runs;
    assert.equal(restarts, 0, 'the worker holding the weights was never ended');
    assert.ok(asked >= 20 && asked <= 30 && dropped === asked - finished &&
      (finished === 1 || (finished === 2 && steps.ms > first.lastMs)), JSON.stringify({ ...steps.runs, drag: steps.ms }));
    t.diagnostic(`final verdicts ${Math.round(steps.shownAfter)} ms after the last step; one run ${Math.round(steps.lastMs)} ms`);
    if (clean(steps)) break;
  }
  if (!clean(steps)) {
    const script = Math.max(0, ...steps.frames.map((f) => f.script), ...steps.handlers);
    const bound = Math.min(250, first.lastMs / 2);
    t.diagnostic(`a loaded machine: long tasks ${steps.long.map((l) => l.ms).join(', ')} ms; the page's script at most ${script} ms`);
    assert.ok(script < bound, `the page's own work took ${script} ms in one go (one run: ${first.lastMs} ms)`);
  }
  // The final state's verdicts: the core's for the magnitude the page shows.
  const result = lab.run({ sentence_a: words.join(' '), sentence_b: [...words].reverse().join(' '), scheme: 'rope',
    scale: Number(steps.scale), dim: 512, heads: 8, model: 'transformer', layers: 12 });
  const shown = await page.$$eval('#verdict-rows tr .cosine .num', (cells) => cells.map((c) => c.textContent));
  assert.deepEqual(shown, [...result.pairs.map((p) => sig(p.cosine_distance)), sig(result.mean.cosine_distance)]);
  assert.deepEqual((await blockRows(page)).at(0), expectedRows(result, 0).at(0));
  assert.deepEqual(problems, []);
  await page.close();
});

// The chart's sweep shares the run worker (and its drawn weights) with the
// verdicts, and gives way to a slider step's run at its next step. A point
// of a transformer's sweep is a whole run, so it must go a block of one
// sentence a step as the run does: in one step, a drag begun while the
// chart is computed waited for the rest of that point (at 64 words, d 512
// and 12 blocks up to a second) before its final run began. Read from the
// worker's own replies (`steps`: how often a request read its messages),
// not from the clock.
test('the chart in the run worker gives way to a slider step after a block, not after a whole sweep point', { timeout: 120000 }, async () => {
  const LAYERS = 6;
  const words = Array.from({ length: 32 }, (_, i) => `w${String(i + 1).padStart(2, '0')}`);
  const hash = `#a=${words.join('+')}&b=${[...words].reverse().join('+')}&pos=1&scheme=rope&scale=1&dim=256&heads=4` +
    `&word=0&model=transformer&layers=${LAYERS}`;
  const page = await site.context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  // every message to and from the run workers, in order
  await page.addInitScript(() => {
    window.runLog = [];
    const Base = window.Worker;
    window.Worker = class extends Base {
      constructor(url, options) {
        super(url, options);
        if (!String(url).includes('run_worker')) return;
        const post = this.postMessage.bind(this);
        this.postMessage = (m, ...rest) => {
          if (m.request) window.runLog.push({ sent: m.id, kind: m.request.run ? 'run' : 'chart' });
          return post(m, ...rest);
        };
        this.addEventListener('message', ({ data }) => {
          if (data.began !== undefined) window.runLog.push({ began: data.began });
          else if (data.partial) {
            // the points it computed: a coarse pass's (app/sweep.js) are every `passes`-th
            const { scales, passes } = data.partial.sweep;
            const points = passes && data.partial.coarse ? Math.ceil(scales.length / passes) : scales.length;
            window.runLog.push({ partial: data.id, steps: data.partial.steps, points });
          } else if ('result' in data) window.runLog.push({ result: data.id, steps: data.result.steps });
          else if ('stale' in data) window.runLog.push({ stale: data.id });
        });
      }
    };
  });
  await page.goto(`${site.origin}/?debug${hash}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready &&
    document.getElementById('verdicts').getAttribute('aria-busy') === 'false', null, { timeout: 60000 });
  // the chart's first curve is back: its sweep goes on in the worker
  await page.waitForFunction(() => window.runLog.some((e) => e.partial), null, { timeout: 60000 });
  const before = await page.evaluate(() => window.poslabDebug.transformerRuns());
  assert.equal(before.finished, 1, 'the first verdicts came from the worker');

  // Every point of that sweep, and the run at the state's own magnitude
  // after them, read the worker's messages after every block of each
  // sentence: (points + 1) x 2 x blocks (the 13 points of a coarse pass: the
  // 108 points it leaves out take no step). (One step a point: points + 2 x blocks.)
  const first = await page.evaluate(() => window.runLog.find((e) => e.partial));
  const chart = await page.evaluate((id) => window.runLog.find((e) => e.sent === id), first.partial);
  assert.equal(chart.kind, 'chart');
  assert.equal(first.steps, (first.points + 1) * 2 * LAYERS,
    `a sweep of ${first.points} points read its messages ${first.steps} times`);

  const at = await page.evaluate(() => window.runLog.length);
  await page.evaluate(async () => {
    const slider = document.getElementById('scale-slider');
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    for (let i = 0; i < 20; i++) {
      await frame();
      slider.value = String(Number(slider.value) - 0.05);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }
    while (document.getElementById('verdicts').getAttribute('aria-busy') === 'true') await frame();
  });
  const log = (await page.evaluate(() => window.runLog)).slice(at);
  const runs = log.filter((e) => e.kind === 'run').map((e) => e.sent);
  const last = runs.at(-1);
  assert.ok(runs.length >= 20, `a run asked for each step (${runs.length})`);
  // The chart gave way (it is asked again once the verdicts are shown), the
  // worker holding the weights was never ended, and the final run began on
  // it and ran whole: one step per block of each sentence.
  assert.ok(log.some((e) => e.stale === first.partial), 'the chart was dropped for the runs');
  assert.equal((await page.evaluate(() => window.poslabDebug.transformerRuns())).restarts, before.restarts);
  assert.ok(log.some((e) => e.began === last), 'the final run began');
  assert.deepEqual(log.find((e) => e.result === last), { result: last, steps: 2 * LAYERS });
  // Nothing the drag left behind was computed after the final run began:
  // every earlier run was answered (stale, or a result) before it.
  const began = log.findIndex((e) => e.began === last);
  for (const id of runs.slice(0, -1)) {
    const answered = log.findIndex((e) => e.stale === id || e.result === id);
    assert.ok(answered >= 0 && answered < began, `run ${id} was answered before the final one began`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
