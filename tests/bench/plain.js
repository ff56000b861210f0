// plain.js - the experiment as a web developer would write it without
// WebAssembly: arrays of arrays, textbook loops, and a sweep that rebuilds
// X + s*P and redoes every projection at every scale (the module's NumPy code
// line by line). Only what the benchmark needs: scheme `random`, no mask.
// It reproduces the numbers of docs/experiment.md, so
// bench_plain.mjs can check it against the WebAssembly core.

// NumPy's legacy RandomState: MT19937 seeded with init_genrand, 53-bit
// doubles, and the polar Gaussian that returns the second value first.
export class RandomState {
  constructor(seed) {
    this.mt = new Uint32Array(624);
    this.mt[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = this.mt[i - 1];
      this.mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
    this.index = 624;
    this.gauss = null;
  }

  uint32() {
    const mt = this.mt;
    if (this.index >= 624) {
      for (let i = 0; i < 624; i++) {
        const y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7fffffff);
        mt[i] = mt[(i + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  random() {
    const a = this.uint32() >>> 5, b = this.uint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  randn1() {
    if (this.gauss !== null) {
      const g = this.gauss;
      this.gauss = null;
      return g;
    }
    let x1, x2, r2;
    do {
      x1 = 2 * this.random() - 1;
      x2 = 2 * this.random() - 1;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1 || r2 === 0);
    const f = Math.sqrt(-2 * Math.log(r2) / r2);
    this.gauss = f * x1;
    return f * x2;
  }

  // randn(rows, cols) as an array of rows
  randn(rows, cols) {
    const m = [];
    for (let i = 0; i < rows; i++) {
      const row = [];
      for (let j = 0; j < cols; j++) row.push(this.randn1());
      m.push(row);
    }
    return m;
  }
}

function matmul(a, b) {
  const n = a.length, k = b.length, m = b[0].length;
  const c = [];
  for (let i = 0; i < n; i++) {
    const row = [];
    for (let j = 0; j < m; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += a[i][p] * b[p][j];
      row.push(sum);
    }
    c.push(row);
  }
  return c;
}

function transpose(a) {
  const t = [];
  for (let j = 0; j < a[0].length; j++) t.push(a.map((row) => row[j]));
  return t;
}

function softmaxRows(x) {
  return x.map((row) => {
    const max = Math.max(...row);
    const e = row.map((v) => Math.exp(v - max));
    const sum = e.reduce((s, v) => s + v, 0);
    return e.map((v) => v / sum);
  });
}

function selfAttention(x, wq, wk, wv) {
  const q = matmul(x, wq), k = matmul(x, wk), v = matmul(x, wv);
  const norm = Math.sqrt(q[0].length);
  const scores = matmul(q, transpose(k)).map((row) => row.map((s) => s / norm));
  return matmul(softmaxRows(scores), v);
}

const addScaled = (x, s, p) => x.map((row, i) => row.map((v, j) => v + s * p[i][j]));

function columnMean(x) {
  const mean = new Array(x[0].length).fill(0);
  for (const row of x) row.forEach((v, j) => { mean[j] += v; });
  return mean.map((v) => v / x.length);
}

function allclose(a, b, rtol, atol) {
  return a.every((v, i) => Math.abs(v - b[i]) <= atol + rtol * Math.abs(b[i]));
}

function cosineDistance(a, b) {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return 1 - ab / (Math.sqrt(aa) * Math.sqrt(bb));
}

const maxAbsDiff = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));

// The run and its sweep; returns the CLI's JSON shape (pairs, mean, sweep).
export function runExperiment({ sentence_a, sentence_b, dim: d, seed, scale, sweep = null,
                                rtol = 1e-5, atol = 1e-8 }) {
  const a = sentence_a.split(/[ \t\n\r\f\v]+/).filter(Boolean);
  const b = sentence_b.split(/[ \t\n\r\f\v]+/).filter(Boolean);
  const rng = new RandomState(seed);
  const vocab = new Map();
  for (const w of [...a, ...b]) if (!vocab.has(w)) vocab.set(w, rng.randn(1, d)[0]);
  const wq = rng.randn(d, d), wk = rng.randn(d, d), wv = rng.randn(d, d);
  const pos = rng.randn(Math.max(a.length, b.length), d);
  const xa = a.map((w) => vocab.get(w)), xb = b.map((w) => vocab.get(w));
  const pa = pos.slice(0, a.length), pb = pos.slice(0, b.length);

  // the k-th occurrence of a word in A pairs with its k-th occurrence in B
  const used = new Array(b.length).fill(false);
  const partner = a.map((w) => {
    const j = b.findIndex((v, k) => !used[k] && v === w);
    if (j >= 0) used[j] = true;
    return j;
  });

  const outputs = (s) => [selfAttention(addScaled(xa, s, pa), wq, wk, wv),
                          selfAttention(addScaled(xb, s, pb), wq, wk, wv)];
  const [outA, outB] = outputs(scale);
  const compare = (u, v) => ({ allclose: allclose(u, v, rtol, atol), max_abs_diff: maxAbsDiff(u, v),
                               cosine_distance: cosineDistance(u, v) });
  const result = {
    pairs: a.map((w, i) => (partner[i] < 0 ? { word: w, index_a: i, index_b: null }
      : { word: w, index_a: i, index_b: partner[i], ...compare(outA[i], outB[partner[i]]) })),
    mean: compare(columnMean(outA), columnMean(outB)),
  };
  if (sweep) {
    const { lo, hi, count } = sweep;
    const l0 = Math.log10(lo), l1 = Math.log10(hi);
    const scales = [], mean = [], pairs = a.map(() => []);
    for (let t = 0; t < count; t++) {
      const s = t === 0 ? lo : t === count - 1 ? hi : 10 ** (l0 + t * ((l1 - l0) / (count - 1)));
      scales.push(s);
      const [sa, sb] = outputs(s);
      a.forEach((w, i) => {
        if (partner[i] < 0) return;
        const u = sa[i], v = sb[partner[i]];
        pairs[i].push({ cosine_distance: cosineDistance(u, v), allclose: allclose(u, v, rtol, atol) });
      });
      const ma = columnMean(sa), mb = columnMean(sb);
      mean.push({ cosine_distance: cosineDistance(ma, mb), allclose: allclose(ma, mb, rtol, atol) });
    }
    result.sweep = { scales, mean, pairs };
  }
  return result;
}
