// preload_chunks.mjs - `make site`: index.html preloads the chunks main.js
// imports at once (code esbuild split off because parts loaded later share
// it), beside the wrapper and the glue it preloads already. Without these
// links the browser found the chunks only once it had main.js and parsed
// it, a round trip later: on a local server they came 120-240 ms after the
// page opened, and the first verdicts waited for them.
//
//   node web/dist/preload_chunks.mjs <esbuild metafile of main.js> <site folder>
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [metafile, site] = process.argv.slice(2);
if (!site) {
  console.error('usage: node web/dist/preload_chunks.mjs <esbuild metafile> <site folder>');
  process.exit(2);
}
const { outputs } = JSON.parse(readFileSync(metafile, 'utf8'));
const at = (file) => Object.keys(outputs).find((k) => path.resolve(k) === path.resolve(file));

// main.js's static imports, and theirs, in the order first met
const chunks = [];
const visit = (file) => {
  for (const { path: imported, kind, external } of outputs[at(file)].imports) {
    if (kind !== 'import-statement' || external || chunks.includes(path.resolve(imported))) continue;
    chunks.push(path.resolve(imported));
    visit(imported);
  }
};
visit(path.join(site, 'main.js'));

const index = path.join(site, 'index.html');
const html = readFileSync(index, 'utf8');
const anchor = '<link rel="modulepreload" href="poslab-core.js">\n';
if (html.split(anchor).length !== 2) throw new Error(`preload_chunks: ${anchor.trim()} is not in ${index} once`);
const links = chunks.map((c) => `<link rel="modulepreload" href="${path.relative(site, c).split(path.sep).join('/')}">\n`).join('');
writeFileSync(index, html.replace(anchor, () => anchor + links));
console.log(`poslab: index.html preloads the ${chunks.length} chunks main.js imports at once`);
