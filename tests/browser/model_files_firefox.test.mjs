// GPT-2 from the student's files in Firefox (Debian's firefox-esr over
// WebDriver BiDi, as firefox.test.mjs drives it): the file input reads a
// GPT-2-shaped checkpoint, the memory is said first, the page shows the
// core's figure; a truncated file gives the CLI's line next to the button;
// Cancel in the middle of GPT-2 small's 548 MB leaves the lab as it was,
// and chosen again, it opens with the core's figure.
// Run `make site` and `make native`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import puppeteer from 'puppeteer-core';
import { ROOT } from './harness.mjs';
import { serveSite } from './engines.mjs';
import { A, B, FILES, checkpoint, cli, damaged, pageLine, paths, recordProgress } from './gpt2_files.mjs';

const { sig } = await import(`${ROOT}web/app/format.js`);
const URL_GPT2 = `/?debug#a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}&model=gpt2`;
let site;
let browser;

before(async () => {
  site = await serveSite();
  browser = await puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true });
});
after(async () => {
  await browser?.close();
  site?.server.close();
});

async function open() {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`uncaught: ${String(e.message ?? e).slice(0, 300)}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text().slice(0, 300)}`); });
  await page.goto(site.origin + URL_GPT2, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#model-files .mf-pick', { visible: true });
  await recordProgress(page);
  return { page, problems };
}

async function choose(page, files) {
  const input = await page.$('#model-files-input');
  await input.uploadFile(...files);
}

const bodyHas = (page, text, timeout = 30000) => page.waitForFunction((t) => document.body.innerText.includes(t), { timeout }, text);

test('Firefox: the files chosen, the memory said first, the core\'s figure; a truncated file: the CLI\'s line', async () => {
  const folder = checkpoint('gpt2-mini');
  const { page, problems } = await open();
  const truncated = damaged(folder, 'model.safetensors', { bytes: 6_000_000 });
  await choose(page, paths(truncated));
  await page.waitForSelector('#model-files .mf-error', { visible: true });
  assert.equal(await page.$eval('#model-files .mf-error', (e) => e.textContent), pageLine(cli(truncated).error, truncated));
  assert.equal(await page.$eval('#checkpoint', (e) => e.hidden).catch(() => true), true);
  assert.equal(await page.$eval('#model-files .mf-status', (e) => e.textContent), '');
  await page.evaluate(() => { window.__mf = []; });
  await choose(page, paths(folder));
  await bodyHas(page, sig(cli(folder).mean_cosine_similarity));
  const seen = await page.evaluate(() => window.__mf);
  // the memory is said from the first byte of weights read on
  const read = seen.filter((s) => s.value > 0 && !s.status.startsWith('GPT-2 is open'));
  assert.ok(read.length > 0 && read.every((s) => /will take [\d.]+ MB of memory/.test(s.status)), JSON.stringify(seen.map((s) => s.status)));
  assert.equal(await page.$eval('#model-files .mf-error', (e) => e.hidden), true);
  // kept in Firefox's OPFS too: Forget removes it
  await page.waitForFunction(() => /kept on this device \(\d/.test(document.querySelector('#model-files .mf-kept').textContent));
  await page.click('#model-files .mf-forget');
  await page.waitForSelector('#model-files .mf-kept', { hidden: true });
  assert.deepEqual(problems, []);
  await page.close();
  assert.deepEqual(site.misses, []);
});

// GPT-2 small's 548 MB are read once to the end: Cancel a few bar updates
// into a first read, and the second read is the one timed.
test('Firefox: Cancel in the middle of GPT-2 small leaves the lab as it was; chosen again, it opens with the core\'s figure', async () => {
  const folder = checkpoint('gpt2-small');
  const { page, problems } = await open();
  const before = await page.evaluate(() => location.hash);
  await choose(page, paths(folder, FILES));
  await page.waitForFunction(() => window.__mf.filter((s) => s.value > 0).length >= 3, { timeout: 60000 });
  await page.click('#model-files .mf-cancel');
  await page.waitForSelector('#model-files .mf-progress', { hidden: true });
  assert.equal(await page.$eval('#model-files .mf-status', (e) => e.textContent), '');
  assert.equal(await page.$eval('#model-files .mf-error', (e) => e.hidden), true);
  assert.equal(await page.evaluate(() => location.hash), before);
  const memory = await page.evaluate(() => window.poslabDebug.wasmMemory());
  assert.equal(memory.some((m) => m.what === 'checkpoint'), false, JSON.stringify(memory));
  // chosen again and read to the end: the bar every 200 ms (over its
  // first quarter, as long as a shared machine keeps quiet), GPT-2 small
  // open in Firefox, the core's figure
  await page.evaluate(() => { window.__mf = []; });
  await choose(page, paths(folder, FILES));
  await bodyHas(page, sig(cli(folder).mean_cosine_similarity), 180000);
  const seen = await page.evaluate(() => window.__mf.filter((s) => s.value > 0 && s.value <= s.max / 4).map((s) => s.t));
  const gaps = seen.slice(1).map((x, i) => x - seen[i]).sort((x, y) => x - y);
  const p95 = gaps[Math.floor(gaps.length * 0.95)];
  assert.ok(seen.length >= 3 && p95 <= 200 && gaps.at(-1) <= 1000, `${seen.length} updates, gaps: 95th percentile ${p95} ms, longest ${gaps.at(-1)} ms`);
  assert.match(await page.$eval('#model-files .mf-status', (e) => e.textContent), /^GPT-2 is open: 12 blocks, 768 wide, 124M parameters/);
  await page.waitForFunction(() => /kept on this device \(\d/.test(document.querySelector('#model-files .mf-kept').textContent), { timeout: 120000 });
  await page.click('#model-files .mf-forget');
  await page.waitForSelector('#model-files .mf-kept', { hidden: true });
  assert.deepEqual(problems, []);
  await page.close();
});
