// Shared by the browser tests: a static server for a folder with optional
// extra headers, Chromium with the flags that work on these machines, one
// site-and-browser setup per test file (useSite), dist/ made once for the
// suite (distBuilt), and a watcher that collects everything a page should
// never do. Not a test file itself (make
// test-browser runs *.test.mjs).
import assert from 'node:assert/strict';
import { before, after } from 'node:test';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SITE = path.join(ROOT, 'build', 'site');
export const ARTIFACTS = path.join(ROOT, 'tests', 'artifacts');
export const DIST = path.join(ROOT, 'dist');

// dist/ as `make test-browser` made it before the suite (`make dist`, once);
// made here only when it is missing, older than build/site or made for a
// SITE_URL, as when a test file runs by itself.
export function distBuilt() {
  const single = path.join(DIST, 'poslab.html');
  const site = path.join(SITE, 'index.html');
  const current = existsSync(single) && existsSync(site) && statSync(single).mtimeMs >= statSync(site).mtimeMs &&
    !readFileSync(path.join(DIST, 'index.html'), 'utf8').includes('name="poslab-site"');
  if (!current) {
    // after `make site`, only the dist recipe runs
    const made = spawnSync('make', ['--no-print-directory', ...(existsSync(site) ? ['-o', 'site'] : []), 'dist'],
      { cwd: ROOT, encoding: 'utf8', timeout: 600000 });
    assert.equal(made.status, 0, `make dist failed:\n${made.stdout}\n${made.stderr}`);
  }
  return DIST;
}

// The policy a course site could serve the lab under: nothing inline, no
// eval, only WebAssembly compilation. frame-ancestors only works as a header.
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
  "img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors *";

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
  '.md': 'text/plain; charset=utf-8',
};

// Serves `dir` on host:free port; `headers` go on every HTML response.
// `pages` maps extra paths to HTML text (for a parent page that frames the lab).
export function serveDir(dir, { host = '127.0.0.1', headers = {}, pages = {} } = {}) {
  return new Promise((resolve) => {
    const s = http.createServer(async (req, res) => {
      try {
        let file = decodeURIComponent(new URL(req.url, 'http://x').pathname);
        if (pages[file] !== undefined) {
          res.writeHead(200, { 'content-type': MIME['.html'] }).end(pages[file]);
          return;
        }
        if (file.endsWith('/')) file += 'index.html';
        const full = path.join(dir, path.normalize(file));
        if (!full.startsWith(dir + path.sep)) throw new Error('outside the site');
        const body = await readFile(full);
        const type = MIME[path.extname(full)] ?? 'application/octet-stream';
        // as a static server does: a checkpoint's files are read by their size
        res.writeHead(200, { 'content-type': type, 'content-length': body.length, ...(type.startsWith('text/html') ? headers : {}) });
        res.end(body);
      } catch {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    });
    s.listen(0, host, () => resolve({ server: s, origin: `http://${host}:${s.address().port}` }));
  });
}

// Chromium's headless mode is the full browser without a screen: every new
// page is a new window, and each window starts a renderer of its own for the
// omnibox popup (chrome://omnibox-popup.top-chrome), about half a second of
// CPU that a page nobody can type into never uses. On two cores it competed
// with the page being measured: a page load's first paint took 350 ms with
// it and 250 ms without. A student opening the lab in a running browser
// never pays it, so neither do the tests and the benchmark.
const NO_OMNIBOX_POPUP = '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup';

// `args`: more of Chromium's flags (gc_reads.test: --js-flags=--expose-gc).
export function launch({ args = [] } = {}) {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', NO_OMNIBOX_POPUP, ...args],
  });
}

// A test file's site and browser: before its tests, serves `dir` (the built
// site by default; `headers`, `pages` as serveDir takes them), launches
// Chromium (`args` as launch() takes them) and, with `context` (newContext's
// options), opens one browser context for the file, granted `permissions`
// on the site, then awaits setup(site) (node:test starts a file's before()
// hooks together, so more set-up belongs here, not in a before() of its
// own); after them, closes it all. Returns {origin, browser, context},
// filled in before the first test runs.
export function useSite({ dir = SITE, headers, pages, context, permissions, setup, args } = {}) {
  const site = { origin: null, browser: null, context: null, server: null };
  before(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    ({ server: site.server, origin: site.origin } = await serveDir(dir, { headers, pages }));
    site.browser = await launch({ args });
    if (context) site.context = await site.browser.newContext(context);
    if (permissions) await site.context.grantPermissions(permissions, { origin: site.origin });
    await setup?.(site);
  });
  after(async () => {
    await site.browser?.close();
    site.server?.close();
  });
  return site;
}

// Collects console errors, uncaught exceptions, dialogs (alert, confirm) and
// requests to hosts other than `origins` on `page` and all its frames.
export function watch(page, origins) {
  const allowed = new Set([origins].flat());
  const problems = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!allowed.has(u.origin) && u.protocol !== 'data:' && u.protocol !== 'blob:') {
      problems.push(`request to another host: ${u.href.slice(0, 100)}`);
    }
  });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text().slice(0, 300)}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.stack.slice(0, 800)}`)); // the stack says where
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url().slice(0, 100)}`); });
  page.on('requestfailed', (r) => {
    // ERR_ABORTED is a request the browser dropped itself, such as the
    // favicon of a page the test navigates away from: not a failure.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`failed request: ${r.url().slice(0, 100)} ${r.failure()?.errorText}`);
  });
  page.on('dialog', (d) => { problems.push(`dialog opened: ${d.message().slice(0, 100)}`); d.dismiss().catch(() => {}); });
  return problems;
}

// Whether the lab has drawn the current state, chart and sections included.
// Evaluated in the page: by settled() here, and by the Firefox, WebKit and
// single-file walks through their own drivers. Every part still catching
// up says aria-busy: the verdicts while a transformer runs in its worker,
// the chart, the lesson's runs, the table's rows and the sections out of
// sight (views/sight.js).
export function isSettled() {
  const root = document.documentElement;
  const busy = [...document.querySelectorAll('[aria-busy="true"]')].some((e) => !e.closest('[hidden]'));
  return root.dataset.ready !== undefined && root.dataset.hash !== 'pending' && root.dataset.loading === undefined && !busy;
}

// The lab has drawn the current state (isSettled). Works on a page or a frame.
export async function settled(target) {
  await target.waitForSelector('html[data-ready]', { state: 'attached' });
  await target.waitForFunction(isSettled);
}

// The verdict column of the table ("True", "False", "n/a"), the mean last.
export function verdictColumn(target) {
  return target.$$eval('#verdict-rows tr .verdict .text', (cells) => cells.map((c) => c.textContent));
}

// A small seeded generator (mulberry32), so every failure can be replayed.
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

// Opens `url` of the site at `origin` in a new page of `context`, waits for
// the verdicts and the chart; `done()` closes it and fails the test on any
// problem seen (console error, uncaught error, dialog, failed request or a
// request to another host).
export async function openPage(context, origin, url = '/', { width = 1280, height = 900, colorScheme = 'light' } = {}) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height });
  await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
  page.setDefaultTimeout(10000);
  const problems = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.origin !== origin && u.protocol !== 'data:' && u.protocol !== 'blob:') {
      problems.push(`request to another host: ${u.href.slice(0, 100)}`);
    }
  });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.stack.slice(0, 800)}`));
  page.on('dialog', (d) => { problems.push(`dialog opened: ${d.message()}`); d.dismiss(); });
  page.on('requestfailed', (r) => {
    const dropped = r.failure()?.errorText === 'net::ERR_ABORTED'; // by the browser itself, as above
    if (new URL(r.url()).origin === origin && !dropped) problems.push(`failed request: ${r.url()}`);
  });
  await page.goto(origin + url, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('html[data-ready]', { state: 'attached' });
  await settled(page);
  return {
    page,
    problems,
    async done() {
      await page.close();
      assert.deepEqual(problems, [], 'the page reported problems');
    },
  };
}

// Where magnitudes land on the chart's canvas, in canvas pixels, and the
// plotting area. Only this geometry comes from Chart.js (its log axis owns
// the mapping); what a test asserts is then read from the canvas's pixels.
export const chartGeometry = (page, magnitudes) => page.evaluate((values) => {
  const chart = window.Chart.getChart(document.getElementById('chart'));
  const ratio = chart.canvas.width / chart.width;
  const { left, right, top, bottom } = chart.chartArea;
  return { xs: values.map((v) => Math.round(chart.scales.x.getPixelForValue(v) * ratio)), ratio,
    area: { left: left * ratio, right: right * ratio, top: top * ratio, bottom: bottom * ratio } };
}, magnitudes);
