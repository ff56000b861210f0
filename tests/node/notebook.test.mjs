// The Embed dialog's Jupyter cell (web/views/embed_dialog.js jupyterSnippet), run
// by Python itself: every link, whatever characters its hash holds, reaches
// IPython's IFrame unchanged, with the dialog's width and height. The stub
// of IPython.display.IFrame below has IPython's signature,
// IFrame(src, width, height, extras=None, **kwargs), and prints what it got.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const { jupyterSnippet } = await import(`${WEB}views/embed_dialog.js`);

const stub = mkdtempSync(path.join(tmpdir(), 'poslab-ipython-'));
after(() => rmSync(stub, { recursive: true, force: true }));
mkdirSync(path.join(stub, 'IPython'));
writeFileSync(path.join(stub, 'IPython', '__init__.py'), '');
writeFileSync(path.join(stub, 'IPython', 'display.py'), [
  'import json',
  'class IFrame:',
  '    def __init__(self, src, width, height, extras=None, **kwargs):',
  '        print(json.dumps({"src": src, "width": width, "height": height, "extras": extras}))',
  '',
].join('\n'));

// The frame may write to the clipboard (the lab's Copy buttons), as the
// iframe snippet allows.
const CLIPBOARD = 'allow="clipboard-write"';

// What the cell hands IFrame when Python runs it.
function runCell(cell) {
  const run = spawnSync('/usr/bin/python3', ['-c', cell], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: stub } });
  assert.equal(run.status, 0, `the cell failed:\n${cell}\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

test('a Jupyter cell shows the view\'s link in an IFrame, any character in it intact', () => {
  const links = [
    'https://lab.example/?embed=1&hide=intro#a=dog+bites+man&b=man+bites+dog&pos=1&scheme=random&scale=0.001',
    'http://localhost:8000/?embed=1#a=%22quoted%22+\'single\'&b=back\\slash',
    'file:///home/teacher/poslab.html?embed=1#a=caf%C3%A9+na\u00efve+\u{1F600}&b=\u2028line"""end',
    'https://x/#a=\'\'\'triple\'\'\'&b=%5Cn\\n\\u0041',
  ];
  for (const src of links) {
    assert.deepEqual(runCell(jupyterSnippet(src, '100%', '1200')), { src, width: '100%', height: 1200, extras: [CLIPBOARD] }, src);
  }
  assert.deepEqual(runCell(jupyterSnippet(links[0], '800', '640')), { src: links[0], width: 800, height: 640, extras: [CLIPBOARD] });
  assert.match(jupyterSnippet(links[0], '100%', '1200'), /^from IPython\.display import IFrame\nIFrame\("https:\/\/lab/);
});
