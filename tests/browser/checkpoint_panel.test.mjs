// The models trained here in the page (web/views/checkpoint_panel.js):
// picking gpt reads its folder from the site and shows its tokens, verdicts,
// answer and exercise 2's figure, equal to the core's; bag, which opens with
// positions and mask off as it was trained, is True for every token and
// answers both sentences alike. Run `make site` (it copies models/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ROOT, SITE, openPage, useSite } from './harness.mjs';

const { sig } = await import(`${ROOT}web/app/format.js`);
const site = useSite();

const A = 'dog bites man . who bites ?';
const B = 'man bites dog . who bites ?';
const cli = (name, ...args) => {
  const done = spawnSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/${name}`,
    '--a', A, '--b', B, '--json', ...args], { encoding: 'utf8' });
  assert.equal(done.status, 0, done.stderr);
  return JSON.parse(done.stdout);
};
const panel = (page) => page.$$eval('#checkpoint li, #checkpoint p', (els) => els.map((e) => e.textContent));

test('gpt, then bag with positions and mask off: the core\'s verdicts, answers and figure', async () => {
  const context = await site.browser.newContext();
  const { page, done, problems } = await openPage(context, site.origin, `/#a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}`);
  // The wrapper asks (HEAD) whether a folder has a sharded index; the
  // browser logs the answer "no" (404) as an error. Those, and only those,
  // are expected: one per model read.
  const notFound = [];
  page.on('response', (r) => { if (r.status() === 404) notFound.push(`${r.request().method()} ${new URL(r.url()).pathname}`); });
  await page.check('input[name="model"][value="gpt"]');
  await page.waitForSelector('#checkpoint .ck-figure');
  const gpt = cli('gpt');
  let lines = await panel(page);
  assert.ok(lines.includes(`cosine similarity of the mean last hidden state: ${sig(gpt.mean_cosine_similarity)}`), lines.join('\n'));
  assert.ok(lines.includes(`answer after A: ${gpt.next_a[0].text.trim()} (probability ${sig(gpt.next_a[0].probability)})`), lines.join('\n'));
  assert.equal(lines.filter((l) => /: False, cosine/.test(l)).length, gpt.pairs.filter((p) => !p.allclose).length);
  assert.match(page.url(), /model=gpt/);

  await page.check('input[name="model"][value="bag"]');
  await page.waitForSelector('#checkpoint h2:text("Model bag")');
  assert.match(page.url(), /pos=0&.*causal=0&.*model=bag/);
  const bag = cli('bag', '--scheme', 'none', '--causal=false');
  lines = await panel(page);
  const verdicts = lines.filter((l) => /\(A \d+, B \d+\): (True|False)/.test(l));
  assert.equal(verdicts.length, bag.pairs.length);
  assert.ok(verdicts.every((l) => /: True,/.test(l)), verdicts.join('\n'));
  const answers = lines.filter((l) => l.startsWith('answer after'));
  assert.equal(answers.length, 2);
  assert.equal(answers[0].replace('after A', ''), answers[1].replace('after B', ''), 'the same answer for both sentences');
  assert.ok(lines.includes(`cosine similarity of the mean last hidden state: ${sig(bag.mean_cosine_similarity)}`), lines.join('\n'));

  // back to the head: the checkpoint's panel goes, the head's verdicts are back
  await page.check('input[name="model"][value="head"]');
  await page.waitForSelector('#checkpoint', { state: 'hidden' });
  assert.deepEqual(notFound, [], 'no request for a file the model does not have');
  assert.deepEqual(problems.splice(0, problems.length), []);
  await done();
  await context.close();
});
