// The lab in Firefox: Debian's firefox-esr, headless, driven over WebDriver
// BiDi by puppeteer-core, walks a student's path (engines.mjs). Screenshots
// go to tests/artifacts/firefox-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import puppeteer from 'puppeteer-core';
import { ARTIFACTS } from './harness.mjs';
import { serveSite, walk, walkExercise2, trainedModels } from './engines.mjs';

const FIREFOX = '/usr/bin/firefox-esr';
let site;
let browser;

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  site = await serveSite();
  browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true });
});

after(async () => {
  await browser?.close();
  site?.server.close();
});

function driverFor(page) {
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text().slice(0, 300)}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${String(e.message ?? e).slice(0, 300)}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  page.on('requestfailed', (r) => problems.push(`failed request: ${r.url()}`));
  return {
    run: (body) => page.evaluate(`(() => { ${body} })()`),
    open: (url) => page.goto(url, { waitUntil: 'domcontentloaded' }),
    async type(selector, text) {
      await page.focus(selector);
      await page.$eval(selector, (input) => input.select());
      await page.keyboard.type(text);
    },
    click: (selector) => page.click(selector),
    resize: (width, height) => page.setViewport({ width, height }),
    async phone(url, width, height) {
      await page.setViewport({ width, height });
      await page.goto('about:blank'); // else a link that differs only after # would not load afresh
      await page.goto(url, { waitUntil: 'domcontentloaded' });
    },
    screenshot: (file) => page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true }),
    problems: async () => problems,
  };
}

test('Firefox: True on open, False and 0.9416 with positions, the chart drawn, typed words in the verdicts', async (t) => {
  const version = await browser.version();
  assert.match(version, /^firefox\//);
  const page = await browser.newPage();
  const times = await walk(driverFor(page), { ...site, shots: { desktop: 'firefox-positions-on.png', phone: 'firefox-phone.png' } });
  t.diagnostic(`${version}: ${JSON.stringify(times)} ms`);
  await page.close();
});

test('Firefox: the tour\'s exercise 2 on gpt, bag and nope, every claim the core\'s', async (t) => {
  const page = await browser.newPage();
  const times = await walkExercise2(driverFor(page), site);
  t.diagnostic(`ms to each step's model and question: ${JSON.stringify(times)}`);
  await page.close();
});

test('Firefox: the models trained here (gpt, nope, bag) show the checkpoint module\'s verdicts, figure and answer', async (t) => {
  const page = await browser.newPage();
  const driver = driverFor(page);
  const seen = await trainedModels(driver, site);
  t.diagnostic(JSON.stringify(seen));
  await page.close();
});
