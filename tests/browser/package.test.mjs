// The npm package in a browser: a new project installs the tarball, bundles
// `import { createLab } from 'poslab'` with esbuild for the browser, copies
// the two .wasm files beside the bundle as the package's README says, and
// the page computes the module's figures in Chromium, with either module.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { makePackage, installPackage } from '../package_install.mjs';
import { serveDir, launch, watch } from './harness.mjs';
import { near } from '../near.mjs';

const ENTRY = `
import { createLab } from 'poslab';
const simd = !new URLSearchParams(location.search).has('nosimd');
const lab = await createLab({ simd });
const r = lab.run({ sentence_a: 'dog bites man', sentence_b: 'man bites dog' });
document.body.dataset.result = JSON.stringify({ simd: lab.simd, man: r.pairs[2], mean: r.mean });
`;

let consumer, served, browser;
before(async () => {
  makePackage();
  consumer = installPackage();
  const www = path.join(consumer.dir, 'www');
  mkdirSync(www);
  writeFileSync(path.join(consumer.dir, 'app.mjs'), ENTRY);
  await build({ entryPoints: [path.join(consumer.dir, 'app.mjs')], bundle: true, format: 'esm', platform: 'browser',
    target: 'es2022', outfile: path.join(www, 'app.js'), logLevel: 'warning' });
  for (const file of ['poslab.wasm', 'poslab-nosimd.wasm']) {
    copyFileSync(path.join(consumer.dir, 'node_modules', 'poslab', file), path.join(www, file));
  }
  writeFileSync(path.join(www, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<title>consumer</title><link rel="icon" href="data:,"><script type="module" src="app.js"></script></head><body></body></html>');
  served = await serveDir(www);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  served?.server.close();
  consumer?.remove();
});

test('an esbuild browser bundle of the package computes the module\'s figures, with either module', async () => {
  for (const query of ['', '?nosimd']) {
    const page = await browser.newPage();
    const problems = watch(page, served.origin);
    const wasm = [];
    page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname); });
    await page.goto(`${served.origin}/${query}`);
    await page.waitForSelector('body[data-result]', { state: 'attached', timeout: 10000 });
    const r = JSON.parse(await page.getAttribute('body', 'data-result'));
    assert.equal(r.simd, query === '');
    assert.deepEqual(wasm, [query ? '/poslab-nosimd.wasm' : '/poslab.wasm'], 'only the module it runs is fetched');
    assert.deepEqual([r.man.word, r.man.allclose], ['man', false]);
    assert.ok(near(r.man.cosine_distance, 0.9415675654775886), String(r.man.cosine_distance));
    assert.ok(near(r.mean.cosine_distance, 0.535138300649038), String(r.mean.cosine_distance));
    assert.deepEqual(problems, []);
    await page.close();
  }
});
