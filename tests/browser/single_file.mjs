// dist/poslab.html, the whole lab in one file, opened from disk (file://) in
// a folder that holds nothing else, as a student who downloaded it from a
// course page would: the walk each browser's test runs (single_file.test.mjs
// in Chromium, single_file_firefox.test.mjs in Firefox). walkSingleFile()
// takes a page of playwright-core or puppeteer-core (it uses only what both
// have); copySingleFile() gives the file:// URL to open. Not a test file
// itself (make test-browser runs *.test.mjs).
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, distBuilt, isSettled } from './harness.mjs';

export const SINGLE_FILE = path.join(ROOT, 'dist', 'poslab.html');

// dist/poslab.html, made if `make test-browser` has not (harness.mjs).
export const makeSingleFile = distBuilt;

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

// The state is drawn, chart and sections included (harness.mjs's isSettled()).
export const settled = (page) => until(page, isSettled, 'the lab to settle');

export const verdictRows = (page) => page.evaluate(() => [...document.querySelectorAll('#verdict-rows tr')].map((r) => ({
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
