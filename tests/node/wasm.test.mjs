// The WebAssembly build under Node, through the same wrapper the page uses,
// against the NumPy fixtures that the native tests read.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fixtureConfig } from './fixture_config.mjs';
import { near } from '../near.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab, CORE_FUNCTIONS } = await import(`${root}build/site/poslab.js`);
const fixtures = JSON.parse(readFileSync(`${root}tests/fixtures/cases.json`, 'utf8'));
const CLI = `${root}build/native/poslab`;


const configOf = (options) => fixtureConfig(options, lab.options);

// The one comparison with the fixtures (and between builds): tests/compare.py,
// which the native tests use too. Writes this build's results where it can
// read them; returns its exit status and what it printed.
const COMPARE = `${root}tests/compare.py`;
const scratch = mkdtempSync(join(tmpdir(), 'poslab-wasm-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function resultsFile(build, results) {
  const path = join(scratch, `${build}.json`);
  writeFileSync(path, JSON.stringify({ build, cases: results }));
  return path;
}

function compareFiles(expectedPath, resultsPath, ...fixtures) {
  const run = spawnSync('/usr/bin/python3', [COMPARE, expectedPath, resultsPath, ...fixtures], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const lab = await createLab();

test('the wrapper calls exactly the functions src/exports.json exports', () => {
  const exported = JSON.parse(readFileSync(`${root}src/exports.json`, 'utf8'));
  assert.deepEqual([...CORE_FUNCTIONS].sort(), [...exported].sort());
});

test('the option table: parsed once, as the core writes it', () => {
  const { options, limits, schemes } = lab.options;
  assert.equal(lab.options, lab.options);
  assert.deepEqual(limits, { max_tokens: 64, max_token_bytes: 64, max_dim: 512, max_sweep: 1001,
    max_offset: 1024, max_heads: 8, max_position: 1087, max_scale: 1e6 });
  assert.deepEqual(schemes.map((s) => [s.name, s.default_scale]),
    [['none', 0.5], ['random', 0.5], ['sinusoidal', 1], ['rope', 1], ['alibi', 1]]);
  assert.deepEqual(options.map((o) => o.name), ['a', 'b', 'dim', 'seed', 'scheme', 'scale', 'causal', 'rtol', 'atol',
    'offset-a', 'offset-b', 'model', 'heads', 'layers', 'weight-std', 'sweep']);
  const dim = options.find((o) => o.name === 'dim');
  assert.deepEqual([dim.kind, dim.min, dim.max, dim.default, dim.allowed], ['integer', 1, 512, 6, 'an integer from 1 to 512']);
  assert.deepEqual(options.find((o) => o.name === 'scheme').values, ['none', 'random', 'sinusoidal', 'rope', 'alibi']);
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
  const results = fixtures.cases.map((c) => ({ name: c.name, result: lab.run({ ...configOf(c.options), full: true }) }));
  assert.ok(results.length >= 20);
  const { status, output } = compareFiles(`${root}tests/fixtures/cases.json`, resultsFile('wasm', results));
  assert.equal(status, 0, output);
});

// Same C, but libm differs: glibc picks FMA variants of exp/pow on x86-64,
// Emscripten links musl's, so the last bit may differ; the spec's tolerance
// applies between builds as between either build and NumPy.
// (compare.py takes the native results as the expected side, with allclose
// margins computed from their outputs, where either answer is right; the
// JSON holds no stream after each block, so the layers' margins are NumPy's.)
test('the WebAssembly build agrees with the native CLI', () => {
  const natives = [], wasms = [];
  for (const c of fixtures.cases) {
    const args = ['--json', '--full'];
    for (const [k, v] of Object.entries(c.options)) {
      if (k === 'causal') { if (v === 'true') args.push('--causal'); } else args.push(`--${k}`, v);
    }
    const native = JSON.parse(execFileSync(CLI, args, { encoding: 'utf8' }));
    const wasm = lab.run({ ...configOf(c.options), full: true });
    assert.deepEqual(Object.keys(wasm), Object.keys(native), `${c.name}: same fields in the same order`);
    natives.push({ name: c.name, result: native });
    wasms.push({ name: c.name, result: wasm });
  }
  const { status, output } = compareFiles(resultsFile('native', natives), resultsFile('wasm', wasms),
                                          `${root}tests/fixtures/cases.json`);
  assert.equal(status, 0, output);
});

test('invalid config throws the CLI\'s words and the lab stays usable', () => {
  const cases = [
    [{ dim: 0 }, ['--dim', '0']],
    [{ dim: 513 }, ['--dim', '513']],
    [{ seed: -1 }, ['--seed', '-1']],
    [{ seed: 4294967296 }, ['--seed', '4294967296']],
    [{ scheme: 'learnt' }, ['--scheme', 'learnt']],
    [{ scale: NaN }, ['--scale', 'NaN']],
    [{ scale: -1 }, ['--scale', '-1']],
    [{ scale: 'abc' }, ['--scale', 'abc']],
    [{ rtol: -1e-5 }, ['--rtol', '-0.00001']],
    [{ sentence_a: '' }, ['--a', '']],
    [{ sentence_b: 'x'.repeat(65) }, ['--b', 'x'.repeat(65)]],
    [{ sentence_a: Array(65).fill('w').join(' ') }, ['--a', Array(65).fill('w').join(' ')]],
    [{ offset_a: 1025 }, ['--offset-a', '1025']],
    [{ offset_b: -1 }, ['--offset-b', '-1']],
    [{ heads: 9 }, ['--heads', '9']],
    [{ heads: 4 }, ['--heads', '4']],
    [{ dim: 8, heads: 3 }, ['--dim', '8', '--heads', '3']],
    [{ scale: Infinity }, ['--scale', 'Infinity']],
    [{ weight_std: NaN }, ['--weight-std', 'NaN']],
    [{ offset_a: 1.5 }, ['--offset-a', '1.5']],
    [{ dim: 'abc' }, ['--dim', 'abc']],
    [{ causal: 'maybe' }, ['--causal=maybe']],
  ];
  for (const [config, args] of cases) {
    const cli = spawnSync(CLI, args, { encoding: 'utf8' });
    assert.equal(cli.status, 2);
    // the CLI names options with dashes ("--a", "--offset-a"), the wrapper by
    // field ("sentence_a", "offset_a"); the option table pairs the two
    // field ("sentence_a", "offset_a"); the option table pairs the two. The
    // native CLI also runs checkpoints, which the main module leaves to the
    // checkpoint module: its lists of schemes name one more.
    const words = cli.stderr.trim().replace(/^poslab: --([a-z-]+):/,
      (_, name) => `${lab.options.options.find((o) => o.name === name).json}:`).replace(', alibi, learned', ', alibi');
    assert.throws(() => lab.run(config), (e) => e instanceof Error && e.message === words, JSON.stringify(config));
  }
  assert.throws(() => lab.run({ colour: 'red' }), /"colour" is not a config field/);
  assert.throws(() => lab.run({ sentence_a: ['dog', 'big dog'] }), /sentence_a: word 2/);
  assert.throws(() => lab.run({ causal: 'yes' }), /causal: "yes"/);
  assert.throws(() => lab.run({ causal: 2 }), /causal: 2 is not a switch value; allowed: true, false, 1 or 0/);
  // the switch's words the message lists are taken, as numbers too
  for (const [on, off] of [[1, 0], ['1', '0'], [true, false], ['true', 'false']]) {
    assert.deepEqual([lab.run({ causal: on }).config.causal, lab.run({ causal: off }).config.causal], [true, false], String(on));
  }
  assert.throws(() => lab.run({ sentence_a: 'dog \uD800 bites' }), /sentence_a: contains a lone UTF-16 surrogate/);
  assert.throws(() => lab.run({ scale: '0x10' }), /scale: "0x10" is not a number; allowed: a finite number from 0 to 1e6/);
  assert.throws(() => lab.run({ scale: 'abc' }), /scale: "abc" is not a number;/);
  assert.throws(() => lab.run({ weight_std: NaN }), /weight_std: "NaN" is not a finite number;/);
  assert.throws(() => lab.run({ offset_a: 1.5 }), /offset_a: "1.5" is not an integer;/);
  assert.throws(() => lab.run({ scale: -1 }), /scale: "-1" is out of range;/);
  assert.throws(() => lab.run({ dim: true }), /dim: true is not a number; allowed: an integer from 1 to 512/);
  assert.throws(() => lab.run({ sentence_a: 'dog\0x bites man' }), /sentence_a: contains a NUL character/);
  assert.throws(() => lab.run({ dim: '6\0' }), /dim: contains a NUL character/);
  assert.throws(() => lab.run({ sweep: { lo: 0, hi: 1, count: 3 } }), /sweep: "0:1:3" is not a valid sweep \(LO is out of range\); allowed/);
  assert.throws(() => lab.run({ sweep: '10:1:3' }), { message: 'sweep: "10:1:3" is not a valid sweep (LO is above HI); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001' });
  // the CLI's text is a sweep too; anything else says what it was given
  assert.deepEqual(lab.run({ sweep: '1e-3:10:3' }).sweep, lab.run({ sweep: { lo: 1e-3, hi: 10, count: 3 } }).sweep);
  for (const bad of [true, [1, 10, 3], { lo: 1, hi: 10 }]) {
    assert.throws(() => lab.run({ sweep: bad }), { message: `sweep: ${JSON.stringify(bad)} is not a sweep; allowed: {lo, hi, count} or "LO:HI:COUNT"` });
  }
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
  // a pair that is not an integer is refused, not read as another (nothing, null or NaN became word 0)
  for (const pair of [undefined, null, NaN, 1.5, '2', true]) {
    assert.throws(() => lab.threshold({}, pair), { message: `poslab: pair: ${String(pair)} is not -1 (the sentence mean) or a word's index` });
  }
  assert.equal(lab.threshold({}, -1), lab.threshold({}, -1, {}));
});

test('a disposed lab refuses to run', async () => {
  const other = await createLab();
  other.dispose();
  assert.throws(() => other.run({}), /disposed/);
});

// lab.sibling(): a second lab in the same copy of the core, for a short job
// beside the lab in use (the page's calibration).
test('a sibling lab shares the core and its memory, not its draws or results', async () => {
  const words = Array.from({ length: 16 }, (_, i) => `w${i}`);
  const shown = { sentence_a: words.join(' '), sentence_b: [...words].reverse().join(' '), dim: 64, heads: 8, scheme: 'rope', scale: 0.5 };
  const small = { sentence_a: 'c0 c1 c2', sentence_b: 'c2 c1 c0', dim: 6, heads: 2, scheme: 'sinusoidal', scale: 0.25 };
  const mine = await createLab();
  const before = mine.run(shown);
  const heap = mine.heapBytesInUse();
  const other = mine.sibling();
  assert.equal(other.memoryBytes(), mine.memoryBytes(), 'the same WebAssembly memory');
  assert.ok(mine.heapBytesInUse() > heap, 'its own lab in that heap');
  const fresh = await createLab();
  assert.deepEqual(other.run(small), fresh.run(small), 'its runs are what a lab of its own gives');
  assert.deepEqual(mine.run({ ...shown, scale: 0.5 }), before, 'the first lab\'s results are as they were');
  assert.deepEqual(other.run({ ...small, sweep: { lo: 1e-3, hi: 1, count: 4 } }).sweep, fresh.run({ ...small, sweep: { lo: 1e-3, hi: 1, count: 4 } }).sweep);
  other.dispose();
  assert.equal(mine.heapBytesInUse(), heap, 'disposing it gives its memory back');
  assert.throws(() => other.run(small), /disposed/);
  assert.deepEqual(mine.run(shown), before, 'and leaves the first lab working');
  const third = mine.sibling();
  mine.dispose();
  assert.deepEqual(third.run(small), fresh.run(small), 'a sibling outlives the lab it came from');
  assert.throws(() => mine.sibling(), /disposed/);
  third.dispose();
  fresh.dispose();
});

// lab.runSteps: the run of lab.run in bounded steps (poslab_run_step), so a
// worker can read newer requests between them; dropping one part way leaves
// nothing behind, and a generator whose run was dropped says so.
test('a run in steps: one step per block and sentence (of the run and of each sweep point), equal to lab.run', () => {
  const deep = { model: 'transformer', layers: 3, heads: 2, dim: 16, scheme: 'rope', scale: 5,
    sweep: { lo: 1e-3, hi: 10, count: 4 }, full: true };
  const steps = lab.runSteps(deep);
  let next = steps.next(); // begins: checks and draws
  let count = 0;
  while (!(next = steps.next()).done) count += 1;
  // a sweep point is a pass too: a worker computing a transformer's chart
  // reads a newer run after a block, not after a whole pass
  assert.equal(count + 1, (4 + 1) * 2 * 3, 'a 4-point sweep and the run, each 3 blocks for each sentence');
  const fresh = lab.run(deep);
  assert.deepEqual(next.value, fresh);

  // dropped halfway through a sweep point's blocks, then a smaller magnitude
  const dropped = lab.runSteps(deep);
  for (let i = 0; i < 9; i++) dropped.next();
  const small = { ...deep, scale: 0.3, sweep: undefined };
  const rest = lab.runSteps(small);
  let r;
  while (!(r = rest.next()).done);
  assert.deepEqual(r.value, lab.run(small));
  assert.throws(() => dropped.next(), /this run was dropped: the lab has begun another since/);

  // a bad config throws at the first next(), with the CLI's words
  assert.throws(() => lab.runSteps({ ...small, heads: 3 }).next(), /heads: "3" does not divide dim 16/);
  // a threshold between steps drops the run too
  const cut = lab.runSteps(small);
  cut.next();
  cut.next();
  lab.threshold(small, -1, { lo: 1e-3, hi: 10 });
  assert.throws(() => cut.next(), /dropped/);
});
