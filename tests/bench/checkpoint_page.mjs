// checkpoint_page.mjs - the models trained here (gpt, nope, bag) in the page,
// in headless Chromium: slider steps and keystrokes, at full speed and under
// Chromium's 2x CPU throttling (the targets: p95 under 16 ms), with the
// longest main-thread task seen meanwhile (a checkpoint's chart is computed
// on the page's thread, in slices: none should reach 50 ms).
//
//   node tests/bench/checkpoint_page.mjs [--quick]   (prints a markdown section;
//                                                     writes build/bench-checkpoint-page.md)
//
// A slider step and a keystroke are timed as browser.mjs times a slider
// step: from dispatching the input event to the end of its handler (the new
// verdicts, table, result bar, the checkpoint's tokens and answer, the
// chart's marker), plus the style and layout the browser then owes, forced
// at the end. A keystroke changes the first word (a spelling not used
// before, so no cache answers it); its full curve then comes in slices
// after the verdicts are painted, timed separately ("full curve").
import { writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { SITE, serveDir, launch, ROOT } from '../browser/harness.mjs';
import { percentile, THROTTLE } from './browser.mjs';

const A = 'dog bites man . who bites ?';
const B = 'man bites dog . who bites ?';
// each as trained (gpt with positions and mask, nope the mask, bag neither);
// and, for comparison on the same machine and moment, the module's one head
// on the same sentences with positions on
const MODELS = (process.env.MODELS ?? 'gpt,nope,bag,head').split(',');
// (the head follows the first word, the one the keystrokes spell anew:
// its numbers depend only on which words are the same, so its chart is
// drawn again under the word's new name rather than computed anew)
const hashOf = (model) => `#model=${model}&a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}${model === 'head' ? '&pos=1&word=0' : ''}`;

async function open(context, url, throttle) {
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, ms: e.duration }); })
      .observe({ type: 'longtask', buffered: true });
  });
  if (throttle > 1) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
  }
  await page.goto(url);
  await page.waitForFunction(() => document.documentElement.dataset.ready && document.documentElement.dataset.loading === undefined &&
    document.getElementById('verdicts').getAttribute('aria-busy') === 'false' &&
    document.getElementById('plot').getAttribute('aria-busy') === 'false', null, { timeout: 120000 });
  return page;
}

// In the page: `count` slider steps and `count` keystrokes, one a frame,
// each timed to its handler's end plus forced layout; then `curves`
// keystrokes timed until the chart has the full curve for the new words;
// and the longest task from the first step on.
function measure(page, count, curves) {
  return page.evaluate(async ({ count, curves }) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const start = performance.now();
    const timed = (fire) => {
      const t0 = performance.now();
      fire();
      document.body.getBoundingClientRect();
      return performance.now() - t0;
    };
    const slider = document.getElementById('scale-slider');
    const input = document.getElementById('sentence-a');
    const slides = [];
    const keys = [];
    let v = -1; // 1e-1 ... 1e1 around the magnitude as trained, and back
    for (let i = 0; i < count; i++) {
      await frame();
      v = v >= 1 ? -1 : v + 0.05;
      slides.push(timed(() => { slider.value = String(v); slider.dispatchEvent(new Event('input', { bubbles: true })); }));
    }
    const first = input.value.split(' ')[0];
    for (let i = 0; i < count; i++) {
      await frame();
      keys.push(timed(() => {
        input.value = `${first}${i.toString(36)} ${input.value.split(' ').slice(1).join(' ')}`;
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }));
    }
    const chart = window.Chart.getChart(document.querySelector('canvas'));
    const full = [];
    for (let i = 0; i < curves; i++) {
      await frame();
      const before = chart.data.datasets[1].data;
      const t0 = performance.now();
      input.value = `${first}z${i.toString(36)} ${input.value.split(' ').slice(1).join(' ')}`;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      while (chart.data.datasets[1].data === before || chart.data.datasets[1].data.length < 121 ||
        document.getElementById('plot').getAttribute('aria-busy') === 'true') {
        await frame();
        if (performance.now() - t0 > 30000) throw new Error('the chart never updated');
      }
      full.push(performance.now() - t0);
    }
    await new Promise((r) => setTimeout(r, 200)); // long-task entries arrive a moment later
    const during = window.longTasks.filter((t) => t.start + t.ms > start);
    return { slides, keys, full, longest: Math.max(0, ...during.map((t) => t.ms)) };
  }, { count, curves });
}

export async function checkpointPageBench({ quick = false } = {}) {
  const { server, origin } = await serveDir(process.env.SITE_DIR || SITE);
  const browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const rows = [];
  try {
    for (const throttle of [1, THROTTLE]) {
      for (const model of MODELS) {
        const row = { model, throttle, slides: [], keys: [], full: [], longest: [], rounds: [] };
        for (let round = 0; round < (quick ? 1 : 3); round++) {
          const page = await open(context, `${origin}/?debug${hashOf(model)}`, throttle);
          const m = await measure(page, quick ? 20 : 100, quick ? 2 : 5);
          row.slides.push(...m.slides);
          row.keys.push(...m.keys);
          row.full.push(...m.full);
          row.longest.push(m.longest);
          row.rounds.push({ slide: percentile(m.slides, 95), key: percentile(m.keys, 95) });
          await page.close();
        }
        rows.push(row);
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  return rows;
}

export function checkpointPageMarkdown(rows) {
  const f = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
  const med = (xs) => percentile(xs, 50);
  const lines = ['| model (as trained; head: positions on) | CPU | slider step median | slider step p95 | keystroke median | keystroke p95 | ' +
    'keystroke to full curve, median | longest main-thread task | target (p95 < 16 ms) | samples |',
  '|:---|:---|---:|---:|---:|---:|---:|---:|:---|---:|'];
  for (const row of rows) {
    const cpu = row.throttle > 1 ? `${row.throttle}x slower` : 'full speed';
    const slideP95 = med(row.rounds.map((r) => r.slide));
    const keyP95 = med(row.rounds.map((r) => r.key));
    const longest = Math.max(...row.longest);
    const met = slideP95 < 16 && keyP95 < 16 ? 'met' : 'missed';
    lines.push(`| ${row.model} | ${cpu} | ${f(med(row.slides))} | ${f(slideP95)} | ${f(med(row.keys))} | ${f(keyP95)} | ` +
      `${f(med(row.full))} | ${longest === 0 ? 'none over 50 ms' : `${f(longest)} ms`} | ${met} | ${row.slides.length} + ${row.keys.length} |`);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const rows = await checkpointPageBench({ quick });
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const text = [`Models trained here in the page (tests/bench/checkpoint_page.mjs${quick ? ', --quick: one round' : ''}), ` +
    `headless Chromium on ${os.cpus().length} x ${cpu}; p95 = median of the rounds' p95s.`, '',
  ...checkpointPageMarkdown(rows)].join('\n');
  mkdirSync(`${ROOT}build`, { recursive: true });
  writeFileSync(`${ROOT}build/bench-checkpoint-page.md`, `${text}\n`);
  console.log(text);
}
