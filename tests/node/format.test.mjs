// The page writes numbers as the CLI does: sig(x, digits) against C's
// "%.{digits}g", both the core's decimal_g and glibc's printf, through
// build/native/format_probe (tests/format_probe.c). Exact ties matter most:
// C rounds them half to even (1.0625 -> 1.062), JavaScript's toExponential
// and toFixed send them up (1.063).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { sig, grouped } from '../../web/app/format.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PROBE = `${root}build/native/format_probe`;

const view = new DataView(new ArrayBuffer(8));
const bitsOf = (x) => { view.setFloat64(0, x); return view.getBigUint64(0).toString(16).padStart(16, '0'); };
const fromBits = (b) => { view.setBigUint64(0, b); return view.getFloat64(0); };

// A small deterministic generator, so a failure can be replayed.
let s = 20240607;
const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
const randInt = (n) => Math.floor(rand() * n);

// The significant digits of x's exact decimal expansion, for a dyadic
// x = k / 2^m (k an integer): k * 5^m, read as an integer.
const significantDigits = (k, m) => (BigInt(k) * 5n ** BigInt(m)).toString().replace(/0+$/, '').length;

// [x, digits] pairs. A tie at `digits` is a number whose exact expansion has
// digits + 1 significant digits, the last a 5.
function cases() {
  const out = [];
  const add = (x, digits) => { if (digits >= 1 && digits <= 17) { out.push([x, digits], [-x, digits]); } };
  // named ones: the 1.0625, an exponent change (9999.5), one digit
  for (const [x, d] of [[1.0625, 4], [0.03125, 3], [2.5, 1], [3.5, 1], [0.5, 1], [1.5, 1], [0.25, 1],
    [0.125, 2], [0.375, 2], [9999.5, 4], [99999.5, 5], [9.5, 1], [0.0001220703125, 2], [12.5, 2]]) add(x, d);
  // k / 2^m: every dyadic fraction has an expansion ending in 5; ties at its
  // length minus one, at every magnitude from ~1e-8 up
  for (let m = 1; m <= 24; m++) {
    for (let t = 0; t < 40; t++) {
      const k = 2 * (1 + randInt(2 ** (1 + randInt(30)))) + 1; // odd
      const x = k / 2 ** m;
      add(x, significantDigits(k, m) - 1);
      add(x, 1 + randInt(6));
    }
  }
  // n + 0.5 for integers n of 1 to 15 digits: ties at their length
  for (let t = 0; t < 300; t++) {
    const n = Math.floor(10 ** (rand() * 15));
    add(n + 0.5, String(n).length);
  }
  // large ties: 5·o·10^q = o·5^(q+1)·2^q (o odd) is a double while o·5^(q+1) < 2^53
  for (let q = 0; q <= 20; q++) {
    for (let t = 0; t < 15; t++) {
      const limit = 2n ** 53n / 5n ** BigInt(q + 1);
      if (limit < 1n) break;
      const o = BigInt(Math.floor(rand() * Number(limit))) | 1n;
      if (o >= limit) continue;
      const x = Number(o * 5n ** BigInt(q + 1) * 2n ** BigInt(q));
      add(x, (5n * o).toString().length - 1);
    }
  }
  // every digit count 1..6 for the ties above, too
  const ties = out.slice();
  for (const [x] of ties) add(Math.abs(x), 1 + randInt(6));
  // random doubles of every finite exponent, digits 1 to 17
  for (let t = 0; t < 20000; t++) {
    const bits = (BigInt(randInt(2 ** 31)) << 32n | BigInt(randInt(2 ** 32))) & 0x7fffffffffffffffn;
    const x = fromBits(bits);
    if (Number.isFinite(x) && x !== 0) add(x, 1 + randInt(17));
  }
  return out;
}

// "-1.250e-3" -> "125": the significant digits of a number's text
const digitsOf = (text) => text.replace(/^-/, '').split('e')[0].replace('.', '').replace(/^0+/, '').replace(/0+$/, '');

test('sig(x, digits) writes what C\'s %.*g writes, exact ties included', () => {
  assert.ok(existsSync(PROBE), `${PROBE} is missing: build it with make native`);
  const all = cases();
  const input = all.map(([x, d]) => `${bitsOf(x)} ${d}\n`).join('');
  const lines = execFileSync(PROBE, { input, maxBuffer: 64 << 20 }).toString().trimEnd().split('\n');
  assert.equal(lines.length, all.length, 'one line from format_probe per case');
  const wrong = [];
  let tiesRoundedDown = 0; // where JavaScript's rounding (half up) gives other digits
  all.forEach(([x, d], i) => {
    const [core, printf] = lines[i].split('\t');
    assert.equal(core, printf, `decimal_g and printf disagree on %.${d}g of ${x}`);
    if (digitsOf(x.toPrecision(d)) !== digitsOf(printf)) tiesRoundedDown++;
    const page = sig(x, d);
    if (page !== printf) wrong.push(`sig(${x}, ${d}) = ${page}, C: ${printf}`);
  });
  // the cases hold many ties where JavaScript's own rounding goes the other way
  assert.ok(tiesRoundedDown > 500, `${tiesRoundedDown} ties that round half to even`);
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${all.length} differ from C`);
  console.log(`# ${all.length} numbers, ${tiesRoundedDown} of them ties that C rounds down`);
});

test('grouped(n) writes a whole number as toLocaleString(\'en\') does', () => {
  for (const n of [0, 7, 999, 1000, 12345, 124439808, 354823168, 1557611200, 2 ** 53 - 1]) {
    assert.equal(grouped(n), n.toLocaleString('en'), String(n));
  }
});

test('the chart picture\'s settings line names a checkpoint model, not d, heads and seed it does not have', async () => {
  const { settingsLine } = await import(new URL('../../web/views/export.js', import.meta.url));
  const base = { sentence_a: ['dog'], sentence_b: ['man'], rtol: 1e-5, atol: 1e-8, offset_a: 0, offset_b: 0 };
  assert.equal(settingsLine({ ...base, scheme: 'learned', scale: 1, causal: true, model: 'checkpoint' }, 'gpt'),
    '“dog” vs “man”: learned positions at magnitude 1, causal mask, model gpt, rtol 0.00001, atol 1e-8');
  assert.equal(settingsLine({ ...base, scheme: 'random', scale: 0.5, causal: false, model: 'head', dim: 6, heads: 1, seed: 2 }),
    '“dog” vs “man”: random positions at magnitude 0.5, no mask, d 6, 1 head, seed 2, rtol 0.00001, atol 1e-8');
});
