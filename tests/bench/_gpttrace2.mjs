import { SITE, serveDir, launch } from '../browser/harness.mjs';
import { A, B, checkpoint, paths } from '../browser/gpt2_files.mjs';
const folder = checkpoint('gpt2-small');
const { server, origin } = await serveDir(SITE);
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
page.setDefaultTimeout(180000);
await page.goto(`${origin}/?debug#a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}&model=gpt2`);
await page.waitForSelector('#model-files .mf-pick');
const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#model-files .mf-pick')]);
await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'disabled-by-default-devtools.timeline.stack', 'v8', 'v8.wasm', 'devtools.timeline.async'] });
await chooser.setFiles(paths(folder));
await page.waitForFunction(() => document.querySelector('#checkpoint:not([hidden]) .ck-figure-value'), null, { timeout: 180000 });
await page.waitForTimeout(3000);
const ev = JSON.parse(await browser.stopTracing()).traceEvents;
const main = ev.find((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain');
const all = ev.filter((e) => e.tid === main.tid && e.pid === main.pid && e.ph === 'X').sort((a, b) => a.ts - b.ts);
const tasks = all.filter((e) => (e.name === 'ThreadControllerImpl::RunTask') && e.dur > 40000);
const t0 = all[0].ts;
for (const t of tasks) {
  console.log("TASK at", ((t.ts - t0)/1000).toFixed(0), (t.dur / 1000).toFixed(0), 'ms cpu', ((t.tdur ?? 0) / 1000).toFixed(0));
  for (const e of all) if (e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e !== t && e.dur > 500 && !/RunTask|OnHandleReady|GC_/.test(e.name)) console.log('   ', ((e.ts - t.ts) / 1000).toFixed(1), (e.dur / 1000).toFixed(1), e.name, JSON.stringify(e.name === "Layout" ? { b: e.args?.beginData, e: e.args?.endData } : (e.args?.data ?? {})).slice(0, 600));
}
await browser.close(); server.close();
