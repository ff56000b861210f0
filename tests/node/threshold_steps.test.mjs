// A checkpoint's threshold in steps (Checkpoint.thresholdSteps, the core's
// poslab_threshold_begin/_step): on each model trained here, for the mean
// and every pair, with positions and the mask each on and off, and over
// the whole range as over the one step of the chart's sweep the page asks
// about, it returns lab.threshold's double to the bit, in steps of one
// block of one sentence; a run or a search begun on the same lab drops it.
// Run `make site` (it copies models/).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { passSteps, drain } from '../checkpoint_steps.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SITE = `${ROOT}build/site/`;
const { createLab } = await import(`${SITE}poslab.js`);
const { SWEEP, thresholdSearch, thresholdRange } = await import(`${ROOT}web/app/sweep.js`);

const lab = await createLab();
after(() => lab.dispose());

const SENTENCES = [
  { sentence_a: 'dog bites man', sentence_b: 'man bites dog' },
  { sentence_a: 'the dog bites the man', sentence_b: 'the man bites the dog' },
];

for (const name of ['gpt', 'nope', 'bag']) {
  test(`${name}: thresholdSteps gives lab.threshold's double for the mean and every pair, positions and mask on and off`, async () => {
    const ck = await lab.openCheckpoint({ url: pathToFileURL(`${SITE}models/${name}/`).href });
    try {
      const pass = passSteps(ck);
      let searches = 0, walked = 0;
      for (const words of SENTENCES) {
        for (const scheme of ['learned', 'none']) {
          for (const causal of [true, false]) {
            const config = { model: 'checkpoint', ...words, scheme, causal };
            const { pairs, sweep } = lab.run({ ...config, sweep: SWEEP });
            for (let pair = -1; pair < pairs.length; pair++) {
              const points = pair < 0 ? sweep.mean : sweep.pairs[pair];
              if (!points.length) continue; // a word without a partner
              // the page's range (one step of the sweep) and the whole one
              for (const range of [thresholdSearch(points, sweep.scales, thresholdRange(lab.options.limits)), {}]) {
                const want = lab.threshold(config, pair, range);
                const { value, count } = drain(ck.thresholdSteps(config, pair, range));
                const where = `${JSON.stringify(config)} pair ${pair} ${JSON.stringify(range)}`;
                assert.ok(Object.is(value, want), `${where}: in steps ${value}, lab.threshold ${want}`);
                // one to begin, then a pass of each sentence a probe
                assert.equal((count - 1) % (2 * pass), 0, `${where}: ${count} steps`);
                searches++;
                if (count > 1 + 2 * pass) walked++;
              }
            }
          }
        }
      }
      assert.ok(searches >= 40, `${searches} searches`);
      assert.ok(walked >= 10, `${walked} searches with more than one probe`);
    } finally {
      ck.dispose();
    }
  });
}

test('a search in steps is dropped by a run or another search begun on its lab, and says so', async () => {
  const ck = await lab.openCheckpoint({ url: pathToFileURL(`${SITE}models/nope/`).href });
  try {
    const config = { model: 'checkpoint', scheme: 'learned', causal: false };
    const want = lab.threshold(config, -1);
    const first = ck.thresholdSteps(config, -1);
    for (let i = 0; i < 5; i++) first.next();
    drain(ck.runSteps(config)); // the chart's next sweep
    assert.throws(() => first.next(), /this search was dropped/);
    const second = ck.thresholdSteps(config, -1);
    second.next();
    second.next();
    const third = ck.thresholdSteps(config, 0);
    third.next(); // (a generator begins at its first next())
    assert.throws(() => second.next(), /this search was dropped/);
    assert.ok(Object.is(drain(third).value, lab.threshold(config, 0)));
    // and none of it touched the next one
    assert.ok(Object.is(drain(ck.thresholdSteps(config, -1)).value, want));
    // its arguments are checked as lab.threshold's, at the first next()
    assert.throws(() => ck.thresholdSteps(config, 99).next(), /pair: 99 is not a paired word/);
    assert.throws(() => ck.thresholdSteps(config, -1, { lo: 0 }).next(), /threshold: range 0 to 1000/);
  } finally {
    ck.dispose();
  }
  assert.throws(() => ck.thresholdSteps({}, -1).next(), /this checkpoint has been disposed/);
});
