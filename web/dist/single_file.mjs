// single_file.mjs - `make dist`'s dist/poslab.html: the whole lab in one
// HTML file that opens by double-click (file://, no server, offline), for
// course platforms that only take an uploaded file, e-mail and USB sticks.
//
//   node web/dist/single_file.mjs <site folder> <page sources> <out.html>
//
// The page's modules are bundled as for the site, but with nothing left
// outside: what the site loads on demand (Chart.js, the Why panel, the tour,
// the heatmaps, Copy as NumPy's writer) becomes parts of the one script that
// run when first asked for, and bundled.js is
// replaced by a module that carries both compiled cores as base64 (the file
// cannot know which browser will open it, and a browser without SIMD must
// still work; each decodes only the one it runs). The workers (the chart's
// sweeps, the transformer's runs) are bundled too, and carried as text: a
// browser refuses a worker script from disk, but starts one from a blob:
// URL the page makes of its own bytes (main.js), so the long work stays off
// the page's thread as on the site. The page keeps a Content-Security-Policy,
// with hashes for its one script and one stylesheet in place of 'self' and
// blob: workers only: nothing can be fetched at all.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRAINED_MODELS } from '../lib/trained_models.js';

const [site, pageSrc, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node web/dist/single_file.mjs <site folder> <page sources> <out.html>');
  process.exit(2);
}
const web = fileURLToPath(new URL('../', import.meta.url));
const read = (file, encoding) => readFileSync(path.join(site, file), encoding);

const cores = { simd: read('poslab.wasm').toString('base64'), nosimd: read('poslab-nosimd.wasm').toString('base64') };

// bundled.js, replaced: `contents` is its module text.
const replaceBundled = (contents) => (b) => {
  b.onResolve({ filter: /^(\.\.?\/)+(lib\/)?bundled\.js$/ }, () => ({ path: 'bundled.js', namespace: 'single-file' }));
  // the wrapper, which the site's entry modules import from beside them (the Makefile's site)
  b.onResolve({ filter: /^\.\/poslab\.js$/ }, (args) => (path.resolve(args.resolveDir) === path.resolve(pageSrc)
    ? { path: path.resolve(pageSrc, 'lib', 'poslab.js') } : undefined));
  b.onLoad({ filter: /.*/, namespace: 'single-file' }, () => ({ contents, loader: 'js', resolveDir: path.resolve(pageSrc) }));
};

// What the page reads only when a student picks a checkpoint model: the
// checkpoint module and the three models trained here (four files each),
// carried as base64 in blocks of data the browser neither runs nor
// decodes at open (<script type="application/octet-stream">: no script,
// so the policy below need not allow it). SINGLE_FILE.carried(name)
// decodes one when asked.
const CHECKPOINT_FILES = ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'];
const carried = ['poslab-checkpoint.wasm',
  ...TRAINED_MODELS.flatMap((m) => CHECKPOINT_FILES.map((f) => `models/${m}/${f}`))];
const dataBlocks = carried.map((name) =>
  `<script type="application/octet-stream" id="poslab-file:${name}">${read(name).toString('base64')}</script>`).join('\n');
const carriedCode = `
  models: ${JSON.stringify(TRAINED_MODELS)},
  carried(name) {
    const text = document.getElementById('poslab-file:' + name)?.textContent;
    if (text === undefined) throw new Error(name + ': not in the single file');
    const bytes = atob(text.trim());
    const out = new Uint8Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) out[i] = bytes.charCodeAt(i);
    return out;
  },
  checkpointCode: () => import(${JSON.stringify(path.resolve(pageSrc, 'lib', 'checkpoints.js'))}),
  checkpointGlue: () => import(${JSON.stringify(path.resolve(site, 'poslab-checkpoint.js'))}),`;

// The workers, each one script with nothing outside; their SINGLE_FILE is
// the cores, which the page puts in front of their text when it starts them
// rather than carrying them three times. Classic scripts, not modules:
// Chromium refuses a module worker from a blob: URL of a page opened from
// disk (its origin is opaque), and starts a classic one.
const workers = {};
for (const name of ['sweep_worker', 'run_worker']) {
  const built = await build({
    entryPoints: [path.join(pageSrc, `${name}.js`)], bundle: true, format: 'iife', minify: true, target: 'es2022',
    write: false, logLevel: 'warning',
    // A classic script has no import.meta, and a blob: URL is no base for
    // another: the Emscripten glue makes a URL for a .wasm file it is never
    // asked to fetch (poslab.js hands it the compiled core) from this one.
    define: { 'import.meta.url': '"file:///poslab-single-file/"' },
    plugins: [{ name: 'single-file-worker', setup: replaceBundled('export const SINGLE_FILE = globalThis.POSLAB_SINGLE_FILE;') }],
  });
  workers[name] = built.outputFiles[0].text;
}

const inlineEverything = {
  name: 'single-file',
  setup(b) {
    replaceBundled(`export const SINGLE_FILE = { ...${JSON.stringify({ cores, workers })},${carriedCode} };`)(b);
    // the site's vendor/chart.min.js is this entry built on its own
    b.onResolve({ filter: /^\.\/vendor\/chart\.min\.js$/ }, () => ({ path: path.join(web, 'vendor', 'chart.entry.js') }));
  },
};

const bundle = await build({
  entryPoints: [path.join(pageSrc, 'main.js')], bundle: true, format: 'esm', minify: true, target: 'es2022',
  write: false, legalComments: 'eof', logLevel: 'warning', plugins: [inlineEverything],
});
const chartLicense = readFileSync(path.join(web, '..', 'node_modules', 'chart.js', 'LICENSE.md'), 'utf8');
const script = `${bundle.outputFiles[0].text}/* Chart.js, bundled above:\n${chartLicense.replaceAll('*/', '* /')}*/\n`;
// both stylesheets: the page's, and later.css, which the site fetches when a part loaded on demand opens
const style = ['style.css', 'later.css'].map((f) => read(f, 'utf8').replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, '')).join('\n');
// esbuild escapes "</script" in what it prints; the stylesheet has no reason to hold "</style"
if (/<\/script/i.test(script) || /<\/style/i.test(style)) throw new Error('single_file: a closing tag inside inline code');

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const policy = `default-src 'none'; script-src ${sha256(script)} 'wasm-unsafe-eval'; style-src ${sha256(style)}; ` +
  "img-src data: blob:; worker-src blob:; object-src 'none'; base-uri 'none'; form-action 'none'";

// Each edit must find its target exactly once: a changed index.html fails
// the build here rather than producing a page that still asks for a file.
// The page's text is written in ASCII, its other characters as references
// (&#x2019;): a document with a single character outside ASCII is decoded
// and parsed as two-byte text all through its 3.5 MB, which took Chromium
// 91 ms of the loading task against 43 (2-core EPYC, 2.1 GHz).
let html = read('index.html', 'utf8').replace(/[^\0-\x7f]/gu, (c) => `&#x${c.codePointAt(0).toString(16)};`);
function edit(pattern, replacement) {
  const found = html.match(new RegExp(pattern.source, 'g')) ?? [];
  if (found.length !== 1) throw new Error(`single_file: ${pattern} matched ${found.length} times in index.html`);
  html = html.replace(pattern, () => replacement);
}
edit(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, `<meta http-equiv="Content-Security-Policy" content="${policy}">`);
edit(/<link rel="stylesheet" href="style\.css">/, `<style>${style}</style>`);
edit(/<link rel="preload" href="poslab\.wasm"[^>]*>\n/, '');
edit(/<link rel="modulepreload" href="poslab\.js">\n/, '');
edit(/<link rel="modulepreload" href="poslab-core\.js">\n/, '');
html = html.replace(/<link rel="modulepreload" href="chunks\/[^"]*">\n/g, ''); // the site's split code, bundled here
edit(/<script type="module" src="main\.js"><\/script>/, `<script type="module">${script}</script>`);
edit(/<\/body>/, `${dataBlocks}\n</body>`);
// the advice to use a web server is for the site's files, not this one
edit(/\s*<span class="slow">[\s\S]*?<\/span>/, '');
const markup = html.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/g, '');
const leftOver = markup.match(/\s(?:src|href)="(?!data:|#|https?:|\.\/")[^"]*"/);
if (leftOver) throw new Error(`single_file: a reference to another file is left: ${leftOver[0]}`);
if (!/^[A-Za-z0-9+/=]*$/.test(dataBlocks.replace(/<script [^>]*>|<\/script>|\n/g, ''))) throw new Error('single_file: a data block is not base64');
// (esbuild prints its scripts in ASCII; the stylesheet would need CSS escapes)
const outside = html.match(/[^\0-\x7f]/u);
if (outside) throw new Error(`single_file: ${JSON.stringify(outside[0])} is not ASCII (at ${JSON.stringify(html.slice(outside.index - 40, outside.index))})`);
writeFileSync(out, html);
console.log(`poslab: ${out} holds the whole lab in one file (${Math.round(html.length / 1024)} KiB)`);
