// The WebAssembly modules in build/site against their budgets
// (tests/sizes.json), by gzip size; each size is printed with its change
// since make bench last recorded it. Run `make site`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipBytes, judge } from '../sizes.mjs';

const site = fileURLToPath(new URL('../../build/site/', import.meta.url));

for (const part of ['poslab.wasm', 'poslab-nosimd.wasm', 'poslab-checkpoint.wasm']) {
  test(`${part} fits its gzip budget`, (t) => {
    const { ok, line } = judge(part, gzipBytes(readFileSync(`${site}${part}`)));
    t.diagnostic(line);
    assert.ok(ok, line);
  });
}
