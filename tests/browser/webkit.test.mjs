// The lab in WebKit: WebKitGTK's MiniBrowser, driven through
// webkit2gtk-driver's WebKitWebDriver (W3C WebDriver, by selenium-webdriver),
// walks a student's path (engines.mjs). MiniBrowser has no headless mode,
// so it gets a screen of its own: an Xvfb server on a free display number,
// which is what xvfb-run would start, but owned (and stopped) by this test.
// Screenshots go to tests/artifacts/webkit-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { Builder } from 'selenium-webdriver';
import { ARTIFACTS } from './harness.mjs';
import { serveSite, walk, walkExercise2, trainedModels } from './engines.mjs';

const DRIVER = '/usr/bin/WebKitWebDriver'; // package webkit2gtk-driver
const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser'; // package libwebkit2gtk-4.1-0

let site;
let xvfb;
let webdriver;
let driver;

// Xvfb picks a free display and writes its number to the file descriptor
// given with -displayfd (here, the child's fd 3, a pipe).
function startXvfb() {
  return new Promise((resolve, reject) => {
    const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.stdio[3].on('data', (d) => resolve({ child, display: `:${String(d).trim()}` }));
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`Xvfb exited with ${code}: ${err.slice(-500)}`)));
  });
}

const freePort = () => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

async function startDriver(display) {
  const port = await freePort();
  const child = spawn(DRIVER, [`--port=${port}`], { stdio: 'ignore', env: { ...process.env, DISPLAY: display } });
  const url = `http://127.0.0.1:${port}`;
  for (const end = Date.now() + 10000; ;) {
    try {
      if ((await fetch(`${url}/status`)).ok) return { child, url };
    } catch { /* not listening yet */ }
    if (Date.now() > end) throw new Error('WebKitWebDriver did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  site = await serveSite();
  xvfb = await startXvfb();
  webdriver = await startDriver(xvfb.display);
  driver = await new Builder().usingServer(webdriver.url).withCapabilities({
    browserName: 'MiniBrowser',
    'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
  }).build();
});

after(async () => {
  await driver?.quit();
  webdriver?.child.kill();
  xvfb?.child.kill();
  site?.server.close();
});

// WebDriver's screenshot is of the window; for the whole page the window is
// made as tall as the page first. In a frame (phone()), the frame is made as
// tall as its page too; the picture then has the rest of the window's
// minimum width, blank, on its right (WebKit's element screenshot of a frame
// that tall came out shifted).
let framed = false;
// The window grown to `height`, and a frame drawn at that size (a picture
// taken at once can have the new part still black).
async function grow(width, height) {
  await driver.manage().window().setRect({ width, height });
  await driver.executeAsyncScript(`const done = arguments[arguments.length - 1];
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50)));`);
}
async function screenshot(file) {
  const rect = await driver.manage().window().getRect();
  const full = await driver.executeScript('return document.documentElement.scrollHeight');
  let png;
  if (framed) {
    await driver.switchTo().defaultContent();
    const frame = await driver.findElement({ css: 'iframe' });
    await driver.executeScript('arguments[0].height = arguments[1]', frame, full);
    await grow(rect.width, Math.min(full + 100, 8000));
    png = await driver.takeScreenshot();
    await driver.switchTo().frame(frame);
  } else {
    await grow(rect.width, Math.min(full + 100, 8000));
    png = await driver.takeScreenshot();
  }
  await driver.manage().window().setRect({ width: rect.width, height: rect.height });
  await writeFile(path.join(ARTIFACTS, file), Buffer.from(png, 'base64'));
}

const webkit = {
  run: (body) => driver.executeScript(body),
  open: (url) => driver.get(url),
  async type(selector, text) {
    const input = await driver.findElement({ css: selector });
    await input.click();
    await driver.executeScript('arguments[0].select()', input);
    await input.sendKeys(text);
  },
  click: async (selector) => (await driver.findElement({ css: selector })).click(),
  resize: (width, height) => driver.manage().window().setRect({ width, height }),
  // MiniBrowser's window is at least 447 px wide (its toolbar): a phone's
  // viewport is a frame of that size on a page of its own.
  async phone(url, width, height) {
    await driver.manage().window().setRect({ width, height });
    await driver.get(site.framed(url, width, height));
    await driver.switchTo().frame(await driver.findElement({ css: 'iframe' }));
    framed = true;
  },
  screenshot,
  problems: async () => [], // only the page's watcher sees them (engines.mjs)
};

test('WebKit: True on open, False and 0.9416 with positions, the chart drawn, typed words in the verdicts', async (t) => {
  const version = (await driver.getCapabilities()).get('browserVersion');
  assert.match(version, /^\d+\.\d+/);
  const times = await walk(webkit, { ...site, shots: { desktop: 'webkit-positions-on.png', phone: 'webkit-phone.png' } });
  t.diagnostic(`WebKitGTK ${version}: ${JSON.stringify(times)} ms`);
});

test('WebKit: the tour\'s exercise 2 on gpt, bag and nope, every claim the core\'s', async (t) => {
  const times = await walkExercise2(webkit, site);
  t.diagnostic(`ms to each step's model and question: ${JSON.stringify(times)}`);
});

test('WebKit: the models trained here (gpt, nope, bag) show the checkpoint module\'s verdicts, figure and answer', async (t) => {
  const seen = await trainedModels(webkit, site);
  t.diagnostic(JSON.stringify(seen));
});
