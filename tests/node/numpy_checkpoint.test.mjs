// Copy as NumPy for a checkpoint model (web/teach/numpy_checkpoint.js): the
// script, run with /usr/bin/python3 on each model trained here, reads the
// safetensors with NumPy alone and prints the core's numbers (1e-9), as
// positions, mask and magnitude change. Run `make site` (it copies models/).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stateForm } from '../state_form.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SITE = `${ROOT}build/site/`;
const OUT = `${ROOT}build/node-numpy-checkpoint`;
const { TRAINED_MODELS } = await import(`${ROOT}web/app/state.js`);
const { CheckpointLoader } = await import(`${ROOT}web/app/checkpoints.js`);
const { numpyCheckpointScript } = await import(`${ROOT}web/teach/numpy_checkpoint.js`);
const { form, lab } = await stateForm();
after(() => lab.dispose());

const close = (got, want) => Math.abs(got - want) <= 1e-12 + 1e-9 * Math.abs(want);
const num = '([-+0-9.e]+|nan|inf)';

// The script's printed lines against the core's result.
function compare(stdout, result, trained) {
  const errors = [];
  const check = (what, got, want) => { if (!close(Number(got), want)) errors.push(`${what}: script ${got}; core ${want}`); };
  const lines = stdout.split('\n');
  const tokens = (tokensOf) => tokensOf.map((t) => `${t.id} ${JSON.stringify(t.text)}`).join(' | ');
  assert.equal(lines[0], `tokens A:   ${tokens(result.tokens_a)}`);
  assert.equal(lines[1], `tokens B:   ${tokens(result.tokens_b)}`);
  result.pairs.forEach((p, i) => {
    if (p.index_b === null) {
      assert.equal(lines[2 + i], `${p.word.padEnd(7)} no partner in B`);
      return;
    }
    const m = lines[2 + i].match(new RegExp(`out_a\\[(\\d+)\\], out_b\\[(\\d+)\\]\\) = (True|False)   max\\|diff\\| ${num}   cosine distance ${num}$`));
    assert.ok(m, `pair line ${i}: ${lines[2 + i]}`);
    assert.deepEqual([Number(m[1]), Number(m[2]), m[3] === 'True'], [p.index_a, p.index_b, p.allclose], lines[2 + i]);
    check(`pair ${i} max|diff|`, m[4], p.max_abs_diff);
    check(`pair ${i} cosine distance`, m[5], p.cosine_distance);
  });
  const mean = stdout.match(new RegExp(`^mean .* = (True|False)   max\\|diff\\| ${num}   cosine distance ${num}$`, 'm'));
  assert.equal(mean[1] === 'True', result.mean.allclose);
  check('mean max|diff|', mean[2], result.mean.max_abs_diff);
  check('mean cosine distance', mean[3], result.mean.cosine_distance);
  check('cosine similarity', stdout.match(new RegExp(`^cosine similarity of the mean last hidden state: ${num}$`, 'm'))[1], result.mean_cosine_similarity);
  for (const [name, next] of [['A', result.next_a], ['B', result.next_b]]) {
    const line = stdout.match(new RegExp(`^most likely next tokens after ${name}: (.*)$`, 'm'))[1];
    const items = [...line.matchAll(new RegExp(`(\\d+) "(?:[^"\\\\]|\\\\.)*" ${num}`, 'g'))];
    assert.deepEqual(items.map((x) => Number(x[1])), next.map((t) => t.id), `next after ${name}`);
    items.forEach((x, k) => check(`next ${name} ${k}`, x[2], next[k].probability));
    const answer = stdout.match(new RegExp(`^answer ${name}: (\\S+) \\(probability ${num}\\)$`, 'm'));
    if (trained) {
      assert.equal(answer[1], next[0].text.trim());
      check(`answer ${name}`, answer[2], next[0].probability);
    } else assert.equal(answer, null);
  }
  assert.deepEqual(errors, []);
}

const VARIANTS = [{}, { scale: 0 }, { causal: false }, { positions: false, causal: false }, { scale: 3, offsetA: 2, offsetB: 5 }];

test('the script prints the core\'s numbers for each model trained here, with positions, mask and magnitude changed', async () => {
  mkdirSync(OUT, { recursive: true });
  const loader = new CheckpointLoader(lab, { base: pathToFileURL(SITE).href });
  let runs = 0;
  for (const name of TRAINED_MODELS) {
    const trained = { ...form.withModel(form.defaultState(), name), a: 'dog bites man . who bites ?', b: 'man bites dog . who is bitten ?' };
    await loader.open(trained);
    for (const variant of VARIANTS) {
      const result = lab.run(form.configOf({ ...trained, ...variant }));
      const file = `${OUT}/${name}-${runs}.py`;
      writeFileSync(file, numpyCheckpointScript(result, { folder: `models/${name}/`, trained: true }));
      const done = spawnSync('/usr/bin/python3', [file, `${SITE}models/${name}/`], { encoding: 'utf8' });
      assert.equal(done.status, 0, done.stderr);
      compare(done.stdout, result, true);
      runs++;
    }
  }
  assert.equal(runs, 3 * VARIANTS.length);
  loader.release();
});

test('bag with positions and mask off: every token True and both sentences answered alike; no answer line for GPT-2', async () => {
  const loader = new CheckpointLoader(lab, { base: pathToFileURL(SITE).href });
  const state = { ...form.withModel(form.defaultState(), 'bag'), a: 'dog bites man . who bites ?', b: 'man bites dog . who bites ?' };
  await loader.open(state);
  const result = lab.run(form.configOf(state));
  const file = `${OUT}/bag-off.py`;
  writeFileSync(file, numpyCheckpointScript(result, { folder: `${SITE}models/bag/` }));
  const done = spawnSync('/usr/bin/python3', [file], { encoding: 'utf8' });
  assert.equal(done.status, 0, done.stderr);
  compare(done.stdout, result, false);
  assert.equal((done.stdout.match(/\) = True /g) ?? []).length, result.pairs.length + 1, done.stdout);
  assert.equal(result.next_a[0].id, result.next_b[0].id);
  // run where its folder is not: one line saying what to give, not a traceback
  const lost = spawnSync('/usr/bin/python3', [file, `${OUT}/no-such-folder`], { encoding: 'utf8' });
  assert.equal(lost.status, 1);
  assert.equal(lost.stderr, `no config.json in ${OUT}/no-such-folder: give the checkpoint's folder, python3 this.py FOLDER\n`);
  loader.release();
});
