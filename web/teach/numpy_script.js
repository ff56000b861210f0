// numpy_script.js - "Copy as NumPy": a short, self-contained Python script
// that reproduces a lab result with NumPy alone, in the course module's own
// style (same seed, same draw order, same formulas), and prints the same
// lines as the poslab CLI. No DOM here: the page and the tests share it.
import { SCHEMES } from './schemes.js';
import { SCHEME_NUMPY } from './scheme_numpy.js';
import { coreOf } from '../app/models.js';

// Python literals: JSON strings and JS's shortest round-trip numbers read
// back identically in Python.
const py = (x) => (typeof x === 'string' ? JSON.stringify(x) : String(x));
const pyList = (words) => `[${words.map(py).join(', ')}]`;

// A scheme's teaching entry; a name the table lacks is an error here
// rather than "undefined" in the script.
function entry(scheme) {
  if (!SCHEMES[scheme]) throw new Error(`no teaching entry for the scheme "${scheme}" (web/teach/schemes.js)`);
  return SCHEMES[scheme];
}

// Each scheme's lines are its entry's in the teaching table's NumPy part
// (scheme_numpy.js).
function numpyOf(scheme) {
  if (!SCHEME_NUMPY[scheme]) throw new Error(`no NumPy lines for the scheme "${scheme}" (web/teach/scheme_numpy.js)`);
  return SCHEME_NUMPY[scheme];
}
const lines = (scheme, part) => numpyOf(scheme)[part] ?? [];
// A relative scheme works inside attention, so self_attention needs the positions.
const inside = (scheme) => Boolean(numpyOf(scheme).head);

// The lines that turn q, k, v into one head's output, after `scores = `
// (`width`: the head's width; `h`: its index, as Python text).
function headLines(scheme, causal, { q, k, v, width, h }) {
  const around = inside(scheme) ? numpyOf(scheme).head({ q, k, h }) : { before: [], after: [] };
  return [
    ...around.before,
    `scores = ${q} @ ${k}.T / np.sqrt(${width})`,
    ...around.after,
    ...(causal ? ['scores[np.triu_indices(len(X), k=1)] = -np.inf  # causal mask: no peeking ahead'] : []),
  ];
}

// One head: the module's function. Several: each head attends with its own
// d/heads columns of Q, K and V, and their outputs sit side by side.
function attentionLines(scheme, causal, heads) {
  const args = inside(scheme) ? 'X, Wq, Wk, Wv, p' : 'X, Wq, Wk, Wv';
  const indent = (n) => (line) => ' '.repeat(n) + line;
  if (heads === 1) {
    return [
      `def self_attention(${args}):`,
      '    Q, K, V = X @ Wq, X @ Wk, X @ Wv',
      ...headLines(scheme, causal, { q: 'Q', k: 'K', v: 'V', width: 'Q.shape[-1]', h: '0' }).map(indent(4)),
      '    return softmax(scores) @ V',
      '',
    ];
  }
  return [
    `def self_attention(${args}):`,
    '    Q, K, V = X @ Wq, X @ Wk, X @ Wv',
    '    w = d // heads',
    '    out = []',
    '    for h in range(heads):  # head h: columns h*w to (h+1)*w - 1',
    '        q, k, v = (M[:, h * w:(h + 1) * w] for M in (Q, K, V))',
    ...headLines(scheme, causal, { q: 'q', k: 'k', v: 'v', width: 'w', h: 'h' }).map(indent(8)),
    '        out.append(softmax(scores) @ v)',
    '    return np.concatenate(out, axis=1)  # no output projection, as in the module',
    '',
  ];
}

// The lines after X1 and X2 are drawn: an absolute scheme adds its signal,
// a relative one says it works inside `where`.
function inputLines(scheme, where) {
  const e = entry(scheme);
  return inside(scheme) ? [`# ${e.label} leaves X alone and ${numpyOf(scheme).inside} inside ${where}`] : lines(scheme, 'input');
}

// The lines that compare out_a with out_b and print the CLI's verdicts
// (`width`: the longest word of sentence A, at least 4).
function comparisonLines(width) {
  return [
    '# the k-th occurrence of a word in A is compared with its k-th occurrence in B',
    'taken = set()',
    'for i, w in enumerate(sentence_a):',
    '    j = next((j for j, v in enumerate(sentence_b) if v == w and j not in taken), None)',
    `    label = w.ljust(${width + 2})`,
    '    if j is None:',
    '        print(f"{label}out_a[{i}] has no partner: sentence B has this word fewer times")',
    '        continue',
    '    taken.add(j)',
    '    a, b = out_a[i], out_b[j]',
    '    close = np.allclose(a, b, rtol=rtol, atol=atol)',
    '    cos = 1 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))',
    '    print(f"{label}np.allclose(out_a[{i}], out_b[{j}]) = {close!s:5}   '
      + 'max|diff| {np.max(np.abs(a - b)):.4g}   cosine distance {cos:.4g}")',
    '',
    'a, b = out_a.mean(axis=0), out_b.mean(axis=0)',
    'close = np.allclose(a, b, rtol=rtol, atol=atol)',
    'cos = 1 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))',
    `print(f"{'mean'.ljust(${width + 2})}np.allclose(out_a.mean(0), out_b.mean(0)) = {close!s:5}   `
      + 'max|diff| {np.max(np.abs(a - b)):.4g}   cosine distance {cos:.4g}")',
    '',
  ];
}

// The script's first lines, the same for both models: what it is, the
// view's link, the imports and softmax.
function prelude(title, link, scheme) {
  return [
    title,
    ...(link ? [`# The same view in the lab: ${link}`] : []),
    ...lines(scheme, 'imports'),
    'import numpy as np',
    '',
    'def softmax(x):',
    '    e = np.exp(x - np.max(x, axis=-1, keepdims=True))',
    '    return e / e.sum(axis=-1, keepdims=True)',
    '',
  ];
}

// Both models' settings, with `more` (the model's own) before the
// tolerances, and each word's position.
function settingLines(config, more = []) {
  const { sentence_a: a, sentence_b: b, dim, seed, scheme, scale, rtol, atol } = config;
  const { offset_a: offsetA = 0, offset_b: offsetB = 0, heads = 1 } = config;
  return [
    `sentence_a = ${pyList(a)}`,
    `sentence_b = ${pyList(b)}`,
    `offset_a, offset_b = ${offsetA}, ${offsetB}  # where each sentence starts`,
    `d, heads, seed, scale = ${dim}, ${heads}, ${seed}, ${py(scale)}`,
    ...more,
    `rtol, atol = ${py(rtol)}, ${py(atol)}`,
    '',
    '# each word\'s position: where its sentence starts, plus its index',
    'pa = offset_a + np.arange(len(sentence_a))',
    'pb = offset_b + np.arange(len(sentence_b))',
    ...lines(scheme, 'settings'),
    '',
  ];
}

// config: the `config` object of a lab result (resolved words and scale).
export function numpyScript(config, { link = '' } = {}) {
  if (coreOf(config).layers) return transformerScript(config, { link });
  const { sentence_a: a, scheme, causal, heads = 1 } = config;
  const width = Math.max(4, ...a.map((w) => [...w].length));
  const call = (X, positions) => `self_attention(${X}, Wq, Wk, Wv${inside(scheme) ? `, ${positions}` : ''})`;
  return [
    ...prelude('# Reproduces a poslab result with NumPy alone.', link, scheme),
    ...lines(scheme, 'define'),
    ...attentionLines(scheme, causal, heads),
    ...settingLines(config),
    '# draw order: one vector per new word (A, then B), then Wq, Wk, Wv',
    'np.random.seed(seed)',
    'vocab = {}',
    'for w in sentence_a + sentence_b:',
    '    if w not in vocab:',
    '        vocab[w] = np.random.randn(d)',
    'Wq, Wk, Wv = (np.random.randn(d, d) for _ in range(3))',
    'X1 = np.array([vocab[w] for w in sentence_a])',
    'X2 = np.array([vocab[w] for w in sentence_b])',
    '',
    ...inputLines(scheme, 'self_attention'),
    '',
    `out_a, out_b = ${call('X1', 'pa')}, ${call('X2', 'pb')}`,
    '',
    ...comparisonLines(width),
  ].join('\n');
}

// The transformer (docs/experiment.md, "Transformer blocks"): GPT-2's
// pre-LayerNorm block with the heads of the head model's script inside,
// the draws at GPT-2's scales, and the residual stream compared after
// every block as the page's per-block strip shows it.
function transformerScript(config, { link }) {
  const { sentence_a: a, scheme, causal, heads = 1, layers, weight_std: sigma } = config;
  const width = Math.max(4, ...a.map((w) => [...w].length));
  const indent = (line) => `        ${line}`;
  return [
    ...prelude('# Reproduces a poslab result with NumPy alone: GPT-2-style transformer blocks.', link, scheme),
    'def layer_norm(x):  # GPT-2\'s, with its gain (1) and shift (0) left out: they start as no-ops',
    '    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)',
    '',
    'def gelu(x):  # the tanh form GPT-2 uses',
    '    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))',
    '',
    ...lines(scheme, 'define'),
    'def attention(X, Wq, Wk, Wv, p):  # the heads side by side, each with d/heads columns',
    '    Q, K, V = X @ Wq, X @ Wk, X @ Wv',
    '    w = d // heads',
    '    out = []',
    '    for h in range(heads):',
    '        q, k, v = (M[:, h * w:(h + 1) * w] for M in (Q, K, V))',
    ...headLines(scheme, causal, { q: 'q', k: 'k', v: 'v', width: 'w', h: 'h' }).map(indent),
    '        out.append(softmax(scores) @ v)',
    '    return np.concatenate(out, axis=1)',
    '',
    'def block(h, Wq, Wk, Wv, Wo, W1, W2, p):  # pre-LayerNorm: each branch reads LN(h) and adds to h',
    '    h = h + attention(layer_norm(h), Wq, Wk, Wv, p) @ Wo  # Wo mixes the heads',
    '    return h + gelu(layer_norm(h) @ W1) @ W2              # the MLP, d -> 4d -> d',
    '',
    'def transformer(X, p):  # the output, and the residual stream after each block',
    '    stream = [X]',
    '    for W in blocks:',
    '        stream.append(block(stream[-1], *W, p))',
    '    return layer_norm(stream[-1]), stream[1:]',
    '',
    ...settingLines(config, [`layers, sigma = ${layers}, ${py(sigma)}  # blocks, and the weights' standard deviation (GPT-2: 0.02)`]),
    '# draw order: one vector per new word (A, then B), then each block\'s six matrices',
    'np.random.seed(seed)',
    'vocab = {}',
    'for w in sentence_a + sentence_b:',
    '    if w not in vocab:',
    '        vocab[w] = np.random.randn(d)',
    'blocks = []',
    'for _ in range(layers):  # GPT-2\'s initialisation: what writes into the stream is shrunk by sqrt(2L)',
    '    Wq = np.random.randn(d, d) * sigma',
    '    Wk = np.random.randn(d, d) * sigma',
    '    Wv = np.random.randn(d, d) * sigma',
    '    Wo = np.random.randn(d, d) * sigma / np.sqrt(2 * layers)',
    '    W1 = np.random.randn(d, 4 * d) * sigma',
    '    W2 = np.random.randn(4 * d, d) * sigma / np.sqrt(2 * layers)',
    '    blocks.append((Wq, Wk, Wv, Wo, W1, W2))',
    'X1 = np.array([vocab[w] for w in sentence_a])',
    'X2 = np.array([vocab[w] for w in sentence_b])',
    '',
    ...inputLines(scheme, "every block's attention"),
    ...(entry(scheme).kind === 'absolute' ? ['# (once, before the first block, as GPT-2 adds its position table)'] : []),
    '',
    '(out_a, stream_a), (out_b, stream_b) = transformer(X1, pa), transformer(X2, pb)',
    '',
    ...comparisonLines(width),
    '# where the sentences part: the residual stream after each block, compared like the outputs',
    'for n, (ha, hb) in enumerate(zip(stream_a, stream_b), start=1):',
    '    taken, close_words = set(), []',
    '    for i, w in enumerate(sentence_a):',
    '        j = next((j for j, v in enumerate(sentence_b) if v == w and j not in taken), None)',
    '        if j is not None:',
    '            taken.add(j)',
    '            close_words.append(np.allclose(ha[i], hb[j], rtol=rtol, atol=atol))',
    '    a, b = ha.mean(axis=0), hb.mean(axis=0)',
    '    close = np.allclose(a, b, rtol=rtol, atol=atol)',
    '    cos = 1 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))',
    '    print(f"after block {n}: {sum(close_words)} of {len(close_words)} words allclose, "',
    '          f"mean allclose {close!s:5}   max|diff| {np.max(np.abs(a - b)):.4g}   cosine distance {cos:.4g}")',
    '',
  ].join('\n');
}
