// "Why each scheme works" in headless Chromium: the panel opened, each
// scheme picked, and what it shows (badges, table cells, the numbers read
// out for screen readers) against teach/why_claims.js run here under Node
// on the same core, and against values worked out independently
// (-s·m·|i - j| for ALiBi). Also: nothing is computed while the panel is
// closed, it fits 375 px in light and dark, and axe finds nothing serious
// in it. Screenshots go to tests/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import axeCore from 'axe-core';
import { ROOT, SITE, ARTIFACTS, settled, openPage, useSite } from './harness.mjs';

const { createLab } = await import(`${SITE}/poslab.js`);
const { sig } = await import(`${ROOT}web/app/format.js`);
const { createWhyClaims, SHIFT, SPAN } = await import(`${ROOT}web/teach/why_claims.js`);
const lab = await createLab();
const why = createWhyClaims(lab);

// axe is injected into the page, which its CSP would refuse
const site = useSite({ context: { bypassCSP: true } });

const open = (url, options) => openPage(site.context, site.origin, url, options);

// The config the page computes with, read back from its own URL.
async function pageConfig(page) {
  const params = new URLSearchParams(new URL(page.url()).hash.slice(1));
  const positions = params.get('pos') === '1';
  return {
    sentence_a: params.get('a'), sentence_b: params.get('b'), dim: Number(params.get('dim')), seed: Number(params.get('seed')),
    scheme: positions ? params.get('scheme') : 'none', scale: Number(params.get('scale')),
    causal: params.get('causal') === '1', rtol: Number(params.get('rtol')), atol: Number(params.get('atol')),
  };
}

// What the panel shows: the visible block, its title, every badge, every
// paragraph, and its tables' cells as text (screen-reader text included).
const panel = (page) => page.$eval('#why', (section) => {
  const block = [...section.querySelectorAll('.why-block')].filter((b) => !b.hidden);
  const shown = block[0];
  const cellText = (table) => [...table.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => c.textContent));
  return {
    blocks: block.length,
    figure: section.querySelector('summary .summary-figure').textContent,
    follow: section.querySelector('#why-scheme option[value=""]').textContent,
    title: shown?.querySelector('h3').textContent,
    badges: shown ? [...shown.querySelectorAll('.why-claim:not([hidden]) .why-verdict .text')].map((n) => n.textContent) : [],
    claims: shown ? [...shown.querySelectorAll('.why-claim:not([hidden]) .why-claim-text')].map((n) => n.textContent) : [],
    text: shown?.textContent ?? '',
    grid: shown?.querySelector('.why-grid') ? cellText(shown.querySelector('.why-grid')) : null,
    bias: shown?.querySelector('.why-bias') ? cellText(shown.querySelector('.why-bias')) : null,
    shift: shown?.querySelector('.why-table') ? [...shown.querySelectorAll('.why-table tbody tr')].map((r) => [...r.cells].map((c) => c.textContent.trim())) : null,
  };
});

async function axeIn(page, selector) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(axeCore.source);
  const violations = await page.evaluate(async (sel) => (await window.axe.run(sel, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`), selector);
  return violations;
}

// Opens the panel; its lab of its own starts on the first opening.
async function openPanel(page, how = () => page.click('#why summary')) {
  await how();
  await settled(page);
  await page.waitForSelector('#why .why-block:not([hidden])');
}

const pick = async (page, scheme) => {
  await page.check(`input[name="scheme"][value="${scheme}"]`);
  await settled(page);
};
const size = (d) => (d === 0 ? '0' : d < 1e-12 ? `${sig(d)}, rounding` : sig(d));

test('closed, the panel computes nothing; opened, it follows the scheme picked above', async () => {
  const { page, done } = await open('/');
  const filled = () => page.$$eval('#why .why-claim-text, #why .summary-figure', (all) => all.filter((n) => n.textContent !== '').length);
  assert.equal(await filled(), 0, 'nothing computed while closed');
  await page.check('#positions');
  await settled(page);
  assert.equal(await filled(), 0, 'nor after a change');
  await page.uncheck('#positions');
  await settled(page);
  await openPanel(page);
  let seen = await panel(page);
  assert.equal(seen.blocks, 1);
  assert.equal(seen.figure, 'No positional information');
  assert.equal(seen.follow, 'Picked above: No positional information');
  const none = why(await pageConfig(page));
  assert.deepEqual(seen.badges, [none.shift.allclose ? 'True' : 'False']);
  assert.deepEqual(seen.badges, ['True']);
  assert.match(seen.claims[0], new RegExp(`moved ${SHIFT} positions.*max \\|diff\\| ${size(none.shift.maxDiff)}\\.`));

  await page.check('#positions');
  await settled(page);
  seen = await panel(page);
  assert.equal(seen.figure, 'Random stand-in');
  const random = why(await pageConfig(page)).shift;
  assert.deepEqual(seen.badges, ['False']);
  assert.equal(random.allclose, false);
  assert.ok(seen.claims[0].includes(`max |diff| ${size(random.maxDiff)}`), seen.claims[0]);
  await done();
});

test('sinusoidal: the 16 x 16 dot products, constant diagonals, the rotation', async () => {
  const { page, done } = await open('/#pos=1&dim=8');
  await openPanel(page);
  await pick(page, 'sinusoidal');
  const seen = await panel(page);
  const claims = why(await pageConfig(page));
  const s = claims.sinusoidal;
  assert.equal(seen.figure, 'Sinusoidal');
  assert.equal(seen.grid.length, SPAN);
  assert.deepEqual(seen.grid, s.dots.map((row) => row.map((v) => sig(v, 3))), 'every cell reads its dot product');
  // and the matrix itself: a function of p - q (read from the page's own text)
  for (let p = 1; p < SPAN; p++) for (let q = 1; q < SPAN; q++) assert.equal(seen.grid[p][q], seen.grid[p - 1][q - 1]);
  assert.deepEqual(seen.badges, ['True', 'True']);
  assert.ok(seen.claims[0].includes(`at most ${size(s.diagonals.spread)}`), seen.claims[0]);
  assert.ok(s.diagonals.spread <= 1e-12);
  assert.ok(seen.claims[1].includes(`PE(p + ${SHIFT}) are allclose`) && seen.claims[1].includes(size(s.rotation.maxDiff)), seen.claims[1]);
  assert.match(seen.text, /shift test \(sentence A against itself, starting later\) gives False/);
  assert.deepEqual(await axeIn(page, '#why'), []);

  // an odd d: the page says the diagonals break, with the number
  await page.click('details.advanced summary');
  await page.fill('#dim', '7');
  await settled(page);
  const odd = why(await pageConfig(page)).sinusoidal;
  const after = await panel(page);
  assert.deepEqual(after.badges, ['False', 'True']);
  assert.ok(after.claims[0].includes(sig(odd.diagonals.spread)), after.claims[0]);
  await done();
});

test('RoPE: the shift test word by word, and the absolute schemes failing it', async () => {
  const { page, done } = await open('/#pos=1&a=the+cat+chased+the+mouse&b=the+mouse+chased+the+cat&dim=16');
  await openPanel(page);
  await pick(page, 'rope');
  const seen = await panel(page);
  const claims = why(await pageConfig(page));
  assert.equal(seen.figure, 'RoPE');
  assert.deepEqual(seen.badges, ['True']);
  assert.deepEqual(seen.shift, claims.shift.words.map((w, i) => [w.word, `${i} → ${i + SHIFT}`, '= True', sig(w.maxDiff)]));
  assert.ok(claims.shift.maxDiff < 1e-9);
  for (const c of claims.contrast) {
    assert.equal(c.allclose, false);
    assert.ok(seen.text.includes(`(magnitude ${sig(c.scale)}): False, max |diff| ${sig(c.maxDiff)}`), c.scheme);
  }
  assert.deepEqual(await axeIn(page, '#why'), []);
  // a slider step: the panel follows the magnitude
  await page.fill('#scale-text', '0.25');
  await settled(page);
  assert.match((await panel(page)).text, /at magnitude 0\.25\./);
  await done();
});

test('ALiBi: the bias matrix is -s·m·|i - j| and reads the same backwards', async () => {
  // The panel's own list shows ALiBi whatever is picked above, at ALiBi's
  // default magnitude.
  const { page, done } = await open('/#pos=1');
  await openPanel(page);
  await page.selectOption('#why-scheme', 'alibi');
  await settled(page);
  let seen = await panel(page);
  assert.equal(seen.figure, 'ALiBi');
  assert.equal(seen.follow, 'Picked above: Random stand-in');
  const m = 2 ** -8; // one head: Press et al.'s slope 2^(-8/1)
  const n = 3;
  const expected = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (__, j) => sig(-1 * m * Math.abs(i - j), 2)));
  assert.deepEqual(seen.bias, expected);
  assert.deepEqual(seen.bias, seen.bias.map((row, i) => row.map((_, j) => seen.bias[n - 1 - i][n - 1 - j])), 'reads the same backwards');
  assert.deepEqual(seen.badges, ['True', 'True', 'True']);
  assert.match(seen.claims[0], /s = 1 and m = 1\/256/);
  assert.match(seen.claims[2], /the outputs are the same/);
  assert.ok(await page.isHidden('#why-head'), 'one head: no head to choose');

  // Followed from the scheme picked above (a link: the radio is the page's),
  // at its magnitude, and with the causal mask the outputs differ.
  await page.evaluate(() => { window.location.hash = 'pos=1&scheme=alibi&scale=3&causal=1'; });
  await settled(page);
  await page.selectOption('#why-scheme', '');
  await settled(page);
  seen = await panel(page);
  assert.equal(seen.follow, 'Picked above: ALiBi');
  assert.deepEqual(seen.bias, expected.map((row, i) => row.map((_, j) => sig(-3 * m * Math.abs(i - j), 2))));
  const claims = why(await pageConfig(page), { scheme: null });
  assert.equal(claims.alibi.outputs.allclose, false);
  assert.deepEqual(seen.badges, ['True', 'True', 'False']);
  assert.match(seen.text, /computed without the causal mask/);
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeIn(page, '#why'), [], colorScheme);
  }

  // A long sentence: the matrix shows its first 12 words, the checks all.
  const long = Array.from({ length: 14 }, (_, i) => `w${i}`).join('+');
  await page.evaluate((a) => { window.location.hash = `pos=1&scheme=alibi&a=${a}&b=${a}`; }, long);
  await settled(page);
  seen = await panel(page);
  assert.equal(seen.bias.length, 12);
  assert.ok(seen.bias.every((row) => row.length === 12));
  assert.match(seen.text, /its first 12 of 14 words \(the checks below cover them all\)/);
  assert.deepEqual(seen.badges, ['True', 'True', 'True']);
  await done();
});

test('375 px, light and dark: every scheme fits the panel; the list is reachable by keyboard', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, done } = await open('/#pos=1&a=the+cat+chased+the+mouse&b=the+mouse+chased+the+cat', { width: 375, height: 812, colorScheme });
    await page.focus('#why summary');
    await openPanel(page, () => page.keyboard.press('Enter'));
    await page.focus('#why-scheme');
    for (const scheme of ['none', 'random', 'sinusoidal', 'rope', 'alibi']) {
      await page.selectOption('#why-scheme', scheme);
      await settled(page);
      const overflow = await page.$eval('#why', (s) => s.scrollWidth - s.clientWidth);
      assert.ok(overflow <= 0, `${colorScheme} ${scheme}: the panel overflows by ${overflow} px`);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, `${scheme}: no page scroll`);
      if (scheme === 'sinusoidal') {
        const [wide, room] = await page.$eval('#why .why-grid', (t) => [t.parentElement.scrollWidth, t.parentElement.clientWidth]);
        assert.ok(wide <= room, `${colorScheme}: the 16 x 16 grid needs ${wide} px of ${room}`);
      }
      if (scheme === 'alibi') {
        // five words may not fit: the matrix scrolls in a box the keyboard reaches
        assert.equal(await page.$eval('#why .why-bias', (t) => t.parentElement.tabIndex), 0);
        assert.deepEqual(await axeIn(page, '#why'), [], `${colorScheme}: axe at 375 px`);
      }
      if (scheme === 'sinusoidal' || scheme === 'alibi') {
        await page.locator('#why').screenshot({ path: path.join(ARTIFACTS, `why-${scheme}-375-${colorScheme}.png`) });
      }
    }
    await done();
  }
});
