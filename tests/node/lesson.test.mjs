// The lesson in three switches (web/teach/lesson.js) on the three models
// trained here, opened from build/site/models/ as the page opens them: every
// count, verdict and answer its text states is checked against runs of the
// core made here, independently of the lesson's own; the points hold where
// docs/models.md says they do. Run `make site` (it copies models/).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stateForm } from '../state_form.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SITE = `${ROOT}build/site/`;
const { TRAINED_MODELS } = await import(`${ROOT}web/app/state.js`);
const { CheckpointLoader } = await import(`${ROOT}web/app/checkpoints.js`);
const { lesson, QUESTIONS, questionsFor, asking, rightAnswer, probability } = await import(`${ROOT}web/teach/lesson.js`);
const { form, lab } = await stateForm();
const loader = new CheckpointLoader(lab, { base: pathToFileURL(SITE).href });
after(() => { loader.release(); lab.dispose(); });

// The state of a model trained here asked the lesson's questions.
export const asked = (name) => ({ ...form.withModel(form.defaultState(), name), ...QUESTIONS, word: 6 });

// What the text must say about a run, from the run itself.
function said(result) {
  const paired = result.pairs.filter((p) => p.index_b !== null);
  const same = paired.filter((p) => p.allclose).length;
  const answer = (next) => `“${next[0].text.trim()}” after`;
  const lonely = result.pairs.length - paired.length;
  const note = lonely ? ` (${lonely === 1 ? '1 token' : `${lonely} tokens`} of A with no partner in B)` : '';
  return { tokens: `${paired.length - same} of ${paired.length} tokens False, ${same} True${note}, the mean ${result.mean.allclose ? 'True' : 'False'}`,
    allTrue: same === paired.length && result.mean.allclose, same, paired: paired.length,
    answers: [`${answer(result.next_a)} A (probability ${probability(result.next_a[0].probability)}`,
      `${answer(result.next_b)} B (probability ${probability(result.next_b[0].probability)}`],
    alike: result.next_a[0].id === result.next_b[0].id,
    right: [result.next_a[0].text.trim() === rightAnswer(QUESTIONS.a), result.next_b[0].text.trim() === rightAnswer(QUESTIONS.b)] };
}

// Every figure a point's lines state is the run's: the token counts (either
// form), the answers and their probabilities; and no other answer is named.
function checkLines(lines, run) {
  const text = lines.join(' ');
  const counts = [...text.matchAll(/(\d+) of (\d+) tokens False, (\d+) True( \(\d+ tokens? of A with no partner in B\))?, the mean (True|False)/g)];
  for (const m of counts) assert.equal(m[0], run.tokens, text);
  const all = [...text.matchAll(/every token True \((\d+) of (\d+)\)/g)];
  for (const m of all) assert.deepEqual([Number(m[1]), Number(m[2]), run.allTrue], [run.same, run.paired, true], text);
  assert.ok(counts.length + all.length > 0, `no count in: ${text}`);
  const answers = [...text.matchAll(/(“\w+” after [AB] \(probability [^,)]+)(, right|, wrong[^)]*)?\)/g)];
  assert.deepEqual(answers.map((m) => m[1]), answers.length ? run.answers : [], text);
  answers.forEach((m, k) => assert.equal(m[2] === ', right', run.right[k], m[0]));
}

test('the lesson\'s three points, on each model trained here, say what the core computes', async () => {
  const holds = {};
  for (const name of TRAINED_MODELS) {
    const state = asked(name);
    await loader.open(state);
    const runs = [];
    const run = (changes) => { runs.push(changes); return lab.run(form.configOf({ ...state, ...changes })); };
    const { asked: isAsked, rows, items } = lesson(name, state, run);
    assert.equal(isAsked, true);
    // the rows are the core's runs at the three settings of the switches
    for (const row of rows) {
      const result = lab.run(form.configOf({ ...state, ...row.changes }));
      const want = said(result);
      assert.deepEqual([row.facts.same, row.facts.paired, row.facts.allTrue, row.facts.alike, row.facts.similarity],
        [want.same, want.paired, want.allTrue, want.alike, result.mean_cosine_similarity], `${name} ${row.label}`);
    }
    const [mask, neither, nope] = items;
    checkLines(mask.lines, said(lab.run(form.configOf({ ...state, positions: false, causal: true }))));
    checkLines(neither.lines, said(lab.run(form.configOf({ ...state, positions: false, causal: false }))));
    if (name === 'nope') checkLines(nope.lines, said(lab.run(form.configOf({ ...state, positions: false, causal: true }))));
    else assert.equal(nope.needs, 'nope');
    holds[name] = items.map((i) => i.holds);
  }
  // (a) positions off, mask on: gpt still tells the two apart (its tokens
  // False); (b) both off: every token True and the answers alike, for every
  // model; (c) nope answers both right from the mask alone.
  assert.deepEqual(holds, { gpt: [true, true, null], nope: [true, true, true], bag: [true, true, null] });
});

test('gpt without its table: the hidden states differ, and the text says whether it still answers by the order', async () => {
  const state = asked('gpt');
  await loader.open(state);
  const { items } = lesson('gpt', state, (changes) => lab.run(form.configOf({ ...state, ...changes })));
  const run = said(lab.run(form.configOf({ ...state, positions: false })));
  assert.equal(run.allTrue, false);
  // docs/models.md: gpt at scale 0 falls to chance, answering alike
  assert.equal(items[0].lines.some((l) => l.includes('did not learn to read the order from the mask')), run.alike);
});

test('the lesson on sentences that ask nothing: counts only, and a link to ask', async () => {
  const state = form.withModel(form.defaultState(), 'bag'); // "dog bites man" / "man bites dog"
  await loader.open(state);
  const { asked: isAsked, items } = lesson('bag', state, (changes) => lab.run(form.configOf({ ...state, ...changes })));
  assert.equal(isAsked, false);
  assert.ok(items.every((i) => !i.lines.join(' ').includes('probability')));
  checkLines(items[1].lines.filter((l) => !l.includes('answer')), { ...said(lab.run(form.configOf({ ...state, causal: false }))), answers: [] });
  assert.equal(rightAnswer('dog bites man . who is bitten ?'), 'man');
  assert.equal(rightAnswer('dog bites man . who bites ?'), 'dog');
  assert.equal(rightAnswer('dog bites man'), null);
  // only questions of the models' world: its nouns and verbs, the question's verb the statement's
  assert.equal(rightAnswer('cat follows woman . who is followed ?'), 'woman');
  assert.equal(rightAnswer('dog eats man . who eats ?'), null);
  assert.equal(rightAnswer('dog bites man . who is seen ?'), null);
  assert.equal(rightAnswer('dog bites man . who chases ?'), null);
  assert.equal(rightAnswer('zebra bites man . who bites ?'), null);
});

test('sentences that are not one reordering of the other: the lesson claims nothing for the switches', async () => {
  const pairedIn = [];
  for (const [a, b] of [['the cat chases the dog', 'man bites dog'], ['zebra', 'man bites dog']]) {
    const state = { ...form.withModel(form.defaultState(), 'bag'), a, b, word: 0 };
    await loader.open(state);
    const { items } = lesson('bag', state, (changes) => lab.run(form.configOf({ ...state, ...changes })));
    const [mask, neither] = items;
    for (const [item, changes] of [[mask, { positions: false, causal: true }], [neither, { positions: false, causal: false }]]) {
      const result = lab.run(form.configOf({ ...state, ...changes }));
      assert.equal(result.permutation, false);
      assert.equal(item.holds, false, item.key);
      assert.ok(item.title.endsWith(' (not seen with these sentences)'), item.title);
      const text = item.lines.join(' ');
      assert.match(text, /not the same tokens in another order: they differ in what they hold, so the switches cannot show here/);
      assert.doesNotMatch(text, /still tells|every token True|although/);
      const paired = result.pairs.filter((p) => p.index_b !== null).length;
      if (paired) checkLines(item.lines, { ...said(result), answers: [] });
      else assert.ok(text.includes(`no token of A is in B, the mean ${result.mean.allclose ? 'True' : 'False'}`), text);
      pairedIn.push(paired);
    }
  }
  // one pair shares a token (" dog"), the other none
  assert.ok(pairedIn.some((n) => n > 0) && pairedIn.some((n) => n === 0), String(pairedIn));
});

test('world.js has the words models/world.py trains on', async () => {
  const { NOUNS, VERBS } = await import(`${ROOT}web/teach/world.js`);
  const { execFileSync } = await import('node:child_process');
  const py = JSON.parse(execFileSync('/usr/bin/python3', ['-c',
    'import json, sys; sys.path.insert(0, "models"); import world; print(json.dumps([world.NOUNS, world.VERBS]))'],
  { cwd: ROOT, encoding: 'utf8' }));
  assert.deepEqual([NOUNS, VERBS], py);
});

test('the rows say the magnitude when positions are on at another than the trained one', async () => {
  const state = { ...form.withModel(form.defaultState(), 'gpt'), scale: 0.001 };
  await loader.open(state);
  const { rows, items } = lesson('gpt', state, (changes) => lab.run(form.configOf({ ...state, ...changes })));
  assert.deepEqual(rows.map((r) => r.label), ['positions on at magnitude 0.001, mask on', 'positions off, mask on', 'positions and mask off']);
  const scaled = lesson('gpt', { ...state, scale: 1 }, (changes) => lab.run(form.configOf({ ...state, scale: 1, ...changes })));
  assert.equal(scaled.rows[0].label, 'positions on, mask on');
  for (const item of items) assert.equal(item.title.endsWith('(not seen with these sentences)'), item.holds === false, item.title);
});

test('the link asks about the student\'s own statements when both are of the models\' world, else the module\'s pair', () => {
  const own = questionsFor({ a: ' cat  chases dog', b: 'dog chases cat .' });
  assert.deepEqual(own, { a: 'cat chases dog . who chases ?', b: 'dog chases cat . who chases ?' });
  assert.deepEqual([rightAnswer(own.a), rightAnswer(own.b)], ['cat', 'dog']);
  assert.deepEqual(asking({ a: 'cat chases dog', b: 'dog chases cat', word: 0 }), { ...own, word: 6 });
  for (const [a, b] of [['cat eats dog', 'dog eats cat'], ['cat chases dog', 'the dog chases the cat'], ['Cat chases dog', 'dog chases cat'],
    ['dog bites man . who bites ?', 'man bites dog . who bites ?'], ['cat chases', 'chases cat']]) {
    assert.deepEqual(questionsFor({ a, b }), QUESTIONS, `${a} / ${b}`);
  }
});
