// The fallback core for browsers without WebAssembly SIMD (CMake's
// POSLAB_SIMD=OFF, the site's poslab-nosimd.wasm): forced through
// createLab({ simd: false }), it must give the SIMD core's numbers, bit for
// bit, and so the module's figures and every NumPy fixture.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fixtureConfig } from './fixture_config.mjs';
import { near } from '../near.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const site = `${root}build/site/`;
const { createLab, simdSupported } = await import(`${site}poslab.js`);
const fixtures = JSON.parse(readFileSync(`${root}tests/fixtures/cases.json`, 'utf8'));

const fallback = await createLab({ simd: false });
const simd = await createLab();

// docs/experiment.md: implementations agree to 1e-9 relative or 1e-12 absolute.

const configOf = (options) => fixtureConfig(options, fallback.options);

test('Node has SIMD, so createLab picks the SIMD core unless told otherwise', () => {
  assert.equal(simdSupported(), true);
  assert.equal(simd.simd, true);
  assert.equal(fallback.simd, false);
});

test('each choice loads its own file: without poslab-nosimd.wasm only the SIMD core starts, and the other way round', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'poslab-choice-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of ['poslab.js', 'poslab-core.js', 'package.json']) copyFileSync(`${site}${file}`, join(dir, file));
  const wrapper = await import(pathToFileURL(join(dir, 'poslab.js')).href);
  copyFileSync(`${site}poslab.wasm`, join(dir, 'poslab.wasm'));
  (await wrapper.createLab()).dispose();
  await assert.rejects(wrapper.createLab({ simd: false }), /ENOENT.*poslab-nosimd\.wasm/);
  rmSync(join(dir, 'poslab.wasm'));
  copyFileSync(`${site}poslab-nosimd.wasm`, join(dir, 'poslab-nosimd.wasm'));
  const lab = await wrapper.createLab({ simd: false });
  assert.equal(lab.run({}).pairs[2].allclose, false);
  lab.dispose();
  await assert.rejects(wrapper.createLab({ simd: true }), /ENOENT.*poslab\.wasm/);
});

test('the fallback is plain WebAssembly 1.0, the SIMD core is not (sizes.test.mjs holds their size)', () => {
  // binaryen's validator (Debian's emscripten depends on it) with every
  // feature beyond the first standard switched off
  const mvp = (file) => spawnSync('wasm-opt', ['--mvp-features', file, '-o', '/dev/null'], { encoding: 'utf8' });
  const plain = mvp(`${site}poslab-nosimd.wasm`);
  assert.equal(plain.status, 0, plain.stderr);
  const vector = mvp(`${site}poslab.wasm`);
  assert.notEqual(vector.status, 0, 'the SIMD core uses features beyond WebAssembly 1.0');
  assert.match(vector.stderr, /SIMD|bulk memory/);
  // one glue serves both: the two builds wrote the same poslab-core.js
  assert.equal(readFileSync(`${root}build/wasm-nosimd/poslab-core.js`, 'utf8'),
    readFileSync(`${root}build/wasm/poslab-core.js`, 'utf8'));
});

test('the module\'s figures from the fallback', () => {
  const bare = fallback.run({ scheme: 'none' });
  assert.deepEqual(bare.pairs.map((p) => p.allclose), [true, true, true]);
  const pos = fallback.run({});
  assert.equal(pos.pairs[2].word, 'man');
  assert.equal(pos.pairs[2].allclose, false);
  assert.ok(near(pos.pairs[2].max_abs_diff, 12.536657700122994), String(pos.pairs[2].max_abs_diff));
  assert.ok(near(pos.pairs[2].cosine_distance, 0.9415675654775886), String(pos.pairs[2].cosine_distance));
  assert.ok(near(pos.mean.cosine_distance, 0.535138300649038), String(pos.mean.cosine_distance));
  assert.ok(near(fallback.run({ scale: 0.001 }).pairs[2].cosine_distance, 3.2350096464073275e-05));
  // docs/interfaces.md, lab.threshold: where allclose stops holding for "man"
  assert.ok(near(fallback.threshold({ scheme: 'random' }, 2), 9.12441601539598e-8));
});

test(`every NumPy fixture from the fallback (${fixtures.cases.length} cases), and the SIMD core's very bits`, () => {
  const results = [];
  for (const c of fixtures.cases) {
    const config = { ...configOf(c.options), full: true };
    const result = fallback.run(config);
    // JSON keeps every bit of a double; so the two builds agree exactly
    assert.equal(JSON.stringify(result), JSON.stringify(simd.run(config)), c.name);
    results.push({ name: c.name, result });
  }
  const scratch = mkdtempSync(join(tmpdir(), 'poslab-nosimd-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const file = join(scratch, 'nosimd.json');
  writeFileSync(file, JSON.stringify({ build: 'wasm-nosimd', cases: results }));
  const run = spawnSync('/usr/bin/python3', [`${root}tests/compare.py`, `${root}tests/fixtures/cases.json`, file],
    { encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
});

test('the big shapes agree too: 64 words at d 512 with 8 heads and a sweep, and a transformer', () => {
  const words = Array.from({ length: 64 }, (_, i) => `w${i}`);
  const cases = [
    { dim: 512, heads: 8, scheme: 'rope', causal: true, sweep: { lo: 1e-6, hi: 10, count: 5 } },
    { dim: 64, heads: 4, model: 'transformer', layers: 3, scheme: 'sinusoidal' },
  ];
  for (const c of cases) {
    const config = { sentence_a: words, sentence_b: [...words].reverse(), full: true, ...c };
    assert.equal(JSON.stringify(fallback.run(config)), JSON.stringify(simd.run(config)), JSON.stringify(c));
  }
});
