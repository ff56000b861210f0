// why_claims.js - the facts behind "Why each scheme works", each one
// computed from the core (lab.run, lab.sinusoidal, lab.alibiSlope) and
// checked with NumPy's allclose rule at the page's tolerances, so that the
// panel states only what the numbers show, for any d, seed or sentence.
// No DOM here.
//
//   sinusoidal  the dot products PE(p)·PE(q) for p, q < SPAN and how far
//               each diagonal strays from constant; PE(p + k) against R_k PE(p)
//               with R_k built from PE(k) alone
//   rope        the shift test: sentence A as both sentences, B starting
//               SHIFT positions later, scores compared head by head, word by
//               word; the same test with the absolute schemes as contrast
//   alibi       the bias one head adds (scores at scale s minus at scale 0),
//               against -s·m·|i - j|, and against itself read backwards;
//               sentence A's outputs against those of A reversed
//   random/none the shift test only: nothing else to explain
//
// The panel runs these on a lab of its own (createOwnLabClaims).

import { wordsOf } from '../app/state.js';

// Positions 0 .. SPAN-1 in the sinusoidal heatmap.
export const SPAN = 16;
// How many positions later sentence B starts in the shift test, and the
// shift k of the sinusoidal rotation (the same k, so the two panels agree).
export const SHIFT = 5;
// The absolute schemes the RoPE panel contrasts with.
export const CONTRAST = ['random', 'sinusoidal'];

// np.isclose for one pair; b is the reference, as in NumPy. null (a
// masked score) only matches null.
export function isclose(a, b, rtol, atol) {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= atol + rtol * Math.abs(b);
}

// allclose over matching entries of two nested arrays of the same shape,
// and the largest |a - b| among entries both have.
export function compare(a, b, rtol, atol) {
  let close = true;
  let maxDiff = 0;
  const walk = (x, y) => {
    if (Array.isArray(x)) {
      x.forEach((v, k) => walk(v, y[k]));
      return;
    }
    if (!isclose(x, y, rtol, atol)) close = false;
    if (x !== null && y !== null) maxDiff = Math.max(maxDiff, Math.abs(x - y));
  };
  walk(a, b);
  return { allclose: close, maxDiff };
}

const dot = (x, y) => x.reduce((sum, v, j) => sum + v * y[j], 0);

// ---- sinusoidal ------------------------------------------------------------

// PE(k)'s pair (2i, 2i+1) is (sin kω_i, cos kω_i), so it is all a rotation
// by k·ω_i needs: (x, y) -> (c·x + s·y, -s·x + c·y) takes
// (sin pω, cos pω) to (sin (p+k)ω, cos (p+k)ω). An odd last column has no
// partner and is left out.
export function rotateBy(peK, row) {
  const out = row.slice(0, row.length - (row.length % 2));
  for (let j = 0; j + 1 < row.length; j += 2) {
    const s = peK[j];
    const c = peK[j + 1];
    out[j] = c * row[j] + s * row[j + 1];
    out[j + 1] = -s * row[j] + c * row[j + 1];
  }
  return out;
}

// The sinusoidal table's two properties at width `dim`.
export function sinusoidalClaims(lab, { dim, rtol, atol }) {
  const pe = lab.sinusoidal(0, SPAN + SHIFT, dim);
  const rows = pe.slice(0, SPAN);
  const dots = rows.map((x) => rows.map((y) => dot(x, y)));
  // Diagonal q - p = δ: every entry against the first one on it.
  let spread = 0;
  let constant = true;
  for (let delta = -(SPAN - 1); delta < SPAN; delta++) {
    const diagonal = [];
    for (let p = Math.max(0, -delta); p < SPAN && p + delta < SPAN; p++) diagonal.push(dots[p][p + delta]);
    spread = Math.max(spread, Math.max(...diagonal) - Math.min(...diagonal));
    if (!diagonal.every((v) => isclose(v, diagonal[0], rtol, atol))) constant = false;
  }
  const flat = dots.flat();
  const pairs = Math.floor(dim / 2);
  let rotation = null;
  if (pairs > 0) {
    const peK = pe[SHIFT];
    const rotated = rows.map((row) => rotateBy(peK, row));
    const shifted = pe.slice(SHIFT, SHIFT + SPAN).map((row) => row.slice(0, 2 * pairs));
    rotation = {
      ...compare(rotated, shifted, rtol, atol),
      // the angle pair i turns by: k·ω_i, read back from PE(k)
      angles: Array.from({ length: pairs }, (_, i) => Math.atan2(peK[2 * i], peK[2 * i + 1])),
    };
  }
  return {
    dim,
    span: SPAN,
    shift: SHIFT,
    dots,
    min: Math.min(...flat),
    max: Math.max(...flat),
    diagonals: { allclose: constant, spread },
    oddColumn: dim % 2 === 1,
    rotation,
  };
}

// ---- the shift test ----------------------------------------------------------

// Sentence A in both places, B starting SHIFT positions after A (before it
// when that would pass the core's last offset), with `scheme` at `scale`.
export function shiftTest(lab, config, scheme, scale) {
  const offsetA = Number(config.offset_a ?? 0);
  const later = offsetA + SHIFT <= lab.options.limits.max_offset;
  const offsetB = later ? offsetA + SHIFT : offsetA - SHIFT;
  const result = lab.run({
    ...config, sentence_b: config.sentence_a, offset_a: offsetA, offset_b: offsetB, scheme, scale, full: true,
  });
  const { rtol, atol } = result.config;
  const A = result.scores_heads_a;
  const B = result.scores_heads_b;
  const words = result.config.sentence_a.map((word, i) => ({
    word,
    at: [offsetA + i, offsetB + i],
    ...compare(A.map((head) => head[i]), B.map((head) => head[i]), rtol, atol),
  }));
  return {
    scheme,
    scale: result.config.scale,
    offsets: [offsetA, offsetB],
    heads: A.map((head, h) => compare(head, B[h], rtol, atol)),
    words,
    ...compare(A, B, rtol, atol),
  };
}

// ---- ALiBi -------------------------------------------------------------------

// The bias head `head` adds to sentence A's scores: the scores at `scale`
// minus the scores at 0 (ALiBi's term is the only thing the scale moves),
// with the mask off so that every pair of words has a bias; and sentence A
// against A read backwards, word i against word n-1-i (not the verdicts'
// pairing, which matches repeated words by their order of occurrence),
// with the page's mask. Every run has the same words, offsets and heads:
// the core then draws and projects once, and each run is only the
// forward pass (a slider step at 64 words and d 512 costs milliseconds, not
// the ~45 ms of fresh projections). `remember(key, make)` may keep the run
// at scale 0, which no slider step changes.
export function alibiClaims(lab, config, scale, head, remember = (key, make) => make()) {
  const words = Array.isArray(config.sentence_a) ? config.sentence_a : wordsOf(config.sentence_a);
  const base = {
    ...config, sentence_b: [...words].reverse(), offset_b: config.offset_a ?? 0, scheme: 'alibi', full: true,
  };
  const on = lab.run({ ...base, scale, causal: false });
  const atZero = remember(JSON.stringify(['alibi at 0', { ...base, causal: false }]),
    () => lab.run({ ...base, scale: 0, causal: false }).scores_heads_a);
  const back = config.causal ? lab.run({ ...base, scale }) : on;
  const { heads, rtol, atol, offset_a: offset } = on.config;
  const h = Math.min(Math.max(0, head), heads - 1);
  const S = on.scores_heads_a[h];
  const Z = atZero[h];
  const bias = S.map((row, i) => row.map((v, j) => v - Z[i][j]));
  const slope = lab.alibiSlope(h, heads);
  const s = on.config.scale;
  const formula = bias.map((row, i) => row.map((_, j) => -s * slope * Math.abs(i - j)));
  const n = bias.length;
  const reversed = bias.map((row, i) => row.map((_, j) => bias[n - 1 - i][n - 1 - j]));
  const outputs = compare(back.output_a, back.output_a.map((_, i) => back.output_b[n - 1 - i]), rtol, atol);
  return {
    words,
    offset: offset ?? 0,
    head: h,
    heads,
    slope,
    scale: s,
    bias,
    min: Math.min(...bias.flat()),
    formula: compare(bias, formula, rtol, atol),
    reversal: compare(reversed, bias, rtol, atol),
    outputs,
    causal: Boolean(back.config.causal),
  };
}

// ---- what the panel shows ------------------------------------------------------

// A small map that forgets its oldest entries.
function memo(size) {
  const map = new Map();
  return (key, make) => {
    if (map.has(key)) {
      const value = map.get(key);
      map.delete(key);
      map.set(key, value);
      return value;
    }
    const value = make();
    map.set(key, value);
    if (map.size > size) map.delete(map.keys().next().value);
    return value;
  };
}

// The claims for one scheme, memoised by what each depends on: the
// sinusoidal facts by d and the tolerances; the shift test and the ALiBi
// facts by sentence A, d, seed, heads, mask, offset, magnitude and the
// tolerances (and ALiBi's by the head shown), never by sentence B, the word
// followed or the chart.
//
//   const why = createWhyClaims(lab);
//   why(config, { scheme: 'rope', head: 0 })   // config: the page's lab config
//
// `scheme` null: the scheme of `config` (the one picked). A scheme other
// than the picked one is shown at its own default magnitude, since the
// page's magnitude belongs to the picked one.
export function createWhyClaims(lab) {
  const cached = memo(24);
  const defaults = new Map(lab.options.schemes.map((s) => [s.name, s.default_scale]));
  return (config, { scheme = null, head = 0 } = {}) => {
    const picked = config.scheme;
    const shown = scheme ?? picked;
    const scaleOf = (name) => (name === picked ? Number(config.scale) : defaults.get(name));
    // only what the claims read: sentence B, the word followed and the chart do not matter
    const { sentence_a, dim, seed, heads, causal, rtol, atol, offset_a } = config;
    const inputs = { sentence_a, dim, seed, heads, causal, rtol, atol, offset_a };
    const shift = (name) => cached(JSON.stringify(['shift', name, scaleOf(name), inputs]),
      () => shiftTest(lab, inputs, name, scaleOf(name)));
    const out = { picked, scheme: shown, scale: scaleOf(shown) };
    if (shown === 'sinusoidal') {
      out.sinusoidal = cached(JSON.stringify(['sin', dim, rtol, atol]), () => sinusoidalClaims(lab, { dim, rtol, atol }));
    }
    if (shown === 'alibi') {
      out.alibi = cached(JSON.stringify(['alibi', scaleOf('alibi'), head, inputs]),
        () => alibiClaims(lab, inputs, scaleOf('alibi'), head, cached));
    }
    // ALiBi's block leaves the shift test out: its runs (other words in B)
    // would make the core project again on every slider step.
    if (shown !== 'alibi') out.shift = shift(shown);
    if (shown === 'rope') out.contrast = CONTRAST.map(shift);
    return out;
  };
}

// createWhyClaims on a lab of the panel's own, made by makeLab() (a
// promise) on the first call: the core keeps the projections of its last
// run's words, so runs for the panel on the page's lab would make the
// page's next verdict project again (~45 ms at 64 words and d 512). Until
// the lab is there, calls return null, and ready() is called once it is
// (or once it failed: then calls return {failed: the Error}).
export function createOwnLabClaims(makeLab, ready) {
  let claims = null;
  let failure = null;
  let started = false;
  return (config, choice) => {
    if (failure) return { failed: failure };
    if (claims) return claims(config, choice);
    if (!started) {
      started = true;
      makeLab().then((lab) => { claims = createWhyClaims(lab); }, (e) => { failure = e; }).then(ready);
    }
    return null;
  };
}
