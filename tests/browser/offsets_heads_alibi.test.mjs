// Where a sentence starts, several heads and ALiBi on the page, in headless
// Chromium: the shift test and the ALiBi reversal (example pairs and tour
// steps) against the core's verdicts, the new fields in the URL, the head
// picker on the heatmaps, bad input beside its field and in a link, and
// Copy as NumPy run with /usr/bin/python3. Expected numbers come from the
// core (build/site/poslab.js under Node) or from NumPy, never from copies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

import { ROOT, SITE, settled, openPage, useSite } from './harness.mjs';

const { createLab } = await import(`${SITE}/poslab.js`);
const { numpyScript } = await import(`${ROOT}web/teach/numpy_script.js`);
const { sig } = await import(`${ROOT}web/app/format.js`);
const { SCHEME_LABELS } = await import(`${ROOT}web/teach/schemes.js`);
const lab = await createLab();
const heads = lab.options.options.find((o) => o.name === 'heads');

const site = useSite({ context: {}, permissions: ['clipboard-read', 'clipboard-write'] });

const open = (url, options) => openPage(site.context, site.origin, url, options);

// The verdict table as a student reads it, the mean last.
const table = (page) => page.$$eval('#verdict-rows tr', (rows) => rows.map((r) => ({
  word: r.querySelector('.w').textContent,
  allclose: r.querySelector('.verdict .text').textContent,
  maxDiff: r.querySelector('.maxdiff .num').textContent,
  rounding: r.querySelector('.maxdiff .tag').textContent !== '',
})));

// The config the page computes with, read back from its own URL by the core.
function pageConfig(page) {
  const p = new URLSearchParams(new URL(page.url()).hash.slice(1));
  return lab.run({
    sentence_a: p.get('a'), sentence_b: p.get('b'), offset_a: p.get('oa'), offset_b: p.get('ob'),
    dim: p.get('dim'), heads: p.get('heads'), seed: p.get('seed'),
    scheme: p.get('pos') === '1' ? p.get('scheme') : 'none', scale: p.get('scale'),
    causal: p.get('causal') === '1', rtol: p.get('rtol'), atol: p.get('atol'),
  }).config;
}

// The table the page should show for its URL: the core's verdicts and max |diff|.
async function coreTable(page) {
  const r = lab.run(pageConfig(page));
  const TF = (v) => (v ? 'True' : 'False');
  return [...r.pairs.map((p) => ({ word: p.word, allclose: p.index_b === null ? 'n/a' : TF(p.allclose), maxDiff: sig(p.max_abs_diff) })),
    { word: 'sentence mean', allclose: TF(r.mean.allclose), maxDiff: sig(r.mean.max_abs_diff) }];
}

async function agreesWithCore(page) {
  const shown = (await table(page)).map(({ word, allclose, maxDiff }) => ({ word, allclose, maxDiff }));
  assert.deepEqual(shown, await coreTable(page));
  return shown;
}

async function pickScheme(page, scheme) {
  await page.check(`input[name="scheme"][value="${scheme}"]`);
  await settled(page);
}

const RELATIVE = new Set(['rope', 'alibi']);

test('the shift test example: RoPE and ALiBi see no shift, the stand-in and sinusoidal do', async () => {
  const { page, done } = await open('/');
  await page.selectOption('#presets', { label: 'Shift test: one sentence, B starting 5 positions later' });
  await settled(page);
  assert.equal(await page.inputValue('#sentence-a'), 'the cat chased the mouse');
  assert.equal(await page.inputValue('#sentence-b'), 'the cat chased the mouse');
  assert.deepEqual([await page.inputValue('#offset-a'), await page.inputValue('#offset-b'), await page.inputValue('#dim')], ['0', '5', '16']);
  assert.equal(await page.isChecked('#positions'), true);
  assert.match(page.url(), /&oa=0&ob=5&/);
  for (const scheme of Object.keys(SCHEME_LABELS)) {
    await pickScheme(page, scheme);
    const rows = await agreesWithCore(page);
    const want = RELATIVE.has(scheme) ? 'True' : 'False';
    assert.deepEqual(rows.map((r) => r.allclose), Array(rows.length).fill(want), scheme);
    const story = await page.textContent('#story');
    if (RELATIVE.has(scheme)) {
      assert.match(story, /B is the same sentence, starting 5 positions later\./, story);
      assert.match(story, new RegExp(`${SCHEME_LABELS[scheme]} sees only how far apart two words stand`), story);
    } else {
      assert.match(story, /moving the whole sentence changes every input\. RoPE and ALiBi see only distances/, story);
    }
  }
  await done();
});

test('the ALiBi reversal examples: a reversal is invisible to ALiBi, a swap is not', async () => {
  const { page, done } = await open('/');
  await page.selectOption('#presets', { label: 'ALiBi, no mask, a reversal: dog bites man / man bites dog' });
  await settled(page);
  assert.equal(await page.isChecked('input[name="scheme"][value="alibi"]'), true);
  // three heads with the paper's slopes for three, at magnitude 16 (teach/presets.js says why)
  assert.deepEqual([await page.inputValue('#scale-text'), await page.inputValue('#dim'), await page.inputValue('#heads')], ['16', '12', '3']);
  const rows = await agreesWithCore(page);
  assert.ok(rows.every((r) => r.allclose === 'True'), JSON.stringify(rows));
  const story = await page.textContent('#story');
  assert.match(story, /yet B is A read backwards\. ALiBi sees only how far apart two words stand, not which one comes first/);
  // however strong: a thousand times the magnitude changes nothing
  await page.fill('#scale-text', '1000');
  await settled(page);
  assert.ok((await agreesWithCore(page)).every((r) => r.allclose === 'True'));
  // RoPE sees which word comes first
  await pickScheme(page, 'rope');
  assert.ok((await agreesWithCore(page)).some((r) => r.allclose === 'False'));
  // the causal mask sees it too, even under ALiBi
  await pickScheme(page, 'alibi');
  await page.check('#causal');
  await settled(page);
  assert.ok((await agreesWithCore(page)).some((r) => r.allclose === 'False'));
  assert.match(await page.textContent('#story'), /while the causal mask sees which word comes first/);

  await page.selectOption('#presets', { label: 'ALiBi, no mask, not a reversal: the cat chased the mouse / the mouse chased the cat' });
  await settled(page);
  assert.equal(await page.inputValue('#dim'), '12');
  assert.equal(await page.isChecked('#causal'), false, 'the example turns the mask off');
  assert.equal(await page.inputValue('#plot-word'), '2', 'it follows “chased”');
  const swap = await agreesWithCore(page);
  assert.ok(swap.every((r) => r.allclose === 'False'), JSON.stringify(swap));
  assert.match(await page.textContent('#story'), /some pairs of words stand at other distances in B than in A/);
  await done();
});

// The tour panel's text.
const tourText = (page) => page.$eval('#tour', (t) => ({
  count: t.querySelector('.tour-count').textContent,
  title: t.querySelector('.tour-title').textContent,
  question: t.querySelector('.tour-question').textContent,
  outcome: t.querySelector('.tour-outcome').textContent,
  lines: [...t.querySelectorAll('.tour-lines p')].map((p) => p.textContent),
}));

// Paired words that say True, and how many are paired, from a core result.
const tally = (r) => {
  const paired = r.pairs.filter((p) => p.index_b !== null);
  return { same: paired.filter((p) => p.allclose).length, paired: paired.length };
};

test('tour steps 8 and 9: the shift test and the ALiBi mirror, every count the core\'s', async () => {
  const { page, done } = await open('/#tour=8');
  let t = await tourText(page);
  const steps = Number(t.count.match(/of (\d+)$/)[1]);
  assert.equal(t.count, `Guided tour · step 8 of ${steps}`);
  assert.equal(t.title, 'The shift test: where the sentence starts');
  assert.deepEqual([await page.inputValue('#offset-a'), await page.inputValue('#offset-b')], ['0', '5']);
  assert.equal(await page.isChecked('input[name="scheme"][value="rope"]'), true);
  await page.click('.tour-choice >> text="Some differ"');
  await settled(page);
  t = await tourText(page);
  const shown = await agreesWithCore(page);
  const trues = shown.slice(0, -1).filter((r) => r.allclose === 'True').length;
  assert.equal(t.lines[0], `With RoPE: ${trues} of ${shown.length - 1} words say True, and the sentence mean says ${shown.at(-1).allclose}.`);
  assert.equal(t.outcome, `You chose “Some differ”: ${trues === shown.length - 1 ? 'not this time' : 'right'}.`);
  const config = pageConfig(page);
  for (const scheme of Object.keys(SCHEME_LABELS)) {
    const { same, paired } = tally(lab.run({ ...config, scheme, scale: lab.options.schemes.find((s) => s.name === scheme).default_scale }));
    assert.ok(t.lines[1].includes(`${SCHEME_LABELS[scheme]} ${same} of ${paired}`), `${scheme}: ${t.lines[1]}`);
    assert.equal(same === paired, RELATIVE.has(scheme), scheme);
  }

  await page.click('.tour-next');
  await settled(page);
  t = await tourText(page);
  assert.equal(t.count, `Guided tour · step 9 of ${steps}`);
  assert.equal(t.question, '“man bites dog” is “dog bites man” read backwards. With ALiBi, will every word come out identical?');
  assert.deepEqual([await page.inputValue('#offset-b'), await page.inputValue('#dim'), await page.inputValue('#scale-text')], ['0', '12', '16']);
  await page.click('.tour-choice >> text="All identical"');
  await settled(page);
  t = await tourText(page);
  const mirror = await agreesWithCore(page);
  assert.ok(mirror.every((r) => r.allclose === 'True'));
  assert.equal(t.outcome, 'You chose “All identical”: right.');
  assert.match(t.lines[1], /“dog” and “man” stand 2 apart in A and 2 apart in B/);
  const swap = lab.run({ sentence_a: 'the cat chased the mouse', sentence_b: 'the mouse chased the cat', dim: 12, heads: 3, scale: 16, scheme: 'alibi' });
  assert.ok(t.lines[2].includes(`“chased” says False (cosine distance ${sig(swap.pairs[2].cosine_distance)}) and the sentence ` +
    `mean False (cosine distance ${sig(swap.mean.cosine_distance)})`), t.lines[2]);
  const rope = tally(lab.run({ ...pageConfig(page), scheme: 'rope', scale: 1 }));
  assert.ok(t.lines[3].includes(`with it, ${rope.same} of ${rope.paired} words say True`), t.lines[3]);
  assert.equal(await page.textContent('.tour-next'), 'Next'); // the transformer's steps follow
  await done();
});

// Divisors of d within the core's head limits.
const headCounts = (d) => Array.from({ length: heads.max - heads.min + 1 }, (_, k) => heads.min + k).filter((k) => d % k === 0);

test('where the sentences start and the heads: in the URL, and the same view reopens', async () => {
  const first = await open('/');
  const { page } = first;
  await page.fill('#offset-a', '3');
  await settled(page);
  await page.fill('#offset-b', '12');
  await settled(page);
  await page.check('#positions');
  await pickScheme(page, 'alibi');
  await page.click('details.advanced summary');
  assert.deepEqual(await page.$$eval('#heads option', (o) => o.map((x) => x.value)), headCounts(6).map(String));
  await page.fill('#dim', '8');
  await settled(page);
  assert.deepEqual(await page.$$eval('#heads option', (o) => o.map((x) => x.value)), headCounts(8).map(String));
  // d 16 offers the same counts as d 8: the hint still names the d now
  await page.fill('#dim', '16');
  await settled(page);
  assert.equal(await page.textContent('#heads-hint'), `d 16 splits evenly into ${headCounts(16).slice(0, -1).join(', ')} or ${headCounts(16).at(-1)} heads.`);
  await page.fill('#dim', '8');
  await settled(page);
  await page.selectOption('#heads', '4');
  await settled(page);
  assert.match(page.url(), /&oa=3&ob=12&/);
  assert.match(page.url(), /&dim=8&heads=4&/);
  const read = async (p) => ({
    oa: await p.inputValue('#offset-a'), ob: await p.inputValue('#offset-b'), dim: await p.inputValue('#dim'),
    heads: await p.inputValue('#heads'), scheme: await p.$eval('input[name="scheme"]:checked', (r) => r.value),
    rows: await table(p),
  });
  const before = await read(page);
  assert.deepEqual([before.oa, before.ob, before.heads], ['3', '12', '4']);
  assert.deepEqual(before.rows.map(({ word, allclose, maxDiff }) => ({ word, allclose, maxDiff })), await coreTable(page));
  const url = page.url();
  await first.done();
  const second = await open(url.slice(site.origin.length));
  assert.deepEqual(await read(second.page), before);
  assert.ok(await second.page.isHidden('#notice'));
  await second.done();
});

// The heatmap of `id` as shown: the numbers under the words and the shades.
const heat = (page, id) => page.$eval(`#${id}`, (t) => ({
  positions: [...t.querySelectorAll('thead th .heat-pos')].map((n) => Number(n.textContent)),
  w: [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => Number(c.style.getPropertyValue('--w')))),
}));

test('the head picker shows each head\'s weights; the heatmaps number words by position', async () => {
  const { page, done } = await open('/#a=the+cat+chased+the+mouse&b=the+mouse+chased+the+cat&oa=2&ob=7&pos=1&scheme=alibi&scale=4&dim=6&heads=3');
  await page.click('#heatmap > summary');
  await page.waitForSelector('#heat-a tbody');
  const core = lab.run({ ...pageConfig(page), full: true });
  assert.deepEqual(await page.$$eval('#heat-head option', (o) => o.map((x) => x.textContent)), ['1 of 3', '2 of 3', '3 of 3']);
  const seen = [];
  for (let h = 0; h < 3; h++) {
    await page.selectOption('#heat-head', String(h));
    const A = await heat(page, 'heat-a');
    const B = await heat(page, 'heat-b');
    assert.deepEqual(A.w, core.attention_heads_a[h], `head ${h + 1}, sentence A`);
    assert.deepEqual(B.w, core.attention_heads_b[h], `head ${h + 1}, sentence B`);
    assert.deepEqual(A.positions, [2, 3, 4, 5, 6]);
    assert.deepEqual(B.positions, [7, 8, 9, 10, 11]);
    seen.push(A.w);
  }
  assert.notDeepEqual(seen[0], seen[2], 'the heads differ (each has its own ALiBi slope)');
  // The picked head stays while the magnitude moves.
  await page.fill('#scale-text', '0.5');
  await settled(page);
  assert.equal(await page.inputValue('#heat-head'), '2');
  assert.deepEqual((await heat(page, 'heat-a')).w, lab.run({ ...pageConfig(page), full: true }).attention_heads_a[2]);
  // One head: nothing to pick.
  await page.click('details.advanced summary');
  await page.selectOption('#heads', '1');
  await settled(page);
  assert.ok(await page.isHidden('#heat-head'), 'nothing to pick');
  assert.equal(await page.textContent('#heat-head-note'), 'One attention head (set more under Advanced)');
  assert.deepEqual((await heat(page, 'heat-a')).w, lab.run({ ...pageConfig(page), full: true }).attention_a);
  await done();
});

// The core's message for a config, without the field name the page shows beside it.
function coreMessage(config, field) {
  try {
    lab.run(config);
  } catch (e) {
    return e.message.startsWith(`${field}: `) ? e.message.slice(field.length + 2) : e.message;
  }
  throw new Error(`the core accepted ${JSON.stringify(config)}`);
}

test('bad offsets and a d the heads do not divide: the core\'s words beside the field, the last result kept', async () => {
  const { page, done } = await open('/#pos=1&scheme=rope&scale=1&dim=6&heads=2');
  const good = await table(page);
  const url = page.url();
  for (const [selector, field] of [['#offset-a', 'offset_a'], ['#offset-b', 'offset_b']]) {
    for (const raw of ['-1', '1025', '1.5', 'abc']) {
      await page.fill(selector, raw);
      await settled(page);
      assert.equal(await page.textContent(`${selector}-error strong`), coreMessage({ [field]: raw }, field), `${selector} ${raw}`);
      assert.equal(await page.getAttribute(selector, 'aria-invalid'), 'true');
      assert.deepEqual(await table(page), good, 'the last valid result stays');
      assert.equal(page.url(), url, 'the URL keeps the last valid state');
    }
    await page.fill(selector, '0');
    await settled(page);
    assert.ok(await page.isHidden(`${selector}-error`));
  }
  // d 5 cannot be split into 2 heads: said beside d, in the core's words, which name the heads.
  await page.click('details.advanced summary');
  await page.fill('#dim', '5');
  await settled(page);
  const said = await page.textContent('#dim-error strong');
  assert.equal(said, coreMessage({ dim: 5, heads: 2 }, 'dim'));
  assert.match(said, /^heads: "2" does not divide dim 5/);
  assert.deepEqual(await table(page), good);
  assert.deepEqual(await page.$$eval('#heads option', (o) => o.map((x) => x.value)), headCounts(6).map(String), 'the menu follows the d in use');
  // One head, and then d 5 is fine.
  await page.selectOption('#heads', '1');
  await settled(page);
  await page.fill('#dim', '5');
  await settled(page);
  assert.ok(await page.isHidden('#dim-error'));
  assert.match(page.url(), /&dim=5&heads=1&/);
  await agreesWithCore(page);
  await done();
});

test('a link with bad offsets or heads opens with their defaults and a notice in the core\'s words', async () => {
  const links = [
    ['#oa=-1&ob=1025&heads=9&pos=1', { oa: '-1', ob: '1025', heads: '9' }],
    ['#oa=1.5&ob=abc&heads=0', { oa: '1.5', ob: 'abc', heads: '0' }],
    ['#dim=6&heads=4', { heads: '4' }],
  ];
  const fields = { oa: ['offset_a', 'where sentence A starts'], ob: ['offset_b', 'where sentence B starts'], heads: ['heads', 'heads'] };
  for (const [hash, bad] of links) {
    const { page, done } = await open(`/${hash}`);
    assert.ok(await page.isVisible('#notice'), hash);
    const items = await page.$$eval('#notice-list li', (li) => li.map((x) => x.textContent));
    assert.equal(items.length, Object.keys(bad).length, items.join(' | '));
    for (const [key, raw] of Object.entries(bad)) {
      const [json, label] = fields[key];
      // the notice ends with what the core allows for that value
      const core = coreMessage({ dim: 6, [json]: raw }, json);
      const reason = core.slice(core.indexOf('allowed:'));
      assert.ok(items.some((i) => i.startsWith(`${label} (“${raw}”)`) && i.endsWith(reason)), `${key}=${raw}: ${items.join(' | ')}`);
    }
    assert.deepEqual([await page.inputValue('#offset-a'), await page.inputValue('#offset-b')], ['0', '0']);
    assert.equal(await page.inputValue('#heads'), '1');
    assert.match(page.url(), /&oa=0&ob=0&/);
    assert.match(page.url(), /&heads=1&/);
    await agreesWithCore(page);
    await done();
  }
});

// Runs a copied script with NumPy and compares its lines with the page's table.
function numpyLines(script) {
  return execFileSync('/usr/bin/python3', ['-'], { input: script, encoding: 'utf8' }).split('\n')
    .filter((l) => l.includes('np.allclose(')).map((l) => {
      const m = l.match(/^(\S+)\s+np\.allclose\(.*?\) = (True|False)\s+max\|diff\| (\S+)\s+cosine distance (\S+)$/);
      assert.ok(m, l);
      return { word: m[1], allclose: m[2], maxDiff: m[3] };
    });
}

test('Copy as NumPy with offsets, ALiBi and heads: NumPy prints the page\'s table', async () => {
  const views = [
    '#a=the+cat+chased+the+mouse&b=the+mouse+chased+the+cat&pos=1&scheme=alibi&scale=50&dim=16&heads=4',
    '#a=she+left+before+he+ate&b=he+left+before+she+ate&oa=1000&ob=3&pos=1&scheme=random&scale=0.5&dim=8&heads=2&causal=1',
    '#a=the+cat+chased+the+mouse&b=the+cat+chased+the+mouse&ob=5&pos=1&scheme=sinusoidal&scale=1&dim=16&heads=1',
    '#pos=1&scheme=rope&scale=1&dim=9&heads=3&oa=4&ob=1024',
  ];
  for (const hash of views) {
    const { page, done } = await open(`/${hash}`);
    assert.ok(await page.isHidden('#notice'), hash);
    await page.click('#copy-numpy');
    await page.waitForFunction(() => document.getElementById('export-status').textContent.startsWith('Copied'));
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, numpyScript(pageConfig(page), { link: page.url() }));
    const printed = numpyLines(copied);
    const rows = await table(page);
    assert.equal(printed.length, rows.length);
    printed.forEach((line, k) => {
      assert.equal(line.word, k === rows.length - 1 ? 'mean' : rows[k].word);
      assert.equal(line.allclose, rows[k].allclose, `${hash} ${rows[k].word}`);
      if (!rows[k].rounding) assert.equal(line.maxDiff, rows[k].maxDiff, `${hash} ${rows[k].word} max|diff|`);
    });
    assert.ok(printed.some((l) => l.allclose === 'False'), `${hash}: a view where NumPy has something to disagree with`);
    await done();
  }
});
