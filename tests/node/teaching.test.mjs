// The teaching layer's DOM-free parts under Node, from build/site, against
// the real WebAssembly lab: the tour's steps and their live claims, the tour
// step in the hash, the model's cached `full` run, the CSV export, the
// permutation facts and the heatmaps' lining up. (The browser tests drive the
// same things on the page.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

// The page's DOM-free modules from their sources; the wrapper as built.
const SITE = fileURLToPath(new URL('../../build/site/', import.meta.url));
const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const { stateForm } = await import('../state_form.mjs');
// The page's form, made from the core's option table as the page makes it.
const { form } = await stateForm();
const { defaultState, parseHash, parseView, toHash } = form;
const { Model } = await import(`${WEB}app/model.js`);
const { createLab } = await import(`${SITE}poslab.js`);
const { STEPS, TOUR_STEPS, followed, offSetup, revealAt } = await import(`${WEB}teach/tour_steps.js`);
const { toCsv, fileName } = await import(`${WEB}app/csv.js`);
const { permutationFacts, reorderingBadges } = await import(`${WEB}app/reordering.js`);
const { lineUp, maxAbsDiff, weightText } = await import(`${WEB}views/heatmap.js`);
const { GROUPS, readView } = await import(`${WEB}views/embed.js`);
const { suggestedHeight } = await import(`${WEB}views/embed_dialog.js`);
const { SCHEME_LABELS } = await import(`${WEB}teach/schemes.js`);
const { arrangement, blindTo } = await import(`${WEB}teach/distances.js`);
const { sig } = await import(`${WEB}app/format.js`);
const lab = await createLab();

const TF = (v) => (v ? 'True' : 'False');

// Runs step k on `state` (after `before` changes it) and returns what the tour would say.
function tourStep(k, before = () => {}) {
  const model = new Model(lab, form);
  const state = defaultState();
  STEPS[k].set(state, form);
  before(state);
  const result = model.verdict(state);
  const ctx = { result, state, form, threshold: (pair) => model.threshold(state, pair),
    verdict: (changes) => model.verdict({ ...state, ...changes }) };
  return { state, result, answer: STEPS[k].answer(ctx), lines: STEPS[k].reveal(ctx), question: STEPS[k].question(ctx) };
}

test('the tour follows the module: the predictions it expects are what the lab computes by default', () => {
  assert.equal(STEPS.length, TOUR_STEPS);
  // bare: True; positions on: False; 0.001: False; own words: all True;
  // sinusoidal, RoPE: False; causal mask without positions: False; the
  // shift test with RoPE: all identical; ALiBi on a reversal: all identical.
  const expected = [true, false, false, true, false, false, false, true, true, true, false];
  STEPS.slice(0, expected.length).forEach((step, k) => {
    const { answer, lines, result, state, question } = tourStep(k);
    assert.equal(answer, expected[k], `step ${k + 1} (${step.title})`);
    const p = followed(result, state);
    if (k !== 3 && k < 7) {
      // the RoPE step follows "bites", which keeps its place
      const [word, call] = k === 5 ? ['bites', 'out_a[1], out_b[1]'] : ['man', 'out_a[2], out_b[0]'];
      assert.match(question, new RegExp(`“${word}”`));
      assert.ok(lines[0].startsWith(`np.allclose(${call}) says ${TF(p.allclose)}:`), lines[0]);
    }
  });
  // Step 3 quotes the live cosine distance and the threshold (exercise 3).
  const faint = tourStep(2);
  assert.equal(faint.state.scale, 0.001);
  assert.match(faint.lines[1], /cosine distance of 3\.235e-05/);
  assert.match(faint.lines[1], /only below a magnitude of about 9\.1e-08/);
  // Step 7 counts what "man" can see under the mask.
  assert.match(tourStep(6).lines[1], /sees 3 words in A but 1 word in B/);
  // Step 4 counts the student's own pair.
  const own = tourStep(3, (s) => Object.assign(s, { a: 'alice paid bob', b: 'bob paid alice' }));
  assert.equal(own.lines[0], '3 of 3 paired words say True, and the sentence mean says True.');
});

test('the tour says what is actually seen when it is not what the module found', () => {
  // Loose tolerances: positions on, yet np.allclose says True.
  const loose = tourStep(1, (s) => { s.rtol = 100; });
  assert.equal(loose.answer, true);
  assert.match(loose.lines[0], /says True/);
  assert.match(loose.lines[1], /rtol 100, atol 1e-08/);
  // Zero tolerances: bare attention may fail on rounding alone; the text names the tolerances.
  const strict = tourStep(0, (s) => Object.assign(s, { rtol: 0, atol: 0 }));
  assert.match(strict.lines[0], new RegExp(`says ${TF(strict.answer)}`));
  if (!strict.answer) assert.match(strict.lines[1], /tolerances are rtol 0, atol 0/);
  // Not a reordering: the own-words step says so.
  const other = tourStep(3, (s) => Object.assign(s, { a: 'dog bites man', b: 'man bites cat' }));
  assert.equal(other.answer, false);
  assert.match(other.lines.join(' '), /not a reordering/);
  // A followed word without a partner: no verdict, and the text says why.
  const lonely = tourStep(0, (s) => Object.assign(s, { b: 'man bites cat', word: 0 }));
  assert.equal(lonely.answer, null);
  assert.match(lonely.lines[0], /“dog” has no partner/);
  // Any seed: every word step's claim states the live verdict.
  for (let seed = 0; seed < 12; seed++) {
    for (let k = 0; k < 7; k++) { // the steps that follow one word
      if (k === 3) continue;
      const r = tourStep(k, (s) => { s.seed = seed; s.dim = 2 + (seed % 5); });
      assert.match(r.lines[0], new RegExp(`says ${TF(r.answer)}:`), `seed ${seed} step ${k + 1}`);
    }
  }
});

// Paired words that say True, and how many are paired.
const count = (r) => {
  const paired = r.pairs.filter((p) => p.index_b !== null);
  return { same: paired.filter((p) => p.allclose).length, paired: paired.length };
};

test('the shift test step: its count for every scheme is the core\'s; relative schemes see no shift', () => {
  const shift = tourStep(7);
  const s = shift.state;
  assert.deepEqual([s.a, s.b, s.offsetA, s.offsetB, s.dim, s.heads, s.positions, s.scheme],
    ['the cat chased the mouse', 'the cat chased the mouse', 0, 5, 16, 1, true, 'rope']);
  assert.match(shift.lines[0], /^With RoPE: 5 of 5 words say True, and the sentence mean says True\.$/);
  for (const scheme of Object.keys(SCHEME_LABELS)) {
    const r = lab.run({ ...form.configOf(s), scheme, scale: form.defaultScale(scheme) });
    const { same, paired } = count(r);
    assert.ok(shift.lines[1].includes(`${SCHEME_LABELS[scheme]} ${same} of ${paired}`), `${scheme}: ${shift.lines[1]}`);
    // the figure the lesson rests on: relative schemes True for every word, absolute ones False
    const relative = scheme === 'rope' || scheme === 'alibi';
    assert.equal(same, relative ? paired : 0, scheme);
    assert.equal(r.mean.allclose, relative, `${scheme}: the mean`);
  }
  assert.match(shift.lines[2], /RoPE and ALiBi see only how far apart words stand/);
  // Another scheme picked by hand: the step's own words name it, and the others' counts stay.
  const model = new Model(lab, form);
  const sin = { ...s, scheme: 'sinusoidal', scale: form.defaultScale('sinusoidal') };
  const sinResult = model.verdict(sin);
  const lines = revealAt(7, { result: sinResult, state: sin, form, threshold: () => null, verdict: (c) => model.verdict({ ...sin, ...c }) });
  const sinCount = count(sinResult);
  assert.equal(lines[0], `With Sinusoidal: ${sinCount.same} of ${sinCount.paired} words say True, and the sentence mean says False.`);
  assert.equal(lines[1], shift.lines[1]);
  // Any seed and any later start: RoPE still sees no shift.
  for (let seed = 0; seed < 8; seed++) {
    const r = tourStep(7, (st) => Object.assign(st, { seed, offsetB: 1 + seed * 100 }));
    assert.equal(r.answer, true, `seed ${seed}`);
  }
});

test('the ALiBi step: a reversal keeps every distance; a swap does not; RoPE tells the mirror apart', () => {
  const mirror = tourStep(8);
  assert.deepEqual([mirror.state.a, mirror.state.b, mirror.state.scheme, mirror.state.dim, mirror.state.heads, mirror.state.scale, mirror.state.causal],
    ['dog bites man', 'man bites dog', 'alibi', 12, 3, 16, false]);
  assert.match(STEPS[8].intro(mirror), /Each of the 3 heads does this at its own rate.*times 16, without a causal mask\./);
  assert.match(STEPS[8].intro(tourStep(8, (st) => { st.heads = 1; })), /One head has one rate, 1\/256 per word/);
  const here = count(mirror.result);
  assert.equal(mirror.lines[0], `${here.same} of ${here.paired} words say True, and the sentence mean says True.`);
  assert.equal(here.same, here.paired);
  assert.equal(mirror.question, '“man bites dog” is “dog bites man” read backwards. With ALiBi, will every word come out identical?');
  assert.match(mirror.lines[1], /“dog” and “man” stand 2 apart in A and 2 apart in B/);
  assert.match(mirror.lines[1], /so without a causal mask it cannot tell who did what to whom/);
  const swap = lab.run({ sentence_a: 'the cat chased the mouse', sentence_b: 'the mouse chased the cat', dim: 12, heads: 3, scale: 16, scheme: 'alibi' });
  assert.equal(swap.mean.allclose, false);
  assert.ok(mirror.lines[2].includes(`“chased” says False (cosine distance ${sig(swap.pairs[2].cosine_distance)}) ` +
    `and the sentence mean False (cosine distance ${sig(swap.mean.cosine_distance)})`), mirror.lines[2]);
  const rope = count(lab.run({ scheme: 'rope' }));
  assert.ok(rope.same < rope.paired);
  assert.ok(mirror.lines[3].startsWith(`RoPE, which also sees which word comes first, tells them apart: with it, ${rope.same} of ${rope.paired} words say True.`), mirror.lines[3]);
  // Every seed, d and head count: a reversal is invisible to ALiBi.
  for (const [seed, dim, heads] of [[0, 6, 3], [7, 8, 8], [123, 5, 5], [9, 12, 6]]) {
    assert.equal(tourStep(8, (st) => Object.assign(st, { seed, dim, heads })).answer, true, `seed ${seed} d ${dim} heads ${heads}`);
  }
});

test('what relative schemes see: shifts, reversals and swaps from the core\'s pairing', () => {
  const run = (a, b, extra = {}) => lab.run({ sentence_a: a, sentence_b: b, scheme: 'none', ...extra });
  const shifted = arrangement(run('a b c', 'a b c', { offset_b: 5 }));
  assert.deepEqual(shifted, { shift: 5, reversed: false, distances: true });
  assert.deepEqual(arrangement(run('a b c', 'c b a')), { shift: null, reversed: true, distances: true });
  assert.deepEqual(arrangement(run('the cat chased the mouse', 'the mouse chased the cat')), { shift: null, reversed: false, distances: false });
  assert.equal(arrangement(run('a b c', 'a b d')), null);
  assert.deepEqual([blindTo('rope', shifted, false), blindTo('alibi', shifted, true), blindTo('sinusoidal', shifted, false)], [true, true, false]);
  const mirrored = arrangement(run('a b c', 'c b a'));
  assert.deepEqual([blindTo('alibi', mirrored, false), blindTo('alibi', mirrored, true), blindTo('rope', mirrored, false)], [true, false, false]);
});

test('off its setup (a reload after changes, a link with its own settings) a step says so and claims only what is seen', () => {
  const model = new Model(lab, form);
  // Step 3 set up: magnitude 0.001, "nearly equal".
  const state = defaultState();
  STEPS[2].set(state, form);
  assert.deepEqual(offSetup(2, state, form), []);
  const ctx = (s) => ({ result: model.verdict(s), state: s, form, threshold: (pair) => model.threshold(s, pair),
    verdict: (changes) => model.verdict({ ...s, ...changes }) });
  assert.match(revealAt(2, ctx(state)).join(' '), /nearly equal/);
  // The student moves the magnitude back to 0.5: no "nearly equal" any more.
  const moved = { ...state, scale: 0.5 };
  assert.deepEqual(offSetup(2, moved, form), ['the magnitude']);
  const lines = revealAt(2, ctx(moved));
  assert.match(lines[0], /says False: “man” comes out as different vectors \(max \|diff\| 12\.54, cosine distance 0\.9416\)/);
  assert.equal(lines[1], 'They differ: positional information is on.');
  // Step 1 with positions switched on by hand, step 7 with the mask off.
  assert.deepEqual(offSetup(0, { ...defaultState(), positions: true }, form), ['positional information']);
  const s7 = defaultState();
  STEPS[6].set(s7, form);
  assert.deepEqual(offSetup(6, { ...s7, causal: false }, form), ['the causal mask']);
  assert.match(revealAt(6, ctx({ ...s7, causal: false })).join(' '), /says True.*every word meets the same company/);
  // Step 4 sets no sentences, so the student's own words are not "off".
  const own = defaultState();
  STEPS[3].set(own, form);
  assert.deepEqual(offSetup(3, { ...own, a: 'x y', b: 'y x' }, form), []);
  // At the defaults, the same step set up with a seed where 0.001 is not faint enough:
  // "nearly equal" is said only when the cosine distance is small.
  for (let seed = 0; seed < 30; seed++) {
    const s = { ...state, seed, dim: 2 };
    const p = followed(model.verdict(s), s);
    const text = revealAt(2, ctx(s)).join(' ');
    assert.equal(/nearly equal/.test(text), !p.allclose && p.cosine_distance < 1e-3, `seed ${seed}: ${text}`);
  }
});

test('the tour step lives in the hash beside the state, not in it', () => {
  const state = defaultState();
  assert.equal(toHash(state, { tour: 0 }), toHash(state));
  assert.equal(toHash(state, { tour: 3 }), `${toHash(state)}&tour=3`);
  assert.deepEqual(parseView('#tour=3'), { view: { tour: 3 }, ignored: [], setsState: false });
  assert.equal(parseView(`#${toHash(state, { tour: 3 })}`).setsState, true);
  assert.deepEqual(parseHash(`#${toHash(state, { tour: 3 })}`), { state, ignored: [] });
  const beyond = String(STEPS.length + 1);
  assert.deepEqual(parseView(`#tour=${beyond}`).ignored,
    [{ label: 'tour step', value: beyond, reason: `allowed: a step number from 1 to ${STEPS.length}` }]);
  assert.equal(parseView(`#tour=${beyond}`).view.tour, 0);
});

test('the full run is cached by config and serves the verdicts too', () => {
  const runs = [];
  const counting = { run: (config) => { runs.push(config); return lab.run(config); }, threshold: (...a) => lab.threshold(...a), options: lab.options };
  const model = new Model(counting, form);
  const state = { ...defaultState(), positions: true };
  const full = model.full(state);
  assert.equal(full.attention_a.length, 3);
  assert.equal(model.verdict(state), full);
  assert.equal(model.full(state), full);
  assert.equal(runs.length, 1);
  // A slider step with the heatmaps open: one run, as without them.
  model.full({ ...state, scale: 0.25 });
  model.verdict({ ...state, scale: 0.25 });
  assert.equal(runs.length, 2);
  assert.ok(runs.every((c) => c.full === true && !c.sweep));
  // The download run has everything, and the CLI's numbers.
  const all = model.everything(state);
  assert.equal(all.sweep.scales.length, 121);
  assert.ok(Math.abs(all.pairs[2].max_abs_diff - 12.536657700122994) < 1e-12 * 12.6);
  assert.ok(all.output_a && all.attention_b);
});

test('CSV: one tidy table (one header, one row per observation, every setting on every row), words kept as text', () => {
  const result = lab.run({ sentence_a: '=1+1 "q",x man', sentence_b: 'man "q",x =1+1', scheme: 'random', sweep: { lo: 1e-3, hi: 1, count: 4 } });
  const csv = toCsv(result, [{ pair: 2, threshold: 1.5e-7 }, { pair: -1, threshold: 2e-7 }]);
  const lines = csv.trim().split('\r\n');
  assert.ok(!csv.includes('\r\n\r\n'), 'no stacked tables');
  assert.equal(lines[0], 'observation,block,scale,row,word,index_a,index_b,allclose,max_abs_diff,cosine_distance,threshold,' +
    'sentence_a,sentence_b,offset_a,offset_b,dim,heads,seed,scheme,causal,rtol,atol,model,layers,weight_std');
  const settings = ',"\'=1+1 ""q"",x man","man ""q"",x =1+1",0,0,6,1,2,random,False,0.00001,1e-8,head,2,0.02';
  assert.equal(lines[1], `output,,0.5,pair,'=1+1,0,2,False,${result.pairs[0].max_abs_diff},${result.pairs[0].cosine_distance},${settings}`);
  assert.ok(lines[2].startsWith('output,,0.5,pair,"""q"",x",1,1,False,'), lines[2]);
  assert.equal(lines[3], `output,,0.5,pair,man,2,0,False,${result.pairs[2].max_abs_diff},${result.pairs[2].cosine_distance},1.5e-7${settings}`);
  assert.equal(lines[4], `output,,0.5,mean,,,,False,${result.mean.max_abs_diff},${result.mean.cosine_distance},2e-7${settings}`);
  assert.equal(lines[5], `output,,0.5,bag_of_vectors,,,,True,${result.baseline.max_abs_diff},${result.baseline.cosine_distance},${settings}`);
  // the sweep: one row per magnitude and curve (3 words and the mean at 4 magnitudes)
  const sweep = lines.filter((l) => l.startsWith('sweep,'));
  assert.equal(sweep.length, 4 * 4);
  assert.equal(sweep[0], `sweep,,0.001,pair,'=1+1,0,2,${TF(result.sweep.pairs[0][0].allclose)},,${result.sweep.pairs[0][0].cosine_distance},${settings}`);
  assert.equal(sweep[15], `sweep,,1,mean,,,,${TF(result.sweep.mean[3].allclose)},,${result.sweep.mean[3].cosine_distance},${settings}`);
  assert.equal(lines.length, 1 + 5 + 16);
  assert.equal(fileName(result.config, 'numbers', 'csv'), 'poslab-11-qx-man-vs-man-qx-11-random-0.5-d6-numbers.csv');
  assert.equal(fileName(lab.run({ scheme: 'none', causal: true, heads: 2, model: 'transformer', layers: 3 }).config, 'chart', 'png'),
    'poslab-dog-bites-man-vs-man-bites-dog-no-positions-causal-d6-2-heads-3-blocks-chart.png');
  // Where each sentence starts and the heads are settings on every row.
  const moved = toCsv(lab.run({ offset_a: 3, offset_b: 1024, dim: 8, heads: 4, scheme: 'alibi' })).trim().split('\r\n');
  assert.ok(moved.slice(1).every((l) => l.endsWith(',3,1024,8,4,2,alibi,False,0.00001,1e-8,head,2,0.02')), moved[1]);
});

test('permutation facts: both properties hold with positions off and break once they are on', () => {
  const off = permutationFacts(lab.run({ scheme: 'none' }));
  assert.deepEqual([off.equivariant, off.invariant, off.order], [true, true, [2, 1, 0]]);
  assert.ok(off.rowsMaxDiff < 1e-12 && off.meanMaxDiff < 1e-12);
  const on = permutationFacts(lab.run({ scheme: 'random' }));
  assert.deepEqual([on.equivariant, on.invariant, on.worstWord], [false, false, 'man']);
  assert.equal(on.rowsMaxDiff, lab.run({ scheme: 'random' }).pairs[2].max_abs_diff);
  const masked = permutationFacts(lab.run({ scheme: 'none', causal: true }));
  assert.deepEqual([masked.equivariant, masked.invariant], [false, false]);
  assert.equal(permutationFacts(lab.run({ sentence_b: 'man bites cat', scheme: 'none' })), null);
  // the closed sections' summaries
  assert.deepEqual(reorderingBadges(lab.run({ scheme: 'none' })), ['both hold', 'cosine similarity 1']);
  assert.deepEqual(reorderingBadges(lab.run({ scheme: 'random' })), ['both break', 'cosine similarity 1']);
  const other = lab.run({ sentence_b: 'man bites cat', scheme: 'none' });
  assert.deepEqual(reorderingBadges(other), ['not a reordering', `cosine similarity ${sig(other.baseline.cosine_similarity)}`]);
  assert.ok(other.baseline.cosine_similarity < 0.99, 'other words, other averages');
});

test('heatmaps: lined up in A\'s order, B\'s attention is A\'s with positions off', () => {
  for (const a of ['dog bites man', 'the cat chased the mouse']) {
    const b = a.split(' ').reverse().join(' ');
    const off = lab.run({ sentence_a: a, sentence_b: b, scheme: 'none', full: true });
    const order = off.pairs.map((p) => p.index_b);
    assert.ok(maxAbsDiff(off.attention_a, lineUp(off.attention_b, order)) < 1e-12);
    off.attention_a.forEach((row) => assert.ok(Math.abs(row.reduce((x, y) => x + y) - 1) < 1e-12));
    const on = lab.run({ sentence_a: a, sentence_b: b, scheme: 'sinusoidal', full: true });
    assert.ok(maxAbsDiff(on.attention_a, lineUp(on.attention_b, order)) > 1e-3);
  }
  assert.deepEqual([0, 0.004, 0.5, 1, null].map(weightText), ['0', '0.00', '0.50', '1.00', 'nan']);
});

test('embed: the new panels are hide= groups', () => {
  const names = GROUPS.map((g) => g.name);
  for (const name of ['tour', 'export', 'heatmap', 'permutation', 'baseline', 'why']) assert.ok(names.includes(name), name);
  assert.deepEqual(readView('?hide=tour,heatmap').hide, new Set(['tour', 'heatmap']));
  // (the results column sets the height once the tallest controls are hidden)
  const controls = ['words', 'scheme'];
  assert.ok(suggestedHeight(new Set(controls)) > suggestedHeight(new Set([...controls, 'heatmap', 'permutation', 'baseline', 'export'])));
});

// The transformer's two steps, once a student has switched back to the one
// head: the claim, then where to look, not a tally of blocks there are none of.
test('the transformer steps on the one head say to switch back to blocks', () => {
  for (const k of [9, 10]) {
    const { lines, result } = tourStep(k, (state) => { state.model = 'head'; });
    assert.equal(result.layers, undefined);
    assert.equal(lines.length, 2, lines.join(' | '));
    assert.match(lines[0], /^np\.allclose\(out_a\[2\], out_b\[0\]\) says (True|False):/);
    assert.equal(lines[1], 'The model is the one head now: switch to transformer blocks to see this.');
  }
  const { lines } = tourStep(9);
  assert.match(lines[1], /^“man” is True after 4 of the 4 blocks \(the block-by-block picture under the verdicts\)\.$/);
});

// ---- exercise 2: the models trained here -----------------------------------

test('exercise 2\'s steps on the models trained here: each prediction and claim is the core\'s', async () => {
  const { CheckpointLoader } = await import(`${WEB}app/checkpoints.js`);
  const { pathToFileURL } = await import('node:url');
  const { probability, rightAnswer } = await import(`${WEB}teach/lesson.js`);
  const { shownSteps } = await import(`${WEB}teach/tour_steps.js`);
  const ckLab = await createLab();
  const loader = new CheckpointLoader(ckLab, { base: pathToFileURL(SITE).href });
  const first = STEPS.findIndex((s) => s.title === 'Exercise 2: a model trained here');
  assert.equal(first, 11);
  // Runs step k as the page does once its model is open: every run on the open model.
  async function ckStep(k, before = () => {}, gpt2 = false) {
    const state = defaultState();
    STEPS[k].set(state, form);
    before(state);
    await loader.open(state);
    const verdict = (changes) => ckLab.run(form.configOf({ ...state, ...changes }));
    const result = verdict({});
    const ctx = { result, state, form, verdict, gpt2, threshold: () => { throw new Error('no threshold on a checkpoint'); } };
    return { state, result, answer: STEPS[k].answer(ctx), lines: revealAt(k, ctx), question: STEPS[k].question(ctx), ctx };
  }
  const answer = (next, name) => `“${next[0].text.trim()}” after ${name} (probability ${probability(next[0].probability)}`;
  const count = (r) => {
    const paired = r.pairs.filter((p) => p.index_b !== null);
    return { same: paired.filter((p) => p.allclose).length, paired: paired.length };
  };
  try {
    // 12. gpt as trained: both right.
    let s = await ckStep(first);
    assert.equal(s.state.model, 'gpt');
    const right = [s.result.next_a[0].text.trim() === rightAnswer(s.state.a), s.result.next_b[0].text.trim() === rightAnswer(s.state.b)];
    assert.deepEqual(right, [true, true]);
    assert.equal(s.answer, true);
    assert.ok(s.lines[0].startsWith(`gpt answers ${answer(s.result.next_a, 'A')}, right) and ${answer(s.result.next_b, 'B')}, right)`), s.lines[0]);
    let c = count(s.result);
    assert.match(s.lines[1], new RegExp(`${c.paired - c.same} of ${c.paired} tokens are False`));

    // 13. exercise 2's figure, with np.allclose on the means.
    s = await ckStep(first + 1);
    assert.equal(s.answer, s.result.mean.allclose);
    assert.equal(s.answer, false);
    assert.ok(s.lines[0].startsWith(`The cosine similarity of the mean last hidden state is ${sig(s.result.mean_cosine_similarity)}; ` +
      `np.allclose on the two means says False (max |diff| ${sig(s.result.mean.max_abs_diff)})`), s.lines[0]);

    // 14. positions off: still different (the mask); 15. mask off too: all identical.
    s = await ckStep(first + 2);
    assert.deepEqual([s.state.positions, s.state.causal], [false, true]);
    c = count(s.result);
    assert.equal(s.answer, false);
    assert.ok(c.same < c.paired);
    assert.match(s.lines[0], new RegExp(`: ${c.paired - c.same} of ${c.paired} tokens False, ${c.same} True.*still tells the two sentences apart`));
    assert.ok(s.lines[1].includes(answer(s.result.next_a, 'A')) && s.lines[1].includes(answer(s.result.next_b, 'B')), s.lines[1]);
    s = await ckStep(first + 3);
    c = count(s.result);
    assert.equal(s.answer, true);
    assert.equal(c.same, c.paired);
    assert.match(s.lines[0], new RegExp(`every token True \\(${c.same} of ${c.paired}\\)`));
    assert.equal(s.result.next_a[0].id, s.result.next_b[0].id);
    assert.match(s.lines[1], /It answers both sentences alike/);

    // 16. bag: the same answer for both, at the same probability.
    s = await ckStep(first + 4);
    assert.deepEqual([s.state.model, s.state.positions, s.state.causal], ['bag', false, false]);
    assert.equal(s.answer, true);
    assert.equal(s.result.next_a[0].id, s.result.next_b[0].id);
    assert.ok(Math.abs(s.result.next_a[0].probability - s.result.next_b[0].probability) < 1e-12);
    assert.ok(s.lines[1].includes(answer(s.result.next_a, 'A')), s.lines[1]);

    // 17. nope: both right, from the mask alone; the tour ends here unless GPT-2 is open.
    s = await ckStep(first + 5);
    assert.deepEqual([s.state.model, s.state.positions, s.state.causal], ['nope', false, true]);
    assert.equal(s.answer, true);
    assert.match(s.lines[0], /both right, so it learned the order from the mask alone/);
    assert.ok(s.lines[0].includes(`${answer(s.result.next_a, 'A')}, right)`), s.lines[0]);
    assert.equal(shownSteps(s.ctx), TOUR_STEPS - 1);
    assert.equal(shownSteps({ ...s.ctx, tourStep: true }), TOUR_STEPS);
    assert.match(s.lines.at(-1), /one more step/);

    // 18. GPT-2 (here a course host's folder holding gpt, which is GPT-2's layout):
    // positions off, mask on; then the mask off too.
    const from = defaultState();
    STEPS[first + 6].set(from, form);
    assert.deepEqual([from.model, from.checkpoint], ['gpt2', '']); // not GPT-2 before: no folder to keep
    const folder = (st) => { st.model = 'gpt2'; st.checkpoint = 'models/gpt/'; };
    const g = defaultState();
    folder(g);
    STEPS[first + 6].set(g, form);
    assert.equal(g.checkpoint, 'models/gpt/'); // kept while GPT-2 is the model
    s = await ckStep(first + 6, folder, true);
    const p = followed(s.result, s.state);
    assert.equal(s.answer, p.allclose);
    assert.ok(s.lines[0].startsWith(`np.allclose(out_a[${p.index_a}], out_b[${p.index_b}]) says ${TF(p.allclose)}`), s.lines[0]);
    c = count(s.ctx.verdict({ causal: false }));
    assert.match(s.lines[2], new RegExp(`^With the mask off too: ${c.same} of ${c.paired} words say True`));
  } finally {
    loader.release();
    ckLab.dispose();
  }
});
