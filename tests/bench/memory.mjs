// memory.mjs - the WebAssembly memory of the page and its workers at (e),
// 64 words, d 512, 12 blocks, 8 heads (302 MB of weights), in headless
// Chromium, through ?debug's wasmMemory() (every copy of the core: the
// page's lab and each worker's, spares included, each its
// memory.buffer.byteLength). Sampled every quarter second while the page
// opens on (e), computes its verdicts, takes 20 fast slider steps and a new
// seed (new draws), and 3 s of its chart: the peak of the sum. Then the
// student goes back to the one head, and the sum is read 10 s later:
// WebAssembly memory never shrinks, so only ending the worker that held the
// weights gives it back. run.mjs reports both; alone:
//
//   node tests/bench/memory.mjs
import { SITE, serveDir, launch } from '../browser/harness.mjs';

const MiB = 2 ** 20;
// what the sum must be under, 10 s after going back to the head
export const AFTER_LIMIT = 64 * MiB;
export const AFTER_SECONDS = 10;

const words = (n) => Array.from({ length: n }, (_, i) => `w${String(i + 1).padStart(2, '0')}`);
const E = `#a=${words(64).join('+')}&b=${words(64).reverse().join('+')}&pos=1&scheme=rope&scale=1&dim=512&heads=8` +
  '&word=0&model=transformer&layers=12';

const total = (parts) => parts.reduce((sum, p) => sum + p.bytes, 0);

export async function memoryBench() {
  const { server, origin } = await serveDir(SITE);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    let peak = { bytes: 0, parts: [] };
    const sample = async () => {
      const parts = await page.evaluate(() => window.poslabDebug?.wasmMemory() ?? []);
      if (total(parts) > peak.bytes) peak = { bytes: total(parts), parts };
    };
    const busy = () => page.evaluate(() => document.documentElement.dataset.ready !== 'true' ||
      document.getElementById('verdicts').getAttribute('aria-busy') !== 'false');
    const untilShown = async () => {
      const t0 = Date.now();
      while (await busy()) {
        await sample();
        await page.waitForTimeout(250);
        if (Date.now() - t0 > 180000) throw new Error('the verdicts at (e) never came');
      }
    };
    await page.goto(`${origin}/?debug${E}`);
    await untilShown();
    await page.evaluate(async () => {
      const slider = document.getElementById('scale-slider');
      for (let i = 0; i < 20; i++) {
        await new Promise((resolve) => { requestAnimationFrame(resolve); });
        slider.value = String(Number(slider.value) - 0.05);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
      }
    });
    await untilShown();
    await page.click('details.advanced summary');
    await page.fill('#seed', '3');
    await untilShown();
    for (let t = 0; t < 12; t++) {
      await sample();
      await page.waitForTimeout(250);
    }
    await page.check('input[name="model"][value="head"]');
    await page.waitForTimeout(AFTER_SECONDS * 1000);
    const parts = await page.evaluate(() => window.poslabDebug.wasmMemory());
    return { peak, after: { bytes: total(parts), parts } };
  } finally {
    await browser.close();
    server.close();
  }
}

const mib = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;
const list = (parts) => parts.map((p) => `${p.what} ${mib(p.bytes)}`).join(', ');

export function memoryMarkdown({ peak, after }) {
  return [
    'WebAssembly memory of the page and its workers together, sampled every quarter second while the page opened ' +
    'on (e) (302 MB of weights), took 20 fast slider steps, new draws and 3 s of its chart.',
    '',
    `At most ${mib(peak.bytes)}: ${list(peak.parts)}.`,
    '',
    `${AFTER_SECONDS} s after going back to the one head, ${mib(after.bytes)}: ${list(after.parts)}.`,
  ];
}

// A row for run.mjs's targets table.
export function memoryTarget({ after }) {
  return [`WebAssembly memory of the page and its workers under ${AFTER_LIMIT / MiB} MiB ${AFTER_SECONDS} s after ` +
          'going back from (e) to the one head', after.bytes < AFTER_LIMIT ? 'holds' : '**misses**', mib(after.bytes)];
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const result = await memoryBench();
  console.log(memoryMarkdown(result).join('\n'));
  console.log(`| ${memoryTarget(result).join(' | ')} |`);
}
