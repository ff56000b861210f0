// The threshold finder (bisection on log scale in the core) against a dense
// sweep: the largest magnitude at which allclose still says True.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab } = await import(`${root}build/site/poslab.js`);
const lab = await createLab();

const CASES = [
  {},
  { scheme: 'sinusoidal' },
  { scheme: 'rope' },
  { scheme: 'random', causal: true },
  { sentence_a: 'the cat chased the mouse', sentence_b: 'the mouse chased the cat', scheme: 'sinusoidal', dim: 16 },
  { sentence_a: 'alice paid bob', sentence_b: 'bob paid alice', scheme: 'rope', dim: 9, seed: 11, rtol: 1e-3 },
];
const LO = 1e-12, HI = 1e3, POINTS = 1001; // about 67 points per decade

for (const config of CASES) {
  test(`threshold agrees with a ${POINTS}-point sweep: ${JSON.stringify(config)}`, () => {
    const dense = lab.run({ ...config, sweep: { lo: LO, hi: HI, count: POINTS } });
    const rows = [{ name: 'mean', index: -1, points: dense.sweep.mean }]
      .concat(dense.pairs.map((p, i) => ({ name: p.word, index: i, points: dense.sweep.pairs[i] })));
    for (const { name, index, points } of rows) {
      if (points.length === 0) continue;
      const t = lab.threshold(config, index, { lo: LO, hi: HI, relTol: 1e-6 });
      const firstFalse = points.findIndex((p) => !p.allclose);
      if (firstFalse === 0) { assert.equal(t, 0, `${name}: False already at ${LO}`); continue; }
      if (firstFalse < 0) { assert.equal(t, HI, `${name}: True all the way to ${HI}`); continue; }
      // the sweep's last True and first False bracket the threshold
      const below = dense.sweep.scales[firstFalse - 1], above = dense.sweep.scales[firstFalse];
      assert.ok(t >= below && t < above, `${name}: threshold ${t} outside [${below}, ${above})`);
      const at = lab.run({ ...config, scale: t }), past = lab.run({ ...config, scale: t * (1 + 2e-6) });
      const verdict = (r) => (index < 0 ? r.mean.allclose : r.pairs[index].allclose);
      assert.equal(verdict(at), true, `${name}: True at the threshold`);
      assert.equal(verdict(past), false, `${name}: False just past it`);
    }
  });
}

test('the module\'s "man" is indistinguishable below about 1e-8', () => {
  const t = lab.threshold({}, 2);
  assert.ok(t > 1e-9 && t < 1e-7, String(t));
});
