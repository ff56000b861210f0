// The kernels' bits in WebAssembly: both cores (SIMD and the fallback) give,
// for every configuration of tests/kernel_bits.json, the full JSON whose
// SHA-256 the kernels as they were before their speed-ups recorded there as
// sha256_wasm, so a faster kernel that reorders a single addition fails here
// too. (The native hashes differ: musl's libm is not glibc's to the last
// bit, and the CLI ends with a newline; NumPy's fixtures, not these hashes,
// judge how close either is.)
//   POSLAB_WRITE_KERNEL_BITS=1 node tests/node/kernel_bits.test.mjs
// records the SIMD core's hashes instead (only when the numbers are meant to change).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab } = await import(`${root}build/site/poslab.js`);
const CASES = `${root}tests/kernel_bits.json`;
const recorded = JSON.parse(readFileSync(CASES, 'utf8'));
const { cases } = recorded;
const JSON_FULL = 1; // POSLAB_JSON_FULL: the CLI's --json --full

function fullJsonHash(lab, config) {
  lab.run(config);
  const json = lab.core.UTF8ToString(lab.core._poslab_json(lab.lab, JSON_FULL));
  return createHash('sha256').update(json).digest('hex');
}

if (process.env.POSLAB_WRITE_KERNEL_BITS) {
  const lab = await createLab();
  for (const c of cases) c.sha256_wasm = fullJsonHash(lab, c.config);
  writeFileSync(CASES, `${JSON.stringify(recorded, null, 1)}\n`);
  lab.dispose();
}

for (const simd of [true, false]) {
  test(`${simd ? 'SIMD' : 'fallback'} core: every configuration's full JSON has its recorded hash`, async () => {
    const lab = await createLab({ simd });
    try {
      assert.equal(lab.simd, simd);
      const wrong = [];
      for (const { name, config, sha256_wasm: recorded } of cases) {
        const got = fullJsonHash(lab, config);
        if (got !== recorded) wrong.push(`${name}: ${got}`);
      }
      assert.deepEqual(wrong, [], `${wrong.length} of ${cases.length} configurations changed their bits`);
    } finally {
      lab.dispose();
    }
  });
}
