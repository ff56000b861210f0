// The WebAssembly build under Node, through the same wrapper the page uses,
// against the NumPy fixtures that the native tests read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab, CORE_FUNCTIONS } = await import(`${root}build/site/poslab.js`);
const fixtures = JSON.parse(readFileSync(`${root}tests/fixtures/cases.json`, 'utf8'));
const CLI = `${root}build/native/poslab`;

// docs/experiment.md: implementations agree to 1e-9 relative or 1e-12 absolute.
const RTOL = 1e-9, ATOL = 1e-12;
const near = (got, want) => Math.abs(got - want) <= ATOL + RTOL * Math.abs(want);

// Fixture options use the CLI's names; the wrapper takes the JSON config's.
function configOf(options) {
  const config = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === 'a') config.sentence_a = value;
    else if (key === 'b') config.sentence_b = value;
    else if (key === 'sweep') {
      const [lo, hi, count] = value.split(':').map(Number);
      config.sweep = { lo, hi, count };
    } else config[key] = value;
  }
  return config;
}

const maxAbs = (m) => (Array.isArray(m) ? Math.max(0, ...m.map(maxAbs)) : Math.abs(m ?? 0));

// Walks NumPy's expected tree; returns a list of mismatches.
function compare(got, want, path, magnitude, parent, out) {
  if (typeof want === 'number') {
    const diff = Math.abs(got - want);
    // a difference of nearly equal outputs carries their rounding error
    const ok = typeof got === 'number' &&
      (near(got, want) || (path.endsWith('max_abs_diff') && diff <= ATOL + RTOL * magnitude));
    if (!ok) out.push(`${path}: wasm ${got}, NumPy ${want}`);
  } else if (typeof want === 'boolean') {
    const margin = parent?.allclose_margin;
    if (typeof margin === 'number' && Math.abs(margin) <= ATOL + RTOL * magnitude) return;
    if (got !== want) out.push(`${path}: wasm ${got}, NumPy ${want}`);
  } else if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) out.push(`${path}: length ${got?.length} vs ${want.length}`);
    else want.forEach((w, i) => compare(got[i], w, `${path}[${i}]`, magnitude, want, out));
  } else if (want && typeof want === 'object') {
    for (const [k, w] of Object.entries(want)) {
      if (k === 'allclose_margin') continue;
      if (!got || !(k in got)) out.push(`${path}.${k}: missing`);
      else compare(got[k], w, `${path}.${k}`, magnitude, want, out);
    }
  } else if (got !== want) out.push(`${path}: wasm ${JSON.stringify(got)}, NumPy ${JSON.stringify(want)}`);
}

const lab = await createLab();

test('the wrapper calls exactly the functions src/exports.json exports', () => {
  const exported = JSON.parse(readFileSync(`${root}src/exports.json`, 'utf8'));
  assert.deepEqual([...CORE_FUNCTIONS].sort(), [...exported].sort());
});

test('the option table: parsed once, as the core writes it', () => {
  const { options, limits, schemes } = lab.options;
  assert.equal(lab.options, lab.options);
  assert.deepEqual(limits, { max_tokens: 64, max_token_bytes: 64, max_dim: 512, max_sweep: 1001, max_scale: 1e6 });
  assert.deepEqual(schemes.map((s) => [s.name, s.default_scale]),
    [['none', 0.5], ['random', 0.5], ['sinusoidal', 1], ['rope', 1]]);
  assert.deepEqual(options.map((o) => o.name), ['a', 'b', 'dim', 'seed', 'scheme', 'scale', 'causal', 'rtol', 'atol', 'sweep']);
  const dim = options.find((o) => o.name === 'dim');
  assert.deepEqual([dim.kind, dim.min, dim.max, dim.default, dim.allowed], ['integer', 1, 512, 6, 'an integer from 1 to 512']);
  assert.deepEqual(options.find((o) => o.name === 'scheme').values, ['none', 'random', 'sinusoidal', 'rope']);
  assert.equal(options.find((o) => o.name === 'rtol').max, null);
  assert.equal(options.find((o) => o.name === 'sweep').echo, false);
  // every row's allowed text is what a bad value's message says
  for (const o of options) {
    if (o.kind === 'sweep' || o.kind === 'switch') continue; // the wrapper checks these itself
    const bad = { [o.json]: o.kind === 'text' ? ' ' : 'nonsense' };
    assert.throws(() => lab.run(bad), (e) => e.message.endsWith(`allowed: ${o.allowed}`), o.name);
  }
});

test('the module\'s verified results', () => {
  const bare = lab.run({ scheme: 'none' });
  assert.equal(bare.pairs[2].word, 'man');
  assert.equal(bare.pairs[2].index_b, 0);
  assert.equal(bare.pairs[2].allclose, true);
  const pos = lab.run({});
  assert.equal(pos.config.scheme, 'random');
  assert.equal(pos.config.scale, 0.5);
  assert.equal(pos.pairs[2].allclose, false);
  assert.equal(pos.mean.allclose, false);
  assert.ok(near(pos.pairs[2].max_abs_diff, 12.536657700122994), String(pos.pairs[2].max_abs_diff));
  assert.ok(near(pos.pairs[2].cosine_distance, 0.9415675654775886));
  assert.ok(near(pos.mean.cosine_distance, 0.535138300649038));
  const small = lab.run({ scale: 0.001 });
  assert.equal(small.pairs[2].allclose, false);
  assert.ok(near(small.pairs[2].cosine_distance, 3.2350096464073275e-05));
});

test(`every NumPy fixture (${fixtures.cases.length} cases)`, () => {
  let checked = 0;
  for (const c of fixtures.cases) {
    const got = lab.run({ ...configOf(c.options), full: true });
    const magnitude = Math.max(maxAbs(c.expected.output_a), maxAbs(c.expected.output_b));
    const mismatches = [];
    compare(got, c.expected, c.name, magnitude, null, mismatches);
    assert.deepEqual(mismatches.slice(0, 5), [], `case ${c.name}`);
    checked++;
  }
  assert.ok(checked >= 20);
});

// allclose's margin, max(|a - b| - atol - rtol |b|), as the fixtures carry
// it: where it is at rounding level either answer is right.
function withMargins(r) {
  const { rtol, atol } = r.config;
  const margin = (a, b) => Math.max(...a.map((x, i) => Math.abs(x - b[i]) - atol - rtol * Math.abs(b[i])));
  const mean = (m) => m[0].map((_, j) => m.reduce((s, row) => s + row[j], 0) / m.length);
  for (const p of r.pairs) if (p.index_b !== null) p.allclose_margin = margin(r.output_a[p.index_a], r.output_b[p.index_b]);
  r.mean.allclose_margin = margin(mean(r.output_a), mean(r.output_b));
  return r;
}

// Same C, but libm differs: glibc picks FMA variants of exp/pow on x86-64,
// Emscripten links musl's, so the last bit may differ; the spec's tolerance
// applies between builds as between either build and NumPy.
test('the WebAssembly build agrees with the native CLI', () => {
  for (const c of fixtures.cases) {
    const args = ['--json', '--full'];
    for (const [k, v] of Object.entries(c.options)) {
      if (k === 'causal') { if (v === 'true') args.push('--causal'); } else args.push(`--${k}`, v);
    }
    const native = withMargins(JSON.parse(execFileSync(CLI, args, { encoding: 'utf8' })));
    const wasm = lab.run({ ...configOf(c.options), full: true });
    const magnitude = Math.max(maxAbs(native.output_a), maxAbs(native.output_b));
    const mismatches = [];
    compare(wasm, native, c.name, magnitude, null, mismatches);
    assert.deepEqual(mismatches.slice(0, 5), [], c.name);
    assert.deepEqual(Object.keys(wasm), Object.keys(native), `${c.name}: same fields in the same order`);
  }
});

test('invalid config throws the CLI\'s words and the lab stays usable', () => {
  const cases = [
    [{ dim: 0 }, ['--dim', '0']],
    [{ dim: 513 }, ['--dim', '513']],
    [{ seed: -1 }, ['--seed', '-1']],
    [{ seed: 4294967296 }, ['--seed', '4294967296']],
    [{ scheme: 'learned' }, ['--scheme', 'learned']],
    [{ scale: NaN }, ['--scale', 'NaN']],
    [{ scale: -1 }, ['--scale', '-1']],
    [{ scale: 'abc' }, ['--scale', 'abc']],
    [{ rtol: -1e-5 }, ['--rtol', '-0.00001']],
    [{ sentence_a: '' }, ['--a', '']],
    [{ sentence_b: 'x'.repeat(65) }, ['--b', 'x'.repeat(65)]],
    [{ sentence_a: Array(65).fill('w').join(' ') }, ['--a', Array(65).fill('w').join(' ')]],
  ];
  for (const [config, args] of cases) {
    const cli = spawnSync(CLI, args, { encoding: 'utf8' });
    assert.equal(cli.status, 2);
    // the CLI names options with dashes ("--a"), the wrapper by field ("sentence_a")
    const words = cli.stderr.trim().replace(/^poslab: --(a|b):/, (_, s) => `sentence_${s}:`).replace(/^poslab: --/, '');
    assert.throws(() => lab.run(config), (e) => e instanceof Error && e.message === words, JSON.stringify(config));
  }
  assert.throws(() => lab.run({ colour: 'red' }), /"colour" is not a config field/);
  assert.throws(() => lab.run({ sentence_a: ['dog', 'big dog'] }), /sentence_a: word 2/);
  assert.throws(() => lab.run({ causal: 'yes' }), /causal: "yes"/);
  assert.throws(() => lab.run({ sentence_a: 'dog \uD800 bites' }), /sentence_a: contains a lone UTF-16 surrogate/);
  assert.throws(() => lab.run({ scale: '0x10' }), /scale: "0x10" is out of range/);
  assert.throws(() => lab.run({ sentence_a: 'dog\0x bites man' }), /sentence_a: contains a NUL character/);
  assert.throws(() => lab.run({ dim: '6\0' }), /dim: contains a NUL character/);
  assert.throws(() => lab.run({ sweep: { lo: 0, hi: 1, count: 3 } }), /sweep: "0:1:3" is not a valid sweep/);
  assert.equal(lab.run({ scheme: 'none' }).pairs[2].allclose, true);
});

test('sentences as arrays, Unicode and HTML-like words are plain data', () => {
  const r = lab.run({ sentence_a: '<img src=x onerror=alert(1)> café', sentence_b: ['café', '<script>', '日本'], scheme: 'none' });
  assert.deepEqual(r.config.sentence_a, ['<img', 'src=x', 'onerror=alert(1)>', 'café']);
  assert.deepEqual(r.config.sentence_b, ['café', '<script>', '日本']);
  assert.equal(r.pairs[3].index_b, 0);
  assert.equal(r.pairs[3].allclose, false); // different neighbours: not a reordering
  assert.deepEqual(r.unpaired_b, [1, 2]);
  assert.equal(r.permutation, false);
});

test('threshold: allclose holds at it and fails just above', () => {
  const t = lab.threshold({}, 2, { lo: 1e-12, hi: 10, relTol: 1e-6 });
  assert.ok(t > 1e-12 && t < 1e-3, String(t));
  assert.equal(lab.run({ scale: t }).pairs[2].allclose, true);
  assert.equal(lab.run({ scale: t * (1 + 1e-5) }).pairs[2].allclose, false);
});

test('a disposed lab refuses to run', async () => {
  const other = await createLab();
  other.dispose();
  assert.throws(() => other.run({}), /disposed/);
});
