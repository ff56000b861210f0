// The page's store (web/app/store.js): pure updates from one value to the
// next, checked with the page's form made from the core's option table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { stateForm } from '../state_form.mjs';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const store = await import(`${WEB}app/store.js`);
const { STEPS } = await import(`${WEB}teach/tour_steps.js`);
const { PRESETS } = await import(`${WEB}teach/presets.js`);
const { form, lab } = await stateForm();
const deep = (x) => JSON.parse(JSON.stringify(x));

test('a first visit: the core\'s defaults, no notice, no tour', () => {
  const page = store.fromHash('', { form, steps: STEPS });
  assert.deepEqual(page, {
    lab: { a: 'dog bites man', b: 'man bites dog', offsetA: 0, offsetB: 0, positions: false, scheme: 'random', scale: 0.5,
      causal: false, word: 2, dim: 6, heads: 1, seed: 2, rtol: 1e-5, atol: 1e-8,
      model: 'head', layers: 2, weightStd: 0.02, checkpoint: '', space: true },
    refused: {}, tour: { step: 0, guesses: {} }, notice: [], scaleSet: false, followsLast: true,
  });
  assert.equal(store.hashOf(page, form), 'a=dog+bites+man&b=man+bites+dog&oa=0&ob=0&pos=0&scheme=random&scale=0.5&causal=0&word=2&dim=6&heads=1&seed=2&rtol=0.00001&atol=1e-8&model=head&layers=2&ws=0.02');
});

test('updates make a new value and leave the old one as it was', () => {
  const page = store.fromHash('#pos=1', { form, steps: STEPS });
  const before = deep(page);
  const steps = [
    [store.typed, 'dim', '0', { message: 'out of range' }],
    [store.typed, 'scale', '1e-3', { value: 0.001 }],
    [store.set, { causal: true }],
    [store.chooseScheme, 'rope', form],
    [store.slideScale, -2.5],
    [store.setSentences, 'a b c d', 'd c b a'],
    [store.applyPreset, PRESETS.at(-1), form],
    [store.typed, 'offsetB', '5', { value: 5 }],
    [store.set, { heads: 2 }],
    [store.reverseB],
    [store.shuffleB, () => 0],
    [store.goTour, 3, { form, steps: STEPS }],
    [store.guess, true],
    [store.endTour, 3],
    [store.reset, form],
    [store.dismissNotice],
  ];
  for (const [fn, ...args] of steps) {
    const next = fn(page, ...args);
    assert.notEqual(next, page);
    assert.deepEqual(deep(page), before, fn.name);
  }
});

test('typed text: refused text is kept beside the last valid state; accepted text replaces it', () => {
  let page = store.fromHash('', { form, steps: STEPS });
  page = store.typed(page, 'dim', '0', { message: '"0" is out of range; allowed: an integer from 1 to 512' });
  assert.equal(page.lab.dim, 6);
  assert.deepEqual(page.refused.dim, { raw: '0', message: '"0" is out of range; allowed: an integer from 1 to 512' });
  page = store.typed(page, 'dim', '8', { value: 8 });
  assert.equal(page.lab.dim, 8);
  assert.deepEqual(page.refused, {});
  // A shorter sentence A moves the followed word back onto it.
  page = store.typed(page, 'a', 'dog bites', { value: 'dog bites' });
  assert.equal(page.lab.word, 1);
});

test('typing sentence A key by key keeps following its last word; another followed word stays put', () => {
  let page = store.fromHash('', { form, steps: STEPS });
  assert.equal(page.lab.word, 2); // "man", the last word
  for (const text of ['d', 'do', 'dog', 'dog ', 'dog b', 'dog bites', 'dog bites p', 'dog bites postman']) {
    page = store.typed(page, 'a', text, { value: text });
    assert.equal(page.lab.word, text.split(' ').filter(Boolean).length - 1, text);
  }
  page = store.set(page, { word: 0 });
  page = store.typed(page, 'a', 'dog bites postman now', { value: 'dog bites postman now' });
  assert.equal(page.lab.word, 0);
  // Sentence B never moves it.
  page = store.set(page, { word: 3 });
  page = store.typed(page, 'b', 'now postman bites', { value: 'now postman bites' });
  assert.equal(page.lab.word, 3);
});

test('a checkpoint follows sentence A\'s last token once its tokenizer has counted them', () => {
  // "dog bites zebra" is 8 tokens to gpt (zebra: 6 bytes); its last word's index, 2, is the token "␣"
  const count = (a) => ({ 'dog bites zebra': 8, 'dog bites zebra now': 9, 'dog bites man': 3 })[a];
  const settle = (page) => store.settleWord(page, count(page.lab.a) - 1);
  let page = store.fromHash('#model=gpt&a=dog+bites+zebra&b=man+bites+dog', { form, steps: STEPS });
  assert.equal(page.lab.word, 2); // (before the tokenizer is in: the words' count)
  assert.equal(store.settleWord(page, null), page);
  page = settle(page);
  assert.equal(page.lab.word, 7);
  page = settle(store.typed(page, 'a', 'dog bites zebra now', { value: 'dog bites zebra now' }));
  assert.equal(page.lab.word, 8);
  // a picked token stays, and a link's word is kept (the last, if it is the last)
  page = settle(store.set(page, { word: 3 }));
  page = settle(store.typed(page, 'a', 'dog bites zebra', { value: 'dog bites zebra' }));
  assert.equal(page.lab.word, 3);
  for (const [word, last] of [[2, false], [7, true]]) {
    let linked = settle(store.fromHash(`#model=gpt&a=dog+bites+zebra&b=man+bites+dog&word=${word}`, { form, steps: STEPS }));
    assert.deepEqual([linked.lab.word, linked.followsLast], [word, last]);
    linked = settle(store.typed(linked, 'a', 'dog bites zebra now', { value: 'dog bites zebra now' }));
    assert.equal(linked.lab.word, last ? 8 : word);
  }
  // new sentences and a model chosen with the last word followed: the last token
  page = settle(store.setSentences(store.set(page, { word: 0 }), 'dog bites zebra', 'man bites dog'));
  assert.equal(page.lab.word, 7);
  let head = store.fromHash('#a=dog+bites+zebra&b=man+bites+dog', { form, steps: STEPS });
  head = settle(store.chooseModel(head, 'gpt', form));
  assert.deepEqual([head.lab.model, head.lab.word], ['gpt', 7]);
  // and back on the one head, the last word
  assert.equal(store.chooseModel(head, 'head', form).lab.word, 2);
});

test('a new scheme starts at the core\'s default magnitude for it (while the student has chosen none)', () => {
  let page = store.fromHash('#pos=1', { form, steps: STEPS });
  for (const { name, default_scale: scale } of lab.options.schemes.filter((s) => s.name !== 'none')) {
    page = store.chooseScheme(page, name, form);
    assert.deepEqual([page.lab.scheme, page.lab.scale], [name, scale]);
  }
  assert.equal(store.slideScale(page, -3).lab.scale, 0.001);
  assert.equal(store.slideScale(page, -2.05).lab.scale, 0.00891);
});

test('example pairs: the sentences, where they start and what else the lesson needs; the rest stays', () => {
  const before = store.typed(store.fromHash('#pos=1&scheme=rope&scale=0.3&seed=9&dim=8&heads=2&ob=7', { form, steps: STEPS }),
    'offsetA', '1025', { message: 'refused' });
  for (const preset of PRESETS) {
    const page = store.applyPreset(before, preset, form);
    const { lab: s } = page;
    assert.deepEqual([s.a, s.b, s.word], [preset.a, preset.b, preset.settings.word ?? preset.a.split(' ').length - 1]);
    assert.deepEqual([s.offsetA, s.offsetB], [preset.settings.offsetA, preset.settings.offsetB]);
    for (const [name, value] of Object.entries(preset.settings)) assert.equal(s[name], value, name);
    // a scheme it names comes with the pair's magnitude, else the core's default for it; otherwise the page's stays
    assert.equal(s.scale, preset.settings.scale ?? (preset.settings.scheme ? form.defaultScale(preset.settings.scheme) : 0.3));
    assert.equal(s.seed, 9);
    assert.deepEqual(page.refused, {}, 'the refused start is replaced');
    // what it sets up is a config the core runs (heads divide d)
    assert.doesNotThrow(() => lab.run(form.configOf(s)), preset.label ?? preset.a);
  }
});

test('B reversed and shuffled; a shuffle never leaves B as it was', () => {
  let page = store.setSentences(store.fromHash('', { form, steps: STEPS }), 'w1 w2 w3 w4', 'w1 w2 w3 w4');
  assert.equal(store.reverseB(page).lab.b, 'w4 w3 w2 w1');
  let k = 0;
  const draws = [0.99, 0.99, 0.99, 0.0, 0.0, 0.0]; // first shuffle: identity, then a real one
  page = store.shuffleB(page, () => draws[k++ % draws.length]);
  assert.notEqual(page.lab.b, 'w1 w2 w3 w4');
  assert.deepEqual(page.lab.b.split(' ').sort(), ['w1', 'w2', 'w3', 'w4']);
});

test('the tour: a bare link opens the step\'s settings, a full link keeps its own; guesses per step', () => {
  const bare = store.fromHash('#tour=2', { form, steps: STEPS });
  assert.deepEqual([bare.tour.step, bare.lab.positions, bare.lab.scheme, bare.lab.scale], [2, true, 'random', 0.5]);
  const full = store.fromHash(`#${store.hashOf({ ...bare, lab: { ...bare.lab, scale: 3 } }, form)}`, { form, steps: STEPS });
  assert.deepEqual([full.tour.step, full.lab.scale], [2, 3]);
  let page = store.goTour(full, 3, { form, steps: STEPS });
  assert.equal(page.lab.scale, 0.001);
  page = store.guess(page, false);
  assert.equal(store.currentGuess(page), false);
  assert.equal(store.currentGuess(store.goTour(page, 4, { form, steps: STEPS })), undefined);
  assert.equal(store.goTour(page, 99, { form, steps: STEPS }).tour.step, STEPS.length);
  assert.deepEqual(store.endTour(page, 3).tour, { step: 0, guesses: { 3: false } });
  assert.deepEqual(store.endTour(page, 0).tour, { step: 0, guesses: {} });
});

test('a link with bad parts: defaults for them, and the notice lists them with the query string\'s', () => {
  const extra = { label: 'hide', value: 'bogus', reason: 'allowed: …' };
  const page = store.fromHash(`#dim=513&scheme=none&tour=${STEPS.length + 1}`, { form, steps: STEPS, ignored: [extra] });
  assert.deepEqual(page.notice.map((n) => n.label), ['scheme', 'dim', 'tour step', 'hide']);
  // where the sentences start and the heads: the same, and the core's word for the rest
  const bad = store.fromHash('#oa=-1&ob=1.5&heads=9&pos=1', { form, steps: STEPS });
  assert.deepEqual(bad.notice.map((n) => n.label), ['where sentence A starts', 'where sentence B starts', 'heads']);
  assert.deepEqual([bad.lab.offsetA, bad.lab.offsetB, bad.lab.heads, bad.lab.positions], [0, 0, 1, true]);
  assert.equal(page.notice[1].reason, 'allowed: an integer from 1 to 512');
  assert.equal(page.notice[0].reason, 'allowed: random, sinusoidal, rope, alibi');
  assert.equal(store.dismissNotice(page).notice.length, 0);
  assert.equal(store.reset(page, form).notice.length, 0);
});

test('createStore: dispatch makes the next value and tells the listener', () => {
  const seen = [];
  const s = store.createStore(store.fromHash('', { form, steps: STEPS }), (value) => seen.push(value.lab.causal));
  s.dispatch(store.set, { causal: true });
  s.dispatch(store.set, { causal: false });
  assert.deepEqual(seen, [true, false]);
  assert.equal(s.get().lab.causal, false);
});

test('the magnitude the student chose survives a change of scheme; the default applies only while unset', () => {
  let page = store.fromHash('#pos=1', { form, steps: STEPS });
  assert.equal(page.scaleSet, false);
  page = store.chooseScheme(page, 'rope', form);
  assert.equal(page.lab.scale, form.defaultScale('rope'), 'unset: the scheme\'s default');
  page = store.typed(page, 'scale', '0.001', { value: 0.001 });
  for (const scheme of ['sinusoidal', 'alibi', 'random', 'rope']) {
    page = store.chooseScheme(page, scheme, form);
    assert.deepEqual([page.lab.scheme, page.lab.scale], [scheme, 0.001]);
  }
  // the slider and its keys set it too; Start over and an example pair with a scheme unset it
  assert.equal(store.chooseScheme(store.slideScale(store.reset(page, form), -2), 'alibi', form).lab.scale, 0.01);
  assert.equal(store.chooseScheme(store.reset(page, form), 'alibi', form).lab.scale, form.defaultScale('alibi'));
  assert.equal(store.chooseScheme(store.setScale(store.reset(page, form), 3), 'rope', form).lab.scale, 3);
  const preset = store.applyPreset(page, PRESETS.at(-1), form);
  assert.equal(store.chooseScheme(preset, 'rope', form).lab.scale, form.defaultScale('rope'));
  // a link with a magnitude of its own keeps it
  assert.equal(store.chooseScheme(store.fromHash('#pos=1&scheme=sinusoidal&scale=0.02', { form, steps: STEPS }), 'rope', form).lab.scale, 0.02);
});

test('the magnitude slider\'s keys: arrows along 1, 2, 5, 10; Page Up and Down by a decade; within the limits', () => {
  const walk = (from, key, n) => { let s = from; for (let i = 0; i < n; i++) s = store.keyedScale(s, key, 1e-9, 1e3); return s; };
  assert.equal(walk(1, 'ArrowRight', 3), 10);
  assert.equal(walk(1, 'ArrowLeft', 1), 0.5);
  assert.equal(walk(1, 'ArrowDown', 3), 0.1);
  assert.equal(walk(0.3, 'ArrowUp', 1), 0.5);
  assert.equal(walk(0.3, 'ArrowDown', 1), 0.2);
  assert.equal(walk(1, 'PageDown', 3), 0.001);
  assert.equal(walk(0.5, 'PageUp', 2), 50);
  assert.equal(walk(1, 'ArrowDown', 27), 1e-9, 'from 1 to 1e-9 in 27 presses (was 180)');
  assert.equal(walk(1, 'PageUp', 9), 1e3);
  assert.equal(store.keyedScale(1, 'a', 1e-9, 1e3), null);
});
