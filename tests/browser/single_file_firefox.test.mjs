// dist/poslab.html from disk in Firefox (Debian's firefox-esr over WebDriver
// BiDi, as firefox.test.mjs drives it): the same student's walk as in
// Chromium (single_file.mjs), from a folder holding only that file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import puppeteer from 'puppeteer-core';
import { ARTIFACTS } from './harness.mjs';
import { makeSingleFile, copySingleFile, walkSingleFile } from './single_file.mjs';

let browser;
let copy;
before(async () => {
  makeSingleFile();
  copy = copySingleFile();
  browser = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true });
});
after(async () => {
  await browser?.close();
  copy?.remove();
});

test('Firefox: dist/poslab.html from disk, alone in its folder: the student\'s path', async (t) => {
  assert.match(await browser.version(), /^firefox\//);
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const seen = await walkSingleFile(page, copy.url);
  t.diagnostic(`${await browser.version()}: chart ${JSON.stringify(seen.chart)}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'firefox-single-file.png') });
  await page.close();
});
