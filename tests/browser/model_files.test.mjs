// GPT-2 from the student's files in Chromium (web/views/model_files.js): the
// file button reads a GPT-2-shaped checkpoint (random weights, GPT-2's real
// vocabulary: tests/make_checkpoints.py), says the memory its weights take
// before it reads them, and the page then shows the core's numbers; the files
// are kept on the device (OPFS), so a reload opens them without asking, and
// Forget removes them; a truncated, a missing or a wrong file is said next to
// the button in the CLI's words and nothing else changes. On GPT-2 small's
// 548 MB: the bar moves at least every 200 ms, the lab answers while it
// reads, and Cancel leaves the lab as it was. Run `make site` and `make native`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { ROOT, openPage, useSite, verdictColumn } from './harness.mjs';
import { A, B, FILES, checkpoint, cli, damaged, pageLine, paths, recordProgress, tooLarge } from './gpt2_files.mjs';

const { sig } = await import(`${ROOT}web/app/format.js`);
const { createLab } = await import(`${ROOT}build/site/poslab.js`);
const site = useSite({ context: {} });
const URL_GPT2 = `/?debug#a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}&model=gpt2`;
const MB = (bytes) => (bytes < 1e6 ? `${Math.max(1, Math.round(bytes / 1e3))} kB` : `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`);

// What the wrapper in Node says the weights need (the page must say it first).
async function bytesNeeded(folder) {
  const lab = await createLab();
  const ck = await lab.openCheckpoint({ url: pathToFileURL(`${folder}/`).href });
  const bytes = ck.bytesNeeded;
  ck.dispose();
  lab.dispose();
  return bytes;
}


async function choose(page, files) {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#model-files .mf-pick')]);
  assert.ok(chooser.isMultiple());
  await chooser.setFiles(files);
}

const bodyHas = (page, text, timeout = 30000) => page.waitForFunction((t) => document.body.innerText.includes(t), text, { timeout });
// A test starts with nothing kept (an earlier one may have failed before its Forget).
const forgetAll = (page) => page.evaluate(() => navigator.storage.getDirectory()
  .then((d) => d.removeEntry('poslab-gpt2', { recursive: true })).catch(() => {}));
const kept = (page) => page.evaluate(async () => {
  const names = [];
  for await (const name of (await navigator.storage.getDirectory()).keys()) names.push(name);
  return names;
});

test('the files chosen: memory said first, the core\'s figure, kept for a reload, forgotten', async () => {
  const folder = checkpoint('gpt2-mini');
  const want = cli(folder);
  const needed = await bytesNeeded(folder);
  const { page, done } = await openPage(site.context, site.origin, URL_GPT2);
  await page.waitForSelector('#model-files .mf-pick');
  await forgetAll(page);
  assert.match(await page.textContent('#model-files .mf-where'), /openai-community\/gpt2.*nothing leaves your device/s);
  assert.equal(await page.isHidden('#checkpoint'), true, 'nothing to show before the files');
  await recordProgress(page);
  await choose(page, paths(folder));
  const figure = sig(want.mean_cosine_similarity);
  await bodyHas(page, figure);
  const seen = await page.evaluate(() => window.__mf);
  // the memory is said from the first byte of weights read on
  const read = seen.filter((s) => s.value > 0 && !s.status.startsWith('GPT-2 is open'));
  assert.ok(read.length > 0, JSON.stringify(seen.map((s) => s.status)));
  for (const s of read) assert.ok(s.status.includes(`will take ${MB(needed)} of memory`), s.status);
  // what is counted is the weights, not the files (a file may hold masks that are not read)
  assert.ok(read.some((s) => /^Reading the weights, [\d.]+ [kM]B of [\d.]+ [kM]B: /.test(s.status)), JSON.stringify(read.map((s) => s.status)));
  assert.ok(seen.some((s) => s.value === s.max && s.max > 1e6), 'the bar reaches the whole checkpoint');
  assert.match(await page.textContent('#model-files .mf-status'), /GPT-2 is open: 2 blocks, 64 wide/);
  const pairs = want.pairs.filter((p) => p.index_b !== null);
  // the verdict table: every token of A against its partner in B, the mean last
  await page.waitForFunction((n) => document.querySelectorAll('#verdict-rows tr').length === n, want.pairs.length + 1);
  assert.deepEqual(await verdictColumn(page), [...want.pairs.map((p) => (p.index_b === null ? 'n/a' : p.allclose ? 'True' : 'False')),
    want.mean.allclose ? 'True' : 'False']);
  assert.equal(pairs.length > 0, true);
  // kept on the device, then a reload opens it with no file asked for
  await page.waitForFunction(() => /kept on this device \(\d/.test(document.querySelector('#model-files .mf-kept').textContent));
  assert.deepEqual(await kept(page), ['poslab-gpt2']);
  // at 1280 px the file picker and the kept line make the model's column
  // tall: the magnitude still stands right under the scheme it scales
  const gap = await page.evaluate(() => document.querySelector('[data-group="magnitude"]').getBoundingClientRect().top -
    Math.max(...[...document.querySelector('[data-group="scheme"]').children].map((e) => e.getBoundingClientRect().bottom)));
  assert.ok(gap >= 0 && gap < 20, `${gap} px between the scheme's choices and the magnitude`);
  let chooserOpened = false;
  page.on('filechooser', () => { chooserOpened = true; });
  await page.reload();
  await bodyHas(page, figure);
  assert.match(await page.textContent('#model-files .mf-status'), /GPT-2 is open/);
  assert.equal(chooserOpened, false);
  const memory = await page.evaluate(() => window.poslabDebug.wasmMemory());
  assert.ok(memory.some((m) => m.what === 'checkpoint' && m.bytes >= needed), JSON.stringify(memory));
  // Forget: gone from the device; the next reload asks again
  await page.click('#model-files .mf-forget');
  await page.waitForSelector('#model-files .mf-kept', { state: 'hidden' });
  assert.deepEqual(await kept(page), []);
  await page.reload();
  await page.waitForSelector('#model-files .mf-pick');
  await page.waitForTimeout(500);
  assert.equal(await page.textContent('#model-files .mf-status'), '');
  assert.equal(await page.isHidden('#checkpoint'), true);
  await done();
});

// GPT-2's page with nothing kept, gpt2-mini's folder and the CLI's figure for it.
async function gpt2Page(url = URL_GPT2) {
  const folder = checkpoint('gpt2-mini');
  const { page, done } = await openPage(site.context, site.origin, url);
  await page.waitForSelector('#model-files .mf-pick');
  await forgetAll(page);
  return { page, done, folder, figure: sig(cli(folder).mean_cosine_similarity) };
}

// The files open: the CLI's figure, nothing said next to the button, kept
// on the device (then forgotten, for the next test).
async function opens(page, figure) {
  await bodyHas(page, figure);
  assert.match(await page.textContent('#model-files .mf-status'), /GPT-2 is open/);
  assert.equal(await page.isHidden('#model-files .mf-error'), true);
  await page.waitForFunction(() => /kept on this device \(\d/.test(document.querySelector('#model-files .mf-kept').textContent));
  await forgetAll(page);
}

// A chosen file whose stream never answers (here the first config.json the
// page reads; Chromium once left such a read waiting for good) is read
// again after STALLED_READ_MS, and the files open with nothing said.
test('a chosen file whose stream never answers is read again by itself, and the files open', async () => {
  const { STALLED_READ_MS } = await import(`${ROOT}build/site/checkpoints.js`);
  const { page, done, folder, figure } = await gpt2Page();
  await page.evaluate(() => {
    const stream = Blob.prototype.stream;
    let stalled = false;
    Blob.prototype.stream = function () {
      if (stalled || this.name !== 'config.json') return stream.call(this);
      stalled = true;
      return new ReadableStream({ type: 'bytes', pull: () => new Promise(() => {}) });
    };
  });
  const chosen = Date.now();
  await choose(page, paths(folder));
  await opens(page, figure);
  assert.ok(Date.now() - chosen >= STALLED_READ_MS, `opened after ${Date.now() - chosen} ms`);
  await done();
});

// A read that stops moving anywhere else (here the checkpoint module's
// instantiation never ends) is given up after the page's stall limit (30 s;
// ?stall= shortens it here): said next to the button, the bar and Cancel
// gone; chosen again, the files open.
test('a read that stops moving: given up after the stall limit and said next to the button; chosen again, it opens', async () => {
  const { STALL_MS } = await import(`${ROOT}web/views/model_files.js`);
  assert.equal(STALL_MS, 30000);
  const STALL = 5000;
  const { page, done, folder, figure } = await gpt2Page(URL_GPT2.replace('?debug', `?debug&stall=${STALL}`));
  await page.evaluate(() => {
    const instantiate = WebAssembly.instantiate;
    let stalled = false;
    WebAssembly.instantiate = function (...args) {
      if (stalled) return instantiate.apply(this, args);
      stalled = true;
      return new Promise(() => {});
    };
  });
  const chosen = Date.now();
  await choose(page, paths(folder));
  await page.waitForFunction(() => !document.querySelector('#model-files .mf-error').hidden, null, { timeout: STALL + 15000 });
  const waited = Date.now() - chosen;
  assert.ok(waited >= STALL - 1000, `given up after ${waited} ms`);
  assert.equal(await page.textContent('#model-files .mf-error'), `Reading GPT-2’s files stopped: nothing was read for ${STALL / 1000} s. Choose them again.`);
  assert.equal(await page.textContent('#model-files .mf-status'), '');
  assert.equal(await page.isHidden('#model-files progress'), true);
  assert.equal(await page.isHidden('#checkpoint'), true, 'nothing shown of a model that did not open');
  await choose(page, paths(folder));
  await opens(page, figure);
  await done();
});

test('GPT-2 chosen from another model: until its files are read, the figures shown are dimmed and said to be the other model\'s', async () => {
  const { page, done } = await openPage(site.context, site.origin, `/#a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}`);
  await forgetAll(page);
  await page.check('input[name="model"][value="gpt2"]');
  await page.waitForSelector('#model-files .mf-pick');
  await page.waitForFunction(() => /once its files are read/.test(document.getElementById('stale-note').textContent));
  // said above the dimmed figures and in the result bar, in the page's flow:
  // a line floating over the page covered the files' progress and their error
  const status = () => page.evaluate(() => {
    const note = document.getElementById('stale-note');
    const cards = document.querySelector('#verdicts .cards');
    const floating = document.getElementById('run-status');
    return { text: note.textContent, bar: document.getElementById('rb-note').textContent,
      seen: !note.hidden && note.getBoundingClientRect().bottom <= cards.getBoundingClientRect().top,
      floating: !floating.hidden && getComputedStyle(floating).visibility === 'visible',
      stale: ['verdicts', 'plot'].map((id) => document.getElementById(id).classList.contains('stale')),
      opacity: getComputedStyle(document.querySelector('#verdicts .cards')).opacity };
  });
  const before = await status();
  assert.equal(before.text, 'GPT-2: its verdicts come once its files are read; the figures shown are still those of the one attention head');
  assert.equal(before.bar, before.text);
  assert.equal(before.seen, true, 'above the cards');
  assert.equal(before.floating, false, 'nothing floats over the files\' panel');
  assert.deepEqual(before.stale, [true, true]);
  assert.ok(Number(before.opacity) < 1);
  await choose(page, paths(checkpoint('gpt2-mini')));
  await bodyHas(page, sig(cli(checkpoint('gpt2-mini')).mean_cosine_similarity));
  const after = await status();
  assert.deepEqual(after.stale, [false, false]);
  assert.equal(after.seen, false);
  assert.equal(after.opacity, '1');
  await page.click('#model-files .mf-forget');
  await done();
});

test('a truncated, a missing or a wrong file: the CLI\'s line next to the button, nothing else changes', async () => {
  const folder = checkpoint('gpt2-mini');
  const cases = [
    ['truncated', damaged(folder, 'model.safetensors', { bytes: 6_000_000 }), FILES],
    ['not a checkpoint', damaged(folder, 'model.safetensors', { text: '<html>Not found</html>' }), FILES],
    ['config of another kind', damaged(folder, 'config.json', { text: '{"model_type": "bert"}' }), FILES],
    ['missing', folder, FILES.filter((f) => f !== 'vocab.json')],
  ];
  const { page, done } = await openPage(site.context, site.origin, URL_GPT2);
  await page.waitForSelector('#model-files .mf-pick');
  await forgetAll(page);
  const before = await page.evaluate(() => ({ hash: location.hash, panel: document.getElementById('checkpoint')?.hidden ?? true }));
  for (const [what, dir, files] of cases) {
    await choose(page, paths(dir, files));
    await page.waitForSelector('#model-files .mf-error:not([hidden])');
    const shown = await page.textContent('#model-files .mf-error');
    const expected = files.length === FILES.length ? pageLine(cli(dir).error, dir)
      : 'vocab.json: not among the files given; expected it in the checkpoint';
    assert.equal(shown, expected, what);
    // and plain words over it for the mistakes that come most often
    const advice = await page.evaluate(() => { const n = document.querySelector('#model-files .mf-advice'); return n.hidden ? null : n.textContent; });
    assert.equal(advice, {
      truncated: 'model.safetensors is shorter than its own header says: its download was probably cut short. Download it again.',
      'not a checkpoint': 'model.safetensors is not a safetensors file (a web page saved in its place?). Download it again from Hugging Face.',
      'config of another kind': 'This config.json is not GPT-2\'s: the lab opens GPT-2-family models (model_type "gpt2").',
      missing: 'These are not all of a GPT-2 checkpoint\'s files: choose config.json, model.safetensors, vocab.json and merges.txt together, or their folder.',
    }[what], what);
    const after = await page.evaluate(() => ({ hash: location.hash, panel: document.getElementById('checkpoint')?.hidden ?? true }));
    assert.deepEqual(after, before, what);
    assert.equal(await page.isHidden('#model-files .mf-progress'), true, what);
    assert.equal(await page.textContent('#model-files .mf-status'), '', what);
    assert.deepEqual(await kept(page), [], `${what}: nothing kept`);
    assert.equal((await page.evaluate(() => window.poslabDebug.wasmMemory())).some((m) => m.what === 'checkpoint'), false, what);
  }
  // the right files after all that: the error goes, the model opens
  await choose(page, paths(folder));
  await bodyHas(page, sig(cli(folder).mean_cosine_similarity));
  assert.equal(await page.isHidden('#model-files .mf-error'), true);
  assert.equal(await page.isHidden('#model-files .mf-advice'), true);
  await page.click('#model-files .mf-forget');
  await page.waitForSelector('#model-files .mf-kept', { state: 'hidden' });
  await done();
});

// GPT-2 small's 548 MB are read once to the end: Cancel is tried a few
// bar updates into a first read, and the second read is the one timed.
test('GPT-2 small (548 MB): Cancel leaves it as it was; the bar every 200 ms, the lab answers meanwhile, then the core\'s figure', async (t) => {
  const folder = checkpoint('gpt2-small');
  const { page, done } = await openPage(site.context, site.origin, URL_GPT2);
  await page.waitForSelector('#model-files .mf-pick');
  await forgetAll(page);
  const before = await page.evaluate(() => location.hash);
  await recordProgress(page);
  await choose(page, paths(folder));
  await page.waitForFunction(() => window.__mf.filter((s) => s.value > 0).length >= 5);
  await page.click('#model-files .mf-cancel');
  await page.waitForSelector('#model-files .mf-progress', { state: 'hidden' });
  // as it was: no model, no words, nothing kept, no memory held
  assert.equal(await page.textContent('#model-files .mf-status'), '');
  assert.equal(await page.isHidden('#model-files .mf-error'), true);
  assert.equal(await page.isHidden('#model-files .mf-cancel'), true);
  assert.equal(await page.evaluate(() => location.hash), before);
  assert.equal(await page.isHidden('#checkpoint'), true);
  assert.equal((await page.evaluate(() => window.poslabDebug.wasmMemory())).some((m) => m.what === 'checkpoint'), false);
  await page.waitForTimeout(1000);
  assert.deepEqual(await kept(page), []);
  // then the whole read: a fifth of the way in, the causal switch answers
  // while the read goes on; the bar moves every 200 ms; the core's figure
  await page.evaluate(() => { window.__mf = []; });
  const want = cli(folder);
  await choose(page, paths(folder));
  await page.waitForFunction(() => window.__mf.some((s) => s.value > s.max / 5));
  const still = () => page.evaluate(() => { const s = window.__mf.at(-1); return s.value > 0 && s.value < s.max; });
  await page.click('label:has(#causal)');
  await page.waitForFunction(() => /causal=0/.test(location.hash), null, { timeout: 3000 });
  assert.ok(await still(), `the switch answered only once the read was over: ${JSON.stringify(await page.evaluate(() => window.__mf.slice(-3)))}`);
  await page.click('label:has(#causal)');
  await page.waitForFunction((h) => location.hash === h, before, { timeout: 3000 });
  assert.ok(await still(), `the switch answered only once the read was over: ${JSON.stringify(await page.evaluate(() => window.__mf.slice(-3)))}`);
  await bodyHas(page, sig(want.mean_cosine_similarity), 120000);
  const seen = await page.evaluate(() => window.__mf);
  // (its first half: the switch's clicks included, as long as a shared machine keeps quiet)
  const at = seen.filter((s) => s.value > 0 && s.value <= s.max / 2).map((s) => s.t);
  const gaps = at.slice(1).map((x, i) => x - at[i]).sort((x, y) => x - y);
  const p95 = gaps[Math.floor(gaps.length * 0.95)];
  t.diagnostic(`${at.length} bar updates in the first half of the read, gaps: 95th percentile ${p95.toFixed(0)} ms, longest ${gaps.at(-1).toFixed(0)} ms`);
  assert.ok(at.length >= 5, `the bar moved ${at.length} times`);
  // every 200 ms: the 95th percentile is held to it (a bar that never moves,
  // or moves every 500 ms, fails); one gap of a few hundred ms comes and goes
  // with the other work on a shared machine, so the longest is held to 1 s
  // here and reported by the bench (tests/bench/model_files.mjs)
  assert.ok(p95 <= 200 && gaps.at(-1) <= 1000, `gaps: 95th percentile ${p95.toFixed(0)} ms, longest ${gaps.at(-1).toFixed(0)} ms`);
  assert.match(await page.textContent('#model-files .mf-status'), /GPT-2 is open: 12 blocks, 768 wide, 124M parameters/);
  await page.waitForFunction(() => /kept on this device \(\d/.test(document.querySelector('#model-files .mf-kept').textContent), null, { timeout: 120000 });
  // Slider steps on GPT-2 small: its runs (a third of a second each) go in
  // steps of one block with the page's input between, a newer step dropping
  // the run before it; the last step's verdicts are the core's.
  // The render that shows a run's verdicts leaves the chart to a task
  // after the next frame (drawn in the same task, Chart.js would lay out
  // the sections that render rewrote): each draw of the chart (or of its
  // marker, on a copy of the chart) and each change of the verdicts' busy
  // state is stamped with the count of animation frames so far.
  // (its curves first, so that a step moves the marker on their copy)
  await page.waitForFunction(() => document.getElementById('plot').getAttribute('aria-busy') === 'false', null, { timeout: 120000 });
  await page.evaluate(() => {
    const order = window.__order = { frames: 0, draws: [], busy: [] };
    const frame = () => { order.frames += 1; requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
    const chart = window.Chart.getChart(document.querySelector('#plot canvas'));
    const draw = chart.draw;
    chart.draw = function (...args) { order.draws.push(order.frames); return draw.apply(this, args); };
    const copy = chart.ctx.drawImage;
    chart.ctx.drawImage = function (...args) { order.draws.push(order.frames); return copy.apply(this, args); };
    const verdicts = document.getElementById('verdicts');
    new MutationObserver(() => order.busy.push([order.frames, verdicts.getAttribute('aria-busy')]))
      .observe(verdicts, { attributes: true, attributeFilter: ['aria-busy'] });
  });
  const runsBefore = await page.evaluate(() => window.poslabDebug.transformerRuns());
  await page.focus('#scale-slider');
  for (let k = 0; k < 8; k++) await page.keyboard.press('ArrowLeft');
  const scale = await page.inputValue('#scale-text');
  const moved = cli(folder, '--scale', scale);
  await bodyHas(page, sig(moved.mean_cosine_similarity), 120000);
  const shownAt = await page.evaluate(() => window.__order.busy.findLast(([, busy]) => busy === 'false')[0]);
  await page.waitForFunction((f) => window.__order.draws.some((d) => d >= f), shownAt, { timeout: 30000 });
  await page.waitForTimeout(500);
  const { draws } = await page.evaluate(() => window.__order);
  assert.ok(!draws.includes(shownAt) && draws.some((d) => d > shownAt),
    `the chart was drawn in the verdicts' task, or not after it (verdicts at frame ${shownAt}, chart at ${draws})`);
  const runs = await page.evaluate(() => window.poslabDebug.transformerRuns());
  t.diagnostic(`8 slider steps to ${scale}: ${runs.asked - runsBefore.asked} runs in steps asked, ${runs.dropped - runsBefore.dropped} dropped for a newer one`);
  assert.ok(runs.asked - runsBefore.asked >= 2 && runs.finished > runsBefore.finished, `runs in steps: ${JSON.stringify([runsBefore, runs])}`);
  await page.click('#model-files .mf-forget');
  await page.waitForSelector('#model-files .mf-kept', { state: 'hidden' });
  await done();
});

// Files dragged from the desktop onto the page: the page takes the drop
// (else the browser leaves the lab to show the file) and opens them as
// GPT-2, choosing GPT-2 first when another model is shown, even before
// the picker's code was ever loaded; not where a teacher hid the model
// choice.
const dropOn = async (page, files) => {
  await page.evaluate(() => {
    const input = Object.assign(document.createElement('input'), { type: 'file', multiple: true, id: 'dropped' });
    input.hidden = true;
    document.body.append(input);
  });
  await page.setInputFiles('#dropped', files);
  return page.evaluate(() => {
    const data = new DataTransfer();
    for (const f of document.getElementById('dropped').files) data.items.add(f);
    const over = new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true });
    document.querySelector('main').dispatchEvent(over);
    document.querySelector('main').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    return over.defaultPrevented; // the page takes the drop
  });
};
test('files dropped on the page open GPT-2, chosen for them if another model is; left alone where the model choice is hidden', async () => {
  const folder = checkpoint('gpt2-mini');
  const want = sig(cli(folder).mean_cosine_similarity);
  const first = await openPage(site.context, site.origin, URL_GPT2);
  await first.page.waitForSelector('#model-files .mf-pick');
  await forgetAll(first.page);
  assert.equal(await dropOn(first.page, paths(folder)), true);
  await bodyHas(first.page, want);
  await first.page.waitForFunction(() => /kept on this device \(\d/.test(document.querySelector('#model-files .mf-kept').textContent));
  await first.page.click('#model-files .mf-forget');
  await first.page.waitForSelector('#model-files .mf-kept', { state: 'hidden' });
  await first.done();

  const head = URL_GPT2.replace('&model=gpt2', '');
  const { page, done } = await openPage(site.context, site.origin, head);
  await page.waitForSelector('#verdicts .card-verdict');
  assert.equal(await page.$('#model-files .mf-pick'), null, 'the picker\'s code is not loaded yet');
  assert.equal(await dropOn(page, paths(folder)), true, 'the head\'s page takes the drop');
  assert.equal(await page.isChecked('input[name="model"][value="gpt2"]'), true, 'GPT-2 is chosen for the files');
  await bodyHas(page, want);
  assert.match(page.url(), /model=gpt2/);
  await page.waitForFunction(() => /kept on this device \(\d/.test(document.querySelector('#model-files .mf-kept').textContent));
  await page.click('#model-files .mf-forget');
  await page.waitForSelector('#model-files .mf-kept', { state: 'hidden' });
  await done();

  const hidden = await openPage(site.context, site.origin, head.replace('/?debug', '/?debug&embed&hide=model'));
  await hidden.page.waitForSelector('#verdicts .card-verdict');
  assert.equal(await dropOn(hidden.page, paths(folder)), false, 'with the model choice hidden, the drop is left to the browser');
  assert.equal(await hidden.page.isChecked('input[name="model"][value="head"]'), true);
  await hidden.done();
});

test('a model too large for the browser: the wrapper\'s line, said before anything is allocated', async () => {
  const dir = tooLarge();
  let said;
  const lab = await createLab();
  await lab.openCheckpoint({ url: pathToFileURL(`${dir}/`).href }).catch((e) => { said = e.message; });
  lab.dispose();
  assert.match(said, /its weights need 5\.80 GiB; WebAssembly memory holds at most 4 GiB/);
  const { page, done } = await openPage(site.context, site.origin, URL_GPT2);
  await page.waitForSelector('#model-files .mf-pick');
  await forgetAll(page);
  const before = await page.evaluate(() => window.poslabDebug.wasmMemory());
  await choose(page, paths(dir));
  await page.waitForSelector('#model-files .mf-error:not([hidden])');
  assert.equal(await page.textContent('#model-files .mf-error'), said);
  assert.deepEqual(await page.evaluate(() => window.poslabDebug.wasmMemory()), before, 'no memory taken');
  assert.equal(await page.isHidden('#checkpoint'), true);
  await done();
});

test('a folder chosen (webkitdirectory): its files are found; too little quota to keep them is said, the model stays open', async () => {
  const folder = checkpoint('gpt2-mini');
  const { page, done } = await openPage(site.context, site.origin, URL_GPT2);
  await page.waitForSelector('#model-files .mf-pick');
  await forgetAll(page);
  // this site may keep 1 MB: the 15 MB of files do not fit
  const cdp = await site.context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: site.origin, quotaSize: 1e6 });
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#model-files .mf-folder')]);
  await chooser.setFiles(folder); // the folder itself
  await bodyHas(page, sig(cli(folder).mean_cosine_similarity));
  await page.waitForSelector('#model-files .mf-error:not([hidden])');
  // Chromium says the quota (the files take 15 MB; the site may keep 1 MB),
  // or, depending on when the override bites, that a file could not be read
  const said = await page.textContent('#model-files .mf-error');
  assert.match(said, /^not kept on this device: (the files take 15 MB; the browser lets this site keep \d+\.?\d* MB|.*could not be read.*)$/);
  assert.match(await page.textContent('#model-files .mf-status'), /GPT-2 is open/);
  assert.equal(await page.isHidden('#model-files .mf-kept'), true);
  assert.deepEqual(await kept(page), []);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: site.origin });
  await done();
});

test('a link to GPT-2 in a browser with no files kept: the note says why, and no empty cards or chart are shown', async () => {
  const context = await site.browser.newContext();
  const { page, done } = await openPage(context, site.origin, '/#model=gpt2');
  await page.waitForFunction(() => !document.getElementById('stale-note').hidden);
  const seen = await page.evaluate(() => {
    const shown = (sel) => { const n = document.querySelector(sel); return Boolean(n) && n.getClientRects().length > 0; };
    return { note: document.getElementById('stale-note').textContent, bar: document.getElementById('rb-note').textContent,
      cards: shown('#verdicts .cards'), table: shown('.verdict-table'), chart: shown('#plot'), follow: shown('#plot-word'),
      barItems: shown('#rb-word'), magnitude: document.getElementById('magnitude-what').textContent,
      exports: [...document.querySelectorAll('#export button')].map((b) => b.disabled), exportHint: document.getElementById('export-hint').textContent };
  });
  // (Copy as NumPy said "Could not write the script: model: "checkpoint" runs on an opened checkpoint")
  assert.deepEqual(seen.exports, [true, true, true, true]);
  assert.equal(seen.exportHint, 'The script and the downloads come with this model’s own figures.');
  delete seen.exports;
  delete seen.exportHint;
  assert.deepEqual(seen, { note: 'GPT-2: its verdicts come once its files are read', bar: 'GPT-2: its verdicts come once its files are read',
    cards: false, table: false, chart: false, follow: false, barItems: false,
    magnitude: '(a trained model’s position table: 1 is the table as trained)' });
  // the one head: its figures, and the magnitude's words for its schemes
  await page.check('input[name="model"][value="head"]');
  await page.waitForFunction(() => document.querySelector('#verdicts .cards').getClientRects().length > 0);
  assert.equal(await page.textContent('#magnitude-what'), '(RoPE: its angle; ALiBi: its distance penalty)');
  assert.deepEqual(await page.$$eval('#export button', (b) => b.map((x) => x.disabled)), [false, false, false, false]);
  assert.match(await page.textContent('#export-hint'), /same seed, same draws/);
  assert.equal(await page.isHidden('#stale-note'), true);
  await done();
  await context.close();
});
