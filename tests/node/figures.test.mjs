// docs/experiment.md's figures for offsets, ALiBi and heads, from the
// WebAssembly build through the wrapper the page uses (test_core asserts
// the same of the native build, and reference.py --check of NumPy).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { near } from '../near.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab } = await import(`${root}build/site/poslab.js`);
const { tables } = JSON.parse(readFileSync(`${root}tests/fixtures/cases.json`, 'utf8'));
const lab = await createLab();

// docs/experiment.md: implementations agree to 1e-9 relative or 1e-12 absolute.
const verdicts = (result) => result.pairs.map((p) => p.allclose);
const SHIFT = 'the cat chased the mouse';

test('ALiBi cannot see a reversal: every distance between two words stays', () => {
  const r = lab.run({ scheme: 'alibi' });
  assert.deepEqual(verdicts(r), [true, true, true]);
  assert.equal(r.mean.allclose, true);
  // swapping cat and mouse is no reversal: some distances change, and the means differ
  const cat = lab.run({ scheme: 'alibi', dim: 16, sentence_a: 'the cat chased the mouse',
    sentence_b: 'the mouse chased the cat' });
  assert.equal(cat.mean.allclose, false);
});

test('the shift test: moving B five places changes nothing for none, rope and alibi, everything for random and sinusoidal', () => {
  const relative = { none: true, rope: true, alibi: true, random: false, sinusoidal: false };
  for (const [scheme, same] of Object.entries(relative)) {
    for (const heads of [1, 4]) {
      for (const causal of [false, true]) {
        const what = `${scheme}, ${heads} heads, causal ${causal}`;
        const r = lab.run({ scheme, sentence_a: SHIFT, sentence_b: SHIFT, dim: 16, offset_b: 5, heads, causal,
          full: true });
        assert.deepEqual(verdicts(r), Array(5).fill(same), what);
        if (scheme !== 'rope') continue;
        // RoPE's scores depend on j - i alone: equal entry by entry up to
        // rounding (null where the mask hides a word, in both)
        const b = r.scores_heads_b.flat(2);
        r.scores_heads_a.flat(2).forEach((x, e) => {
          assert.ok(x === null ? b[e] === null : near(b[e], x), `${what}: score ${e}: ${x} and ${b[e]}`);
        });
      }
    }
  }
});

test('one head is the module: heads 1 gives the result of no heads, even after a 3-head run', async () => {
  for (const scheme of ['none', 'random', 'sinusoidal', 'rope', 'alibi']) {
    for (const causal of [false, true]) {
      const config = { scheme, causal, sweep: { lo: 1e-3, hi: 10, count: 4 }, full: true };
      const fresh = await createLab();
      const want = JSON.stringify(fresh.run(config));
      fresh.dispose();
      lab.run({ ...config, heads: 3 });
      assert.equal(JSON.stringify(lab.run({ ...config, heads: 1 })), want, `${scheme}, causal ${causal}`);
    }
  }
});

test('ALiBi\'s scores are the unbiased ones minus s m_h |i - j|, with NumPy\'s slopes', () => {
  for (const [heads, dim] of [[1, 6], [3, 6], [5, 10], [8, 8]]) {
    for (const causal of [false, true]) {
      const config = { heads, dim, causal, sentence_a: 'the cat saw the dog', sentence_b: 'the dog saw the cat',
        offset_a: 7, offset_b: 300, full: true };
      const none = lab.run({ ...config, scheme: 'none' }).scores_heads_a;
      const zero = lab.run({ ...config, scheme: 'alibi', scale: 0 }).scores_heads_a;
      assert.deepEqual(zero, none, `${heads} heads: alibi at scale 0 is scheme none`);
      const biased = lab.run({ ...config, scheme: 'alibi', scale: 0.75 }).scores_heads_a;
      biased.forEach((m, h) => m.forEach((row, i) => row.forEach((y, j) => {
        const x = zero[h][i][j], what = `${heads} heads, causal ${causal}, head ${h} [${i}][${j}]`;
        if (x === null) { assert.equal(y, null, what); return; }
        const want = -0.75 * tables.alibi_slopes[heads - 1][h] * Math.abs(i - j);
        assert.ok(Math.abs(y - x - want) <= 4 * Number.EPSILON * (Math.abs(x) + Math.abs(want)), `${what}: ${y} - ${x}`);
      })));
    }
  }
});

test('lab.alibiSlope and lab.sinusoidal give NumPy\'s numbers', () => {
  tables.alibi_slopes.forEach((slopes, k) => {
    assert.deepEqual(slopes.map((_, h) => lab.alibiSlope(h, k + 1)), slopes, `${k + 1} heads`);
  });
  assert.ok(Number.isNaN(lab.alibiSlope(3, 3)) && Number.isNaN(lab.alibiSlope(0, 9)));
  for (const { first, count, dim, rows } of tables.sinusoidal) {
    const got = lab.sinusoidal(first, count, dim);
    assert.equal(got.length, count);
    got.forEach((row, p) => row.forEach((x, j) => assert.ok(near(x, rows[p][j]), `PE[${first + p}, ${j}]: ${x}`)));
  }
  const last = lab.options.limits.max_position;
  assert.equal(lab.sinusoidal(last, 1, 4).length, 1);
  assert.throws(() => lab.sinusoidal(last, 2, 4), /allowed: positions from 0 to 1087, dim from 1 to 512/);
  assert.throws(() => lab.sinusoidal(2 ** 31 - 1, 1, 4), /allowed: positions from 0 to 1087/); // no wrap past 2^31
  // numbers C would cut or wrap on the way to its 32-bit ints
  assert.throws(() => lab.sinusoidal(2 ** 32 + 5, 1, 4), /allowed: positions from 0 to 1087/);
  assert.throws(() => lab.sinusoidal(1.5, 1, 4), /allowed: positions/);
  assert.throws(() => lab.sinusoidal(0, 1, 4.5), /dim from 1 to 512/);
  assert.ok(Number.isNaN(lab.alibiSlope(0.5, 2)) && Number.isNaN(lab.alibiSlope(0, 2 ** 32 + 1)));
});
