// lighthouse.mjs - Lighthouse on the built site, for `make bench`: the four
// category scores and the load metrics, median of several runs.
//
//   node tests/bench/lighthouse.mjs [--quick] [--runs N] [--site DIR]   (prints a markdown section)
//
// Lighthouse 12.2.3 (13 wants Node 22) with its default settings, which are
// its mobile preset: a Moto G Power's screen, simulated slow 4G (150 ms
// round trip, 1.6 Mbit/s down) and a CPU 4x slower than this one. The
// browser is Debian's Chromium (CHROME_PATH, else /usr/bin/chromium),
// headless, with the flags tests/browser/harness.mjs uses.
//
// The site is served twice: as the tests serve it (no compression) and as a
// static host serves it: gzip for text and the WebAssembly module, as GitHub
// Pages (where .github/workflows/pages.yml publishes it) does, and a cache
// lifetime of ten minutes (GitHub Pages' max-age=600). The network is simulated from the
// bytes that travel, so compression is what a student's phone sees.
import http from 'node:http';
import os from 'node:os';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import { SITE, MIME } from '../browser/harness.mjs';

export const LIGHTHOUSE_VERSION = JSON.parse(
  await readFile(fileURLToPath(new URL('../../node_modules/lighthouse/package.json', import.meta.url)), 'utf8')).version;
const CHROME = process.env.CHROME_PATH || '/usr/bin/chromium';
const FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup'];

export const CATEGORIES = [['performance', 'performance'], ['accessibility', 'accessibility'],
  ['best-practices', 'best practices'], ['seo', 'SEO']];
export const METRICS = [['first-contentful-paint', 'FCP', 'ms'], ['largest-contentful-paint', 'LCP', 'ms'],
  ['total-blocking-time', 'TBT', 'ms'], ['cumulative-layout-shift', 'CLS', ''], ['speed-index', 'speed index', 'ms']];

const COMPRESSED = /^(text\/|application\/(json|javascript|wasm)|image\/svg)/;

// Serves `site`; `host`: gzip and caching as a static host does them.
function serveSite(site, host) {
  return new Promise((resolve) => {
    const server = http.createServer(async (req, res) => {
      try {
        let file = decodeURIComponent(new URL(req.url, 'http://x').pathname);
        if (file.endsWith('/')) file += 'index.html';
        const full = path.join(site, path.normalize(file));
        if (!full.startsWith(site + path.sep)) throw new Error('outside the site');
        let body = await readFile(full);
        const type = MIME[path.extname(full)] ?? 'application/octet-stream';
        const headers = { 'content-type': type };
        if (host) {
          headers['cache-control'] = 'max-age=600';
          if (COMPRESSED.test(type) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
            body = gzipSync(body, { level: 6 });
            headers['content-encoding'] = 'gzip';
            headers.vary = 'Accept-Encoding';
          }
        }
        res.writeHead(200, headers).end(body);
      } catch {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    });
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// One Lighthouse run: {scores: {id: 0..100}, metrics: {id: value}, failing: [audit titles]}.
async function once(url, port) {
  const { lhr } = await lighthouse(url, { port, output: 'json', logLevel: 'error' });
  const scores = Object.fromEntries(CATEGORIES.map(([id]) => [id, Math.round(lhr.categories[id].score * 100)]));
  const metrics = Object.fromEntries(METRICS.map(([id]) => [id, lhr.audits[id].numericValue]));
  // What keeps a category under 100: its scored audits below a full score.
  const failing = CATEGORIES.filter(([id]) => id !== 'performance').flatMap(([id]) => lhr.categories[id].auditRefs
    .filter((ref) => ref.weight > 0 && lhr.audits[ref.id].score !== null && lhr.audits[ref.id].score < 1)
    .map((ref) => `${id}: ${lhr.audits[ref.id].title}`));
  return { scores, metrics, failing, lighthouse: lhr.lighthouseVersion, chrome: lhr.environment.hostUserAgent };
}

// `runs` per way of serving `site` (default build/site; another built site
// for a before/after comparison); returns [{label, runs, scores, metrics,
// failing, load: the one-minute load average before and after}].
export async function lighthouseBench({ quick = false, runs = quick ? 1 : 5, site = SITE } = {}) {
  const chrome = await chromeLauncher.launch({ chromePath: CHROME, chromeFlags: FLAGS });
  const rows = [];
  const load = [os.loadavg()[0]];
  try {
    for (const [label, host] of [['static host (gzip)', true], ['test server (no compression)', false]]) {
      const { server, origin } = await serveSite(path.resolve(site), host);
      try {
        const all = [];
        for (let i = 0; i < runs; i++) all.push(await once(`${origin}/`, chrome.port));
        rows.push({
          label, runs: all,
          scores: Object.fromEntries(CATEGORIES.map(([id]) => [id, median(all.map((r) => r.scores[id]))])),
          metrics: Object.fromEntries(METRICS.map(([id]) => [id, median(all.map((r) => r.metrics[id]))])),
          failing: [...new Set(all.flatMap((r) => r.failing))],
        });
      } finally {
        server.close();
      }
    }
  } finally {
    await chrome.kill();
  }
  load.push(os.loadavg()[0]);
  return rows.map((row) => ({ ...row, load }));
}

const metricText = (id, x) => {
  const unit = METRICS.find(([m]) => m === id)[2];
  if (!unit) return x.toFixed(3);
  return x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`;
};

export function lighthouseMarkdown(rows) {
  const first = rows[0].runs[0];
  const version = (first.chrome.match(/Chrome\/[\d.]+/) ?? ['Chromium'])[0].replace('Chrome', 'Chromium');
  const lines = [`| served as | ${CATEGORIES.map(([, name]) => name).join(' | ')} | ` +
    `${METRICS.map(([, name]) => name).join(' | ')} | runs |`,
  `|:---|${CATEGORIES.map(() => '---:').join('|')}|${METRICS.map(() => '---:').join('|')}|---:|`];
  for (const row of rows) {
    const each = (id) => (row.runs.length > 1 ? ` (${row.runs.map((r) => r.scores[id]).join(', ')})` : '');
    lines.push(`| ${row.label} | ${CATEGORIES.map(([id]) => `${row.scores[id]}${each(id)}`).join(' | ')} | ` +
      `${METRICS.map(([id]) => metricText(id, row.metrics[id])).join(' | ')} | ${row.runs.length} |`);
  }
  lines.push('', `Lighthouse ${first.lighthouse}, mobile preset (a Moto G Power's screen, simulated slow 4G: 150 ms ` +
    `round trips, 1.6 Mbit/s down; CPU 4x slower), on Debian's ${version}, headless, against the built site on this ` +
    `machine (load average ${rows[0].load.map((x) => x.toFixed(2)).join(' before, ')} after).`);
  lines.push('', 'Each figure is the median of the runs (each run\'s in brackets). The metrics are simulated from ' +
    'the recorded load, and a busy machine lengthens its tasks, so total blocking time varies most. "static host": ' +
    'gzip, as GitHub Pages serves the site; "test server": the files as they are, as the tests serve them.');
  // Issue 15's target, judged on the site as a host serves it.
  const host = rows[0];
  const short = CATEGORIES.filter(([id]) => host.scores[id] < 100);
  lines.push('', `Target: 100 in all four categories as a static host serves the site: ` +
    (short.length ? `**misses** (${short.map(([id, name]) => `${name} ${host.scores[id]}`).join(', ')}).` : 'holds.'));
  const failing = [...new Set(rows.flatMap((r) => r.failing))];
  if (failing.length) lines.push('', `Audits below a full score outside performance: ${failing.join('; ')}.`);
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => { const at = process.argv.indexOf(name); return at > 0 ? process.argv[at + 1] : undefined; };
  const rows = await lighthouseBench({ quick: process.argv.includes('--quick'), site: arg('--site'),
                                       ...(arg('--runs') ? { runs: Number(arg('--runs')) } : {}) });
  console.log(lighthouseMarkdown(rows).join('\n'));
}
