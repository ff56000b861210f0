// The benchmark scripts are run by hand or by `make bench`, never by the
// tests, so one that no longer parses would go unseen until then (a quote
// in tests/bench/checkpoint_report.mjs once stopped checkpoint.sh at its
// report): each must at least compile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bench = fileURLToPath(new URL('../bench/', import.meta.url));

test('every script in tests/bench parses', () => {
  const scripts = readdirSync(bench).filter((f) => /\.(m?js)$/.test(f));
  assert.ok(scripts.length >= 10, `${scripts.length} scripts`);
  const broken = scripts.filter((f) => spawnSync(process.execPath, ['--check', `${bench}${f}`], { encoding: 'utf8' }).status !== 0);
  assert.deepEqual(broken, []);
});

// last_run.mjs reads the run that `make bench` replaces. docs/benchmarks.md
// is run.mjs's own output, so a change to how run.mjs or browser.mjs writes
// these figures fails here at the next committed run, not silently then.
test('the machine figures of the committed docs/benchmarks.md are read', async () => {
  const { readFileSync } = await import('node:fs');
  const { machineFigures } = await import('../bench/last_run.mjs');
  const md = readFileSync(fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url)), 'utf8');
  const got = machineFigures(md);
  assert.match(got.written, /^\d{4}-\d\d-\d\d \d\d:\d\d$/);
  for (const key of ['openblas', 'reference', 'blankPage']) assert.ok(got[key] > 0, `${key}: ${got[key]}`);
  // each figure is the one its row or sentence gives
  assert.ok(md.includes(`DGEMM 1024² ${got.openblas} GFLOP/s (the machine's practical limit)`));
  assert.ok(md.includes(`(reference BLAS, 1 thread); DGEMM 1024² ${got.reference} GFLOP/s`));
  assert.ok(md.includes(`a page of one line from the same server at ${got.blankPage} ms`));
});

test('a run is set against the last one by the figures that run none of our code', async () => {
  const { machineAgainstLast } = await import('../bench/last_run.mjs');
  const last = { written: '2026-12-04 12:00', openblas: 164, reference: 6.69, blankPage: 72 };
  assert.equal(machineAgainstLast({ openblas: 102, reference: 6.34, blankPage: 80 }, last),
    'The machine against the last run in docs/benchmarks.md (2026-12-04 12:00 UTC): OpenBLAS DGEMM 102 GFLOP/s against 164 (−38 %), ' +
    'reference-BLAS DGEMM 6.34 GFLOP/s against 6.69 (−5 %), a page of one line first painted at 80 ms against 72 (+11 %). ' +
    'None of these runs poslab\'s code: when they move, the machine has, and the figures below move with it.');
  // a figure either run lacks (no OpenBLAS found) is left out, not shown as NaN
  assert.match(machineAgainstLast({ openblas: undefined, reference: 6.7, blankPage: 72 }, last),
    /\(2026-12-04 12:00 UTC\): reference-BLAS DGEMM 6.7 GFLOP\/s against 6.69 \(\+0 %\), a page of one line first painted at 72 ms against 72 \(\+0 %\)\./);
  assert.equal(machineAgainstLast({ openblas: 150 }, null), null);
  assert.equal(machineAgainstLast({ openblas: 150 }, { written: undefined }), null);
  assert.equal(machineAgainstLast({}, last), null);
});

// keystroke_split.mjs: what the 16 ms target leaves the core once the page
// alone has had its p95, and how much faster the core would have to be.
test('the keystroke split says what the target leaves the core', async () => {
  const { splitMarkdown } = await import('../bench/keystroke_split.mjs');
  const ramp = (from, step) => Array.from({ length: 20 }, (_, i) => from + i * step); // p50 10th, p95 19th
  const row = (scheme, heads, keys, core, alone, inWorkers = 0) =>
    ({ scheme, heads, count: 20, asIs: { keys, core, inWorkers }, memoised: { keys: alone } });
  const md = splitMarkdown([
    row('random', 1, ramp(10, 0.5), ramp(2, 0.1), ramp(8, 0.2)), // alone p95 11.6: 4.4 left, core p95 3.8
    row('rope', 8, ramp(20, 1), ramp(12, 0.5), ramp(9, 0.3), 3), // alone p95 14.4: 1.6 left, core p95 21
    row('alibi', 8, ramp(20, 1), ramp(12, 0.5), ramp(12, 0.5)), // alone p95 21: none left
  ], { date: '2026-12-06 18:00 UTC', machine: 'AMD EPYC, 2 cores', quick: false });
  const lines = md.split('\n');
  assert.ok(lines.includes('| random | 1 | 14.5 / 19.0 | 2.90 / 3.80 | 9.80 / 11.6 | 4.40 | none |'), md);
  assert.ok(lines.includes('| rope | 8 | 29.0 / 38.0 | 16.5 / 21.0 (3 of 20 sweeps in the workers) | 11.7 / 14.4 | 1.60 | 13.1x |'), md);
  assert.ok(lines.includes('| alibi | 8 | 29.0 / 38.0 | 16.5 / 21.0 | 16.5 / 21.0 | -5.00 | no core would do |'), md);
  assert.match(md, /^### Where a keystroke's time goes: \(b\) 16 words, d 64, CPU 2x slower/);
  assert.match(md, /20 per pair and way/);
});
