import { readFileSync } from 'node:fs';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
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
const cdp = await context.newCDPSession(page);
await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#model-files .mf-pick')]);
await page.evaluate(() => { window.__t = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__t.push([e.startTime, e.duration]); }).observe({ type: 'longtask' }); });
await chooser.setFiles(paths(folder));
await page.waitForFunction(() => { const b = document.querySelector('#model-files .mf-progress'); return b && Number(b.getAttribute('value')) > 0.97 * Number(b.getAttribute('max')); }, null, { timeout: 180000, polling: 5 });
await cdp.send('Profiler.start');
await page.waitForFunction(() => document.querySelector('#checkpoint:not([hidden]) .ck-figure-value'), null, { timeout: 180000 });
await page.waitForTimeout(3000);
const { profile } = await cdp.send('Profiler.stop');
console.log('long tasks', JSON.stringify(await page.evaluate(() => window.__t.map(([s, d]) => Math.round(d)))));
const maps = {}; const mapOf = (file) => { if (!(file in maps)) { try { maps[file] = new TraceMap(readFileSync(`${SITE}/${file}.map`, 'utf8')); } catch { maps[file] = null; } } return maps[file]; };
const nameOf = (f) => { const file = f.url.split('/').slice(3).join('/'); const m = file && mapOf(file); if (m && f.lineNumber >= 0) { const o = originalPositionFor(m, { line: f.lineNumber + 1, column: f.columnNumber }); if (o.source) return `${o.name ?? f.functionName} ${o.source.split('/').slice(-2).join('/')}:${o.line}`; } return `${f.functionName || '(anon)'} ${file}:${f.lineNumber}`; };
const byId = new Map(profile.nodes.map((x) => [x.id, x]));
const parent = new Map(); for (const x of profile.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
// find runs of consecutive samples (long stretches) and print the stack summary of each stretch > 40 ms
const dt = profile.timeDeltas; const incl = new Map();
profile.samples.forEach((id, i) => { const t = (dt[i + 1] ?? 0) / 1000; const seen = new Set(); for (let k = id; k !== undefined; k = parent.get(k)) { const nm = nameOf(byId.get(k).callFrame); if (!seen.has(nm)) { seen.add(nm); incl.set(nm, (incl.get(nm) ?? 0) + t); } } });
let t = profile.startTime; const samples = profile.samples.map((id, i) => { t += dt[i]; return [id, t]; });
const stretches = []; let cur = null;
for (const [id, ts] of samples) { const fn = byId.get(id).callFrame.functionName; if (fn === '(idle)') continue; if (!cur || ts - cur.end > 2000) { cur = { start: ts, end: ts, ids: [] }; stretches.push(cur); } cur.end = ts; cur.ids.push([id, ts]); }
for (const st of stretches.filter((x) => x.end - x.start > 30000)) {
  const m = new Map(); let prev = st.start;
  for (const [id, ts] of st.ids) { const w = (ts - prev) / 1000; prev = ts; const seen = new Set(); for (let k = id; k !== undefined; k = parent.get(k)) { const nm = nameOf(byId.get(k).callFrame); if (seen.has(nm)) continue; seen.add(nm); m.set(nm, (m.get(nm) ?? 0) + w); } }
  console.log(`STRETCH ${((st.end - st.start) / 1000).toFixed(0)} ms at ${((st.start - profile.startTime) / 1000).toFixed(0)}`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(v.toFixed(1).padStart(8), k);
}
await browser.close(); server.close();
