// dist/poslab.html from disk in Chromium: the student's walk
// (single_file.mjs), offline, with and without WebAssembly SIMD, and what
// makes it one file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, ARTIFACTS, launch } from './harness.mjs';
const { sig } = await import(`${ROOT}web/app/format.js`);
import { SINGLE_FILE, makeSingleFile, copySingleFile, watchOffline, settled, verdictRows, walkSingleFile } from './single_file.mjs';

let browser;
let copy;
before(async () => {
  makeSingleFile();
  copy = copySingleFile();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  copy?.remove();
});

test('dist/poslab.html from disk, alone in its folder: the student\'s path, offline', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.setOffline(true);
  const page = await context.newPage();
  await walkSingleFile(page, copy.url);
  await page.screenshot({ path: path.join(ARTIFACTS, 'single-file.png'), fullPage: false });
  await context.close();
});

test('without WebAssembly SIMD the single file runs its second core, with the same figures', async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
  // an engine without SIMD refuses the probe poslab.js validates; compile is
  // watched to see which of the two cores the page then builds
  await context.addInitScript(() => {
    window.compiledBytes = [];
    const { compile } = WebAssembly;
    WebAssembly.validate = () => false;
    WebAssembly.compile = (bytes, ...rest) => { window.compiledBytes.push(bytes.byteLength); return compile(bytes, ...rest); };
  });
  const page = await context.newPage();
  await walkSingleFile(page, copy.url);
  const sizes = { simd: statSync(path.join(ROOT, 'build/site/poslab.wasm')).size,
    nosimd: statSync(path.join(ROOT, 'build/site/poslab-nosimd.wasm')).size };
  // the page's core and the Why panel's own lab: both the fallback
  assert.deepEqual(await page.evaluate(() => window.compiledBytes), [sizes.nosimd, sizes.nosimd]);
  await page.screenshot({ path: path.join(ARTIFACTS, 'single-file-375.png'), fullPage: false });
  await context.close();
});

test('the single file is one file: workers from its own bytes, no reference to another file, a policy that fetches nothing', async () => {
  const context = await browser.newContext();
  // every worker the page starts, even one the browser refused at once
  await context.addInitScript(() => {
    window.workersTried = [];
    const Native = window.Worker;
    window.Worker = function Worker(url, options) { window.workersTried.push([String(url), options?.type ?? 'classic']); return new Native(url, options); };
  });
  const page = await context.newPage();
  const problems = watchOffline(page, copy.url);
  await page.goto(`${copy.url}#pos=1&a=the+cat+chased+the+mouse&b=the+mouse+chased+the+cat&dim=64`);
  await settled(page);
  // the chart's sweep workers (a second starts with the first sweep sent to them), started from a
  // blob: URL of the file's own code (a classic script)
  const tried = await page.evaluate(() => window.workersTried);
  assert.ok(tried.length >= 1 && tried.length <= 2, `${tried.length} workers`);
  for (const [url, type] of tried) {
    assert.match(url, /^blob:/);
    assert.equal(type, 'classic');
  }
  assert.ok(tried.every(([url]) => url === tried[0][0]), 'one blob for all');
  // ASCII all through (a document with one other character is decoded and parsed as two-byte text), and the
  // page still shows the characters it writes as references
  assert.match(await readFile(SINGLE_FILE, 'latin1'), /^[\0-\x7f]*$/);
  assert.equal(await page.textContent('.slider-ticks span'), '10\u207b\u2079');
  const markup = (await readFile(SINGLE_FILE, 'utf8')).replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/g, '');
  assert.deepEqual(markup.match(/\s(?:src|href)="(?!data:|#|\.\/")[^"]*"/g), null);
  const policy = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(policy, /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*' 'wasm-unsafe-eval'; style-src 'sha256-/);
  assert.match(policy, /; worker-src blob:;/);
  // the policy holds: a fetch from the page is refused
  assert.equal(await page.evaluate(() => fetch('data:text/plain,x').then(() => 'fetched', () => 'refused')), 'refused');
  problems.splice(0); // the refusal's own console line
  assert.equal((await verdictRows(page)).length, 6);
  assert.deepEqual(problems, []);
  await context.close();
});

// A transformer too large for a frame (32 words, d 256, 6 blocks: about 40 ms
// a run, 5 s for its chart) runs in the file's own workers: the page never
// blocks once it has started (it froze for 6.4 s when the file computed on
// the page's thread), and the verdicts and the chart's caption are the
// core's. Opening a 3.5 MB document is not that work: its loading and the
// page's start (decoding, parsing, compiling the script and both cores,
// until the "Loading the lab" line goes) take tasks of up to 130 ms on a
// 2-core EPYC at 2.1 GHz, and twice that on a slower or busier machine.
test('the single file runs a large transformer in its workers: no long task, the core\'s figures', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(() => {
    window.longTasks = [];
    window.started = null;
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks.push([e.startTime, Math.round(e.duration)]); })
      .observe({ type: 'longtask', buffered: true });
    new MutationObserver((changes, observer) => {
      if (!document.getElementById('startup')?.hidden) return;
      window.started = performance.now();
      observer.disconnect();
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['hidden'] });
  });
  const page = await context.newPage();
  const url = `${copy.url}?debug`; // poslabDebug: where the runs and sweeps were computed
  const problems = watchOffline(page, url);
  const words = Array.from({ length: 32 }, (_, i) => `w${i + 1}`);
  await page.goto(`${url}#a=${words.join('+')}&b=${[...words].reverse().join('+')}&pos=1&scheme=rope&scale=1` +
    '&dim=256&heads=4&model=transformer&layers=6&word=0');
  await settled(page);
  const { runs, sweeps } = await page.evaluate(() => ({ runs: window.poslabDebug.transformerRuns(), sweeps: window.poslabDebug.sweeps() }));
  assert.ok(runs.finished >= 1, `runs in the worker: ${JSON.stringify(runs)}`);
  assert.equal(sweeps.page, 0, `the chart's sweeps on the page's thread: ${JSON.stringify(sweeps)}`);
  const { createLab } = await import(`${ROOT}build/site/poslab.js`);
  const lab = await createLab();
  const config = { sentence_a: words.join(' '), sentence_b: [...words].reverse().join(' '), scheme: 'rope', scale: 1,
    dim: 256, heads: 4, model: 'transformer', layers: 6 };
  const result = lab.run(config);
  const rows = await verdictRows(page);
  assert.deepEqual(rows.map((r) => r.allclose), [...result.pairs.map((p) => (p.allclose ? 'True' : 'False')), result.mean.allclose ? 'True' : 'False']);
  const threshold = lab.threshold(config, 0);
  const caption = await page.textContent('.chart-caption');
  assert.match(caption, new RegExp(`“w1” only below a magnitude of about ${sig(threshold, 2).replace('.', '\\.')}`));
  const { long, started } = await page.evaluate(() => ({ long: window.longTasks, started: window.started }));
  assert.ok(started > 0, 'the page started');
  const after = long.filter(([at]) => at >= started).map(([, ms]) => ms);
  console.log(`# started at ${Math.round(started)} ms; long tasks before ${long.filter(([at]) => at < started).map(([, ms]) => ms).join(', ')} ms, ` +
    `after ${after.join(', ')} ms; runs ${JSON.stringify(runs)}; sweeps ${JSON.stringify(sweeps)}`);
  assert.ok(after.every((ms) => ms < 200), `tasks of ${after.join(', ')} ms on the page's thread once it had started`);
  assert.deepEqual(problems, []);
  lab.dispose();
  await context.close();
});

// The models trained here from the one file opened from disk: it carries
// the checkpoint module and the three models (web/dist/single_file.mjs),
// decodes none of them at open, and reads gpt only when it is picked, as
// files (the path lab.openCheckpoint({files}) takes for GPT-2's own files);
// its figures are the native CLI's. Then GPT-2 (as a course host's folder,
// models/nope/ in GPT-2's layout) through the same carried copy.
test('the single file runs gpt from its own bytes, only once picked: the native CLI\'s numbers', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.setOffline(true);
  await context.addInitScript(() => {
    window.compiledBytes = [];
    window.decoded = [];
    const { compile } = WebAssembly;
    WebAssembly.compile = (bytes, ...rest) => { window.compiledBytes.push(bytes.byteLength); return compile(bytes, ...rest); };
    const { atob } = window;
    window.atob = (text) => { window.decoded.push(text.length); return atob(text); };
  });
  const page = await context.newPage();
  const problems = watchOffline(page, copy.url);
  const A = 'dog bites man . who bites ?';
  const B = 'man bites dog . who bites ?';
  await page.goto(`${copy.url}#a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}`);
  await settled(page);
  const size = (f) => statSync(path.join(ROOT, 'build/site', f)).size;
  const atOpen = await page.evaluate(() => ({ compiled: [...window.compiledBytes], decoded: [...window.decoded] }));
  assert.ok(atOpen.compiled.every((n) => n !== size('poslab-checkpoint.wasm')), 'no checkpoint module compiled at open');
  assert.ok(Math.max(...atOpen.decoded) < size('models/gpt/model.safetensors'), `decoded at open: ${atOpen.decoded}`);

  await page.check('input[name="model"][value="gpt"]');
  await page.waitForSelector('#lesson tbody tr');
  await settled(page);
  const after = await page.evaluate(() => ({ compiled: window.compiledBytes, decoded: window.decoded }));
  assert.ok(after.compiled.includes(size('poslab-checkpoint.wasm')));
  // the base64 of gpt's weights, decoded once picked; not nope's or bag's
  const b64 = (n) => Math.ceil(n / 3) * 4;
  assert.equal(after.decoded.filter((n) => n === b64(size('models/gpt/model.safetensors'))).length, 1);
  const cli = JSON.parse(spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${ROOT}models/gpt`,
    '--a', A, '--b', B, '--json'], { encoding: 'utf8' }).stdout);
  const row = await page.$$eval('#lesson tr[data-key="both"] td', (tds) => tds.map((td) => td.textContent));
  const paired = cli.pairs.filter((p) => p.index_b !== null);
  assert.deepEqual(row.slice(0, 2), [`${paired.filter((p) => p.allclose).length} of ${paired.length}`, sig(cli.mean_cosine_similarity)]);
  assert.match(row[2], new RegExp(`^${cli.next_a[0].text.trim()} `));
  await page.screenshot({ path: path.join(ARTIFACTS, 'single-file-gpt.png'), fullPage: false });

  // Copy as NumPy: the script reads gpt's files, which this file carries
  // with no folder beside it; the dialog saves its own copies, byte for
  // byte the site's, and the script run on them prints the page's figure.
  await page.click('#copy-numpy');
  await page.waitForSelector('#numpy-dialog[open]');
  assert.match(await page.textContent('#numpy-note'), /This page is one file that carries them inside it, with no folder beside it: save the three below into a folder named gpt/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'single-file-numpy-dialog.png') });
  const folder = path.join(ROOT, 'build', 'single-file-numpy', 'gpt');
  await mkdir(folder, { recursive: true });
  for (const file of ['config.json', 'model.safetensors', 'vocab.json']) {
    const [saved] = await Promise.all([page.waitForEvent('download'), page.click(`#numpy-files button:text-is("Save ${file}")`)]);
    assert.equal(saved.suggestedFilename(), file);
    await saved.saveAs(path.join(folder, file));
    assert.ok((await readFile(path.join(folder, file))).equals(await readFile(path.join(ROOT, 'build/site/models/gpt', file))), `${file} as the site has it`);
  }
  await writeFile(path.join(folder, '..', 'poslab_gpt.py'), await page.inputValue('#numpy-code'));
  const printed = spawnSync('/usr/bin/python3', [path.join(folder, '..', 'poslab_gpt.py'), folder], { encoding: 'utf8' });
  assert.equal(printed.status, 0, printed.stderr);
  assert.equal(sig(Number(printed.stdout.match(/^cosine similarity of the mean last hidden state: (\S+)$/m)[1])), sig(cli.mean_cosine_similarity));
  await page.click('#numpy-close');

  // GPT-2 from a folder: the single file has none beside it, only its own copies
  await page.evaluate(() => { window.location.hash = `${window.location.hash.slice(1).replace(/model=gpt/, 'model=gpt2')}&checkpoint=models/nope/`; });
  await page.waitForFunction(() => /^gpt2: /.test(document.querySelector('#checkpoint .ck-size')?.textContent ?? ''), null, { timeout: 30000 });
  const nope = JSON.parse(spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${ROOT}models/nope`,
    '--a', A, '--b', B, '--json'], { encoding: 'utf8' }).stdout);
  await page.waitForFunction((want) => document.querySelector('#checkpoint .ck-figure-value')?.textContent === want, sig(nope.mean_cosine_similarity), { timeout: 30000 });
  assert.equal(await page.textContent('#checkpoint .ck-figure-name'), 'cosine similarity of the mean last hidden state');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the single file opens GPT-2 from the student\'s files (from disk, offline): the native CLI\'s figure', async () => {
  const { A, B, FILES, checkpoint, cli } = await import('./gpt2_files.mjs');
  const folder = checkpoint('gpt2-mini');
  const want = cli(folder);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.setOffline(true);
  const page = await context.newPage();
  const problems = watchOffline(page, copy.url);
  await page.goto(`${copy.url}#a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}&model=gpt2`);
  await page.waitForSelector('#model-files .mf-pick');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#model-files .mf-pick')]);
  await chooser.setFiles(FILES.map((f) => path.join(folder, f)));
  await page.waitForFunction((t) => document.body.innerText.includes(t), sig(want.mean_cosine_similarity), { timeout: 60000 });
  assert.match(await page.textContent('#model-files .mf-status'), /GPT-2 is open/);
  assert.deepEqual(problems, []);
  await context.close();
});
