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
