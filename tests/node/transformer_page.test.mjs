// The page's transformer parts under Node, from web/: its state rows (hash
// keys model, layers, ws, with the core's limits), the model's choice
// between this thread and a worker, its runs in a worker (a stand-in that
// calls the same WebAssembly lab), the block-by-block words against NumPy's
// figures (docs/experiment.md), and the CSV's per-block rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const SITE = fileURLToPath(new URL('../../build/site/', import.meta.url));
const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const { stateForm } = await import('../state_form.mjs');
const { form, lab } = await stateForm();
const { Model, QUICK_RUN_MS } = await import(`${WEB}app/model.js`);
const { blockSeries, blocksStory } = await import(`${WEB}teach/blocks_story.js`);
const { toCsv } = await import(`${WEB}app/csv.js`);
const { createLab } = await import(`${SITE}poslab.js`);
const option = (name) => lab.options.options.find((o) => o.name === name);

// docs/experiment.md's figures: 4 blocks, 2 heads, d 16, the module's pair.
const FIGURES = { model: 'transformer', layers: 4, heads: 2, dim: 16 };
const figuresState = (changes = {}) => ({ ...form.defaultState(), ...FIGURES, ...changes });

test('state rows: model, layers and weight scale in the hash, with the core\'s defaults and limits', () => {
  const defaults = form.defaultState();
  // the core's models, then the checkpoints the page runs in a module of their own
  const pageModels = [...option('model').values, 'gpt', 'nope', 'bag', 'gpt2'].join(', ');
  assert.deepEqual([defaults.model, defaults.layers, defaults.weightStd],
    [option('model').default, option('layers').default, option('weight-std').default]);
  const { state, ignored } = form.parseHash('#model=transformer&layers=12&ws=1e-3');
  assert.deepEqual(ignored, []);
  assert.deepEqual([state.model, state.layers, state.weightStd], ['transformer', 12, 0.001]);
  assert.match(form.toHash(state), /&model=transformer&layers=12&ws=0\.001$/);
  // What the core refuses opens at the default, with its words.
  for (const [hash, label, allowed] of [
    ['model=gpt3', 'model', pageModels], ['model=Transformer', 'model', pageModels],
    ['layers=0', 'transformer blocks', option('layers').allowed], ['layers=13', 'transformer blocks', option('layers').allowed],
    ['layers=1.5', 'transformer blocks', option('layers').allowed], ['ws=0', 'weight scale', option('weight-std').allowed],
    ['ws=-1', 'weight scale', option('weight-std').allowed], ['ws=11', 'weight scale', option('weight-std').allowed],
    ['ws=nan', 'weight scale', option('weight-std').allowed], ['ws=inf', 'weight scale', option('weight-std').allowed]]) {
    const read = form.parseHash(`#${hash}`);
    assert.deepEqual(read.state, defaults, hash);
    assert.deepEqual(read.ignored.map((i) => [i.label, i.reason]), [[label, `allowed: ${allowed}`]], hash);
  }
  // The lab's config carries them, under the core's JSON names.
  const config = form.configOf(figuresState({ weightStd: 0.5 }));
  assert.deepEqual([config.model, config.layers, config.weight_std], ['transformer', 4, 0.5]);
});

test('the model computes small transformers with the step and sends large ones to a worker', () => {
  const model = new Model(lab, form);
  assert.equal(model.runIsQuick(form.defaultState()), true, 'the head is always computed at once');
  assert.equal(model.runIsQuick(figuresState()), true);
  const words = Array.from({ length: 64 }, (_, i) => `w${i}`).join(' ');
  const large = figuresState({ a: words, b: words, dim: 512, heads: 8, layers: 12 });
  assert.equal(model.runIsQuick(large), false, '64 words, d 512, 12 blocks: about a second');
  // Once a run on this thread is timed, the prediction follows it.
  const result = model.verdict(figuresState());
  assert.equal(result.layers.length, 4);
  assert.ok(model.msPerRunWork > 0);
  model.msPerRunWork = 1; // as if this thread were very slow
  assert.equal(model.runIsQuick(figuresState()), false);
  assert.ok(QUICK_RUN_MS > 0 && QUICK_RUN_MS < 16);
});

test('runs in a worker: cached, shared while running, and refused values in the core\'s words', async () => {
  const model = new Model(lab, form);
  const workerLab = await createLab();
  const asked = [];
  // browser/sweeper.js's call, answered by a second copy of the core, later
  const call = (request) => {
    asked.push(request);
    return new Promise((resolve, reject) => setTimeout(() => {
      try { resolve({ result: workerLab.run(request.run), ms: 1 }); } catch (e) { reject(e); }
    }, 5));
  };
  const state = figuresState({ causal: true });
  assert.equal(model.cachedRun(state), undefined);
  const one = model.runOffThread(state, call);
  const two = model.runOffThread(state, call);
  assert.equal(one, two, 'a second call for the same run shares it');
  assert.equal(model.runningKey(), JSON.stringify(model.configOf(state)));
  const result = await one;
  assert.equal(asked.length, 1);
  assert.equal(model.runningKey(), null);
  assert.equal(model.cachedRun(state), result);
  assert.deepEqual(result, lab.run(model.configOf(state)), 'the same numbers as this thread\'s core');
  // full: the attention matrices too, cached for the heatmaps
  const full = await model.runOffThread(state, call, { full: true });
  assert.ok(full.attention_heads_a && model.cachedRun(state, true) === full);
  // A value the core refuses rejects with its Error.
  await assert.rejects(model.runOffThread({ ...state, heads: 3 }, call), /heads: "3" does not divide dim 16/);
  // Typed text for a transformer too large for this thread is checked by
  // the core without running the blocks here.
  const words = Array.from({ length: 64 }, (_, i) => `w${i}`).join(' ');
  const large = figuresState({ a: words, b: words, dim: 512, heads: 8, layers: 12 });
  // (CPU time, which a busy machine does not stretch as it does the clock)
  const cpu0 = process.cpuUsage();
  assert.deepEqual(model.tryField(large, 'layers', '13'), { message: `"13" is out of range; allowed: ${option('layers').allowed}` });
  assert.deepEqual(model.tryField(large, 'weightStd', '0.5 '), { value: 0.5 });
  const cpu = process.cpuUsage(cpu0);
  assert.ok((cpu.user + cpu.system) / 1000 < 500, `no transformer run of a second each: ${(cpu.user + cpu.system) / 1000} ms of CPU`);
  assert.equal(model.cachedRun({ ...large, weightStd: 0.5 }), undefined, 'the head\'s check is not cached as the transformer\'s');
});

test('block by block: NumPy\'s figures, in words', () => {
  const plain = lab.run({ ...FIGURES, scheme: 'none' });
  const s = blockSeries(plain, 2);
  assert.deepEqual(s.labels, ['1', '2', '3', '4', 'out']);
  assert.equal(s.word, 'man');
  assert.ok(s.word_points.every((p) => p.allclose) && s.mean_points.every((p) => p.allclose));
  const story = blocksStory(plain, { word: 2, positions: false, causal: false });
  assert.equal(story[0], '“man” is True after every one of the 4 blocks and at the output.');
  assert.match(story[2], /depth never tells the two apart/);

  const masked = lab.run({ ...FIGURES, scheme: 'none', causal: true });
  const m = blockSeries(masked, 2);
  assert.ok(m.word_points.every((p) => !p.allclose));
  assert.deepEqual(m.word_points.map((p) => p.cosine), [...masked.layers.map((l) => l.pairs[2].cosine_distance), masked.pairs[2].cosine_distance]);
  const story2 = blocksStory(masked, { word: 2, positions: false, causal: true });
  // NumPy: 7.0e-7 after block 1, 5.2e-6 after block 4, 5.06e-6 at the output
  assert.equal(story2[0], '“man” is False from block 1 on: cosine distance 7e-07 after block 1, 5.2e-06 after block 4, 5.1e-06 at the output.');
  assert.match(story2[2], /the mask alone tells it the order/);

  // A word without a partner in B is not drawn; the mean is.
  const unpaired = lab.run({ ...FIGURES, sentence_b: 'man bites cat', scheme: 'none' });
  assert.equal(blockSeries(unpaired, 0).paired, false);
  assert.ok(blockSeries(unpaired, 0).word_points.every((p) => p === null));
  assert.match(blocksStory(unpaired, { word: 0, positions: false, causal: false })[0], /“dog” has no partner in sentence B/);
});

test('CSV: the transformer\'s settings and its figures after each block', () => {
  const result = lab.run({ ...FIGURES, scheme: 'none', causal: true, weight_std: 0.5 });
  const lines = toCsv(result).split('\r\n');
  assert.ok(lines.slice(1, -1).every((l) => l.endsWith(',transformer,4,0.5')), lines[1]);
  const rows = lines.filter((l) => l.startsWith('block,'));
  assert.equal(rows.length, 4 * 4);
  const l = result.layers[3].pairs[2];
  assert.ok(rows[3 * 4 + 2].startsWith(`block,4,0.5,pair,man,2,0,False,${l.max_abs_diff},${l.cosine_distance},,`), rows[3 * 4 + 2]);
  assert.ok(rows[3 * 4 + 3].startsWith(`block,4,0.5,mean,,,,False,${result.layers[3].mean.max_abs_diff},${result.layers[3].mean.cosine_distance},,`));
  // The head's CSV has no such rows.
  assert.ok(!toCsv(lab.run({ scheme: 'none' })).includes('\r\nblock,'));
});
