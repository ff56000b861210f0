// Where a keystroke's time goes at (b) under 2x throttling, scheme by
// scheme: the core's share and the page's own. For each pair the same
// 'new' keystrokes as browser.mjs's (timed to the full curve) are typed
// on a page opened with ?debug, in turns: as the page is, the core's work
// on the page's thread timed (lab.run and lab.threshold, through
// window.poslabDebug.timeCore), then with the core's answers memoised, so
// that after a first pass over the keystrokes' 15 sentences the core costs
// nothing and what is left is the page's own work (its other JavaScript,
// Chart.js, style, layout and paint). The keystroke target (16 ms at p95)
// leaves the core what the page's own p95 does not take: the last columns.
// run.mjs puts the table under the page's section of docs/benchmarks.md;
// alone:
//   node tests/bench/keystroke_split.mjs [--quick] [scheme:heads,...]
// writes build/bench-keystroke-split.md and prints it.
import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { SITE, serveDir, launch } from '../browser/harness.mjs';
import { openPage, hashOf, keystrokes, percentile, THROTTLE } from './browser.mjs';
import { markdownTable } from './markdown.mjs';

const TARGET_MS = 16;
const PAIRS = ['random:1', 'sinusoidal:1', 'rope:1', 'alibi:1', 'random:8', 'sinusoidal:8', 'rope:8', 'alibi:8'];
// Two passes over the 15 sentences the keystrokes cycle through: the
// memoised core has every answer before the timed keystrokes.
const WARM_KEYS = 30;
const TURN = 15;

// One page: its keystrokes in turns of TURN, one turn as the page is (each
// keystroke's time, the core's ms in it, and whether the workers computed
// its sweep, which is then not the core's time here) and the next with the
// core memoised. Turns on one page, not two pages one after the other, so
// that a busy moment of the machine falls on both ways alike; a turn, not
// a keystroke, because the page places a sweep by what the last one of its
// kind took, and a memoised one takes nothing.
async function typed(context, origin, scheme, heads, count) {
  const page = await openPage(context, `${origin}/?debug${hashOf(16, 64, scheme, heads)}`, THROTTLE);
  await page.evaluate(() => window.poslabDebug.timeCore({ memoise: false }));
  await keystrokes(page, WARM_KEYS); // every answer the memoised turns need
  const asIs = { keys: [], core: [], inWorkers: 0 }, memoised = { keys: [], core: [] };
  const workerSweeps = () => page.evaluate(() => window.poslabDebug.sweeps().worker);
  for (let i = 0; i < 2 * count; i++) {
    const way = Math.floor(i / TURN) % 2 ? memoised : asIs;
    await page.evaluate((memoise) => window.poslabDebug.timeCore({ memoise }), way === memoised);
    const before = await workerSweeps();
    way.keys.push((await keystrokes(page, 1)).times[0]);
    way.core.push((await page.evaluate(() => window.poslabDebug.coreTimes())).reduce((a, b) => a + b, 0));
    if (way === asIs) asIs.inWorkers += (await workerSweeps()) - before;
  }
  await page.close();
  return { asIs, memoised };
}

export async function keystrokeSplit({ quick = false, pairs = PAIRS } = {}) {
  const { server, origin } = await serveDir(process.env.SITE_DIR || SITE);
  const browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const rows = [];
  try {
    for (const pair of pairs) {
      const [scheme, heads] = pair.split(':');
      const count = quick ? TURN : 8 * TURN;
      rows.push({ scheme, heads: Number(heads), count, ...(await typed(context, origin, scheme, Number(heads), count)) });
    }
  } finally {
    await browser.close();
    server.close();
  }
  return rows;
}

const ms = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
const p50p95 = (xs) => `${ms(percentile(xs, 50))} / ${ms(percentile(xs, 95))}`;

// The report: a row per pair, p50 / p95 in ms; `date` and `machine` when it
// stands alone (run.mjs's report says them once for every section).
export function splitMarkdown(rows, { date = null, machine = '', quick = false } = {}) {
  const table = markdownTable(
    ['scheme', 'heads', 'keystroke', 'the core', 'the page alone', 'left for the core at p95', 'core faster by'],
    rows.map(({ scheme, heads, count, asIs, memoised }) => {
      const left = TARGET_MS - percentile(memoised.keys, 95), core = percentile(asIs.core, 95);
      const workers = asIs.inWorkers ? ` (${asIs.inWorkers} of ${count} sweeps in the workers)` : '';
      const faster = left <= 0 ? 'no core would do' : core <= left ? 'none' : `${(core / left).toFixed(1)}x`;
      return [scheme, heads, p50p95(asIs.keys), p50p95(asIs.core) + workers, p50p95(memoised.keys), ms(left), faster];
    }));
  const about = `${date ? `${date}, ${machine}${quick ? ' (--quick: numbers mean nothing)' : ''}. ` : ''}` +
    `'New' keystrokes, each timed to the full curve, ${rows[0]?.count ?? 0} per pair and way (the two ways taking ` +
    `turns of ${TURN} on one page), p50 / p95 in ms. "The core" is its work on the page's thread during the ` +
    'keystroke (the run, its sweep and thresholds; not a sweep sent to the workers).\n\n' +
    '"The page alone": the same keystrokes with the core\'s answers memoised. "Left for the core" is what the ' +
    `${TARGET_MS} ms target leaves at p95 once the page alone has had its p95; "core faster by", how much faster ` +
    'the core\'s p95 would have to be to fit.';
  return `### Where a keystroke's time goes: (b) 16 words, d 64, CPU ${THROTTLE}x slower

${about}

${table.join('\n').trimEnd()}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const chosen = process.argv.slice(2).find((a) => !a.startsWith('--'));
  const rows = await keystrokeSplit({ quick, pairs: chosen ? chosen.split(',') : PAIRS });
  const report = splitMarkdown(rows, { date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: `${cpus()[0].model}, ${cpus().length} cores`, quick });
  const root = fileURLToPath(new URL('../../', import.meta.url));
  mkdirSync(`${root}build`, { recursive: true });
  writeFileSync(`${root}build/bench-keystroke-split.md`, report);
  console.log(report);
}
