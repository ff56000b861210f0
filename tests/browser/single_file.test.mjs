// dist/poslab.html, the whole lab in one file, opened from disk (file://) in
// a folder that holds nothing else, as a student who downloaded it from a
// course page would. walkSingleFile() takes a page of playwright-core or
// puppeteer-core (it uses only what both have), so the other browsers' tests
// can walk the same path: copySingleFile() gives the file:// URL to open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, ARTIFACTS, launch } from './harness.mjs';

export const SINGLE_FILE = path.join(ROOT, 'dist', 'poslab.html');

// Builds dist/poslab.html (after `make site`, only the dist step runs).
export function makeSingleFile() {
  const args = existsSync(path.join(ROOT, 'build', 'site', 'index.html')) ? ['-o', 'site', 'dist'] : ['dist'];
  const made = spawnSync('make', ['--no-print-directory', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 600000 });
  assert.equal(made.status, 0, `make dist failed:\n${made.stdout}\n${made.stderr}`);
}

// A fresh temporary folder with only poslab.html in it: { url, remove() }.
export function copySingleFile() {
  const dir = mkdtempSync(path.join(tmpdir(), 'poslab-one-file-'));
  copyFileSync(SINGLE_FILE, path.join(dir, 'poslab.html'));
  assert.deepEqual(readdirSync(dir), ['poslab.html']);
  return { url: pathToFileURL(path.join(dir, 'poslab.html')).href, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// What the page must never do from disk: an error on the console, an
// uncaught exception, or a request for anything but the file itself (data:
// and blob: URLs are the page's own bytes).
export function watchOffline(page, fileUrl) {
  const problems = [];
  page.on('request', (r) => {
    const url = r.url();
    if (url.split('#')[0] !== fileUrl.split('#')[0] && !/^(data|blob):/.test(url)) problems.push(`request: ${url.slice(0, 100)}`);
  });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text().slice(0, 300)}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${String(e?.message ?? e).slice(0, 300)}`));
  return problems;
}

// Polls `fn` in the page until it is truthy: playwright's waitForFunction
// and puppeteer's take their options in different places.
async function until(page, fn, what, timeout = 20000) {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(fn))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => { setTimeout(resolve, 50); });
  }
}

// The state is drawn, chart included (harness.mjs's settled()).
const settled = (page) => until(page, () => {
  const root = document.documentElement;
  const plot = document.getElementById('plot');
  return root.hasAttribute('data-ready') && root.dataset.hash !== 'pending' && root.dataset.loading === undefined &&
    (plot.hidden || plot.getAttribute('aria-busy') !== 'true') &&
    document.querySelector('.verdict-table').getAttribute('aria-busy') !== 'true';
}, 'the lab to settle');

const verdictRows = (page) => page.evaluate(() => [...document.querySelectorAll('#verdict-rows tr')].map((r) => ({
  word: r.querySelector('.w').textContent,
  allclose: r.querySelector('.verdict .text').textContent,
  cosine: r.querySelector('.cosine .num').textContent,
})));

// Pixels of ink on the chart's canvas (not background), and the number of
// points Chart.js was given.
const chartInk = (page) => page.evaluate(() => {
  const canvas = document.getElementById('chart');
  const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  let ink = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] > 0) ink++;
  const chart = window.Chart?.getChart(canvas);
  return { ink, points: chart ? chart.data.datasets.reduce((n, d) => n + d.data.length, 0) : 0 };
});

// A student's path through the single file at `url` on `page`: True on
// open; positional information on gives False and 0.9416 for "man"; the
// chart is drawn; the parts the site loads on demand (the Why panel, the
// guided tour, the heatmaps) open from inside the file. Returns what it saw.
export async function walkSingleFile(page, url) {
  const problems = watchOffline(page, url);
  await page.goto(url);
  await settled(page);
  const opened = await verdictRows(page);
  assert.deepEqual(opened.map((r) => r.allclose), ['True', 'True', 'True', 'True']);
  // a click on the switch itself, as a student's (the input may sit under its styled track)
  await page.evaluate(() => document.getElementById('positions').click());
  await settled(page);
  const on = await verdictRows(page);
  assert.deepEqual(on.map((r) => r.allclose), ['False', 'False', 'False', 'False']);
  assert.deepEqual(on.find((r) => r.word === 'man'), { word: 'man', allclose: 'False', cosine: '0.9416' });
  assert.match(await page.evaluate(() => window.location.hash), /[#&]pos=1(&|$)/);
  const chart = await chartInk(page);
  assert.ok(chart.points >= 2 * 121 && chart.ink > 2000, `the chart is drawn: ${JSON.stringify(chart)}`);
  await page.evaluate(() => document.querySelector('#why summary').click());
  await until(page, () => document.querySelector('#why .why-block:not([hidden])') !== null, 'the Why panel');
  await settled(page);
  assert.ok((await page.evaluate(() => document.getElementById('why-body').textContent)).length > 200, 'the Why panel has its text');
  await page.evaluate(() => document.getElementById('tour-start').click());
  await until(page, () => !document.getElementById('tour').hidden && document.querySelector('.tour-title').textContent !== '',
    'the guided tour');
  await page.evaluate(() => document.querySelector('#tour .tour-skip').click());
  await settled(page);
  await page.evaluate(() => document.querySelector('#heatmap summary').click());
  await until(page, () => document.querySelectorAll('#heat-a td').length >= 9, 'the heatmaps');
  await settled(page);
  assert.deepEqual(problems, []);
  return { opened, on, chart };
}

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

test('the single file is one file: no worker, no reference to another file, a policy that fetches nothing', async () => {
  const context = await browser.newContext();
  // a worker the page tried to start, even one the browser refused at once
  await context.addInitScript(() => {
    window.workersTried = [];
    const Native = window.Worker;
    window.Worker = function Worker(url, options) { window.workersTried.push(String(url)); return new Native(url, options); };
  });
  const page = await context.newPage();
  const problems = watchOffline(page, copy.url);
  await page.goto(`${copy.url}#pos=1&a=the+cat+chased+the+mouse&b=the+mouse+chased+the+cat&dim=64`);
  await settled(page);
  assert.deepEqual(await page.evaluate(() => window.workersTried), []);
  const markup = (await readFile(SINGLE_FILE, 'utf8')).replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/g, '');
  assert.deepEqual(markup.match(/\s(?:src|href)="(?!data:|#|\.\/")[^"]*"/g), null);
  const policy = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(policy, /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*' 'wasm-unsafe-eval'; style-src 'sha256-/);
  // the policy holds: a fetch from the page is refused
  assert.equal(await page.evaluate(() => fetch('data:text/plain,x').then(() => 'fetched', () => 'refused')), 'refused');
  problems.splice(0); // the refusal's own console line
  assert.equal((await verdictRows(page)).length, 6);
  assert.deepEqual(problems, []);
  await context.close();
});
