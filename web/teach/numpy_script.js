// numpy_script.js - "Copy as NumPy": a short, self-contained Python script
// that reproduces a lab result with NumPy alone, in the course module's own
// style (same seed, same draw order, same formulas), and prints the same
// lines as the poslab CLI. No DOM here: the page and the tests share it.

// Python literals: JSON strings and JS's shortest round-trip numbers read
// back identically in Python.
const py = (x) => (typeof x === 'string' ? JSON.stringify(x) : String(x));
const pyList = (words) => `[${words.map(py).join(', ')}]`;

// Per scheme: functions to define up front, and lines that add the
// positional signal once X1 and X2 exist (after Wq, Wk, Wv are drawn).
const SCHEMES = {
  none: {
    define: [],
    apply: ['# no positional information: X1 and X2 hold the same rows in another order'],
  },
  random: {
    define: [],
    apply: [
      "# the module's stand-in positional signal: one random row per position",
      'table = np.random.randn(max(len(sentence_a), len(sentence_b)), d)',
      'X1 = X1 + scale * table[:len(X1)]',
      'X2 = X2 + scale * table[:len(X2)]',
    ],
  },
  sinusoidal: {
    define: [
      'def sinusoidal(n, d):  # Vaswani et al. 2017, section 3.5',
      '    p, j = np.arange(n)[:, None], np.arange(d)[None, :]',
      '    angle = p / np.power(10000.0, 2 * (j // 2) / d)',
      '    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))',
      '',
    ],
    apply: [
      '# sinusoidal encoding times the scale',
      'X1 = X1 + scale * sinusoidal(len(X1), d)',
      'X2 = X2 + scale * sinusoidal(len(X2), d)',
    ],
  },
  rope: {
    define: [
      'def rope(M):  # Su et al. 2021: rotate column pairs by position',
      '    M = M.copy()',
      '    for i in range(d // 2):',
      '        theta = (scale * np.arange(len(M))) * np.power(10000.0, -2 * i / d)',
      '        a, b = M[:, 2 * i].copy(), M[:, 2 * i + 1].copy()',
      '        M[:, 2 * i] = a * np.cos(theta) - b * np.sin(theta)',
      '        M[:, 2 * i + 1] = a * np.sin(theta) + b * np.cos(theta)',
      '    return M',
      '',
    ],
    apply: ['# RoPE leaves X alone and rotates Q and K inside self_attention'],
  },
};

// config: the `config` object of a lab result (resolved words and scale).
export function numpyScript(config, { link = '' } = {}) {
  const { sentence_a: a, sentence_b: b, dim, seed, scheme, scale, causal, rtol, atol } = config;
  const width = Math.max(4, ...a.map((w) => [...w].length));
  return [
    '# Reproduces a poslab result with NumPy alone.',
    ...(link ? [`# The same view in the lab: ${link}`] : []),
    'import numpy as np',
    '',
    'def softmax(x):',
    '    e = np.exp(x - np.max(x, axis=-1, keepdims=True))',
    '    return e / e.sum(axis=-1, keepdims=True)',
    '',
    ...SCHEMES[scheme].define,
    'def self_attention(X, Wq, Wk, Wv):',
    '    Q, K, V = X @ Wq, X @ Wk, X @ Wv',
    ...(scheme === 'rope' ? ['    Q, K = rope(Q), rope(K)'] : []),
    '    scores = Q @ K.T / np.sqrt(Q.shape[-1])',
    ...(causal ? ['    scores[np.triu_indices(len(X), k=1)] = -np.inf  # causal mask: no peeking ahead'] : []),
    '    return softmax(scores) @ V',
    '',
    `sentence_a = ${pyList(a)}`,
    `sentence_b = ${pyList(b)}`,
    `d, seed, scale = ${dim}, ${seed}, ${py(scale)}`,
    `rtol, atol = ${py(rtol)}, ${py(atol)}`,
    '',
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
    ...SCHEMES[scheme].apply,
    '',
    'out_a, out_b = self_attention(X1, Wq, Wk, Wv), self_attention(X2, Wq, Wk, Wv)',
    '',
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
  ].join('\n');
}
