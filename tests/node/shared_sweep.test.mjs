// One sweep computed by several labs (lab.shareSweep, the page's two sweep
// workers): the shares merged (mergeShares) equal one lab's sweep exactly,
// and shareSweeps (browser/sweeper.js) hands the page that merged sweep and
// every threshold, asking each worker for its share.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { createLab } = await import(`${ROOT}build/site/poslab.js`);
const { mergeShares, sweepJob, thresholdFor, unpackSweep, SWEEP, COARSE_SWEEP, coarseCurve, inPass, joinPasses } =
  await import(`${ROOT}web/app/sweep.js`);
const { shareSweeps } = await import(`${ROOT}web/browser/sweeper.js`);

const whole = await createLab();
const parts = [await createLab(), await createLab(), await createLab()];
const base = { sentence_a: 'the dog bites the man today', sentence_b: 'today the man bites the dog', sweep: SWEEP };
const CONFIGS = [
  { ...base, scheme: 'none' },
  { ...base, scheme: 'random', heads: 1 },
  { ...base, scheme: 'sinusoidal', heads: 8, dim: 64 },
  { ...base, scheme: 'rope', heads: 8, dim: 64, causal: true },
  { ...base, scheme: 'alibi', heads: 2, offset_b: 7 },
];

test('shares of a sweep, merged, are one lab\'s sweep to the bit', () => {
  for (const config of CONFIGS) {
    const want = whole.run({ ...config, packed: true }).sweep;
    for (const n of [2, 3]) {
      const got = parts.slice(0, n).map((lab, k) => { lab.shareSweep(k, n); return lab.run({ ...config, packed: true }).sweep; });
      assert.deepEqual(mergeShares(got), want, `${config.scheme}, ${n} shares`);
      assert.deepEqual(unpackSweep(want), whole.run(config).sweep, `${config.scheme}: packed, the same numbers as lab.run's objects`);
      // each share computed its own points: the other share's differ
      if (config.scheme !== 'none' && n === 2) {
        assert.notDeepEqual(got[0].cosine, want.cosine, `${config.scheme}: share 0 alone is not the sweep`);
      }
    }
  }
  parts.forEach((lab) => lab.shareSweep(0, 1));
  assert.deepEqual(parts[1].run(CONFIGS[3]).sweep, whole.run(CONFIGS[3]).sweep, 'back to 0 of 1: every point');
});

// A sweep in two passes (lab.sweepPass): its every 10th magnitude first,
// for the coarse curve, then the rest, so that no point is computed twice.
test('a sweep in passes: the coarse pass is the 13-point sweep, and with the rest it is the whole sweep, to the bit', () => {
  for (const config of CONFIGS.slice(1)) {
    const want = whole.run({ ...config, packed: true }).sweep;
    const wantCoarse = whole.run({ ...config, sweep: COARSE_SWEEP, packed: true }).sweep;
    const first = { ...inPass(parts[0], 'coarse', () => parts[0].run({ ...config, packed: true }).sweep), passes: 10 };
    assert.deepEqual(coarseCurve(first), wantCoarse, `${config.scheme}: the coarse curve`);
    const joined = joinPasses(first, inPass(parts[0], 'rest', () => parts[0].run({ ...config, packed: true }).sweep));
    assert.deepEqual({ ...joined, passes: undefined }, { ...want, passes: undefined }, `${config.scheme}: both passes`);
    assert.equal(joined.passes, 10);
    // shared between two labs, each taking every other point of each pass
    const coarse = parts.slice(0, 2).map((lab, k) => {
      lab.shareSweep(k, 2);
      return { ...inPass(lab, 'coarse', () => lab.run({ ...config, packed: true }).sweep), passes: 10 };
    });
    assert.deepEqual(coarseCurve(mergeShares(coarse)), wantCoarse, `${config.scheme}: two labs' coarse pass`);
    const rests = parts.slice(0, 2).map((lab, k) => joinPasses(coarse[k], inPass(lab, 'rest', () => lab.run({ ...config, packed: true }).sweep)));
    assert.deepEqual(unpackSweep(mergeShares(rests)), unpackSweep(want), `${config.scheme}: two labs' passes`);
    parts.forEach((lab) => lab.shareSweep(0, 1));
  }
  // inPass leaves the lab on every point, after a failure too
  assert.throws(() => inPass(parts[0], 'coarse', () => parts[0].run({ dim: 0 })), /dim/);
  assert.deepEqual(parts[0].run({ ...CONFIGS[3], packed: true }).sweep, whole.run({ ...CONFIGS[3], packed: true }).sweep);
  for (const [pass, stride] of [['some', 10], ['coarse', 1], ['rest', 1.5], ['all', 'x']]) {
    assert.throws(() => whole.sweepPass(pass, stride), /sweepPass: .* allowed: 'all', or 'coarse' or 'rest' with an integer stride of 2 or more/);
  }
});

test('a sweep worker asked for a coarse curve sends the coarse pass, then the whole sweep, each point computed once', async () => {
  const { sweep: _s, ...config } = CONFIGS[3];
  const partials = [];
  const runs = []; // the pass each run computed
  let pass = 'all';
  const counting = Object.assign(Object.create(Object.getPrototypeOf(parts[2])), parts[2], {
    run: (c) => { runs.push(pass); return parts[2].run(c); },
    sweepPass: (p, stride) => { pass = p; parts[2].sweepPass(p, stride); },
  });
  await sweepJob({ config, range: SWEEP, pairs: [], sweep: null, coarse: true }, counting, (p) => partials.push(p));
  assert.deepEqual(partials.map((p) => Boolean(p.coarse)), [true, false]);
  assert.deepEqual(runs, ['coarse', 'rest'], 'two runs: the coarse pass and the rest');
  assert.equal(pass, 'all');
  assert.deepEqual(coarseCurve(partials[0].sweep), whole.run({ ...config, sweep: COARSE_SWEEP, packed: true }).sweep);
  assert.deepEqual(unpackSweep(partials[1].sweep), whole.run({ ...config, sweep: SWEEP }).sweep);
  assert.deepEqual(parts[2].run({ ...config, sweep: SWEEP, packed: true }).sweep, whole.run({ ...config, sweep: SWEEP, packed: true }).sweep,
    'and the lab computes every point again');
});

test('shareSweep refuses shares that do not exist', () => {
  for (const [k, n] of [[2, 2], [-1, 2], [0, 0], [0.5, 2], ['0', 2]]) {
    assert.throws(() => whole.shareSweep(k, n), /shareSweep: share .* allowed: integers with 0 <= share < shares/, `${k} of ${n}`);
  }
});

// A sweeper computing in `lab` at once, as a sweep worker would, recording what it was asked.
const fakeSweeper = (lab) => {
  const asked = [];
  const self = { asked, ended: false, available: () => !self.ended, ready: () => true, end() { self.ended = true; },
    restart: () => false, restarts: () => 0, copies: () => [],
    call: async (request, onPartial = () => {}) => { asked.push(request); return sweepJob(structuredClone(request), lab, onPartial); } };
  return self;
};

test('shareSweeps: one merged sweep for the page, the thresholds split between the workers', async () => {
  const config = CONFIGS[2];
  const { sweep: _s, ...plain } = config;
  const want = whole.run(config).sweep;
  const sweepers = [fakeSweeper(parts[0])];
  const more = () => { const s = fakeSweeper(parts[sweepers.length]); sweepers.push(s); return s; };
  const both = shareSweeps(sweepers[0], { more, extras: 1, idleMs: 50 });
  const partials = [];
  const pairs = [1, 3, -1];
  const thresholds = await both.call({ config: plain, range: SWEEP, pairs, sweep: null, coarse: true }, (p) => partials.push(p));
  assert.deepEqual(partials.map((p) => Boolean(p.coarse)), [true, false], 'a coarse curve, then the sweep, each once');
  assert.ok(partials[1].sweep.packed, 'packed, as the page keeps it');
  assert.deepEqual(unpackSweep(partials[1].sweep), want);
  assert.equal(partials[1].sweep.scales.length, SWEEP.count);
  assert.deepEqual(coarseCurve(partials[0].sweep), whole.run({ ...plain, sweep: COARSE_SWEEP, packed: true }).sweep,
    'the coarse curve from the two workers\' coarse passes');
  assert.deepEqual(sweepers.map((s) => s.asked[0].share), [[0, 2], [1, 2]], 'each worker asked for its share');
  assert.deepEqual(sweepers.map((s) => s.asked[1].pairs), [[1, -1], [3]], 'the thresholds split');
  assert.deepEqual(thresholds.map(([pair]) => pair).sort(), [...pairs].sort(), 'every threshold asked for');
  for (const [pair, value] of thresholds) assert.equal(value, thresholdFor(whole, plain, partials[1].sweep, pair), `threshold of ${pair}`);
  // without positions, and for thresholds alone, one worker does it all
  const none = { ...CONFIGS[0] };
  delete none.sweep;
  sweepers.forEach((s) => { s.asked.length = 0; });
  await both.call({ config: none, range: SWEEP, pairs: [-1], sweep: null, coarse: false }, () => {});
  assert.deepEqual(sweepers.map((s) => s.asked.length), [1, 0]);
  // idle for longer than idleMs: the second copy is ended, and the next sweep starts another
  await new Promise((resolve) => { setTimeout(resolve, 120); });
  assert.equal(sweepers[1].ended, true, 'the idle extra copy is ended');
  assert.equal(sweepers[0].ended, false, 'the first stays');
  // a request that one worker serves starts no copy: only a sweep to share does
  await both.call({ config: plain, range: SWEEP, pairs: [-1], sweep: partials[1].sweep, coarse: false }, () => {});
  await both.call({ config: none, range: SWEEP, pairs: [-1], sweep: null, coarse: false }, () => {});
  assert.equal(sweepers.length, 2, 'no copy for thresholds alone, or for a sweep without positions');
  await both.call({ config: plain, range: SWEEP, pairs: [], sweep: null, coarse: false }, () => {});
  assert.equal(sweepers.length, 3, 'a new copy for the next sweep');
  assert.deepEqual(sweepers[2].asked[0].share, [1, 2]);
  both.end();
});

test('shareSweeps with a pause: a newer request within it leaves the older one\'s thresholds out; after it, they come', async () => {
  const { sweep: _s, ...plain } = CONFIGS[2];
  const other = { ...plain, sentence_b: 'the man bites the dog today' };
  const sweepers = [fakeSweeper(parts[0])];
  const more = () => { const s = fakeSweeper(parts[sweepers.length]); sweepers.push(s); return s; };
  const both = shareSweeps(sweepers[0], { more, extras: 1, idleMs: 1000, pauseMs: 60 });
  const asked = () => sweepers.map((s) => s.asked.filter((r) => r.pairs.length).length);
  let curves = 0;
  const older = both.call({ config: plain, range: SWEEP, pairs: [0, -1], sweep: null, coarse: false }, () => { curves += 1; });
  await new Promise((resolve) => { setTimeout(resolve, 20); }); // the curves are in, the pause is on
  assert.equal(curves, 1, 'the older request\'s curves are drawn');
  const newer = both.call({ config: other, range: SWEEP, pairs: [0, -1], sweep: null, coarse: false }, () => {});
  assert.deepEqual(await older, [], 'typed past within the pause: no thresholds for the older words');
  const got = await newer;
  assert.deepEqual(got.map(([pair]) => pair).sort(), [-1, 0], 'the newest request gets its thresholds after the pause');
  const want = whole.run({ ...other, sweep: SWEEP, packed: true }).sweep;
  for (const [pair, value] of got) assert.equal(value, thresholdFor(whole, other, want, pair), `threshold of ${pair}`);
  assert.deepEqual(asked(), [1, 1], 'the workers searched the newest words\' thresholds only');
  both.end();
});

test('a packed sweep, posted, gives back lab.run\'s objects, nulls and words without a partner included', () => {
  // "cat" has no partner in B; without positions the distances are rounding, some exactly 0
  const config = { sentence_a: 'the cat bites the man', sentence_b: 'the man bites the dog', sweep: SWEEP };
  const sweep = whole.run(config).sweep;
  assert.deepEqual(sweep.pairs[1], [], 'the test has a word with no partner');
  const packed = structuredClone(whole.run({ ...config, packed: true }).sweep);
  assert.ok(packed.cosine instanceof Float64Array && packed.close instanceof Uint8Array);
  assert.deepEqual(packed.empty, [false, false, true, false, false, false]);
  assert.deepEqual(unpackSweep(packed), sweep);
  // a distance that is not finite is NaN packed, null as the CLI writes it
  packed.cosine[3] = NaN;
  assert.deepEqual(unpackSweep(packed).mean[3], { ...sweep.mean[3], cosine_distance: null });
});

test('a sweep worker leaves out the thresholds not yet computed once a newer request has come', async () => {
  const { sweep: _s, ...config } = CONFIGS[1];
  const request = { config, range: SWEEP, pairs: [0, 2, -1], sweep: null, coarse: false };
  const sweep = whole.run({ ...CONFIGS[1], packed: true }).sweep;
  const want = [0, 2, -1].map((pair) => [pair, thresholdFor(whole, config, sweep, pair)]);
  let reads = 0;
  const between = async () => { reads += 1; };
  assert.deepEqual(await sweepJob(structuredClone(request), parts[0], () => {}, { between, newer: () => false, stepSweeps: false }), want,
    'the newest request: every threshold');
  assert.equal(reads, 3, 'the worker read its messages before each threshold');
  // a newer request arrives while the second threshold is computed
  let calls = 0;
  const got = await sweepJob(structuredClone(request), parts[0], () => {}, { between, newer: () => ++calls > 2, stepSweeps: false });
  assert.deepEqual(got, want.slice(0, 2), 'the third is left for the page to ask again');
});

// The page's side of the same: a keystroke's new words go to the workers
// before the page computes their verdicts (page.js's sweepEarly) unless
// the workers are still sweeping for earlier words. A request whose sweep
// is in is only searching thresholds, which the worker cuts short for the
// newer request: new words then start at once instead of after the frame.
test('the model reports a request as sweeping until its sweep is in, not while its thresholds are searched', async () => {
  const { stateForm } = await import('../state_form.mjs');
  const { form, lab } = await stateForm();
  const { Model } = await import(`${ROOT}web/app/model.js`);
  const model = new Model(lab, form);
  const state = { ...form.defaultState(), a: 'the dog bites the man', b: 'the man bites the dog', positions: true };
  let sendSweep, finish;
  const call = (request, onPartial) => {
    sendSweep = () => onPartial({ sweep: whole.run({ ...request.config, sweep: request.range, packed: true }).sweep, ms: 2 });
    return new Promise((resolve) => { finish = resolve; });
  };
  assert.equal(model.offThreadSweeping(), false, 'nothing asked yet');
  const done = model.chartDataOffThread(state, call);
  assert.equal(model.offThreadSweeping(), true, 'the sweep is being computed');
  sendSweep();
  assert.ok(model.cachedSweep(state), 'the sweep is in');
  assert.equal(model.offThreadSweeping(), false, 'only thresholds are left: new words need not wait');
  finish([[state.word, 0.5], [-1, 0.25]]);
  await done;
  assert.equal(model.offThreadSweeping(), false);
  assert.equal(model.cachedThreshold(state, -1), 0.25);
});

// The page's own coarse curve (no worker: the single file, or a worker
// that broke) is the coarse pass of its sweep, and the sweep that follows
// computes only the rest.
test('the page\'s coarse curve is its sweep\'s coarse pass, and the sweep after it computes only the rest', async () => {
  const { stateForm } = await import('../state_form.mjs');
  const { form, lab } = await stateForm();
  const { Model } = await import(`${ROOT}web/app/model.js`);
  const passes = [];
  const watched = Object.assign(Object.create(Object.getPrototypeOf(lab)), lab, {
    sweepPass: (pass, stride) => { passes.push(pass); lab.sweepPass(pass, stride); },
  });
  const model = new Model(watched, form);
  const state = { ...form.defaultState(), a: 'the dog bites the man', b: 'the man bites the dog', positions: true, scheme: 'rope' };
  const config = model.configOf(state);
  const curve = model.computeCoarse(state);
  assert.deepEqual(curve, whole.run({ ...config, sweep: COARSE_SWEEP, packed: true }).sweep);
  assert.equal(model.coarseSweep(state), curve, 'one curve, drawn as it is');
  assert.deepEqual(unpackSweep(model.sweep(state)), whole.run({ ...config, sweep: SWEEP }).sweep);
  assert.deepEqual(passes, ['coarse', 'all', 'rest', 'all']);
});

// At 64 words and d 512 with one head, the page computes a long sweep's
// coarse pass itself (about 10 ms) and then asks the workers for the sweep:
// they computed all 121 points, those 13 again. The request now carries
// the pass, and the workers (each its share) compute only the rest.
test('a coarse pass the page computed goes with its request: the workers compute only the rest, and the sweep is one lab\'s to the bit', async () => {
  const { stateForm } = await import('../state_form.mjs');
  const { form, lab } = await stateForm();
  const { Model } = await import(`${ROOT}web/app/model.js`);
  const model = new Model(lab, form);
  const state = { ...form.defaultState(), a: 'the dog bites the man today', b: 'today the man bites the dog', positions: true,
    scheme: 'sinusoidal', heads: 8, dim: 64 };
  const config = model.configOf(state);
  model.computeCoarse(state);
  const passes = [[], []]; // the passes each worker's lab computed
  const watched = (k) => Object.assign(Object.create(Object.getPrototypeOf(parts[k])), parts[k], {
    sweepPass: (pass, stride) => { passes[k].push(pass); parts[k].sweepPass(pass, stride); },
  });
  const sweepers = [fakeSweeper(watched(0))];
  const both = shareSweeps(sweepers[0], { more: () => { const s = fakeSweeper(watched(1)); sweepers.push(s); return s; }, extras: 1 });
  await model.chartDataOffThread(state, both.call);
  assert.ok(sweepers[0].asked[0].coarsePass?.passes, 'the request carries the page\'s coarse pass');
  assert.deepEqual(sweepers.map((s) => s.asked[0].share), [[0, 2], [1, 2]]);
  assert.deepEqual(passes, [['rest', 'all'], ['rest', 'all']], 'each worker computed its share of the rest, nothing else');
  assert.deepEqual(unpackSweep(model.cachedSweep(state)), whole.run({ ...config, sweep: SWEEP }).sweep);
  both.end();
});
