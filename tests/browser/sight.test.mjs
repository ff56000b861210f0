// Sections out of sight are drawn when the page pauses (views/sight.js): on
// gpt at 1280 x 900, the lesson, the tokens and answer, and the blocks lie
// below the fold. During a fast drag of the slider they are not rewritten
// (and say aria-busy); once it rests, and at once when one is scrolled
// into sight mid-drag, they show what a fresh page shows for the final
// state. Run `make site`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, settled, useSite } from './harness.mjs';

const site = useSite({ context: {} });
const A = 'dog bites man . who bites ?';
const B = 'man bites dog . who bites ?';
const GPT = `/#a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}&model=gpt`;
const SECTIONS = ['lesson', 'checkpoint', 'blocks'];

// Each section's text, as a student reads it.
const texts = (page) => page.evaluate((ids) => Object.fromEntries(ids.map((id) => [id, document.getElementById(id).innerText])), SECTIONS);

// `steps` slider steps, one a frame; `scrollAt`: the step at which #lesson
// is scrolled into sight (none if null). Returns, per section, how many
// mutations it had during the drag up to (and after) that step, whether
// it said aria-busy at the end, and the verdict card's mutations.
function drag(page, steps, scrollAt = null) {
  return page.evaluate(async ({ ids, steps, scrollAt }) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const count = { before: {}, after: {}, card: 0 };
    let phase = 'before';
    const observers = ids.map((id) => {
      count.before[id] = 0;
      count.after[id] = 0;
      const o = new MutationObserver((list) => {
        // (its own aria-busy is what the sight sets; the content is what is counted)
        count[phase][id] += list.filter((m) => m.attributeName !== 'aria-busy').length;
      });
      o.observe(document.getElementById(id), { subtree: true, childList: true, characterData: true, attributes: true });
      return o;
    });
    const card = new MutationObserver((list) => { count.card += list.length; });
    card.observe(document.getElementById('card-mean'), { subtree: true, childList: true, characterData: true });
    const slider = document.getElementById('scale-slider');
    let v = Number(slider.value);
    for (let i = 0; i < steps; i++) {
      await frame();
      if (i === scrollAt) {
        document.getElementById('lesson').scrollIntoView({ block: 'center' });
        phase = 'after';
      }
      v -= 0.08;
      slider.value = String(v);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    }
    await new Promise((r) => setTimeout(r, 0)); // (the observers' records of the last step)
    const busy = Object.fromEntries(ids.map((id) => [id, document.getElementById(id).getAttribute('aria-busy')]));
    observers.forEach((o) => o.disconnect());
    card.disconnect();
    return { ...count, busy };
  }, { ids: SECTIONS, steps, scrollAt });
}

// The same state opened afresh, in a window tall enough to see it all.
async function fresh(page) {
  const { page: other, done } = await openPage(site.context, site.origin, `/${new URL(page.url()).hash}`,
    { width: 1280, height: 6000 });
  const shown = await texts(other);
  await done();
  return shown;
}

test('sections out of sight wait during a drag, then show the final state', { timeout: 90000 }, async () => {
  const { page, done } = await openPage(site.context, site.origin, GPT);
  for (const id of SECTIONS) {
    const top = await page.evaluate((id) => document.getElementById(id).getBoundingClientRect().top, id);
    assert.ok(top > 900 + 300, `#${id} is out of sight (top ${top})`);
  }
  const before = await texts(page);
  const during = await drag(page, 8);
  assert.ok(during.card >= 8, `the verdict card in sight was redrawn each step (${during.card} mutations)`);
  for (const id of SECTIONS) {
    assert.equal(during.before[id], 0, `#${id} was not rewritten during the drag`);
    assert.equal(during.busy[id], 'true', `#${id} says it is catching up`);
  }
  assert.deepEqual(await texts(page), before, 'and still shows the figures from before the drag');
  await settled(page);
  const after = await texts(page);
  assert.notDeepEqual(after.lesson, before.lesson, 'the drag changed the lesson\'s figures');
  assert.deepEqual(after, await fresh(page), 'once the slider rests, each section shows what a fresh page shows');
  await done();
});

test('a section scrolled into sight mid-drag is drawn at once, and with every step after', { timeout: 90000 }, async () => {
  const { page, done } = await openPage(site.context, site.origin, GPT);
  // the renders come every frame: the pause that would draw everything never comes during the drag
  const during = await drag(page, 24, 6);
  assert.equal(during.before.lesson, 0, 'out of sight, the lesson waited');
  assert.ok(during.after.lesson >= 10, `in sight, it was drawn with the steps (${during.after.lesson} mutations)`);
  assert.equal(during.busy.lesson, 'false');
  assert.equal(during.after.blocks, 0, 'the blocks, still out of sight, kept waiting');
  assert.equal(during.busy.blocks, 'true');
  const lesson = (await texts(page)).lesson;
  await settled(page);
  assert.equal((await texts(page)).lesson, lesson, 'the lesson already showed the final state');
  assert.deepEqual(await texts(page), await fresh(page));
  await done();
});
