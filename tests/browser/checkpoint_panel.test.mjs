// The models trained here in the page, through the page's one path: the
// verdict cards, the verdict table, the result bar, the chart's curves and
// its thresholds show gpt, nope and bag exactly as the native CLI computes
// them (to docs/experiment.md's tolerance), as trained and with positions
// and mask switched; bag with both off is True for every token and answers
// both sentences alike; the checkpoint's own section shows its tokens,
// exercise 2's figure and its answers. Run `make site` and `make native`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { ROOT, SITE, openPage, settled, useSite, verdictColumn } from './harness.mjs';
import { near } from '../near.mjs';

const { sig } = await import(`${ROOT}web/app/format.js`);
const { SWEEP, thresholdSearch, thresholdRange } = await import(`${ROOT}web/app/sweep.js`);
const { rightAnswer, QUESTIONS, probability } = await import(`${ROOT}web/teach/lesson.js`);
const { figureText } = await import(`${ROOT}web/views/verdicts.js`).catch(() => ({}));
const site = useSite();

const A = 'dog bites man . who bites ?';
const B = 'man bites dog . who bites ?';
// The CLI's JSON for model `name` with the page's switches, with the chart's sweep.
const cli = (name, { positions, causal }) => {
  const done = spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/${name}`,
    '--a', A, '--b', B, '--scheme', positions ? 'learned' : 'none', `--causal=${causal}`,
    '--sweep', `${SWEEP.lo}:${SWEEP.hi}:${SWEEP.count}`, '--json'], { encoding: 'utf8' });
  assert.equal(done.status, 0, done.stderr);
  return JSON.parse(done.stdout);
};
// A figure as the page writes it for the CLI's value: the same digits, or,
// at rounding level, rounding (whose digits are each build's own: the
// WebAssembly and native builds round differently at 1e-16).
const sameFigure = (text, value) => (Math.abs(value) < 1e-12 ? text === '≈ 0' || Math.abs(Number(text)) < 1e-12
  : text === figure(value));
const close = (got, want, what) => assert.ok(near(got, want), `${what}: page ${got}, CLI ${want}`);
const TF = (v) => (v ? 'True' : 'False');
// the verdicts module needs a DOM only to draw, but its figureText is plain
const figure = figureText ?? ((v) => (v < 0 && v > -1e-12 ? '≈ 0' : sig(v)));

// What the page shows now: its numbers as its JSON download gives them
// (the CLI's JSON for the state, and the thresholds the page states), the
// state its controls show, the chart's two curves as Chart.js holds them,
// and the texts.
async function seen(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const json = JSON.parse(await readFile(await download.path(), 'utf8'));
  const { thresholds, ...result } = json;
  return { result, thresholds: thresholds.map((t) => t.threshold), ...await shownNow(page) };
}
const shownNow = (page) => page.evaluate(() => {
  const chart = window.Chart.getChart(document.getElementById('chart'));
  const [word, mean] = chart.data.datasets;
  const text = (sel) => document.querySelector(sel)?.textContent ?? null;
  const $ = (id) => document.getElementById(id);
  return {
    lab: { model: document.querySelector('input[name="model"]:checked').value, positions: $('positions').checked,
      causal: $('causal').checked, word: Number($('plot-word').value), scale: Number($('scale-text').value) },
    curves: { word: word.data.map((p) => [p.x, p.value]), mean: mean.data.map((p) => [p.x, p.value]) },
    card: text('#card-word .card-text'),
    meanCard: text('#card-mean .card-text'),
    bar: [text('#rb-word .rb-cos'), text('#rb-mean .rb-cos'), text('#rb-word .rb-verdict .text')],
    caption: text('.chart-caption'),
    cosines: [...document.querySelectorAll('#verdict-rows tr .cosine .num')].map((c) => c.textContent),
    words: [...document.querySelectorAll('#plot-word option')].map((o) => o.textContent),
    ck: [...document.querySelectorAll('#checkpoint .ck-row, #checkpoint .ck-figure')].map((e) => e.textContent),
    scheme: text('.ck-scheme .choice-name'),
    offered: [...document.querySelectorAll('#scheme-choices .choice')].filter((c) => !c.hidden && c.offsetParent).map((c) => c.textContent),
  };
});

// lab.threshold on a lab of the test's own (the wrapper, the same checkpoint
// folder), searched where the model searches from the chart's sweep.
const ownThresholds = (page, name, config, searches) => page.evaluate(async ({ name, config, searches }) => {
  const { createLab } = await import('./poslab.js');
  const lab = await createLab();
  const ck = await lab.openCheckpoint({ url: `models/${name}/` });
  try {
    return searches.map(([pair, range]) => (range ? lab.threshold({ ...config, model: 'checkpoint' }, pair, range) : null));
  } finally {
    ck.dispose();
    lab.dispose();
  }
}, { name, config, searches });

// Every number the page shows for model `name` with these switches is the CLI's.
async function matchesCli(page, name, switches) {
  const want = cli(name, switches);
  const got = await seen(page);
  const { result, lab, thresholds } = got;
  assert.equal(lab.model, name);
  assert.deepEqual([lab.positions, lab.causal], [switches.positions, switches.causal]);
  assert.equal(result.config.scheme, switches.positions ? 'learned' : 'none', 'the page runs the scheme its switch says');
  assert.deepEqual(result.tokens_a, want.tokens_a);
  assert.deepEqual(result.tokens_b, want.tokens_b);
  assert.equal(result.pairs.length, want.pairs.length);
  result.pairs.forEach((p, i) => {
    const w = want.pairs[i];
    assert.equal(p.allclose, w.allclose, `pair ${i} ${p.word}`);
    close(p.cosine_distance, w.cosine_distance, `pair ${i} cosine distance`);
    close(p.max_abs_diff, w.max_abs_diff, `pair ${i} max |diff|`);
  });
  assert.equal(result.mean.allclose, want.mean.allclose);
  close(result.mean.cosine_distance, want.mean.cosine_distance, 'mean cosine distance');
  close(result.mean_cosine_similarity, want.mean_cosine_similarity, 'cosine similarity of the mean last hidden state');
  close(result.next_a[0].probability, want.next_a[0].probability, 'answer A probability');
  assert.equal(result.next_a[0].id, want.next_a[0].id);
  assert.equal(result.next_b[0].id, want.next_b[0].id);

  // the views' text: cards, table (the mean last), result bar
  const k = Math.min(lab.word, want.pairs.length - 1);
  const pair = want.pairs[k];
  // (a rounding-level difference is said as such: its digits are the build's rounding)
  const cardSays = (text, { max_abs_diff: d }) => (d < 1e-12 ? /^max \|diff\| (0: equal|\S+: rounding)/.test(text)
    : text.startsWith(`max |diff| ${sig(d)}`));
  assert.ok(cardSays(got.card, pair), `${got.card} (CLI: ${pair.max_abs_diff})`);
  assert.ok(cardSays(got.meanCard, want.mean), `${got.meanCard} (CLI: ${want.mean.max_abs_diff})`);
  const wantedCosines = [...want.pairs.map((p) => p.cosine_distance), want.mean.cosine_distance];
  assert.equal(got.cosines.length, wantedCosines.length);
  got.cosines.forEach((text, i) => assert.ok(sameFigure(text, wantedCosines[i]), `table row ${i}: ${text}, CLI ${wantedCosines[i]}`));
  assert.deepEqual(await verdictColumn(page), [...want.pairs.map((p) => TF(p.allclose)), TF(want.mean.allclose)]);
  const [barWord, barMean, barVerdict] = got.bar;
  assert.ok(sameFigure(barWord.replace('cosine distance ', ''), pair.cosine_distance), `result bar: ${barWord}`);
  assert.ok(sameFigure(barMean.replace('cosine distance ', ''), want.mean.cosine_distance), `result bar: ${barMean}`);
  assert.equal(barVerdict, TF(pair.allclose));
  // the word to follow: the checkpoint's tokens
  assert.deepEqual(got.words, want.tokens_a.map((t, i) => `${i + 1}. ${t.text}`));
  // the checkpoint's own section: tokens with ids, exercise 2's figure, the answers
  assert.ok(got.ck.includes(`A${want.tokens_a.map((t) => `${t.text.replace(/ /g, '␣')}${t.id}`).join('')}`), got.ck.join('\n'));
  assert.ok(got.ck.includes(`cosine similarity of the mean last hidden state${sig(want.mean_cosine_similarity)}`), got.ck.join('\n'));
  assert.ok(got.ck.includes(`after A${want.next_a[0].text.trim()}p ${probability(want.next_a[0].probability)}${wantedMarks(want)[0]}`), got.ck.join('\n'));

  // the chart: both curves are the CLI's sweep, point by point
  if (switches.positions) {
    const curve = (points, wanted) => {
      assert.equal(points.length, want.sweep.scales.length);
      points.forEach(([x, v], t) => {
        close(x, want.sweep.scales[t], `magnitude ${t}`);
        close(v, wanted[t].cosine_distance, `cosine distance at ${want.sweep.scales[t]}`);
      });
    };
    curve(got.curves.word, want.sweep.pairs[k]);
    curve(got.curves.mean, want.sweep.mean);
    // the thresholds the chart states are lab.threshold's, searched where the model searches
    const searches = [[k, want.sweep.pairs[k]], [-1, want.sweep.mean]].map(([p, points]) =>
      [p, points.length ? thresholdSearch(points, want.sweep.scales, thresholdRange({ max_scale: 1e6 })) : null]);
    assert.ok(thresholds.every((t) => typeof t === 'number'), `the page states both thresholds: ${JSON.stringify(thresholds)}`);
    const own = await ownThresholds(page, name, { sentence_a: A, sentence_b: B, scheme: 'learned', causal: switches.causal }, searches);
    assert.deepEqual(thresholds, own, 'the chart\'s thresholds are lab.threshold\'s');
    // and the chart says them
    assert.ok(got.caption.includes(`np.allclose says`), got.caption);
    for (const t of own) {
      if (t > 0 && t < 1e6) assert.ok(got.caption.includes(`below a magnitude of about ${sig(t, 2)}`), `${t}: ${got.caption}`);
    }
  } else {
    assert.deepEqual(thresholds, [null, null], 'no thresholds without positions');
  }
  return { want, got };
}

// The marks after a trained model's answers (views/checkpoint_panel.js),
// and those the CLI's answers to A and B call for: right, or the answer.
const marks = (page) => page.$$eval('#checkpoint .ck-mark', (m) => m.map((e) => e.textContent));
const wantedMarks = (want, [a, b] = [A, B]) => [[want.next_a, a], [want.next_b, b]].map(([next, sentence]) =>
  (next[0].text.trim() === rightAnswer(sentence) ? '✓ right' : `✗ (right: ${rightAnswer(sentence)})`));

const linkTo = (name, extra = '') => `/#model=${name}&a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}${extra}`;

test('gpt, nope and bag: cards, table, result bar, chart and thresholds are the CLI\'s, as trained and switched', async () => {
  const context = await site.browser.newContext();
  const { page, done, problems } = await openPage(context, site.origin, linkTo('gpt'));
  // no request for a file a model does not have, and no console error
  const notFound = [];
  page.on('response', (r) => { if (r.status() >= 400) notFound.push(`${r.request().method()} ${new URL(r.url()).pathname}`); });
  // gpt as trained: positions (its learned table) and the mask
  let { got } = await matchesCli(page, 'gpt', { positions: true, causal: true });
  assert.equal(got.scheme, 'Learned position table');
  assert.deepEqual(got.offered.map((t) => t.split(' the ')[0].trim()).length, 1, `one scheme offered: ${got.offered}`);
  // switched live: positions off (the mask alone), then the mask off too
  await page.click('label:has(#positions)');
  await settled(page);
  await matchesCli(page, 'gpt', { positions: false, causal: true });
  await page.click('label:has(#causal)');
  await settled(page);
  await matchesCli(page, 'gpt', { positions: false, causal: false });
  // the magnitude: the slider's text field scales the table (1 = as trained)
  await page.click('label:has(#positions)');
  await page.click('label:has(#causal)');
  await page.fill('#scale-text', '0.001');
  await settled(page);
  const scaled = await seen(page);
  assert.equal(scaled.lab.scale, 0.001);
  const at = spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`, '--a', A, '--b', B, '--scale', '0.001', '--json'],
    { encoding: 'utf8' });
  const cliScaled = JSON.parse(at.stdout);
  scaled.result.pairs.forEach((p, i) => close(p.cosine_distance, cliScaled.pairs[i].cosine_distance, `pair ${i} at 0.001`));

  // nope, chosen in the page: opens as trained (no positions, the mask)
  await page.check('input[name="model"][value="nope"]');
  await settled(page);
  ({ got } = await matchesCli(page, 'nope', { positions: false, causal: true }));
  assert.equal(got.scheme, 'No position table');
  assert.ok(got.result.pairs.some((p) => !p.allclose), 'the mask alone tells nope the order');

  // bag: positions and mask off as trained; every token True, one answer for both
  await page.check('input[name="model"][value="bag"]');
  await settled(page);
  const bag = await matchesCli(page, 'bag', { positions: false, causal: false });
  got = bag.got;
  assert.ok(got.result.pairs.every((p) => p.allclose === true), 'every token True');
  assert.deepEqual(await verdictColumn(page), got.result.pairs.map(() => 'True').concat('True'));
  const answers = got.ck.filter((l) => l.startsWith('after')).map((l) => l.replace(/ ?[✓✗].*$/, ''));
  assert.equal(answers.length, 2);
  assert.equal(answers[0].replace('after A', ''), answers[1].replace('after B', ''), 'the same answer for both sentences');
  // ... so one of the two is wrong, and the panel says which
  assert.deepEqual(await marks(page), wantedMarks(bag.want));
  assert.equal(new Set(await marks(page)).size, 2, 'one right, one wrong');
  // bag with the mask on (as it was not trained) is the CLI's too
  await page.click('label:has(#causal)');
  await settled(page);
  await matchesCli(page, 'bag', { positions: false, causal: true });

  // back to the head: the checkpoint's section and scheme go, the head's schemes are back
  await page.check('input[name="model"][value="head"]');
  await settled(page);
  assert.equal(await page.isHidden('#checkpoint'), true);
  assert.equal(await page.isHidden('.ck-scheme'), true);
  assert.ok((await seen(page)).offered.length >= 4, 'the head\'s schemes');
  assert.deepEqual(notFound, []);
  assert.deepEqual(problems.splice(0), []);
  await done();
  await context.close();
});

test('the leading-space switch changes the tokens as the CLI\'s --prefix-space does', async () => {
  const context = await site.browser.newContext();
  const { page, done, problems } = await openPage(context, site.origin, linkTo('gpt'));
  const hint = await page.textContent('#space-hint');
  const ids = (spaced) => JSON.parse(spawnSync(`${ROOT}build/native/poslab`, ['--checkpoint', `${SITE}/models/gpt`, '--tokenize',
    '--a', 'dog', `--prefix-space=${spaced}`, '--json'], { encoding: 'utf8' }).stdout).tokens.map((t) => t.id).join(' ');
  assert.ok(hint.includes(`“ dog” is ${ids(true)}, “dog” is ${ids(false)}`), hint);
  await page.click('label:has(#space)');
  await settled(page);
  assert.match(page.url(), /space=0/);
  const { result } = await seen(page);
  const done2 = spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`, '--a', A, '--b', B, '--prefix-space=false', '--json'],
    { encoding: 'utf8' });
  const want = JSON.parse(done2.stdout);
  assert.deepEqual(result.tokens_a, want.tokens_a);
  assert.notEqual(result.tokens_a[0].id, 350, 'the first word is another token without its space');
  assert.deepEqual(result.pairs.map((p) => p.index_b), want.pairs.map((p) => p.index_b));
  result.pairs.forEach((p, i) => p.index_b !== null && close(p.cosine_distance, want.pairs[i].cosine_distance, `pair ${i} without the space`));
  await done();
  await context.close();
});

// A model trained here answers a question of its world after a statement
// (docs/models.md); after a sentence that asks none its next token is no
// answer, and the panel says so instead of calling it one, with a link to
// the module's two questions (carrying the page's magnitude), where the
// answers are marked right or wrong by the CLI's answers.
test('a trained model after sentences that ask nothing: its next token, not an answer; the link asks', async () => {
  const context = await site.browser.newContext();
  const { page, done, problems } = await openPage(context, site.origin, '/#model=gpt&a=dog+bites+man&b=man+bites+dog');
  await settled(page);
  assert.equal(await page.textContent('#checkpoint .ck-says-head'), 'Its next token (these sentences ask it nothing)');
  assert.deepEqual(await marks(page), []);
  assert.match(await page.textContent('#checkpoint .ck-ask'), /^gpt was trained to answer a question after a statement: “dog bites man \. who bites \?” asks for dog\./);
  await page.fill('#scale-text', '0.5');
  await settled(page);
  const href = new URLSearchParams((await page.getAttribute('#checkpoint .ck-ask a', 'href')).slice(1));
  assert.deepEqual([href.get('a'), href.get('b'), href.get('scale'), href.get('model')], [QUESTIONS.a, QUESTIONS.b, '0.5', 'gpt']);
  await page.click('#checkpoint .ck-ask a');
  await settled(page);
  assert.equal(await page.inputValue('#sentence-a'), QUESTIONS.a);
  assert.equal(await page.textContent('#checkpoint .ck-says-head'), 'Its answer (the most likely next token)');
  assert.equal(await page.isVisible('#checkpoint .ck-ask'), false);
  const done1 = spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`,
    '--a', A, '--b', B, '--scale', '0.5', '--json'], { encoding: 'utf8' });
  assert.deepEqual(await marks(page), wantedMarks(JSON.parse(done1.stdout)));
  // the student's own statements of its world give the questions
  await page.fill('#sentence-a', 'cat chases dog');
  await page.fill('#sentence-b', 'dog chases cat.');
  await settled(page);
  const own = ['cat chases dog . who chases ?', 'dog chases cat . who chases ?'];
  assert.match(await page.textContent('#checkpoint .ck-ask'), /“cat chases dog \. who chases \?” asks for cat\./);
  assert.equal(await page.textContent('#lesson p a'), `Ask gpt “${own[0]}” and “${own[1]}”`);
  await page.click('#checkpoint .ck-ask a');
  await settled(page);
  assert.deepEqual([await page.inputValue('#sentence-a'), await page.inputValue('#sentence-b')], own);
  const cli = spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`,
    '--a', own[0], '--b', own[1], '--scale', '0.5', '--json'], { encoding: 'utf8' });
  assert.deepEqual(await marks(page), wantedMarks(JSON.parse(cli.stdout), own));
  assert.deepEqual(problems, []);
  await done();
  await context.close();
});

// A model's positions are known only once it is read: a link (or a switch
// of model) can ask a model trained here for settings it refuses, which
// typing would have refused in the field. The page says the core's line
// where a model's reading is said, with no failure of the lab and no
// console error; the figures are the last model's, said so; a valid offset
// then runs.
test('a link putting a sentence past gpt\'s 16 positions: the core\'s line in the status, then a valid offset runs', async () => {
  const refused = (args) => spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`,
    ...args], { encoding: 'utf8' }).stderr.trim().replace(/^poslab: --/, '');
  const status = (page) => page.evaluate(() => {
    const s = document.getElementById('stale-note');
    return { text: s.textContent, shown: !s.hidden && getComputedStyle(s).visibility === 'visible',
      failure: document.getElementById('startup').classList.contains('failed') && !document.getElementById('startup').hidden };
  });
  const context = await site.browser.newContext();
  const { page, done, problems } = await openPage(context, site.origin, '/#model=gpt&oa=14');
  await settled(page);
  assert.deepEqual(await status(page), { text: `gpt cannot run these settings: ${refused(['--offset-a', '14'])}`, shown: true, failure: false });
  await page.fill('#offset-a', '0');
  await settled(page);
  assert.equal((await status(page)).shown, false);
  assert.equal(await page.textContent('#checkpoint .ck-size').then((t) => t.startsWith('gpt:')), true);
  // from the one head, with B starting at 15: the head's figures stay, said so
  await page.check('input[name="model"][value="head"]');
  await page.fill('#offset-b', '15');
  await settled(page);
  await page.check('input[name="model"][value="gpt"]');
  await settled(page);
  assert.deepEqual(await status(page), { text: `gpt cannot run these settings: ${refused(['--offset-b', '15'])}; ` +
    'the figures shown are still those of the one attention head', shown: true, failure: false });
  await page.fill('#offset-b', '2');
  await settled(page);
  assert.equal((await status(page)).shown, false);
  const want = JSON.parse(spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`,
    '--offset-b', '2', '--json'], { encoding: 'utf8' }).stdout);
  assert.deepEqual(await verdictColumn(page), [...want.pairs.map((p) => (p.allclose ? 'True' : 'False')), want.mean.allclose ? 'True' : 'False']);
  assert.deepEqual(problems, []);
  await done();
  await context.close();
});

// An emoji is several tokens of its bytes, and GPT-2's tokenizer gives the
// space before it a token of its own: a token that is only a space would be
// a blank name. The table, the card, the result bar and the word picker
// name it ␣, as the tokens' chips do; the download keeps the core's " ".
test('a token that is only a space is named ␣, not left blank', async () => {
  const a = '\u{1F415} bites \u{1F468}', b = '\u{1F468} bites \u{1F415}';
  const done1 = spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`,
    '--a', a, '--b', b, '--json'], { encoding: 'utf8' });
  const want = JSON.parse(done1.stdout);
  assert.equal(want.pairs[0].word, ' ', 'the CLI\'s first token is the space alone');
  const context = await site.browser.newContext();
  const { page, done } = await openPage(context, site.origin,
    `/#a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}&model=gpt&word=0`);
  await settled(page);
  assert.equal(await page.textContent('#verdict-rows tr:first-child th .w'), '\u2423');
  assert.equal(await page.textContent('#card-word .card-word'), '“\u2423”');
  assert.match(await page.textContent('#plot-word option[value="0"]'), /^1\. \u2423$/);
  const { result } = await seen(page);
  assert.equal(result.pairs[0].word, ' ');
  // the emoji's bytes, in tokens of their own, show as the core decodes them (U+FFFD), and the chip says why
  const chips = await page.$$eval('#checkpoint .ck-row:first-of-type .ck-token', (cs) => cs.map((c) => [c.firstChild.textContent, c.title]));
  const split = chips.filter(([text]) => text.includes('\uFFFD'));
  assert.ok(split.length >= 2, JSON.stringify(chips));
  for (const [, title] of split) assert.match(title, /� stands for bytes of a character split across tokens$/);
  for (const [, title] of chips.filter(([text]) => !text.includes('\uFFFD'))) assert.doesNotMatch(title, /�/);
  await done();
  await context.close();
});

test('a word gpt reads in pieces is named once in the notes, with its count of tokens', async () => {
  const a = 'dog bites zebra', b = 'man bites dog';
  const cli = JSON.parse(spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`,
    '--a', a, '--b', b, '--json'], { encoding: 'utf8' }).stdout);
  const unpaired = cli.pairs.filter((p) => p.index_b === null);
  assert.equal(unpaired.map((p) => p.word).join(''), ' zebra', 'the CLI gives " zebra" in pieces');
  const context = await site.browser.newContext();
  const { page, done } = await openPage(context, site.origin, `/#a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}&model=gpt`);
  await settled(page);
  assert.deepEqual(await page.$$eval('#notes li', (l) => l.map((x) => x.textContent)), [
    'Sentence B is not a reordering of sentence A, so only the words they share are compared.',
    `No partner in B: “zebra” (${unpaired.length} tokens).`,
    'No partner in A: “ man”.',
  ]);
  await done();
  await context.close();
});

test('a question outside the models\' world gets no mark, and the panel says why', async () => {
  const context = await site.browser.newContext();
  for (const [a, b] of [['dog eats man . who eats ?', 'man eats dog . who eats ?'],
    ['dog bites man . who is seen ?', 'man bites dog . who is seen ?']]) {
    const { page, done } = await openPage(context, site.origin, `/#a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}&model=gpt`);
    await settled(page);
    assert.equal(await page.textContent('#checkpoint .ck-says-head'), 'Its next token (not a question it was trained on)');
    assert.equal(await page.$$eval('#checkpoint .ck-mark', (m) => m.length), 0, `${a}: no ✓ or ✗`);
    assert.match(await page.textContent('#checkpoint .ck-ask'), /8 verbs \(bites, chases, sees, helps, pushes, thanks, kicks, follows\)/);
    await done();
  }
  await context.close();
});

test('typing a word gpt reads in pieces keeps the chart on the last token, not on a piece', async () => {
  const context = await site.browser.newContext();
  const { page, done } = await openPage(context, site.origin, '/#model=gpt');
  await settled(page);
  assert.equal(await page.inputValue('#plot-word'), '2', 'the last of “dog bites man”');
  await page.fill('#sentence-a', 'zebra bites man');
  await settled(page);
  const cli = JSON.parse(spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`,
    '--a', 'zebra bites man', '--json'], { encoding: 'utf8' }).stdout);
  assert.equal(cli.pairs.length, 8);
  assert.equal(await page.inputValue('#plot-word'), String(cli.pairs.length - 1));
  assert.equal(await page.textContent('#card-word .card-word'), `“${cli.pairs.at(-1).word}”`);
  // a token in the middle stays where it is
  await page.selectOption('#plot-word', '1');
  await page.fill('#sentence-a', 'zebra bites woman');
  await settled(page);
  assert.equal(await page.inputValue('#plot-word'), '1');
  await done();
  // A link that names no word, and the one head's last word taken to gpt,
  // follow the last token too, once gpt's tokenizer has counted them.
  const last = String(cli.pairs.length - 1);
  const linked = await openPage(context, site.origin, '/#model=gpt&a=zebra+bites+man&b=man+bites+dog');
  await settled(linked.page);
  assert.equal(await linked.page.inputValue('#plot-word'), last);
  assert.match(linked.page.url(), new RegExp(`&word=${last}&`));
  await linked.done();
  const chosen = await openPage(context, site.origin, '/#a=zebra+bites+man&b=man+bites+dog');
  await settled(chosen.page);
  assert.equal(await chosen.page.inputValue('#plot-word'), '2');
  await chosen.page.check('input[name="model"][value="gpt"]');
  await settled(chosen.page);
  await chosen.page.waitForFunction((want) => document.getElementById('plot-word').value === want, last);
  assert.equal(await chosen.page.textContent('#card-word .card-word'), `“${cli.pairs.at(-1).word}”`);
  await chosen.done();
  await context.close();
});
