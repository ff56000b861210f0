// Exercise 2 with the models trained here, in Chromium: Copy as NumPy on
// gpt gives the checkpoint's script (the dialog says which folder to run it
// from), which /usr/bin/python3 runs from the site's folder and which
// prints the page's numbers; the JSON and CSV downloads carry the same
// numbers; the lesson in three switches shows the native CLI's counts and
// answers for each model. Run `make native site`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, SITE, ARTIFACTS, settled, openPage, useSite } from './harness.mjs';

const { sig } = await import(`${ROOT}web/app/format.js`);
const { probability } = await import(`${ROOT}web/teach/lesson.js`);
const site = useSite({ context: {}, permissions: ['clipboard-read', 'clipboard-write'] });
const A = 'dog bites man . who bites ?';
const B = 'man bites dog . who bites ?';
const hash = (model, more = '') => `/#a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}&model=${model}${more}`;
const cli = (name, ...args) => JSON.parse(execFileSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint',
  '--checkpoint', `${SITE}/models/${name}`, '--a', A, '--b', B, '--json', ...args], { encoding: 'utf8' }));

async function downloaded(page, button) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  const chunks = [];
  for await (const chunk of await file.createReadStream()) chunks.push(chunk);
  return { name: file.suggestedFilename(), body: Buffer.concat(chunks).toString('utf8') };
}

// The lesson's table as the page shows it: {key: [tokens True, similarity, answer A, answer B]}.
const lessonRows = (page) => page.$$eval('#lesson tbody tr', (rows) => Object.fromEntries(rows.map((r) =>
  [r.dataset.key, [...r.querySelectorAll('td')].map((td) => td.textContent)])));

test('Copy as NumPy on gpt: the script, run from the site\'s folder, prints the page\'s numbers; JSON and CSV', async () => {
  const { page, done } = await openPage(site.context, site.origin, hash('gpt'));
  await page.waitForSelector('#lesson tbody tr');
  const rows = await lessonRows(page);
  await page.click('#copy-numpy');
  await page.waitForSelector('#numpy-dialog[open]');
  const note = await page.textContent('#numpy-note');
  assert.ok(await page.isHidden('#numpy-why'), 'the clipboard took it: no "did not let the page copy"');
  assert.match(note, /^Copied\. This script reads gpt’s files config\.json, model\.safetensors and vocab\.json \(this lab has them at http:\/\/127\.0\.0\.1:\d+\/models\/gpt\/\)\. Run it from the folder that holds models\/gpt\//);
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await page.inputValue('#numpy-code'));
  await page.screenshot({ path: path.join(ARTIFACTS, 'numpy-checkpoint-dialog.png') });
  await page.click('#numpy-close');

  // Run where the dialog says: from the folder that holds models/gpt/.
  const dir = path.join(ROOT, 'build', 'browser-numpy-checkpoint');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'poslab_gpt.py'), copied);
  const printed = execFileSync('/usr/bin/python3', [path.join(dir, 'poslab_gpt.py')], { cwd: SITE, encoding: 'utf8' });
  const pairs = [...printed.matchAll(/np\.allclose\(out_a\[(\d+)\], out_b\[(\d+)\]\) = (True|False)   max\|diff\| (\S+)   cosine distance (\S+)$/gm)];
  const similarity = Number(printed.match(/^cosine similarity of the mean last hidden state: (\S+)$/m)[1]);
  const answers = ['A', 'B'].map((n) => printed.match(new RegExp(`^answer ${n}: (\\S+) \\(probability (\\S+)\\)$`, 'm')));
  // the page's lesson row for the settings shown (positions on, mask on)
  const [trueCount, pageSimilarity, answerA, answerB] = rows.both;
  assert.equal(`${pairs.filter((m) => m[3] === 'True').length} of ${pairs.length}`, trueCount);
  assert.equal(sig(similarity), pageSimilarity);
  assert.equal(`${answers[0][1]} ${probability(Number(answers[0][2]))} ✓`, answerA);
  assert.equal(`${answers[1][1]} ${probability(Number(answers[1][2]))} ✓`, answerB);

  // The downloads: the numbers of the same run, at full precision.
  const jsonFile = await downloaded(page, '#download-json');
  const json = JSON.parse(jsonFile.body);
  assert.equal(json.config.model, 'checkpoint');
  assert.equal(json.config.checkpoint, 'models/gpt/', 'the JSON names the checkpoint (it said "")');
  assert.match(jsonFile.name, /-learned-1-causal-gpt-numbers\.json$/);
  // the chart's file is named for gpt too (it said "-checkpoint-chart.png")
  const png = await Promise.all([page.waitForEvent('download'), page.click('#download-png')]);
  assert.match(png[0].suggestedFilename(), /-learned-1-causal-gpt-chart\.png$/);
  assert.deepEqual(json.tokens_a.map((t) => t.id), [...printed.match(/^tokens A: +(.*)$/m)[1].matchAll(/(\d+) "/g)].map((m) => Number(m[1])));
  const close = (x, y) => Math.abs(x - y) <= 1e-12 + 1e-9 * Math.abs(y);
  pairs.forEach((m, k) => {
    const p = json.pairs.find((q) => q.index_a === Number(m[1]));
    assert.deepEqual([p.index_b, p.allclose], [Number(m[2]), m[3] === 'True']);
    assert.ok(close(Number(m[5]), p.cosine_distance), `pair ${k}: ${m[5]} vs ${p.cosine_distance}`);
  });
  assert.ok(close(similarity, json.mean_cosine_similarity));
  assert.ok(json.sweep.scales.length > 1, 'the chart\'s sweep over the table\'s magnitude');
  const csv = await downloaded(page, '#download-csv');
  assert.match(csv.name, /-learned-1-causal-gpt-numbers\.csv$/);
  const lines = csv.body.trim().split('\r\n');
  const header = lines[0].split(',');
  const output = lines.slice(1).map((l) => l.split(',')).filter((c) => c[0] === 'output' && c[3] === 'pair');
  assert.equal(output.length, json.pairs.length);
  assert.ok(output.every((c) => c[header.indexOf('model')] === 'gpt'));
  output.forEach((c, k) => assert.equal(Number(c[header.indexOf('cosine_distance')]), json.pairs[k].cosine_distance));
  await done();
});

test('the lesson in three switches shows the native CLI\'s counts and answers for gpt, nope and bag', async () => {
  const { page, done } = await openPage(site.context, site.origin, hash('gpt'));
  for (const name of ['gpt', 'nope', 'bag']) {
    await page.check(`input[name="model"][value="${name}"]`);
    await page.waitForSelector(`#lesson li[data-key="nope"] ${name === 'nope' ? 'p' : 'a'}`);
    await page.waitForFunction((n) => document.querySelector('#lesson p')?.textContent.startsWith(n), name);
    await settled(page);
    const rows = await lessonRows(page);
    const settings = { both: ['--causal=true'], mask: ['--scheme', 'none', '--causal=true'], neither: ['--scheme', 'none', '--causal=false'] };
    for (const [key, args] of Object.entries(settings)) {
      const r = cli(name, ...args);
      const paired = r.pairs.filter((p) => p.index_b !== null);
      const said = (next, want) => `${next[0].text.trim()} ${probability(next[0].probability)} ${next[0].text.trim() === want ? '✓' : '✗'}`;
      assert.deepEqual(rows[key], [`${paired.filter((p) => p.allclose).length} of ${paired.length}`, sig(r.mean_cosine_similarity),
        said(r.next_a, 'dog'), said(r.next_b, 'man')], `${name} ${key}`);
    }
    // the points hold as docs/models.md says: (a) and (b) always, (c) on nope
    const holds = await page.$$eval('#lesson li', (li) => li.map((l) => l.dataset.holds));
    assert.deepEqual(holds, ['true', 'true', name === 'nope' ? 'true' : 'null'], name);
  }
  await page.screenshot({ path: path.join(ARTIFACTS, 'lesson-bag.png'), fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  await page.locator('#lesson').screenshot({ path: path.join(ARTIFACTS, 'lesson-bag-phone.png') });
  await done();
});

// A student's own sentences, not one reordering of the other: the table
// says when no token is paired, and the first two points claim nothing
// for the switches (the words differ, whatever the order does).
test('the lesson on sentences that are not one reordering of the other: none paired, no claim for the switches', async () => {
  const own = 'zebra'; // no token of B's
  const { page, done } = await openPage(site.context, site.origin,
    `/#a=${encodeURIComponent(own)}&b=${encodeURIComponent(B)}&model=bag`);
  await page.waitForSelector('#lesson tbody tr');
  await settled(page);
  const rows = await lessonRows(page);
  const settings = { both: ['--causal=true'], mask: ['--scheme', 'none', '--causal=true'], neither: ['--scheme', 'none', '--causal=false'] };
  for (const [key, args] of Object.entries(settings)) {
    const r = JSON.parse(execFileSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/bag`,
      '--a', own, '--b', B, '--json', ...args], { encoding: 'utf8' }));
    assert.equal(r.permutation, false);
    assert.equal(r.pairs.filter((p) => p.index_b !== null).length, 0, key);
    assert.equal(rows[key][0], 'none paired', key);
    assert.equal(rows[key][1], sig(r.mean_cosine_similarity), key);
  }
  const points = await page.$$eval('#lesson li', (li) => li.map((l) => [l.dataset.holds, l.querySelector('p').textContent]));
  for (const [holds, text] of points.slice(0, 2)) {
    assert.equal(holds, 'false');
    assert.match(text, /The two sentences are not the same tokens in another order/);
    assert.doesNotMatch(text, /still tells|every token True/);
  }
  await done();
});

// A slider step rewrites the lesson in place: the row shown follows the
// magnitude (the CLI's numbers at it), the rows without positions keep the
// CLI's numbers (the magnitude scales nothing there), the links carry the
// new magnitude, and the table is the same element throughout (rebuilt,
// every step cost a layout of the whole section). A keystroke's new runs
// come after the verdicts are painted.
test('a slider step updates the lesson in place, to the CLI\'s numbers at the new magnitude; a keystroke after the paint', async () => {
  const { page, done } = await openPage(site.context, site.origin, hash('gpt'));
  await page.waitForSelector('#lesson tbody tr');
  await page.evaluate(() => { window.lessonTable = document.querySelector('#lesson table'); });
  const said = (next, want) => `${next[0].text.trim()} ${probability(next[0].probability)} ${next[0].text.trim() === want ? '✓' : '✗'}`;
  const settings = { both: ['--causal=true'], mask: ['--scheme', 'none', '--causal=true'], neither: ['--scheme', 'none', '--causal=false'] };
  for (const scale of ['0.001', '3', '0.25']) {
    await page.fill('#scale-text', scale);
    await page.press('#scale-text', 'Enter');
    await page.waitForFunction((s) => document.querySelector('#lesson tr[data-key="mask"] a')?.getAttribute('href').includes(`scale=${s}`), scale);
    await settled(page);
    const rows = await lessonRows(page);
    for (const [key, args] of Object.entries(settings)) {
      const r = cli('gpt', '--scale', scale, ...args);
      const paired = r.pairs.filter((p) => p.index_b !== null);
      assert.deepEqual(rows[key], [`${paired.filter((p) => p.allclose).length} of ${paired.length}`, sig(r.mean_cosine_similarity),
        said(r.next_a, 'dog'), said(r.next_b, 'man')], `${key} at ${scale}`);
    }
    assert.ok(await page.evaluate(() => window.lessonTable === document.querySelector('#lesson table')), `the table was rebuilt at ${scale}`);
  }
  // A keystroke: the lesson's runs for the new words wait until the
  // verdicts are painted (the section says it is busy meanwhile), then
  // show the CLI's numbers for them.
  const typed = 'cat bites man . who bites ?';
  const busyAtOnce = await page.evaluate((text) => {
    const input = document.getElementById('sentence-a');
    input.value = text;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    return document.getElementById('lesson').getAttribute('aria-busy');
  }, typed);
  assert.equal(busyAtOnce, 'true', 'the lesson\'s new runs were made with the keystroke');
  await settled(page);
  const rows = await lessonRows(page);
  for (const [key, args] of Object.entries(settings)) {
    const r = JSON.parse(execFileSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint', `${SITE}/models/gpt`,
      '--a', typed, '--b', B, '--json', '--scale', '0.25', ...args], { encoding: 'utf8' }));
    const paired = r.pairs.filter((p) => p.index_b !== null);
    assert.deepEqual(rows[key], [`${paired.filter((p) => p.allclose).length} of ${paired.length}`, sig(r.mean_cosine_similarity),
      said(r.next_a, 'cat'), said(r.next_b, 'man')], `${key} after typing`);
  }
  await done();
});

// The tour's last step shows only while GPT-2 is open: here GPT-2 from a
// course host's folder (models/gpt/ is in GPT-2's layout), linked straight
// to step 18 with its setup (positions off, the mask on).
test('with GPT-2 open the tour has an eighteenth step; its claims are the CLI\'s', async () => {
  const { page, done } = await openPage(site.context, site.origin,
    '/#model=gpt2&checkpoint=models%2Fgpt%2F&pos=0&causal=1&tour=18');
  await page.waitForSelector('#tour:not([hidden]) .tour-count:text("step 18 of 18")');
  assert.equal(await page.textContent('.tour-title'), 'GPT-2: which switch tells it the order?');
  assert.ok(await page.isHidden('.tour-setup'), 'the link shows the step as it sets it up');
  await page.click('.tour-choice >> text="Different"');
  await settled(page);
  const lines = await page.$$eval('.tour-lines p', (ps) => ps.map((p) => p.textContent));
  const run = (...args) => JSON.parse(execFileSync(`${ROOT}build/native/poslab`, ['--model', 'checkpoint', '--checkpoint',
    `${SITE}/models/gpt`, '--a', 'dog bites man', '--b', 'man bites dog', '--json', '--scheme', 'none', ...args], { encoding: 'utf8' }));
  const masked = run('--causal=true');
  const man = masked.pairs.find((p) => p.word.trim() === 'man');
  assert.ok(lines[0].startsWith(`np.allclose(out_a[${man.index_a}], out_b[${man.index_b}]) says ${man.allclose ? 'True' : 'False'}`), lines[0]);
  assert.equal(lines[1], `The cosine similarity of the mean last hidden state is ${sig(masked.mean_cosine_similarity)}.`);
  const open = run('--causal=false').pairs.filter((p) => p.index_b !== null);
  assert.ok(lines[2].startsWith(`With the mask off too: ${open.filter((p) => p.allclose).length} of ${open.length} words say True`), lines[2]);
  assert.equal(await page.textContent('.tour-next'), 'Finish');
  await done();
});
