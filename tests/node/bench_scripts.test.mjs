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
