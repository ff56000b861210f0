// The dist/ folder from `make dist`, served by a server that knows nothing
// about the lab (Python's http.server), opened directly and inside an iframe
// on another origin, as a course page would embed it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, DIST, distBuilt, serveDir, launch, watch, settled, verdictColumn } from './harness.mjs';
import { iframeSnippet } from '../../web/views/embed_dialog.js';

let python;
let distOrigin; // http://127.0.0.1:<port>, Python
let parent; // the course page, on http://localhost:<port>
let browser;

// `python3 -m http.server 0` picks a free port and prints it.
function startPython(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`http.server did not start: ${out}`)), 10000);
    const read = (chunk) => {
      out += chunk;
      const m = /port (\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ child, origin: `http://127.0.0.1:${m[1]}` }); }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', reject);
  });
}

before(async () => {
  distBuilt();
  assert.ok(existsSync(path.join(DIST, 'index.html')) && existsSync(path.join(DIST, 'poslab.wasm')));
  ({ child: python, origin: distOrigin } = await startPython(DIST));
  const src = `${distOrigin}/?embed=1&hide=intro#pos=0&scheme=sinusoidal&scale=1`;
  const page = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Week 3: word order</title><link rel="icon" href="data:,"></head>' +
    `<body><main><h1>Week 3: word order</h1>${iframeSnippet(src, '1000', '1500')}</main></body></html>`;
  const served = await serveDir(path.join(ROOT, 'tests', 'browser'), { pages: { '/course.html': page } });
  parent = { server: served.server, origin: served.origin.replace('127.0.0.1', 'localhost') };
  browser = await launch();
});

after(async () => {
  await browser?.close();
  parent?.server.close();
  python?.kill();
});

function failedResponses(page) {
  const bad = [];
  page.on('response', (r) => { if (r.status() >= 400) bad.push(`${r.status()} ${r.url()}`); });
  page.on('requestfailed', (r) => bad.push(`failed ${r.url()}`));
  return bad;
}

test('dist/ works from a plain static server', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const problems = watch(page, distOrigin);
  const bad = failedResponses(page);
  await page.goto(`${distOrigin}/`);
  await settled(page);
  assert.deepEqual(await verdictColumn(page), ['True', 'True', 'True', 'True']);
  await page.check('#positions');
  await settled(page);
  assert.deepEqual(await verdictColumn(page), ['False', 'False', 'False', 'False']);
  assert.match(page.url(), /[#&]pos=1(&|$)/);
  assert.deepEqual(bad, []);
  assert.deepEqual(problems, []);
  await context.close();
});

// How the page and the sweep worker compiled the core: compileStreaming
// takes the response itself and needs the application/wasm MIME type;
// compile takes the bytes.
function countCompiles() {
  window.compiles = { streaming: 0, bytes: 0 };
  const { compileStreaming, compile } = WebAssembly;
  WebAssembly.compileStreaming = (...args) => { window.compiles.streaming++; return compileStreaming(...args); };
  WebAssembly.compile = (...args) => { window.compiles.bytes++; return compile(...args); };
}

test('the core compiles as it streams, and from bytes when a host serves .wasm under another MIME type', async () => {
  for (const type of ['application/wasm', 'application/octet-stream']) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(countCompiles);
    const served = [];
    await context.route('**/poslab.wasm', async (route) => {
      const response = await route.fetch();
      served.push(response.headers()['content-type']);
      await route.fulfill({ response, headers: { ...response.headers(), 'content-type': type } });
    });
    const page = await context.newPage();
    page.setDefaultTimeout(10000);
    const problems = watch(page, distOrigin);
    await page.goto(`${distOrigin}/#pos=1&scheme=learned`);
    await settled(page);
    assert.deepEqual(await verdictColumn(page), ['False', 'False', 'False', 'False'], type);
    // Python serves .wasm as application/wasm (the page's load, and the sweep
    // worker's if it has started by now).
    assert.ok(served.length >= 1 && served.every((t) => t === 'application/wasm'), String(served));
    const streaming = type === 'application/wasm';
    assert.deepEqual(await page.evaluate(() => window.compiles), { streaming: streaming ? 1 : 0, bytes: streaming ? 0 : 1 }, type);
    assert.deepEqual(problems, [], type);
    await context.close();
  }
});

test('a core that cannot load says so, in words', async () => {
  const cases = [
    [{ status: 404, contentType: 'text/plain', body: 'not found' }, /The lab could not start.*cannot load \/poslab\.wasm \(HTTP 404\)/],
    [{ status: 200, contentType: 'application/wasm', body: 'not WebAssembly' }, /The lab could not start.*expected magic word/],
  ];
  for (const [reply, message] of cases) {
    const context = await browser.newContext();
    await context.route('**/poslab.wasm', (route) => route.fulfill(reply));
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${distOrigin}/`);
    const notice = page.locator('#startup.failed');
    await notice.waitFor({ timeout: 10000 });
    assert.match(await notice.textContent(), message);
    assert.ok(errors.length >= 1, 'the error is on the console too');
    assert.equal(await page.locator('html[data-ready]').count(), 0, 'no verdicts were shown');
    await context.close();
  }
});

test('inside a cross-origin iframe the lab renders and responds', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const problems = watch(page, [distOrigin, parent.origin]);
  const bad = failedResponses(page);
  await page.goto(`${parent.origin}/course.html`);
  const frameElement = await page.waitForSelector('iframe');
  const frame = await frameElement.contentFrame();
  await settled(frame);
  // Really another origin: the parent cannot reach into the frame.
  assert.notEqual(new URL(frame.url()).origin, new URL(page.url()).origin);
  assert.equal(await page.evaluate(() => {
    try { return document.querySelector('iframe').contentDocument === null; } catch { return true; }
  }), true);

  const lab = page.frameLocator('iframe');
  assert.ok(await lab.locator('.site-header').isHidden(), 'embed mode');
  assert.deepEqual(await verdictColumn(frame), ['True', 'True', 'True', 'True']);
  await lab.locator('#positions').check();
  await settled(frame);
  assert.deepEqual(await verdictColumn(frame), ['False', 'False', 'False', 'False']);
  assert.match(frame.url(), /[#&]pos=1&scheme=sinusoidal&scale=1(&|$)/);
  await lab.locator('#sentence-a').fill('the cat chased the mouse');
  await lab.locator('#sentence-b').fill('the mouse chased the cat');
  await settled(frame);
  assert.equal((await verdictColumn(frame)).length, 6);
  await lab.locator('#scale-slider').focus();
  await lab.locator('#scale-slider').press('Home');
  await settled(frame);
  assert.equal(await lab.locator('#scale-text').inputValue(), '1e-9');
  assert.deepEqual(await verdictColumn(frame), Array(6).fill('True'), 'faint positions: True again');
  assert.match(await lab.locator('#open-full').getAttribute('href'), new RegExp(`^${distOrigin}/#a=the\\+cat`));
  assert.deepEqual(bad, []);
  assert.deepEqual(problems, []);
  await context.close();
});

// Grown to the lab's height by the snippet's script, the frame is taller
// than the window, and what the lab fixes to its edges (the result bar, a
// dialog) would sit at the frame's ends, off screen. The snippet tells the
// lab which part of the frame is in sight; they stand there.
test('in a frame grown to the lab\'s height, the result bar and a dialog stand in the part on screen', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const problems = watch(page, [distOrigin, parent.origin]);
  await page.goto(`${parent.origin}/course.html`);
  const frameElement = await page.waitForSelector('iframe');
  const frame = await frameElement.contentFrame();
  await settled(frame);
  await page.waitForFunction(() => document.querySelector('iframe').getBoundingClientRect().height > 1600);
  // the magnitude in the middle of the window, the verdict cards above it
  const at = await frame.evaluate(() => document.querySelector('[data-group="magnitude"]').getBoundingClientRect().top);
  const onPage = async (selector) => {
    const box = await frameElement.boundingBox();
    const r = await frame.evaluate((s) => { const b = document.querySelector(s).getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; }, selector);
    return { top: box.y + r.top, bottom: box.y + r.bottom };
  };
  for (const y of [at - 450, at - 300]) {
    await page.evaluate((y) => window.scrollTo(0, y), y + (await frameElement.boundingBox()).y + await page.evaluate(() => scrollY));
    await frame.waitForFunction(() => document.getElementById('result-bar').classList.contains('shown'));
    const cards = await onPage('#verdicts .cards');
    assert.ok(cards.bottom < 450, `the cards are above the window's middle (${Math.round(cards.bottom)})`);
    await frame.waitForTimeout(100); // (the page's next frame sends the part in sight)
    const bar = await onPage('#result-bar');
    assert.ok(Math.abs(bar.bottom - 900) <= 2 && bar.top > 700, `the bar at the window's foot: ${Math.round(bar.top)}-${Math.round(bar.bottom)}`);
  }
  // The snippet lets the frame use the clipboard: the script is copied.
  await frame.click('#copy-numpy');
  await frame.waitForFunction(() => /^Copied/.test(document.getElementById('export-status').textContent));
  // A trained model's script comes in a dialog (it names the model's files).
  await frame.check('input[name="model"][value="gpt"]');
  await settled(frame);
  await page.evaluate(() => window.scrollBy(0, 400));
  await frame.click('#copy-numpy');
  await frame.waitForSelector('#numpy-dialog[open]');
  await frame.waitForTimeout(100);
  const dialog = await onPage('#numpy-dialog');
  assert.ok(dialog.top >= 0 && dialog.bottom <= 900, `the dialog in the window: ${Math.round(dialog.top)}-${Math.round(dialog.bottom)}`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('make dist SITE_URL=... carries the published address: the single file opened from disk frames it', async () => {
  // made beside dist/ (DIST=), which the other tests read as it is
  const folder = path.join(ROOT, 'build', 'dist-site-url');
  const make = (...more) => spawnSync('make', ['--no-print-directory', '-o', 'site', 'dist', `DIST=${folder}`, ...more],
    { cwd: ROOT, encoding: 'utf8', timeout: 600000 });
  assert.notEqual(make('SITE_URL=javascript:alert(1)').status, 0, 'an address that is not http(s) is refused');
  const made = make('SITE_URL=https://example.org/poslab/');
  assert.equal(made.status, 0, made.stderr);
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${pathToFileURL(path.join(folder, 'poslab.html')).href}#pos=1`);
    await page.waitForSelector('html[data-ready="true"]');
    await page.click('#embed-open');
    await page.waitForSelector('#embed-dialog[open]');
    assert.ok(await page.isVisible('#embed-local'), 'the dialog says the page is on this computer');
    assert.equal(await page.inputValue('#embed-base'), 'https://example.org/poslab/');
    assert.match(await page.inputValue('#embed-jupyter'), /^from IPython\.display import IFrame\nIFrame\("https:\/\/example\.org\/poslab\/\?embed=1#/);
    assert.match(await page.inputValue('#embed-code'), /<iframe src="https:\/\/example\.org\/poslab\/\?embed=1#/);
    await context.close();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
