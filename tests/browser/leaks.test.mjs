// Hundreds of state changes must not leave anything behind: no event
// listener, observer or Chart.js instance piles up, the DOM goes back to its
// size, and the WebAssembly heap (read through the page's ?debug hook,
// which reports only numbers) holds the same bytes in use: the allocator's
// count, which a leak under the memory's high-water mark still moves, unlike
// the memory's size, which never shrinks. The changes reach every option:
// each scheme of the page's (ALiBi too), 1 to 8 heads, offsets, the
// transformer's blocks and weight scale. The same changes are made twice,
// and counted after each: the first pass takes the lab's buffers (kept at
// their largest, for reuse) to their high-water mark, so only a leak can
// move the second. The sweep worker is refused, so that the page's own lab
// computes every chart too. The run worker's heap is counted the same way
// after runs dropped mid-way: slider steps and new draws on a transformer
// too large for the page's thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { watch, settled, verdictColumn, random, useSite } from './harness.mjs';

const site = useSite();

// Before any page script: count the listeners actually registered (adding
// the same listener twice is one) per kind of target and event, on targets
// still in the document (rows and buttons that were replaced take theirs
// with them), and the observers created.
function countListeners() {
  const live = new WeakMap(); // target -> Set of "type|capture|listener id"
  const targets = new Set(); // WeakRefs to every target that got a listener
  const observers = {};
  const ids = new WeakMap();
  let next = 0;
  const idOf = (f) => { if (!ids.has(f)) ids.set(f, ++next); return ids.get(f); };
  const keyOf = (type, listener, options) => {
    const capture = typeof options === 'boolean' ? options : Boolean(options?.capture);
    return `${type}|${capture}|${idOf(listener)}`;
  };
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function addEventListener(type, listener, options) {
    if (listener && !(typeof options === 'object' && options?.once)) { // a once-listener removes itself
      if (!live.has(this)) { live.set(this, new Set()); targets.add(new WeakRef(this)); }
      live.get(this).add(keyOf(type, listener, options));
    }
    return add.call(this, type, listener, options);
  };
  EventTarget.prototype.removeEventListener = function removeEventListener(type, listener, options) {
    if (listener) live.get(this)?.delete(keyOf(type, listener, options));
    return remove.call(this, type, listener, options);
  };
  for (const name of ['ResizeObserver', 'MutationObserver', 'IntersectionObserver']) {
    const Original = window[name];
    window[name] = class extends Original {
      constructor(...args) { super(...args); observers[name] = (observers[name] ?? 0) + 1; }
      disconnect() { observers[name] -= 1; return super.disconnect(); }
    };
  }
  window.__listenerCounts = () => {
    const counts = { ...observers };
    for (const ref of targets) {
      const target = ref.deref();
      if (!target) { targets.delete(ref); continue; }
      if (target instanceof Node && !target.isConnected) continue;
      for (const key of live.get(target)) {
        const bucket = `${target.constructor.name} ${key.split('|')[0]}`;
        counts[bucket] = (counts[bucket] ?? 0) + 1;
      }
    }
    return counts;
  };
}

const snapshot = (page) => page.evaluate(() => ({
  listeners: window.__listenerCounts(),
  charts: Object.keys(window.Chart.instances).length,
  nodes: document.getElementsByTagName('*').length,
  memory: window.poslabDebug.memoryBytes(),
  heap: window.poslabDebug.heapBytesInUse(),
}));

test('300+ state changes over every option, twice, leak no listener, chart, node or WebAssembly memory', { timeout: 600000 }, async () => {
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(countListeners);
  await context.route('**/sweep_worker.js', (route) => route.abort('aborted'));
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const problems = watch(page, site.origin);
  // The largest state first, so the WebAssembly memory reaches its high-water mark.
  const big = Array.from({ length: 64 }, (_, k) => `w${k}`);
  await page.goto(`${site.origin}/?debug#a=${big.join('+')}&b=${big.reverse().join('+')}&dim=40&pos=1&scheme=rope`);
  await settled(page);
  await page.click('#reset');
  await settled(page);
  // One round of real clicks and keys first, so that what is made lazily
  // (tooltips, dialog parts, a refused field's message) exists before counting.
  const rand = random(7);
  const words = ['dog', 'bites', 'man', 'the', 'cat', 'sat', 'on', 'mat', 'a', 'bird', 'sang', '🐶', '男の人'];
  const sentence = (n) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
  const round = async () => {
    await page.$eval('details.advanced', (d) => { d.open = true; });
    const n = 1 + Math.floor(rand() * 10);
    const a = sentence(n);
    await page.fill('#sentence-a', a);
    await page.fill('#sentence-b', rand() < 0.7 ? a.split(' ').reverse().join(' ') : sentence(n + 1));
    await page.click('#positions');
    for (const scheme of ['sinusoidal', 'rope', 'random']) await page.check(`input[name="scheme"][value="${scheme}"]`);
    await page.focus('#scale-slider');
    for (const key of ['ArrowLeft', 'ArrowLeft', 'ArrowRight', 'PageDown']) await page.keyboard.press(key);
    await page.fill('#scale-text', String(10 ** (rand() * 8 - 6)).slice(0, 8));
    await page.click('#causal');
    await page.fill('#dim', String(1 + Math.floor(rand() * 32)));
    await page.fill('#seed', String(Math.floor(rand() * 1000)));
    await page.selectOption('#plot-word', '0');
    await page.click('#reverse-b');
  };
  await round();
  await page.fill('#scale-text', 'abc'); // a refused value makes its message once
  await page.click('#embed-open');
  await page.waitForSelector('#embed-dialog[open]'); // its code loads on the first click
  await page.click('#embed-close');
  // Start and end in the same place: the tour (if any) left at step 1, the
  // lab at its defaults, drawn in every view (opened for that, then closed).
  // What a view holds for the current state (the heatmaps' cells, the
  // tour's choice buttons) is then the same both times.
  let samePlaceCount = 0;
  const samePlace = async () => {
    if (await page.locator('#tour-start').count()) {
      await page.evaluate(() => { window.location.hash = 'tour=1'; });
      // the hashchange event comes a task later, and the tour's code with
      // it: wait for its first step, and say what the page shows if it never
      // comes (a write the page owed once put the old state back meanwhile)
      await page.waitForSelector('.tour-choice').catch(async (e) => {
        const seen = await page.evaluate(() => ({ hash: window.location.hash, loading: document.documentElement.dataset.loading,
          tourHidden: document.getElementById('tour')?.hidden, title: document.querySelector('.tour-title')?.textContent }));
        throw new Error(`the tour's first step never showed: ${JSON.stringify(seen)} (${e.message.split('\n')[0]})`);
      });
      await settled(page);
      await page.locator('.tour-choice').first().click();
      await page.click('.tour-skip');
    }
    await page.$$eval('details', (all) => all.forEach((d) => { d.open = true; }));
    await page.click('#reset');
    await settled(page);
    // The page keeps results (a sweep under which words are the same, not
    // their letters), so the defaults' may come from that cache, and the
    // lab's buffers would be the size of whatever it computed last: a seed
    // not used before makes it compute the defaults' shapes afresh.
    await page.evaluate((seed) => { window.location.hash = `seed=${seed}&pos=1`; }, 900000 + (samePlaceCount++));
    await settled(page);
    await page.click('#reset');
    await settled(page);
    await page.$$eval('details', (all) => all.forEach((d) => { d.open = false; }));
    await settled(page);
  };
  await samePlace();
  assert.equal((await snapshot(page)).charts, 1);

  // The bulk in the page itself (the same handlers, through the same events,
  // without a round trip per change): typing, the slider, schemes, switches,
  // the word to follow, Reverse B, hash links, the Embed dialog, the teaching
  // views and the tour.
  const bulk = () => page.evaluate(async (seed) => {
    let s = seed;
    const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pool = ['dog', 'bites', 'man', 'the', 'cat', 'sat', 'on', 'mat', 'a', 'bird', 'sang', '🐶', '男の人'];
    const $ = (id) => document.getElementById(id);
    const type = (id, text) => { $(id).value = text; $(id).dispatchEvent(new Event('input', { bubbles: true })); };
    const choose = (input) => { input.click(); };
    const frame = () => new Promise((resolve) => { requestAnimationFrame(() => setTimeout(resolve, 0)); });
    const steps = [
      () => { const n = 1 + Math.floor(rand() * 12); type('sentence-a', Array.from({ length: n }, () => pool[Math.floor(rand() * pool.length)]).join(' ')); },
      () => type('sentence-b', $('sentence-a').value.split(' ').reverse().join(' ')),
      () => choose($('positions')),
      () => { const schemes = document.querySelectorAll('input[name="scheme"]'); choose(schemes[Math.floor(rand() * schemes.length)]); },
      () => { const heads = $('heads'); heads.value = heads.options[Math.floor(rand() * heads.options.length)].value; heads.dispatchEvent(new Event('change', { bubbles: true })); },
      () => type(rand() < 0.5 ? 'offset-a' : 'offset-b', String(rand() < 0.3 ? 0 : Math.floor(rand() * 1025))),
      () => choose(document.querySelector(`input[name="model"][value="${rand() < 0.5 ? 'transformer' : 'head'}"]`)),
      () => type('layers', String(1 + Math.floor(rand() * 3))),
      () => type('weight-std', rand() < 0.5 ? '0.02' : '1'),
      () => { const slider = $('scale-slider'); slider.value = String(-9 + rand() * 12); slider.dispatchEvent(new Event('input', { bubbles: true })); },
      () => type('scale-text', String(10 ** (rand() * 8 - 6)).slice(0, 8)),
      () => type('scale-text', rand() < 0.5 ? 'abc' : '-1'), // refused, with a message
      () => choose($('causal')),
      () => type('dim', String(1 + Math.floor(rand() * 40))),
      () => type('seed', String(Math.floor(rand() * 1e6))),
      () => { const select = $('plot-word'); select.value = String(Math.floor(rand() * select.options.length)); select.dispatchEvent(new Event('change', { bubbles: true })); },
      () => $('reverse-b').click(),
      () => { window.location.hash = `pos=1&scheme=rope&dim=${1 + Math.floor(rand() * 20)}`; },
      async () => { // the dialog's code loads on the first click
        $('embed-open').click();
        for (let t = 0; t < 400 && !$('embed-dialog').open; t++) await new Promise((resolve) => { setTimeout(resolve, 5); });
        $('embed-close').click();
      },
      // the teaching views, when the page has them: open or close one, and
      // take a step of the guided tour
      () => { const views = document.querySelectorAll('details.deep, #chart-data'); const d = views[Math.floor(rand() * views.length)]; if (d) d.open = !d.open; },
      () => {
        const tour = $('tour');
        if (!tour) return;
        if (tour.hidden) { $('tour-start').click(); return; }
        const choices = tour.querySelectorAll('.tour-choice');
        if (rand() < 0.5 && choices.length) choices[Math.floor(rand() * choices.length)].click();
        else if (rand() < 0.8) tour.querySelector('.tour-next').click();
        else tour.querySelector('.tour-skip').click();
      },
    ];
    let done = 0;
    for (let k = 0; k < 320; k++) {
      await steps[k % steps.length]();
      done++;
      // a frame now and then: the chart's sweep runs after one
      if (k % 10 === 9) await frame();
    }
    return done;
  }, 12345);
  // The run worker: a transformer too large for the page's thread (24
  // words, d 128, 4 blocks), new draws (a spare takes over), then slider
  // steps a frame apart on them (each drops the run before it at its next
  // block); its heap counted once the copy that dropped those runs has
  // shown the last state's verdicts and chart.
  const big24 = Array.from({ length: 24 }, (_, k) => `w${k}`);
  const W = `a=${big24.join('+')}&b=${[...big24].reverse().join('+')}&pos=1&scheme=rope&dim=128&heads=4&model=transformer&layers=4`;
  const workerRuns = async () => {
    await page.evaluate((hash) => { window.location.hash = hash; }, `${W}&seed=1`);
    await settled(page);
    const runs = await page.evaluate(async () => {
      const frame = () => new Promise((resolve) => { requestAnimationFrame(() => setTimeout(resolve, 0)); });
      const slider = document.getElementById('scale-slider');
      const seed = document.getElementById('seed');
      for (let k = 0; k < 24; k++) {
        if (k === 0) { seed.value = '2'; seed.dispatchEvent(new Event('input', { bubbles: true })); }
        slider.value = String(-3 + k / 8);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        await frame();
      }
      return window.poslabDebug.transformerRuns();
    });
    await page.evaluate((hash) => { window.location.hash = hash; }, `${W}&seed=2&scale=1`);
    await settled(page);
    const copies = await page.evaluate(() => window.poslabDebug.wasmMemory());
    return { runs, heap: copies.find((c) => c.what === 'run worker')?.heap };
  };

  // Two passes of the same changes, each ending in the same place.
  const passes = [];
  for (let pass = 0; pass < 2; pass++) {
    const changes = await bulk();
    const worker = await workerRuns();
    await samePlace();
    passes.push({ changes, worker, ...(await snapshot(page)) });
  }
  const [start, end] = passes;
  const changes = end.changes;
  assert.deepEqual(await verdictColumn(page), ['True', 'True', 'True', 'True']);
  assert.ok(changes >= 300, `${changes} state changes`);
  assert.equal(end.charts, 1, 'Chart.instances');
  for (const [kind, count] of Object.entries(end.listeners)) {
    assert.ok(count <= (start.listeners[kind] ?? 0), `${kind}: ${start.listeners[kind] ?? 0} -> ${count}`);
  }
  assert.equal(end.nodes, start.nodes, 'elements in the document');
  assert.equal(end.heap, start.heap, 'WebAssembly heap bytes in use');
  assert.equal(end.memory, start.memory, 'WebAssembly memory bytes');
  for (const { worker } of passes) {
    assert.ok(worker.runs.dropped > 0, `runs dropped mid-way in the run worker: ${JSON.stringify(worker.runs)}`);
    assert.ok(worker.heap > 0, 'the run worker answered');
  }
  // The copy in use at the end is the first or a spare that took over,
  // as the timing of the drops decides; and emmalloc hands out a whole free
  // region when what is left of it could not hold a region of its own
  // (emmalloc.c: under sizeof(Region) + REGION_HEADER_SIZE = 24 bytes more
  // than asked), so two copies with the same blocks can differ by a few
  // bytes (seen: 8,189,976 and 8,189,980). Anything a dropped run kept (a
  // config, its text, a result) is more than that.
  const FRAGMENT_BYTES = 24;
  assert.ok(Math.abs(end.worker.heap - start.worker.heap) < FRAGMENT_BYTES,
    `the run worker's heap bytes in use after runs dropped mid-way: ${start.worker.heap} -> ${end.worker.heap}`);
  assert.deepEqual(problems, []);
  console.log(`# ${changes} state changes a pass; listeners ${JSON.stringify(end.listeners)}; heap ${end.heap} bytes in use, ` +
    `memory ${end.memory} bytes; the run worker: ${end.worker.heap} bytes in use, runs ${JSON.stringify(end.worker.runs)}`);
  await context.close();
});
