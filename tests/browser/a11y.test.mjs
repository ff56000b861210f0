// Accessibility: axe-core over every view of the lab (zero serious or
// critical violations), the whole page by keyboard alone, the verdicts
// announced politely, a text alternative for the chart, colour never the only
// signal, and prefers-reduced-motion and dark mode respected.
// axe-core is injected into the page, which the page's own strict CSP would
// refuse, so the axe context bypasses CSP (security.test.mjs checks the page
// under the policy).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import axeCore from 'axe-core';
import { ROOT, SITE, ARTIFACTS, watch, settled, verdictColumn, chartGeometry, useSite } from './harness.mjs';
import { TOUR_STEPS, GPT2_ONLY_STEPS } from '../../web/teach/tour_length.js';

// The core the page runs, under Node, and the page's number format, for the expected values.
const { createLab } = await import(`${SITE}/poslab.js`);
const { sig } = await import(`${ROOT}web/app/format.js`);

// The canvas's pixels in the box [x0, x1) x [y0, y1) as hex colours, row by row.
const canvasColours = (page, box) => page.evaluate(({ x0, y0, x1, y1 }) => {
  const ctx = document.getElementById('chart').getContext('2d');
  const [x, y] = [Math.round(x0), Math.round(y0)];
  const data = ctx.getImageData(x, y, Math.round(x1) - x, Math.round(y1) - y).data;
  const out = [];
  for (let i = 0; i < data.length; i += 4) out.push(`#${[data[i], data[i + 1], data[i + 2]].map((c) => c.toString(16).padStart(2, '0')).join('')}`);
  return out;
}, box);
const mostCommon = (colours) => {
  const counts = new Map();
  for (const c of colours) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].sort((p, q) => q[1] - p[1])[0][0];
};

const site = useSite();

async function open(url, { width = 1280, height = 900, colorScheme = 'light', reducedMotion = 'reduce', bypassCSP = false } = {}) {
  const context = await site.browser.newContext({ viewport: { width, height }, colorScheme, reducedMotion, bypassCSP });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const problems = watch(page, site.origin);
  await page.goto(site.origin + url);
  await settled(page);
  return { page, problems, close: () => context.close() };
}

// ---- axe ---------------------------------------------------------------------

const IMPACTS = ['critical', 'serious', 'moderate', 'minor'];

// Runs axe-core (all its rules: WCAG 2.x A and AA, best practices) in the page.
async function axe(page, within = null) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(axeCore.source);
  const violations = await page.evaluate(async (sel) => (await window.axe.run(sel ?? document, { resultTypes: ['violations'] }))
    .violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => `${n.target.join(' ')} (${n.failureSummary?.split('\n')[1]?.trim()})`) })), within);
  const counts = Object.fromEntries(IMPACTS.map((i) => [i, 0]));
  for (const v of violations) counts[v.impact] += v.nodes.length;
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).join('; ')}`);
  const rest = violations.filter((v) => v.impact !== 'serious' && v.impact !== 'critical').map((v) => `${v.impact} ${v.id} x${v.nodes.length}`);
  return { counts, serious, rest };
}

// Opens every <details> (the advanced settings, the chart's table, the
// teaching views) so that what they hold is checked too.
const openAllDetails = (page) => page.$$eval('details', (all) => all.forEach((d) => { d.open = true; }));
const setHash = async (page, hash) => {
  await page.evaluate((h) => { window.location.hash = h; }, hash);
  await settled(page);
};

test('axe: no serious or critical violation in any view', async () => {
  const report = [];
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce', bypassCSP: true });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const problems = watch(page, site.origin);
  const check = async (name, within) => {
    await settled(page);
    report.push({ name, ...await axe(page, within) });
  };
  const scheme = (colorScheme) => page.emulateMedia({ colorScheme });

  await page.goto(`${site.origin}/`);
  await check('default');
  await setHash(page, 'pos=1');
  await openAllDetails(page);
  await check('positions on, everything open');
  await scheme('dark');
  await check('dark, positions on, everything open');
  await setHash(page, 'pos=0&causal=1');
  await check('dark, positions off, everything open');
  await setHash(page, 'pos=0&causal=1&dim=16&heads=2&model=transformer&layers=4');
  await openAllDetails(page); // the block-by-block table too
  await check('dark, transformer blocks, everything open');
  await scheme('light');
  await check('transformer blocks, everything open');
  await page.setViewportSize({ width: 375, height: 812 });
  await setHash(page, 'pos=1&scheme=rope&dim=16&heads=2&model=transformer&layers=4');
  await check('375 px, transformer blocks');
  await setHash(page, 'pos=1&scheme=rope');
  await check('375 px, positions on');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.click('#embed-open');
  await page.waitForSelector('#embed-dialog[open]'); // its code loads on the first click
  await check('embed dialog open');
  await page.keyboard.press('Escape');
  await setHash(page, 'pos=1&scale=abc&zzz=1');
  await page.fill('#dim', '0');
  await page.fill('#scale-text', '-1');
  await check('refused input, notice shown');

  // The guided tour, if the page has one (tour=N in the hash): the whole
  // page at step 1 before and after the guess (light and dark), then the
  // tour panel at every step once answered.
  const steps = TOUR_STEPS - GPT2_ONLY_STEPS; // the GPT-2 step needs its files
  if (steps) {
    await page.click('#reset');
    await setHash(page, 'tour=1');
    assert.ok(await page.isVisible('#tour'), 'the tour is open');
    await check('tour step 1, before the guess');
    for (let step = 1; step <= steps; step++) {
      // (a step on a model trained here shows once its model is read)
      await page.waitForSelector(`#tour:not([hidden]) .tour-count:text("step ${step} of")`);
      // alternate first and last choices, so right and wrong answers both show
      await page.locator('.tour-choice').nth(step % 2 ? 0 : -1).click();
      if (step === 1) {
        await check('tour step 1, answered');
        await scheme('dark');
        await check('tour step 1, answered, dark');
        await scheme('light');
      } else {
        await check(`tour step ${step}, answered (the tour panel)`, '#tour');
      }
      if (step < steps) await page.click('.tour-next');
    }
  }

  // The embedded view (a new address: the query string changes).
  await page.goto(`${site.origin}/?embed=1&hide=intro#pos=1`);
  await check('embed');
  assert.deepEqual(problems, []);
  await context.close();

  for (const r of report) {
    console.log(`# axe ${r.name}: ${IMPACTS.map((i) => `${i} ${r.counts[i]}`).join(', ')}${r.rest.length ? ` (${r.rest.join(', ')})` : ''}`);
  }
  const serious = report.filter((r) => r.serious.length).map((r) => `${r.name}: ${r.serious.join(' | ')}`);
  assert.deepEqual(serious, [], 'serious or critical axe violations');
});

// ---- keyboard ------------------------------------------------------------------

// In the page: what has focus, whether a focus indicator is drawn (on the
// element, or on the track or card that stands for a visually hidden input),
// and every control a Tab should reach, in document order (a radio group is
// one stop: its checked radio).
// One function (it runs in the page) for both: `focus` describes the focused
// element, `expected` lists the stops.
const PROBE = (mode) => {
  const describe = (el) => el.id || `${el.tagName.toLowerCase()}${el.name ? `[name=${el.name}]` : ''}` +
    `${el.classList[0] ? `.${el.classList[0]}` : ''}${el.textContent.trim() ? `:${el.textContent.trim().slice(0, 20)}` : ''}`;
  if (mode === 'focus') {
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) return null;
    const drawn = (node) => {
      if (!node) return false;
      const s = getComputedStyle(node);
      return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
    };
    const box = el.getBoundingClientRect();
    return {
      id: describe(el),
      visibleFocus: [el, el.nextElementSibling, el.closest('label'), el.closest('.choice')].some(drawn),
      onScreen: box.width > 0 && box.height > 0,
    };
  }
  const groups = new Set();
  const out = [];
  for (const el of document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')) {
    if (el.disabled || el.tabIndex < 0 || !el.checkVisibility({ visibilityProperty: true })) continue;
    if (el.type === 'radio') {
      if (groups.has(el.name)) continue;
      groups.add(el.name);
      const group = [...document.querySelectorAll(`input[type=radio][name="${el.name}"]`)];
      out.push(describe(group.find((r) => r.checked) ?? group[0]));
    } else {
      out.push(describe(el));
    }
  }
  return out;
};

test('keyboard alone: every control in order with visible focus, no trap; Space and arrow keys work', async () => {
  const { page, problems, close } = await open('/', { reducedMotion: 'no-preference' });
  assert.equal(await page.$$eval('[tabindex]', (all) => all.filter((e) => e.tabIndex > 0).length), 0, 'no positive tabindex');
  const stops = [];
  for (let k = 0; k < 120; k++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(PROBE, 'focus');
    if (at === null) { if (stops.length) break; continue; } // past the last control
    if (stops.length && at.id === stops[0].id) break; // wrapped around
    stops.push(at);
    // A closed <details> opens with Enter, and Tab goes on inside it.
    const closedSummary = await page.evaluate(() => {
      const el = document.activeElement;
      return el.tagName === 'SUMMARY' && !el.parentElement.open;
    });
    if (closedSummary) await page.keyboard.press('Enter');
  }
  const ids = stops.map((s) => s.id);
  assert.ok(stops.length >= 20, `reached ${stops.length} controls`);
  assert.deepEqual(ids, await page.evaluate(PROBE, 'expected'), 'Tab visits every control once, in document order');
  for (const stop of stops) {
    assert.ok(stop.visibleFocus, `${stop.id}: visible focus indicator`);
    assert.ok(stop.onScreen, `${stop.id}: focused element is on screen`);
  }
  for (const id of ['sentence-a', 'sentence-b', 'positions', 'scale-slider', 'scale-text', 'causal', 'dim', 'seed', 'rtol', 'atol', 'plot-word', 'embed-open']) {
    assert.ok(ids.includes(id), `Tab reaches #${id}`);
  }
  // Shift+Tab walks back the same way.
  await page.focus('#scale-text');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'scale-slider');

  // The positional switch with Space; the verdicts change.
  assert.deepEqual(await verdictColumn(page), ['True', 'True', 'True', 'True']);
  await page.focus('#positions');
  await page.keyboard.press('Space');
  await settled(page);
  assert.equal(await page.isChecked('#positions'), true);
  assert.deepEqual(await verdictColumn(page), ['False', 'False', 'False', 'False']);
  await page.screenshot({ path: path.join(ARTIFACTS, 'a11y-keyboard-switch.png'), clip: { x: 0, y: 0, width: 1280, height: 900 } });

  // The slider with the arrow keys: the magnitude and the figures move;
  // Home goes to the faintest signal, where np.allclose says True again.
  const maxDiff = () => page.$eval('#verdict-rows tr:nth-child(3) .maxdiff .num', (n) => n.textContent);
  await page.focus('#scale-slider');
  const before = { scale: await page.inputValue('#scale-text'), diff: await maxDiff() };
  await page.keyboard.press('ArrowRight');
  await settled(page);
  const right = { scale: await page.inputValue('#scale-text'), diff: await maxDiff() };
  assert.ok(Number(right.scale) > Number(before.scale), `ArrowRight: ${before.scale} -> ${right.scale}`);
  assert.notEqual(right.diff, before.diff);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await settled(page);
  assert.ok(Number(await page.inputValue('#scale-text')) < Number(before.scale), 'ArrowLeft lowers the magnitude');
  assert.match(await page.getAttribute('#scale-slider', 'aria-valuetext'), /^[\d.e+-]+$/);
  await page.keyboard.press('Home');
  await settled(page);
  assert.equal(await page.inputValue('#scale-text'), '1e-9');
  assert.deepEqual(await verdictColumn(page), ['True', 'True', 'True', 'True']);

  // The example pairs with the arrow keys, which apply an option at once:
  // each press steps on to the next example, not back to the first.
  await page.focus('#presets');
  const applied = [];
  for (let k = 0; k < 3; k++) {
    await page.keyboard.press('ArrowDown');
    await settled(page);
    applied.push(await page.inputValue('#sentence-a'));
  }
  assert.deepEqual(applied, ['dog bites man', 'the cat chased the mouse', 'the teacher thanked the student']);
  assert.equal(await page.inputValue('#presets'), '2', 'the menu names the example shown');
  await page.fill('#sentence-a', 'the teacher thanked a student');
  await settled(page);
  assert.equal(await page.inputValue('#presets'), '', 'and lets it go once the sentences change');

  // The Embed dialog: opened with Enter, focus inside, Escape closes it and
  // focus comes back to its button.
  await page.focus('#embed-open');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#embed-dialog[open]'); // its code loads on the first click
  assert.ok(await page.isVisible('#embed-dialog'));
  assert.ok(await page.evaluate(() => document.getElementById('embed-dialog').contains(document.activeElement)));
  await page.keyboard.press('Escape');
  assert.ok(await page.isHidden('#embed-dialog'));
  assert.equal(await page.evaluate(() => document.activeElement.id), 'embed-open');
  assert.deepEqual(problems, []);
  await close();
});

// ---- announcements, alternatives, colour, motion, dark ---------------------------
// These share one page (loading the lab is the slow part), in order.

let lab = null;
async function sharedLab() {
  lab ??= await open('/');
  return lab;
}
after(() => lab?.close());

test('the verdicts are announced politely when they change', async () => {
  const { page, problems } = await sharedLab();
  // one short live line, not the whole table: numbers changing on every
  // slider step are not read out
  const region = page.locator('#verdict-status');
  assert.equal(await page.locator('#verdicts [aria-live]').count(), 1, 'one live region in the verdicts');
  assert.equal(await page.getAttribute('#verdicts', 'aria-live'), null);
  assert.equal(await region.getAttribute('aria-live'), 'polite');
  assert.equal(await region.getAttribute('aria-atomic'), 'true', 'the line is read whole');
  assert.equal(await region.textContent(), '“man”: np.allclose True. Sentence mean: np.allclose True.');
  const verdictText = () => page.locator('#card-word .card-verdict .text').textContent();
  assert.equal(await verdictText(), 'True');
  const before = await region.textContent();
  // What a screen reader hears about: the text nodes that change inside the region.
  await region.evaluate((node) => {
    window.__announced = [];
    new MutationObserver((records) => {
      for (const r of records) window.__announced.push(r.target.textContent ?? '');
    }).observe(node, { subtree: true, childList: true, characterData: true });
  });
  await page.check('#positions');
  await settled(page);
  assert.equal(await verdictText(), 'False');
  const announced = await page.evaluate(() => window.__announced);
  assert.ok(announced.some((t) => t.includes('False')), `changes seen: ${announced.slice(0, 5)}`);
  assert.notEqual(before, await region.textContent());
  assert.equal(await region.textContent(), '“man”: np.allclose False. Sentence mean: np.allclose False.');
  // a slider step that flips nothing says nothing
  const count = (await page.evaluate(() => window.__announced.length));
  await page.focus('#scale-slider');
  await page.keyboard.press('ArrowRight');
  await settled(page);
  assert.equal(await page.evaluate(() => window.__announced.length), count, 'no announcement without a flip');
  assert.deepEqual(await verdictColumn(page), ['False', 'False', 'False', 'False']);
  assert.deepEqual(problems, []);
});

test('the chart has a text and table alternative, and colour is never the only signal', async () => {
  const { page, problems } = await sharedLab();
  await setHash(page, 'pos=1');
  // The canvas: an image with a name, a caption beside it.
  assert.equal(await page.getAttribute('#chart', 'role'), 'img');
  assert.match(await page.getAttribute('#chart', 'aria-label'), /cosine distance between “man”.*only below a magnitude of about/);
  assert.match(await page.textContent('.chart-caption'), /np\.allclose says True for “man” only below/);
  // The numbers as a table, one row per power of ten, matching the chart.
  await page.click('#chart-data summary');
  const table = await page.$$eval('#chart-data tbody tr', (rows) => rows.map((r) => [...r.children].map((c) => c.textContent)));
  assert.equal(table.length, 13);
  assert.deepEqual(table.map((r) => r[0]), ['1e-9', '1e-8', '1e-7', '1e-6', '1e-5', '1e-4', '1e-3', '1e-2', '1e-1', '1', '1e1', '1e2', '1e3']);
  assert.deepEqual(await page.$$eval('#chart-data thead th', (h) => h.map((x) => x.textContent)),
    ['magnitude', '“man”: cosine distance', '“man”: np.allclose', 'sentence mean: cosine distance', 'np.allclose']);
  assert.deepEqual(table.map((r) => r[2]), ['True', 'True', ...Array(11).fill('False')]); // the threshold is about 9.1e-8
  assert.equal(table[6][1], '3.235e-05'); // the module's exercise 3, as the table of verdicts shows it
  // Every row is the core's sweep (1e-9 to 1e3, ten points a decade) at that
  // power of ten, written as the page writes numbers.
  const core = await createLab();
  const { sweep } = core.run({ sentence_a: 'dog bites man', sentence_b: 'man bites dog', scheme: 'random', scale: 0.5,
    sweep: { lo: 1e-9, hi: 1e3, count: 121 } });
  core.dispose();
  const words = (p) => (p.allclose ? 'True' : 'False');
  assert.deepEqual(table.map((row) => row.slice(1)), sweep.mean.filter((p, i) => i % 10 === 0).map((mean, k) => {
    const man = sweep.pairs[2][k * 10];
    return [sig(man.cosine_distance), words(man), sig(mean.cosine_distance), words(mean)];
  }));
  await page.selectOption('#plot-word', '0');
  await settled(page);
  assert.equal(await page.textContent('#chart-data thead th:nth-child(2)'), '“dog”: cosine distance');
  await page.$eval('#plot', (d) => d.scrollIntoView());
  await page.screenshot({ path: path.join(ARTIFACTS, 'a11y-chart-table.png') });

  // Colour is never alone: verdicts carry words and distinct icons, the two
  // lines differ in dash, the shaded region has a label, switches say on/off,
  // a refused field has a message.
  const verdicts = await page.$$eval('.verdict', (all) => all.filter((v) => v.offsetParent && !v.closest('details:not([open])'))
    .map((v) => [v.className, v.querySelector('.icon')?.textContent, v.querySelector('.text')?.textContent?.trim()]));
  assert.ok(verdicts.length >= 6);
  for (const [kind, icon, text] of verdicts) {
    assert.ok(text, `${kind}: a verdict in words`);
    if (kind.includes('is-true')) assert.equal(icon, '=', `${kind} ${text}`);
    if (kind.includes('is-false')) assert.equal(icon, '≠', `${kind} ${text}`);
  }
  // The legend draws the word's line solid and the mean's dashed, as the canvas does.
  assert.deepEqual(await page.$$eval('.chart-legend .legend-line', (ls) => ls.map((l) => getComputedStyle(l).borderTopStyle)),
    ['solid', 'dashed', 'dotted']);
  // The canvas's dash patterns are read from Chart.js: a dash along a curve
  // that bends and crosses the other has no pixel test that is not fragile.
  const dashes = await page.evaluate(() => window.Chart.getChart(document.getElementById('chart')).data.datasets.map((d) => d.borderDash ?? []));
  assert.notDeepEqual(dashes[0], dashes[1]);
  // The shaded np.allclose-True region carries its label: ink at its top
  // left corner (the label's box), none in a box as large lower down.
  await page.selectOption('#plot-word', '2');
  await settled(page);
  const { area } = await chartGeometry(page, []);
  const labelBox = { x0: area.left + 6, x1: area.left + 46, y0: area.top + 6, y1: area.top + 19 };
  const lower = { ...labelBox, y0: area.top + 80, y1: area.top + 93 };
  const shadeColour = mostCommon(await canvasColours(page, lower));
  const ink = async (box) => (await canvasColours(page, box)).filter((c) => c !== shadeColour).length;
  const [inLabel, inLower] = [await ink(labelBox), await ink(lower)]; // (a grid line crosses both)
  assert.ok(inLabel > inLower + 40, `the shaded region is labelled: ${inLabel} pixels of ink against ${inLower} lower down`);
  assert.equal(await page.textContent('#positions-state'), 'on');
  await page.fill('#scale-text', 'abc');
  assert.equal(await page.getAttribute('#scale-text', 'aria-invalid'), 'true');
  assert.match(await page.textContent('#scale-text-error'), /allowed/);
  await page.fill('#scale-text', '0.5');
  assert.deepEqual(problems, []);
});

// The browser's own accessibility tree (what a screen reader gets): the
// table named `name`, as rows of {role, name} cells.
async function axTable(page, name) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const table = nodes.find((n) => n.role?.value === 'table' && (n.name?.value ?? '').includes(name));
  if (!table) return null;
  const rows = [];
  const walk = (node) => {
    for (const id of node.childIds ?? []) {
      const child = byId.get(id);
      if (!child) continue;
      if (child.role?.value === 'row') {
        rows.push((child.childIds ?? []).map((c) => byId.get(c)).filter(Boolean)
          .map((c) => ({ role: c.role?.value, name: (c.name?.value ?? '').trim() })));
      } else {
        walk(child);
      }
    }
  };
  walk(table);
  return rows;
}

test('the verdict table is a table to assistive technology, wide and narrow', async () => {
  for (const width of [1280, 375]) {
    const { page, problems, close } = await open('/#pos=1', { width });
    const rows = await axTable(page, 'Each word of sentence A');
    assert.ok(rows, `${width} px: a table in the accessibility tree`);
    assert.equal(rows.length, 5, `${width} px: a header row, three words and the mean`);
    assert.deepEqual(rows[0].map((c) => c.role), ['columnheader', 'columnheader', 'columnheader', 'columnheader']);
    assert.deepEqual(rows.slice(1).map((r) => r.map((c) => c.role)), Array(4).fill(['rowheader', 'cell', 'cell', 'cell']));
    assert.match(rows[3][0].name, /^man/);
    assert.match(rows[3][1].name, /False/);
    // (narrow, the cell's name starts with the label the CSS shows before the figure)
    const figure = await page.$eval('#verdict-rows tr:nth-child(3) .maxdiff .num', (n) => n.textContent);
    assert.match(figure, /^\d/);
    assert.ok(rows[3][2].name === figure || rows[3][2].name === `max |diff| ${figure}`, `${width} px: ${rows[3][2].name}`);
    assert.deepEqual(problems, []);
    await close();
  }
});

test('prefers-reduced-motion turns transitions and animations off; dark mode is respected', async () => {
  const { page, problems } = await sharedLab();
  const motion = async (reducedMotion) => {
    await page.emulateMedia({ reducedMotion });
    const track = await page.$eval('.switch-track', (t) => [getComputedStyle(t).transitionDuration, getComputedStyle(t, '::after').transitionDuration]);
    await page.click('#positions');
    const running = await page.evaluate(() => document.getAnimations().length);
    await settled(page);
    // Read from Chart.js: whether it would animate is a setting no settled pixel shows.
    const chart = await page.evaluate(() => window.Chart.getChart(document.getElementById('chart')).options.animation);
    // Motion anywhere: a transition, or an animation that takes time (the
    // loading hint's 4 s *delay* with no duration is not motion).
    const moving = await page.evaluate(() => [...document.querySelectorAll('*')].filter((el) => {
      const s = getComputedStyle(el);
      const long = (list) => list.split(',').some((d) => parseFloat(d) > 0);
      return long(s.transitionDuration) || (s.animationName !== 'none' && long(s.animationDuration));
    }).map((el) => el.id || el.className).slice(0, 5));
    return { track, running, chart, moving };
  };
  const reduced = await motion('reduce');
  assert.deepEqual(reduced.track, ['0s', '0s']);
  assert.equal(reduced.running, 0, 'no animation runs');
  assert.deepEqual(reduced.moving, [], 'no element has a transition or animation');
  assert.equal(reduced.chart, false, 'the chart does not animate');
  const full = await motion('no-preference');
  assert.deepEqual(full.track, ['0.15s', '0.15s'], 'without the preference the switch slides');
  assert.ok(full.moving.length > 0);

  await page.emulateMedia({ reducedMotion: 'reduce', colorScheme: 'dark' });
  await setHash(page, 'pos=1');
  const colours = await page.evaluate(() => ({
    bg: getComputedStyle(document.body).backgroundColor,
    fg: getComputedStyle(document.body).color,
    panel: getComputedStyle(document.querySelector('.group')).backgroundColor,
  }));
  assert.deepEqual(colours, { bg: 'rgb(15, 17, 21)', fg: 'rgb(233, 235, 239)', panel: 'rgb(24, 27, 33)' });
  // The canvas in dark colours: the panel behind it, the word's curve in
  // #7ea4ff across the magnitudes where no threshold or label is drawn.
  await page.locator('#chart').scrollIntoViewIfNeeded();
  const geometry = await chartGeometry(page, [1e-2]);
  const corner = await canvasColours(page, { x0: 1, y0: 1, x1: 2, y1: 2 });
  assert.deepEqual(corner, ['#181b21']);
  const right = await canvasColours(page, { x0: geometry.xs[0], x1: geometry.area.right, y0: geometry.area.top, y1: geometry.area.bottom });
  assert.ok(right.filter((c) => c === '#7ea4ff').length > (geometry.area.right - geometry.xs[0]) / 2, 'the word\'s curve in dark blue');
  await page.$eval('#plot', (d) => d.scrollIntoView());
  await page.screenshot({ path: path.join(ARTIFACTS, 'a11y-dark-chart-table.png') });
  assert.deepEqual(problems, []);
});

// A choice's hint is shown only under the chosen one; to a screen reader
// every model and scheme says what it is, chosen or not.
test('every model and scheme choice has its description in the accessibility tree', async () => {
  const { page, problems, close } = await open('/', { width: 1280 });
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const radios = new Map(nodes.filter((n) => n.role?.value === 'radio')
    .map((n) => [n.name?.value.trim(), (n.description?.value ?? '').trim()]));
  assert.equal(radios.get('nope'), 'trained here with the mask only');
  assert.equal(radios.get('bag'), 'trained here with neither');
  assert.equal(radios.get('gpt'), 'trained here with positions and the mask');
  assert.match(radios.get('Transformer blocks'), /^GPT-2’s block, repeated/);
  const schemes = await page.$$eval('input[name="scheme"]', (rs) => rs.map((r) => r.parentElement.querySelector('.choice-name').textContent));
  assert.ok(schemes.length >= 4);
  for (const name of schemes) assert.ok(radios.get(name)?.length > 10, `${name}: "${radios.get(name)}"`);
  assert.deepEqual(problems, []);
  await close();
});
