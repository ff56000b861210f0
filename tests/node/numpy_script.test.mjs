// "Copy as NumPy": the generated scripts run under Debian's NumPy and must
// print what the lab computes and the CLI prints, for a spread of states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { createLab } = await import(`${root}build/site/poslab.js`);
const { numpyScript } = await import(`${root}web/teach/numpy_script.js`);
const CLI = `${root}build/native/poslab`;
const lab = await createLab();

const STATES = [
  { scheme: 'none' },
  {},
  { scale: 0.001 },
  { scheme: 'sinusoidal' },
  { scheme: 'sinusoidal', scale: 3e-4, causal: true },
  { scheme: 'rope' },
  { scheme: 'rope', scale: 0.25, dim: 7 },
  { scheme: 'none', causal: true },
  { sentence_a: 'the cat saw the dog', sentence_b: 'the dog saw the cat', scheme: 'random', dim: 5, seed: 7 },
  { sentence_a: 'dog bites man', sentence_b: 'man bites cat', scheme: 'none' },
  { sentence_a: 'a b c d', sentence_b: 'd a', scheme: 'random', scale: 2, seed: 4294967295 },
  { sentence_a: 'café "quoted" back\\slash 日本', sentence_b: '日本 back\\slash café "quoted"', scheme: 'none', dim: 3 },
  { scheme: 'none', rtol: 0, atol: 0, dim: 1 },
  { scheme: 'rope', dim: 33, seed: 123456789, causal: true },
];

// One CLI/script line: word, indices, verdict and the two figures.
function parse(text) {
  return text.split('\n').filter((l) => l.includes('np.allclose(')).map((l) => {
    const m = l.match(/^(\S+)\s+np\.allclose\((.*?)\) = (True|False)\s+max\|diff\| (\S+)\s+cosine distance (\S+)$/);
    assert.ok(m, `unexpected line: ${l}`);
    return { word: m[1], args: m[2], allclose: m[3] === 'True', maxAbsDiff: Number(m[4]), cosine: Number(m[5]) };
  });
}

const maxAbs = (m) => Math.max(...m.flat().map(Math.abs));

for (const state of STATES) {
  test(`Copy as NumPy reproduces ${JSON.stringify(state)}`, () => {
    const result = lab.run({ ...state, full: true });
    const script = numpyScript(result.config, { link: 'http://localhost:8000/#example' });
    const printed = execFileSync('/usr/bin/python3', ['-'], { input: script, encoding: 'utf8' });
    const args = ['--a', result.config.sentence_a.join(' '), '--b', result.config.sentence_b.join(' '),
      '--dim', String(result.config.dim), '--seed', String(result.config.seed), '--scheme', result.config.scheme,
      '--scale', String(result.config.scale), '--rtol', String(result.config.rtol), '--atol', String(result.config.atol),
      ...(result.config.causal ? ['--causal'] : [])];
    const cli = parse(execFileSync(CLI, args, { encoding: 'utf8' }));
    const lines = parse(printed);
    const paired = result.pairs.filter((p) => p.index_b !== null);
    assert.equal(lines.length, paired.length + 1, printed);
    assert.deepEqual(lines.map((l) => [l.word, l.args]), cli.map((l) => [l.word, l.args]));
    if (result.pairs.length > paired.length) assert.match(printed, /has no partner/);

    // 4 significant digits, or both at rounding level for these outputs
    const magnitude = Math.max(maxAbs(result.output_a), maxAbs(result.output_b));
    const same = (x, y) => Math.abs(x - y) <= 6e-4 * Math.abs(y) || Math.abs(x - y) <= 1e-12 * Math.max(1, magnitude);
    [...paired, result.mean].forEach((want, k) => {
      const got = lines[k];
      assert.ok(same(got.maxAbsDiff, want.max_abs_diff), `${got.word} max|diff| ${got.maxAbsDiff} vs ${want.max_abs_diff}`);
      assert.ok(same(got.cosine, want.cosine_distance), `${got.word} cosine ${got.cosine} vs ${want.cosine_distance}`);
      // at rounding level (max|diff| ~ 1e-16) with zero tolerances either answer is right
      const rounding = want.max_abs_diff <= 1e-12 * Math.max(1, magnitude) && result.config.atol === 0;
      if (rounding) return;
      assert.equal(got.allclose, cli[k].allclose, `${got.word}: NumPy and the CLI disagree on allclose`);
      assert.equal(got.allclose, want.allclose, `${got.word}: NumPy and the lab disagree on allclose`);
    });
  });
}
