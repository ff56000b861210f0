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
  // where the sentences start, ALiBi, several heads
  { sentence_a: 'the cat chased the mouse', sentence_b: 'the cat chased the mouse', dim: 16, offset_b: 5, scheme: 'random' },
  { sentence_a: 'the cat chased the mouse', sentence_b: 'the cat chased the mouse', dim: 16, offset_b: 5, scheme: 'sinusoidal' },
  { sentence_a: 'the cat chased the mouse', sentence_b: 'the cat chased the mouse', dim: 16, offset_b: 5, scheme: 'rope' },
  { scheme: 'random', offset_a: 1024, offset_b: 3, scale: 0.1 },
  { scheme: 'sinusoidal', offset_a: 700, offset_b: 1024, dim: 7 },
  { scheme: 'alibi' },
  { scheme: 'alibi', scale: 300 },
  { sentence_a: 'the cat chased the mouse', sentence_b: 'the mouse chased the cat', dim: 16, scheme: 'alibi' },
  { scheme: 'alibi', heads: 3, causal: true, offset_b: 9, scale: 40 },
  // (a reversal hides ALiBi's bias from the comparison: these pairs are not reversals)
  { sentence_a: 'the cat chased the mouse', sentence_b: 'the mouse chased the cat', scheme: 'alibi', dim: 40, heads: 5, scale: 60 },
  { scheme: 'alibi', dim: 14, heads: 7, scale: 100, seed: 3, causal: true },
  { sentence_a: 'she left before he ate', sentence_b: 'he left before she ate', scheme: 'alibi', dim: 16, heads: 8, scale: 200 },
  { scheme: 'rope', dim: 12, heads: 4, offset_a: 2, offset_b: 11 },
  { scheme: 'rope', dim: 15, heads: 3, causal: true },
  { scheme: 'random', dim: 8, heads: 2 },
  { scheme: 'none', dim: 6, heads: 6, causal: true },
  // the transformer: GPT-2 blocks, with the scheme inside or before them
  { model: 'transformer', layers: 4, heads: 2, dim: 16, scheme: 'none' },
  { model: 'transformer', layers: 4, heads: 2, dim: 16, scheme: 'none', causal: true },
  { model: 'transformer', layers: 4, heads: 2, dim: 16, scheme: 'alibi' },
  { model: 'transformer', layers: 1, scheme: 'random' },
  { model: 'transformer', layers: 12, heads: 8, dim: 32, scheme: 'rope', weight_std: 1,
    sentence_a: 'the cat chased the mouse', sentence_b: 'the mouse chased the cat' },
  { model: 'transformer', layers: 3, heads: 3, dim: 12, scheme: 'sinusoidal', weight_std: 0.3, causal: true, offset_b: 4 },
  { model: 'transformer', layers: 2, heads: 5, dim: 20, scheme: 'alibi', weight_std: 2, scale: 3, causal: true },
  { model: 'transformer', layers: 6, heads: 4, dim: 8, scheme: 'rope', weight_std: 10, offset_a: 3, seed: 11 },
  { model: 'transformer', layers: 2, sentence_a: 'a b c d', sentence_b: 'd a', scheme: 'random', scale: 2, weight_std: 0.5 },
  { model: 'transformer', layers: 5, heads: 7, dim: 21, scheme: 'random', scale: 0.01, weight_std: 0.05, seed: 7,
    sentence_a: 'she left before he ate', sentence_b: 'he left before she ate' },
];

// One CLI/script line: word, indices, verdict and the two figures.
function parse(text) {
  return text.split('\n').filter((l) => l.includes('np.allclose(')).map((l) => {
    const m = l.match(/^(\S+)\s+np\.allclose\((.*?)\) = (True|False)\s+max\|diff\| (\S+)\s+cosine distance (\S+)$/);
    assert.ok(m, `unexpected line: ${l}`);
    return { word: m[1], args: m[2], allclose: m[3] === 'True', maxAbsDiff: Number(m[4]), cosine: Number(m[5]) };
  });
}

// The transformer's lines after the verdicts: the residual stream after each block.
function parseBlocks(text) {
  return text.split('\n').filter((l) => l.startsWith('after block')).map((l) => {
    const m = l.match(/^after block (\d+): (\d+) of (\d+) words allclose, mean allclose (True|False)\s+max\|diff\| (\S+)\s+cosine distance (\S+)$/);
    assert.ok(m, `unexpected line: ${l}`);
    return { block: Number(m[1]), close: Number(m[2]), paired: Number(m[3]), allclose: m[4] === 'True',
             maxAbsDiff: Number(m[5]), cosine: Number(m[6]) };
  });
}

// A scheme new to the core has a state here, for every model it applies to.
test('the states cover every scheme of the core on every model it applies to', async () => {
  const { appliesTo } = await import(`${root}web/teach/schemes.js`);
  const models = lab.options.options.find((o) => o.name === 'model').values;
  for (const { name } of lab.options.schemes) {
    for (const model of models.filter((m) => appliesTo(name, m))) {
      assert.ok(STATES.some((s) => (s.scheme ?? 'random') === name && (s.model ?? 'head') === model),
        `no NumPy case for the scheme ${name} with the model ${model}`);
    }
  }
});

const maxAbs = (m) => Math.max(...m.flat().map(Math.abs));

for (const state of STATES) {
  test(`Copy as NumPy reproduces ${JSON.stringify(state)}`, () => {
    const result = lab.run({ ...state, full: true });
    const script = numpyScript(result.config, { link: 'http://localhost:8000/#example' });
    const printed = execFileSync('/usr/bin/python3', ['-'], { input: script, encoding: 'utf8' });
    const args = ['--a', result.config.sentence_a.join(' '), '--b', result.config.sentence_b.join(' '),
      '--dim', String(result.config.dim), '--seed', String(result.config.seed), '--scheme', result.config.scheme,
      '--scale', String(result.config.scale), '--rtol', String(result.config.rtol), '--atol', String(result.config.atol),
      '--offset-a', String(result.config.offset_a), '--offset-b', String(result.config.offset_b), '--heads', String(result.config.heads),
      '--model', result.config.model, '--layers', String(result.config.layers), '--weight-std', String(result.config.weight_std),
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

    // the transformer's stream after each block, as the page's per-block strip shows it
    const blocks = parseBlocks(printed);
    assert.equal(blocks.length, result.config.model === 'transformer' ? result.config.layers : 0, printed);
    blocks.forEach((got, l) => {
      const want = result.layers[l];
      const pairs = want.pairs.filter(Boolean);
      assert.equal(got.block, l + 1);
      assert.equal(got.paired, pairs.length);
      assert.equal(got.close, pairs.filter((p) => p.allclose).length, `block ${l + 1}: words allclose`);
      assert.equal(got.allclose, want.mean.allclose, `block ${l + 1}: mean allclose`);
      assert.ok(same(got.maxAbsDiff, want.mean.max_abs_diff), `block ${l + 1} max|diff| ${got.maxAbsDiff} vs ${want.mean.max_abs_diff}`);
      assert.ok(same(got.cosine, want.mean.cosine_distance), `block ${l + 1} cosine ${got.cosine} vs ${want.mean.cosine_distance}`);
    });
  });
}
