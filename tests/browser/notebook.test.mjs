// The Embed dialog's third form, the Jupyter cell: it frames the same view
// as the HTML snippet, at the same size, and that view opens as the teacher
// saw it (tests/node/notebook.test.mjs runs such cells under Python).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ARTIFACTS, openPage, verdictColumn, useSite } from './harness.mjs';

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
  const [, literal, width, height] = /^from IPython\.display import IFrame\nIFrame\(("(?:[^"\\]|\\.)*"), width=(.*), height=(.*)\)$/.exec(cell);
  assert.equal(JSON.parse(literal), iframeSrc);
  assert.deepEqual([width, height], ['"100%"', '900']);
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
