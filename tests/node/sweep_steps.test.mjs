// A checkpoint's sweep in steps (Checkpoint.runSteps, the core's
// poslab_run_begin/_step): each sweep point goes a third of a block of one sentence a
// step, as a threshold's probes do, and every point is the bits of the
// checkpoint's own pass at that magnitude (a run at that scale, which goes
// through the other path, the run's sentences), and the one-call sweep's.
// On each model trained here, on several sentences, with positions and the
// mask each on and off. Run `make site` (it copies models/).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { passSteps, nextSteps, drain } from '../checkpoint_steps.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SITE = `${ROOT}build/site/`;
const { createLab } = await import(`${SITE}poslab.js`);
const { SWEEP, COARSE_SWEEP } = await import(`${ROOT}web/app/sweep.js`);

const lab = await createLab();
after(() => lab.dispose());

const SENTENCES = [
  { sentence_a: 'dog bites man . who bites ?', sentence_b: 'man bites dog . who bites ?' },
  { sentence_a: 'the dog bites the man', sentence_b: 'the man bites the dog' },
  { sentence_a: 'a b c', sentence_b: 'c b a d' }, // a word of B without a partner
];

for (const name of ['gpt', 'nope', 'bag']) {
  test(`${name}: a sweep point goes a third of a block of one sentence a step, with the bits of a run at its magnitude`, async () => {
    const ck = await lab.openCheckpoint({ url: pathToFileURL(`${SITE}models/${name}/`).href });
    try {
      const pass = passSteps(ck);
      let points = 0;
      for (const words of SENTENCES) {
        for (const scheme of ['learned', 'none']) {
          for (const causal of [true, false]) {
            for (const range of [SWEEP, COARSE_SWEEP]) {
              const config = { model: 'checkpoint', ...words, scheme, causal, scale: 0.5 };
              const where = `${name} ${JSON.stringify(config)} ${range.count} points`;
              const { value: stepped, count } = drain(ck.runSteps({ ...config, sweep: range }));
              // one to begin; every point a pass of both sentences (without
              // positions the first, the others its copies, a step each);
              // then the run at the config's scale, and its next tokens,
              // whose last step returns the result
              const sweepSteps = scheme === 'none' ? 2 * pass + (range.count - 1) : range.count * 2 * pass;
              assert.equal(count, 1 + sweepSteps + 2 * pass + 2 * nextSteps(ck) - 1, `${where}: ${count} steps`);
              const whole = lab.run({ ...config, sweep: range });
              assert.deepEqual(stepped, whole, `${where}: the one-call sweep`);
              const { sweep } = stepped;
              assert.equal(sweep.scales.length, range.count);
              // each point against a run at its scale (every 7th, and both ends)
              for (let t = 0; t < range.count; t++) {
                if (t % 7 && t !== range.count - 1) continue;
                const at = lab.run({ ...config, scale: sweep.scales[t] });
                assert.ok(Object.is(sweep.mean[t].cosine_distance, at.mean.cosine_distance), `${where}: mean at point ${t}`);
                assert.equal(sweep.mean[t].allclose, at.mean.allclose, `${where}: mean at point ${t}`);
                at.pairs.forEach((p, i) => {
                  if (p.index_b === null) return;
                  assert.ok(Object.is(sweep.pairs[i][t].cosine_distance, p.cosine_distance), `${where}: pair ${i} at point ${t}`);
                  assert.equal(sweep.pairs[i][t].allclose, p.allclose, `${where}: pair ${i} at point ${t}`);
                });
                points++;
              }
            }
          }
        }
      }
      assert.ok(points >= 250, `${points} points compared`);
    } finally {
      ck.dispose();
    }
  });
}

test('a sweep dropped part way through a point leaves the next run whole', async () => {
  const ck = await lab.openCheckpoint({ url: pathToFileURL(`${SITE}models/gpt/`).href });
  try {
    const config = { model: 'checkpoint', ...SENTENCES[0], scheme: 'learned', causal: true, sweep: COARSE_SWEEP };
    const want = lab.run(config);
    const first = ck.runSteps(config);
    // one step into the third point
    for (let i = 0; i < 1 + 2 * 2 * passSteps(ck) + 1; i++) first.next();
    const { value } = drain(ck.runSteps(config));
    assert.deepEqual(value, want);
    assert.throws(() => first.next(), /this run was dropped/);
  } finally {
    ck.dispose();
  }
});
