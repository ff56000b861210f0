// The checkpoint models in the page's app layer (web/app/state.js and
// web/app/checkpoints.js, no DOM): their state survives a link, the loader
// opens the models trained here from the site's models/ folder once each
// and gives one back when the state leaves it, and the page's config gives
// the native CLI's numbers. Run `make native site` (it copies models/).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stateForm } from '../state_form.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SITE = `${ROOT}build/site/`;
const CLI = `${ROOT}build/native/poslab`;
const { TRAINED_AS, TRAINED_MODELS } = await import(`${ROOT}web/app/state.js`);
const { CheckpointLoader, checkpointSource } = await import(`${ROOT}web/app/checkpoints.js`);
const { form, lab } = await stateForm();
const BASE = pathToFileURL(SITE).href;

after(() => lab.dispose());

test('the defaults a checkpoint opens with are how its config.json says it was trained', () => {
  for (const name of TRAINED_MODELS) {
    const config = JSON.parse(readFileSync(`${SITE}models/${name}/config.json`, 'utf8'));
    assert.equal(config.poslab_model, name);
    const { state, ignored } = form.parseHash(`#model=${name}`);
    assert.deepEqual(ignored, []);
    assert.deepEqual([state.positions, state.causal, state.scale], [config.poslab_trained_positions, config.poslab_trained_causal, 1], name);
    assert.deepEqual(TRAINED_AS[name], { positions: config.poslab_trained_positions, causal: config.poslab_trained_causal });
  }
});

test('a checkpoint state survives a link exactly; the head\'s links are as before', () => {
  const states = [
    form.withModel(form.defaultState(), 'gpt'),
    { ...form.withModel(form.defaultState(), 'bag'), a: 'dog bites man . who bites ?', b: 'man bites dog . who bites ?', space: false },
    { ...form.withModel(form.defaultState(), 'nope'), positions: true, causal: false, scale: 0, offsetA: 3, offsetB: 1 },
    { ...form.withModel(form.defaultState(), 'gpt2'), checkpoint: 'models/gpt2/' },
    { ...form.withModel(form.defaultState(), 'gpt2'), checkpoint: 'a%20b/c+d&e=f/' },
  ];
  for (const state of states) {
    const hash = form.toHash(state);
    assert.deepEqual(form.parseHash(`#${hash}`), { state, ignored: [] }, hash);
  }
  // the head's link has neither key; GPT-2's names its folder
  assert.doesNotMatch(form.toHash(form.defaultState()), /checkpoint|space/);
  assert.match(form.toHash(states[1]), /&space=0$/);
  assert.match(form.toHash(states[3]), /&checkpoint=models%2Fgpt2%2F$/);
  // back to the head: its own defaults again
  assert.deepEqual(form.withModel(states[2], 'head'), { ...states[2], model: 'head', positions: false, causal: false, scale: 0.5 });
});

test('a checkpoint folder in a link must be on this site, and only for GPT-2', () => {
  for (const bad of ['https://evil.example/m/', '//evil.example/m/', 'javascript:alert(1)', '\\\\evil\\m', 'a\nb/', ' ']) {
    const { state, ignored } = form.parseHash(`#model=gpt2&checkpoint=${encodeURIComponent(bad)}`);
    assert.equal(state.checkpoint, '', bad);
    assert.deepEqual(ignored.map((i) => i.label), ['checkpoint folder'], bad);
  }
  assert.deepEqual(form.parseHash('#model=gpt&checkpoint=models/gpt2/').ignored.map((i) => i.reason), ['allowed: only with model gpt2']);
  assert.equal(form.parseHash('#model=gpt2&checkpoint=models/gpt2').state.checkpoint, 'models/gpt2/');
  assert.throws(() => checkpointSource({ model: 'gpt2', checkpoint: '//evil.example/x/' }, 'https://lab.example/poslab/'), /not on this site/);
  assert.equal(checkpointSource({ model: 'gpt2', checkpoint: '../ck/' }, 'https://lab.example/poslab/').url, 'https://lab.example/ck/');
  assert.equal(checkpointSource({ model: 'head' }, BASE), null);
});

// The CLI's arguments for a page state, in the CLI's terms (docs/
// interfaces.md, "CLI"): positions off is the scheme none, on is the
// checkpoint's default (its position table).
function cliArgs(state, folder) {
  return ['--model', 'checkpoint', '--checkpoint', folder, '--json', '--a', state.a, '--b', state.b,
    ...(state.positions ? [] : ['--scheme', 'none']), '--scale', String(state.scale), `--causal=${state.causal}`,
    '--offset-a', String(state.offsetA), '--offset-b', String(state.offsetB), `--prefix-space=${state.space}`,
    '--rtol', String(state.rtol), '--atol', String(state.atol)];
}

// Equal within 1e-9 relative (or 1e-12 absolute); everything else exactly.
function agree(got, want, where, errors) {
  if (typeof want === 'number') {
    if (!(typeof got === 'number' && Math.abs(got - want) <= 1e-12 + 1e-9 * Math.abs(want))) errors.push(`${where}: ${got}; CLI ${want}`);
  } else if (want === null || typeof want !== 'object') {
    if (got !== want) errors.push(`${where}: ${JSON.stringify(got)}; CLI ${JSON.stringify(want)}`);
  } else {
    if (Array.isArray(want) && got?.length !== want.length) errors.push(`${where}: length ${got?.length}; CLI ${want.length}`);
    for (const [k, v] of Object.entries(want)) agree(got?.[k], v, `${where}.${k}`, errors);
  }
}

const VARIANTS = [
  {},
  { positions: false },
  { positions: true },
  { causal: false },
  { causal: true },
  { positions: false, causal: false },
  { scale: 0 },
  { scale: 2.5 },
  { offsetA: 4, offsetB: 1 },
  { space: false },
];
const QUESTIONS = { a: 'dog bites man . who bites ?', b: 'man bites dog . who bites ?' };

test('the loader and the page\'s config give the native CLI\'s numbers for the three models trained here', async () => {
  const loader = new CheckpointLoader(lab, { base: BASE });
  let runs = 0;
  for (const name of TRAINED_MODELS) {
    const trained = { ...form.withModel(form.defaultState(), name), ...QUESTIONS };
    const ck = await loader.open(trained);
    for (const variant of VARIANTS) {
      const state = { ...trained, ...variant };
      const config = form.configOf(state);
      assert.deepEqual(Object.keys(config).sort(), ['atol', 'causal', 'model', 'offset_a', 'offset_b', 'prefix_space', 'rtol',
        'scale', 'scheme', 'sentence_a', 'sentence_b'], 'only what a checkpoint reads');
      const done = spawnSync(CLI, cliArgs(state, `${SITE}models/${name}`), { encoding: 'utf8' });
      assert.equal(done.status, 0, done.stderr);
      const want = JSON.parse(done.stdout);
      delete want.config.checkpoint; // the folder as the CLI was given it
      const got = lab.run(config);
      assert.equal(got.checkpoint.parameters, ck.info.parameters);
      const errors = [];
      agree(got, want, `${name} ${JSON.stringify(variant)}`, errors);
      assert.deepEqual(errors.slice(0, 5), []);
      runs++;
    }
  }
  assert.equal(runs, 3 * VARIANTS.length);
  loader.release();
});

test('the loader opens a model once, gives it back when the state leaves it, and reads it again when it returns', async () => {
  const loader = new CheckpointLoader(lab, { base: BASE });
  const gpt = form.withModel(form.defaultState(), 'gpt');
  let plans = 0;
  const onProgress = (e) => { if (e.phase === 'planned') plans++; };
  const [one, two] = await Promise.all([loader.open(gpt, { onProgress }), loader.open({ ...gpt, scale: 0 }, { onProgress })]);
  assert.equal(one, two);
  assert.equal(plans, 1, 'read once');
  assert.equal(loader.ready(gpt), one);
  loader.follow(gpt);
  assert.equal(one.disposed, false, 'kept while the state names it');
  loader.follow(form.withModel(gpt, 'head'));
  assert.equal(one.disposed, true, 'given back on leaving it');
  assert.equal(loader.ready(gpt), null);
  assert.throws(() => lab.run(form.configOf(gpt)), /runs on an opened checkpoint/);
  // switching while loading: the first load is cancelled, the second wins
  const first = loader.open(gpt);
  const bag = await loader.open(form.withModel(gpt, 'bag'));
  await assert.rejects(first, { name: 'AbortError' });
  assert.equal(bag.info.trained_positions, false);
  assert.equal(lab.run(form.configOf(form.withModel(gpt, 'bag'))).checkpoint.trained_causal, false);
  const again = await loader.open(gpt, { onProgress });
  assert.equal(plans, 2, 'read again on its return');
  assert.equal(bag.disposed, true);
  loader.release();
  assert.equal(again.disposed, true);
  // GPT-2 with neither files nor a folder: nothing to open
  assert.throws(() => loader.open(form.withModel(gpt, 'gpt2')), /choose its files/);
});

// The page's model (web/app/model.js) with its checkpoints' part
// (web/app/checkpoint_model.js) loaded, as the page has it once a
// checkpoint model was chosen.
const { Model } = await import(`${ROOT}web/app/model.js`);
const { CheckpointModels, STEP_SLICE_MS } = await import(`${ROOT}web/app/checkpoint_model.js`);
const { SWEEP, COARSE_SWEEP, thresholdFor } = await import(`${ROOT}web/app/sweep.js`);
function pageModel() {
  const model = new Model(lab, form);
  model.ck = new CheckpointModels(model, { SWEEP, COARSE_SWEEP, thresholdFor }, { base: BASE });
  model.ckLoading = Promise.resolve(model.ck);
  return model;
}

// The page's model (web/app/model.js) with its checkpoints' part
// (web/app/checkpoint_model.js): the same verdicts as the lab, results of
// two models with the same config kept apart, and the chart computed in
// slices equal to the lab's sweep and thresholds, with the verdicts' runs
// in between leaving the stepped sweep be.
test('the page\'s model runs a checkpoint: verdicts, keys per model, the chart in slices with runs between them', async () => {
  const model = pageModel();
  const A = 'dog bites man . who bites ?';
  const B = 'man bites dog . who bites ?';
  const gpt = { ...form.withModel(form.defaultState(), 'gpt'), a: A, b: B };
  assert.equal(model.checkpointReady(gpt), null);
  assert.equal(model.runIsQuick(gpt), false, 'nothing runs while it is being read');
  assert.equal(await model.ck.read(gpt), true);
  assert.ok(model.checkpointReady(gpt));
  const config = model.configOf(gpt);
  const direct = lab.run(config);
  assert.deepEqual(model.verdict(gpt), direct);

  // the chart in slices (the runner a sweep worker would be); a verdict
  // run (a slider step) in the page's turn between slices
  model.calibrate(); // (as the page does: a long chart then shows a coarse curve first)
  let slices = 0;
  let sweeps = 0;
  let turns = true;
  const turning = (async () => {
    while (turns) {
      await new Promise((resolve) => { setTimeout(resolve, 0); });
      slices += 1;
      model.verdict({ ...gpt, scale: 1 + slices / 1000 });
    }
  })();
  model.ck.latest = () => gpt;
  await model.chartDataOffThread(gpt, model.ck.runner.call, { onSweep: () => { sweeps += 1; } });
  turns = false;
  await turning;
  assert.equal(sweeps, 2, 'the coarse curve, then the sweep');
  assert.ok(slices > 2, `${slices} slices`);
  // (the page keeps its sweeps packed: app/sweep.js)
  const want = lab.run({ ...config, sweep: SWEEP, packed: true }).sweep;
  assert.deepEqual(model.cachedSweep(gpt), want, 'the sweep in slices is the lab\'s, with runs between them');
  assert.deepEqual(model.coarseSweep(gpt), lab.run({ ...config, sweep: COARSE_SWEEP, packed: true }).sweep);
  for (const pair of [gpt.word, -1]) {
    // (lab.threshold, delegated to the open checkpoint, searched where the model searches)
    assert.equal(model.cachedThreshold(gpt, pair), thresholdFor(lab, config, want, pair), `threshold ${pair}`);
  }
  assert.ok(STEP_SLICE_MS <= 10);

  // nope with gpt's config: another model, another key, other numbers
  const nope = { ...gpt, model: 'nope' };
  assert.equal(JSON.stringify(model.configOf(nope)), JSON.stringify(config));
  assert.equal(model.checkpointReady(nope), null, 'gpt is open, not nope');
  assert.equal(model.cachedRun(nope), undefined, 'gpt\'s result is not nope\'s');
  assert.equal(await model.ck.read(nope), true);
  const nopeResult = model.verdict(nope);
  assert.notDeepEqual(nopeResult.pairs, direct.pairs);
  assert.equal(model.checkpointReady(gpt), null, 'gpt was given back');
  model.ck.loader.release();
});

// A checkpoint's chart and its verdicts' runs in steps share the page's
// thread. The verdicts go first: while a run is on its way the chart's
// slices wait, so that the figures a student is looking at come back in
// the run's own time (slice for slice with the chart, a run on GPT-2 small
// at 3 tokens took 500-800 ms for about 200 ms of its work).
test('while the verdicts\' run in steps is on its way, the chart takes no step; then it goes on to the same sweep', async () => {
  const model = pageModel();
  const gpt = { ...form.withModel(form.defaultState(), 'gpt'), a: 'dog bites man . who bites ?', b: 'man bites dog . who bites ?' };
  assert.equal(await model.ck.read(gpt), true);
  const ck = model.checkpointReady(gpt);
  const config = model.configOf(gpt);
  // Steps made slow (a third of a slice each), so that both span slices,
  // and logged in the order they are taken.
  const log = [];
  for (const [target, what] of [[model.lab, 'chart'], [ck.lab, 'verdicts']]) {
    const runSteps = target.runSteps.bind(target);
    target.runSteps = function* (c) {
      const steps = runSteps(c);
      for (;;) {
        const until = performance.now() + STEP_SLICE_MS / 3;
        while (performance.now() < until);
        const step = steps.next();
        if (step.done) return step.value;
        log.push(what);
        yield;
      }
    };
  }
  model.ck.latest = () => gpt;
  const chart = model.chartDataOffThread(gpt, model.ck.runner.call);
  while (log.length < 6) await new Promise((resolve) => { setTimeout(resolve, 0); });
  const from = log.length;
  const { result } = await model.ck.runs.call({ run: config });
  const done = log.length;
  await chart;
  const during = log.slice(from, done);
  assert.ok(during.filter((x) => x === 'verdicts').length > 6, `the run took ${during.length} steps`);
  assert.deepEqual(during.filter((x) => x === 'chart'), [], `steps while the verdicts were on their way: ${during.join(' ')}`);
  assert.ok(log.slice(done).includes('chart'), 'then the chart went on');
  assert.deepEqual(result, lab.run(config), 'the verdicts are the lab\'s');
  assert.deepEqual(model.cachedSweep(gpt), lab.run({ ...config, sweep: SWEEP, packed: true }).sweep, 'and the sweep');
  model.ck.loader.release();
});

// The checkpoint may go while the verdicts' run steps on it: a student
// chooses other files while the kept ones are opening, or another model.
// The run is then dropped ({stale}, as a newer run drops it) at its next
// slice, and never calls into the disposed lab; and a run in steps on a
// lab disposed between two steps says so.
test('a verdicts\' run in steps whose checkpoint is given back is dropped at its next slice', async () => {
  const model = pageModel();
  const gpt = { ...form.withModel(form.defaultState(), 'gpt'), a: 'dog bites man . who bites ?', b: 'man bites dog . who bites ?' };
  assert.equal(await model.ck.read(gpt), true);
  const ck = model.checkpointReady(gpt);
  let steps = 0;
  const runSteps = ck.lab.runSteps.bind(ck.lab);
  ck.lab.runSteps = function* (c) {
    const inner = runSteps(c);
    for (;;) {
      const until = performance.now() + STEP_SLICE_MS / 3; // a third of a slice each
      while (performance.now() < until);
      const step = inner.next();
      if (step.done) return step.value;
      steps += 1;
      yield;
    }
  };
  const run = model.ck.runs.call({ run: model.configOf(gpt) });
  while (steps < 4) await new Promise((resolve) => { setTimeout(resolve, 0); });
  model.ck.loader.release();
  await assert.rejects(run, (e) => e?.stale === true, 'dropped as stale, not an Error from the disposed lab');

  // the wrapper's own guard: a run in steps on a lab disposed between two steps
  const other = await (await import(`${ROOT}build/site/poslab.js`)).createLab();
  const inner = other.runSteps({ sentence_a: 'dog bites man', sentence_b: 'man bites dog' });
  inner.next();
  other.dispose();
  assert.throws(() => inner.next(), /poslab: this lab has been disposed/);
});

// Without positions the core adds no table, so the magnitude changes no
// number but the config's echo of it: the page's model runs such a state
// once, at magnitude 1, and answers every other magnitude from that run
// (a slider step on nope or bag as trained then runs nothing). Every
// field equals the lab's own run at that magnitude.
test('without positions, a checkpoint\'s verdicts at any magnitude come from one run, equal to the lab\'s at each', async () => {
  const model = pageModel();
  for (const name of ['nope', 'bag', 'gpt']) {
    const state = { ...form.withModel(form.defaultState(), name), a: 'dog bites man . who bites ?', b: 'man bites dog . who bites ?', positions: false };
    assert.equal(await model.ck.read(state), true);
    const ck = model.checkpointReady(state);
    const run = ck.run.bind(ck);
    let runs = 0;
    let counting = true;
    ck.run = (config) => { runs += counting ? 1 : 0; return run(config); };
    const direct = (s) => {
      counting = false;
      try { return lab.run(model.configOf(s)); } finally { counting = true; }
    };
    for (const scale of [0.37, 1e-9, 1, 3.5, 1000, 0, 2 ** -40, 0.1 + 0.2]) {
      const s = { ...state, scale };
      assert.deepEqual(model.verdict(s), direct(s), `${name} at ${scale}`);
    }
    assert.equal(runs, 1, `${name}: one run for every magnitude`);
    // with positions on, each magnitude is a run of its own
    for (const scale of [0.37, 3.5]) {
      const s = { ...state, positions: true, scale };
      assert.deepEqual(model.verdict(s), direct(s), `${name} with positions at ${scale}`);
    }
    assert.equal(runs, 3, name);
  }
  model.ck.loader.release();
});
