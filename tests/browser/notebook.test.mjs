// The Embed dialog's third form, the Jupyter cell: it frames the same view
// as the HTML snippet, at the same size, and that view opens as the teacher
// saw it (tests/node/notebook.test.mjs runs such cells under Python).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { SITE, ARTIFACTS, serveDir, openPage, verdictColumn, useSite } from './harness.mjs';

const site = useSite({ context: {} });

const unescapeAttribute = (s) => s.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

test('the Jupyter cell frames the HTML snippet\'s view, and the view opens as shown', async () => {
  const { page, done } = await openPage(site.context, site.origin, '/#a=the+cat+sat&b=sat+the+cat&pos=1&scheme=sinusoidal&scale=0.001',
    { width: 375, height: 812 });
  await page.click('#embed-open');
  await page.waitForSelector('#embed-dialog[open]'); // its code loads on the first click
  await page.check('#embed-hide input[value="intro"]');
  await page.fill('#embed-height', '900');
  const html = await page.inputValue('#embed-code');
  const cell = await page.inputValue('#embed-jupyter');
  const iframeSrc = unescapeAttribute(/ src="([^"]*)"/.exec(html)[1]);
  const [, literal, width, height, extras] = /^from IPython\.display import IFrame\nIFrame\(("(?:[^"\\]|\\.)*"), width=(.*), height=(.*), extras=(.*)\)$/.exec(cell);
  assert.equal(JSON.parse(literal), iframeSrc);
  assert.deepEqual([width, height], ['"100%"', '900']);
  assert.deepEqual(JSON.parse(extras), ['allow="clipboard-write"'], 'the frame may copy, as the HTML snippet\'s may');
  assert.match(html, / allow="clipboard-write" /);
  assert.match(iframeSrc, /\?embed=1&hide=intro#a=the\+cat\+sat&b=sat\+the\+cat.*&pos=1&scheme=sinusoidal&scale=0\.001/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'embed-jupyter-375.png'), fullPage: false });
  await page.click('#embed-close');
  await done();

  const framed = await openPage(site.context, site.origin, iframeSrc.slice(site.origin.length));
  assert.ok(await framed.page.isHidden('.site-header'), 'embed mode');
  assert.ok(await framed.page.isHidden('[data-group="intro"]'));
  assert.equal(await framed.page.inputValue('#scale-text'), '0.001');
  assert.deepEqual(await verdictColumn(framed.page), ['False', 'False', 'False', 'False']);
  await framed.done();
});

// Reads the dialog's snippets after pasting where the lab is "published"
// (here: this test's server, as the page is opened from localhost).
async function snippets(hash, publishedAt) {
  const { page, done } = await openPage(site.context, site.origin, `/${hash}`);
  await page.click('#embed-open');
  await page.waitForSelector('#embed-dialog[open]');
  const note = await page.isVisible('#embed-local');
  const before = await page.textContent('#embed-base-hint');
  await page.fill('#embed-base', 'not an address');
  const refused = await page.getAttribute('#embed-base', 'aria-invalid');
  const why = await page.textContent('#embed-base-hint');
  await page.fill('#embed-base', publishedAt);
  const used = await page.textContent('#embed-base-hint');
  await page.fill('#embed-width', 'wide');
  const size = [await page.textContent('#embed-size-hint'), await page.inputValue('#embed-code')];
  await page.fill('#embed-width', '100%');
  size.push(await page.textContent('#embed-size-hint'));
  await page.check('#embed-hide input[value="intro"]');
  const out = { note, refused, hints: [before, why, used], size, html: await page.inputValue('#embed-code'), cell: await page.inputValue('#embed-jupyter') };
  await done();
  return out;
}

// The frame's own scrolling: none when the frame fits its content.
const innerScroll = (frame) => frame.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);

test('opened from localhost the dialog says so and frames the pasted address; the snippet fits at 640, 800 and 1024 px', async () => {
  // a published address the page cannot guess: this server under another name
  const publishedAt = `${site.origin.replace('127.0.0.1', 'localhost')}/`;
  const { note, refused, hints, size, html, cell } = await snippets('#pos=1', publishedAt);
  assert.equal(size[0], 'Width “wide” is not a size; allowed: pixels (800) or a percentage (100%). The snippets use 100%.');
  assert.ok(size[1].includes(' width="100%" '), size[1]);
  assert.equal(size[2], '', 'a good width clears the line');
  assert.ok(note, 'the dialog says the page is local');
  assert.equal(refused, 'true', 'text that is no address is marked');
  assert.deepEqual(hints, [
    'Until an address is given, the snippets below use this page\'s own, which works only on this computer.',
    '“not an address” is not a web address; allowed: one starting with http:// or https://, such as https://school.example/poslab/',
    `The snippets below open the lab at ${publishedAt}`], 'the line under the field says why');
  assert.ok(html.includes(` src="${publishedAt}?embed=1&amp;hide=intro#`), html);
  assert.ok(cell.includes(`IFrame("${publishedAt}?embed=1&hide=intro#`), cell);
  // The course page: the snippet as pasted, between two paragraphs.
  const course = await serveDir(SITE, { pages: { '/course.html': `<!doctype html><meta charset="utf-8"><body style="margin:0">` +
    `<p>Before the lab.</p>${html}<p id="after">After the lab.</p></body>` } });
  try {
    for (const width of [640, 800, 1024]) {
      const page = await site.context.newPage();
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${course.origin}/course.html`);
      const frame = await (await page.waitForSelector('iframe[data-poslab]')).contentFrame();
      await frame.waitForSelector('html[data-ready="true"]');
      await frame.waitForSelector('#chart');
      await page.waitForFunction(() => document.querySelector('iframe').style.height !== '', null, { timeout: 10000 });
      await page.waitForTimeout(600); // the chart's last layout, and the message after it
      const gap = await innerScroll(frame);
      assert.ok(gap <= 0, `at ${width} px the frame scrolls by ${gap} px`);
      assert.deepEqual(await verdictColumn(frame), ['False', 'False', 'False', 'False']);
      if (width === 800) await page.screenshot({ path: path.join(ARTIFACTS, 'embed-course-800.png'), fullPage: true });
      await page.close();
    }
  } finally {
    course.server.close();
  }
});

test('the Jupyter cell through IPython: its HTML frames the lab, which shows its verdicts', async () => {
  const publishedAt = `${site.origin}/`;
  const { cell } = await snippets('#a=the+cat+sat&b=sat+the+cat&pos=1', publishedAt);
  // Debian's IPython runs the cell; _repr_html_ is what a notebook shows.
  const html = execFileSync('/usr/bin/python3', ['-c', [
    'import sys',
    'lines = sys.stdin.read().split("\\n")',
    'ns = {}',
    'exec(lines[0], ns)',
    'print(eval(lines[1], ns)._repr_html_())',
  ].join('\n')], { input: cell, encoding: 'utf8' });
  assert.match(html, /<iframe/);
  const notebook = await serveDir(SITE, { pages: { '/notebook.html': `<!doctype html><meta charset="utf-8"><body>${html}</body>` } });
  try {
    const page = await site.context.newPage();
    await page.setViewportSize({ width: 1024, height: 900 });
    await page.goto(`${notebook.origin}/notebook.html`);
    const frame = await (await page.waitForSelector('iframe')).contentFrame();
    await frame.waitForSelector('html[data-ready="true"]');
    assert.equal(frame.url().split('#')[0], `${publishedAt}?embed=1&hide=intro`);
    assert.equal(await frame.inputValue('#sentence-a'), 'the cat sat');
    assert.deepEqual(await verdictColumn(frame), ['False', 'False', 'False', 'False']);
    await page.close();
  } finally {
    notebook.server.close();
  }
});

test('a pasted published address is kept with the view: the page\'s own address carries ?site=, and a reload there fills it in', async () => {
  const publishedAt = 'https://course.example/poslab/';
  const { page, done } = await openPage(site.context, site.origin, '/?hide=intro#pos=1');
  await page.click('#embed-open');
  await page.waitForSelector('#embed-dialog[open]');
  await page.fill('#embed-base', publishedAt);
  const url = new URL(await page.evaluate(() => location.href));
  assert.equal(url.searchParams.get('site'), publishedAt, url.href);
  assert.equal(url.searchParams.get('hide'), 'intro', 'the rest of the view stays');
  assert.match(url.hash, /pos=1/);
  // a fresh browser profile (nothing in localStorage) opening that address
  const other = await site.browser.newContext();
  try {
    const again = await other.newPage();
    await again.goto(url.href);
    await again.waitForSelector('html[data-ready="true"]');
    await again.click('#embed-open');
    await again.waitForSelector('#embed-dialog[open]');
    assert.equal(await again.inputValue('#embed-base'), publishedAt);
    assert.ok((await again.inputValue('#embed-code')).includes(` src="${publishedAt}?embed=1&amp;hide=intro#`));
  } finally {
    await other.close();
  }
  await done();
});

// Where the dialog opens on a phone: from this computer with no published
// address, on that address's field, the dialog at its top (the note on why
// is above it); with one, the HTML selected for copying, the dialog still
// at its top: focusing the HTML scrolled the dialog two screens down, past
// its title and the note.
test('at 375 px the Embed dialog opens at its top: on the address field until one is given, then with the HTML selected', async () => {
  const context = await site.browser.newContext(); // (nothing remembered from the tests above)
  try {
    const { page, done } = await openPage(context, site.origin, '/#pos=1', { width: 375, height: 740 });
    const opened = async () => {
      await page.click('#embed-open');
      await page.waitForSelector('#embed-dialog[open]');
      return page.evaluate(() => {
        const code = document.getElementById('embed-code');
        const inView = (id) => { const r = document.getElementById(id).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; };
        return { focus: document.activeElement.id, scrollTop: document.getElementById('embed-dialog').scrollTop,
          title: inView('embed-title'), note: inView('embed-local'),
          selected: code.selectionStart === 0 && code.selectionEnd === code.value.length };
      });
    };
    const first = await opened();
    assert.deepEqual({ ...first, selected: undefined }, { focus: 'embed-base', scrollTop: 0, title: true, note: true, selected: undefined });
    await page.fill('#embed-base', 'https://course.example/poslab/');
    await page.click('#embed-close');
    assert.deepEqual(await opened(), { focus: 'embed-code', scrollTop: 0, title: true, note: true, selected: true });
    await done();
  } finally {
    await context.close();
  }
});
