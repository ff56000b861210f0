// "Why each scheme works" under Node: teach/why_claims.js against the
// WebAssembly core as built (build/site), with every expected value worked
// out here independently (the sinusoidal table from its formula, ALiBi's
// slopes from Press et al.'s get_slopes), never read back from the module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const SITE = fileURLToPath(new URL('../../build/site/', import.meta.url));
const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const { createLab } = await import(`${SITE}poslab.js`);
const {
  SPAN, SHIFT, isclose, compare, rotateBy, sinusoidalClaims, shiftTest, alibiClaims, createWhyClaims, createOwnLabClaims,
} = await import(`${WEB}teach/why_claims.js`);
const lab = await createLab();

const NUMPY = { rtol: 1e-5, atol: 1e-8 };
const CAT = 'the cat chased the mouse';
const config = (over = {}) => ({
  sentence_a: CAT, sentence_b: 'the mouse chased the cat', dim: 16, seed: 2, scheme: 'rope', scale: 1,
  causal: false, ...NUMPY, ...over,
});

// docs/experiment.md's table: sin for even j, cos for odd j, 10000^(2 floor(j/2) / d).
const pe = (p, d) => Array.from({ length: d }, (_, j) => {
  const angle = p / 10000 ** ((2 * Math.floor(j / 2)) / d);
  return j % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
});

// Press et al.'s get_slopes, as their reference code writes it.
function slopes(n) {
  const power = (k) => {
    const start = 2 ** -(2 ** -(Math.log2(k) - 3));
    return Array.from({ length: k }, (_, i) => start * start ** i);
  };
  if (Number.isInteger(Math.log2(n))) return power(n);
  const c = 2 ** Math.floor(Math.log2(n));
  return [...power(c), ...power(2 * c).filter((_, i) => i % 2 === 0).slice(0, n - c)];
}

test('isclose and compare follow np.allclose: |a - b| <= atol + rtol·|b|, b the reference', () => {
  assert.equal(isclose(1, 1 + 1e-5, 1e-5, 0), true);
  assert.equal(isclose(1 + 2e-5, 1, 1e-5, 0), false);
  assert.equal(isclose(0, 1e-8, 0, 1e-8), true);
  assert.equal(isclose(null, null, 0, 0), true);
  assert.equal(isclose(null, 0, 0, 0), false);
  assert.deepEqual(compare([[1, null], [3, 4]], [[1, null], [3, 4.5]], 0, 0), { allclose: false, maxDiff: 0.5 });
});

test('sinusoidal: PE(p)·PE(q) as the formula gives it, and every diagonal constant (d even)', () => {
  for (const dim of [2, 6, 16, 64, 512]) {
    const s = sinusoidalClaims(lab, { dim, ...NUMPY });
    assert.equal(s.dots.length, SPAN);
    const rows = Array.from({ length: SPAN }, (_, p) => pe(p, dim));
    let worst = 0;
    for (let p = 0; p < SPAN; p++) {
      for (let q = 0; q < SPAN; q++) {
        const want = rows[p].reduce((sum, v, j) => sum + v * rows[q][j], 0);
        worst = Math.max(worst, Math.abs(s.dots[p][q] - want));
      }
    }
    assert.ok(worst <= 1e-12, `d ${dim}: dot products off by ${worst}`);
    assert.equal(s.diagonals.allclose, true, `d ${dim}`);
    assert.ok(s.diagonals.spread <= 1e-12, `d ${dim}: diagonal spread ${s.diagonals.spread}`);
    // PE(p)·PE(p) is one per (sin, cos) pair
    assert.ok(Math.abs(s.max - dim / 2) <= 1e-12, `d ${dim}: max ${s.max}`);
  }
});

test('sinusoidal: an odd d breaks the diagonals (the lone last sine), and the check says so', () => {
  for (const dim of [1, 5, 7]) {
    const s = sinusoidalClaims(lab, { dim, ...NUMPY });
    assert.equal(s.oddColumn, true);
    assert.equal(s.diagonals.allclose, false, `d ${dim}`);
    assert.ok(s.diagonals.spread > 1e-6, `d ${dim}: spread ${s.diagonals.spread}`);
  }
  assert.equal(sinusoidalClaims(lab, { dim: 1, ...NUMPY }).rotation, null); // no pair to turn
});

test('sinusoidal: PE(p + k) is R_k PE(p), R_k built from PE(k) alone, for every p shown', () => {
  for (const dim of [2, 5, 6, 16, 512]) {
    const s = sinusoidalClaims(lab, { dim, ...NUMPY });
    assert.equal(s.rotation.allclose, true, `d ${dim}`);
    assert.ok(s.rotation.maxDiff < 1e-12, `d ${dim}: ${s.rotation.maxDiff}`);
    // the angles read back from PE(k) are k·ω_i, modulo a turn
    s.rotation.angles.forEach((a, i) => {
      const want = SHIFT / 10000 ** ((2 * i) / dim);
      const off = Math.abs(Math.atan2(Math.sin(a - want), Math.cos(a - want)));
      assert.ok(off < 1e-12, `d ${dim} pair ${i}: ${a} vs ${want}`);
    });
  }
  // and independently of the core: rotateBy on the formula's rows
  const d = 8;
  for (let p = 0; p < 20; p++) {
    const got = rotateBy(pe(SHIFT, d), pe(p, d));
    const want = pe(p + SHIFT, d);
    assert.ok(compare(got, want, 0, 1e-12).allclose, `p ${p}`);
  }
  // a wrong shift is not a rotation of this kind: the check can fail
  const wrong = rotateBy(pe(SHIFT + 1, d), pe(3, d));
  assert.equal(compare(wrong, pe(3 + SHIFT, d), NUMPY.rtol, NUMPY.atol).allclose, false);
});

test('the shift test: RoPE scores are allclose position by position, every head, mask on or off', () => {
  for (const [dim, heads] of [[6, 1], [16, 1], [16, 2], [16, 4], [24, 3], [10, 2]]) {
    for (const causal of [false, true]) {
      for (const offset of [0, 3]) {
        const t = shiftTest(lab, config({ dim, heads, causal, offset_a: offset }), 'rope', 1);
        const what = `d ${dim}, ${heads} heads, causal ${causal}, offset ${offset}`;
        assert.deepEqual(t.offsets, [offset, offset + SHIFT]);
        assert.equal(t.allclose, true, what);
        assert.ok(t.maxDiff < 1e-9, `${what}: max diff ${t.maxDiff}`);
        assert.equal(t.heads.length, heads);
        assert.ok(t.heads.every((h) => h.allclose), what);
        assert.deepEqual(t.words.map((w) => w.word), CAT.split(' '));
        assert.ok(t.words.every((w) => w.allclose && w.at[1] - w.at[0] === SHIFT), what);
      }
    }
  }
});

test('the shift test fails for the absolute schemes and holds for ALiBi and for none', () => {
  for (const scheme of ['random', 'sinusoidal']) {
    const t = shiftTest(lab, config(), scheme, scheme === 'random' ? 0.5 : 1);
    assert.equal(t.allclose, false, scheme);
    assert.ok(t.maxDiff > 1e-3, `${scheme}: ${t.maxDiff}`);
    assert.ok(t.words.every((w) => !w.allclose), scheme);
  }
  for (const scheme of ['alibi', 'none']) {
    const t = shiftTest(lab, config({ heads: 4 }), scheme, 1);
    assert.equal(t.allclose, true, scheme);
    assert.ok(t.maxDiff < 1e-9, `${scheme}: ${t.maxDiff}`);
  }
  // at the last offset the copy starts SHIFT positions earlier instead
  const last = lab.options.limits.max_offset;
  assert.deepEqual(shiftTest(lab, config({ offset_a: last }), 'rope', 1).offsets, [last, last - SHIFT]);
});

test('ALiBi: the bias is -s·m·|i - j| with Press et al.\'s slopes, for every head count', () => {
  for (const [dim, heads] of [[16, 1], [16, 2], [24, 3], [16, 4], [24, 6], [16, 8]]) {
    const m = slopes(heads);
    for (let head = 0; head < heads; head++) {
      for (const scale of [1, 0.37, 20]) {
        const a = alibiClaims(lab, config({ dim, heads, offset_a: 7 }), scale, head);
        const what = `d ${dim}, head ${head + 1} of ${heads}, scale ${scale}`;
        assert.equal(a.slope, m[head], what);
        let worst = 0;
        a.bias.forEach((row, i) => row.forEach((v, j) => {
          worst = Math.max(worst, Math.abs(v - (-scale * m[head] * Math.abs(i - j))));
        }));
        assert.ok(worst <= 1e-12, `${what}: bias off by ${worst}`);
        assert.equal(a.formula.allclose, true, what);
        assert.equal(a.reversal.allclose, true, what);
        assert.ok(a.reversal.maxDiff <= 1e-12, `${what}: reversal ${a.reversal.maxDiff}`);
      }
    }
  }
});

test('ALiBi: a sentence and its reversal give the same outputs, unless the causal mask is on', () => {
  for (const sentence of ['dog bites man', CAT]) {
    const off = alibiClaims(lab, config({ sentence_a: sentence, heads: 2 }), 1, 0);
    assert.equal(off.outputs.allclose, true, sentence);
    assert.ok(off.outputs.maxDiff < 1e-9, `${sentence}: ${off.outputs.maxDiff}`);
    const on = alibiClaims(lab, config({ sentence_a: sentence, heads: 2, causal: true }), 1, 0);
    assert.equal(on.causal, true);
    assert.equal(on.outputs.allclose, false, `${sentence} with the mask`);
    assert.equal(on.reversal.allclose, true, 'the bias itself does not see the mask');
  }
});

// A lab that counts the runs the claims ask for (and keeps their configs).
function counting() {
  const calls = { run: 0, sinusoidal: 0 };
  const configs = [];
  const proxy = {
    options: lab.options,
    configs,
    run: (c) => { calls.run++; configs.push(c); return lab.run(c); },
    sinusoidal: (...a) => { calls.sinusoidal++; return lab.sinusoidal(...a); },
    alibiSlope: (...a) => lab.alibiSlope(...a),
  };
  return { proxy, calls };
}

test('createWhyClaims: follows the picked scheme, others at their default magnitude', () => {
  const why = createWhyClaims(lab);
  const picked = why(config({ scheme: 'rope', scale: 0.25 }));
  assert.equal(picked.scheme, 'rope');
  assert.equal(picked.scale, 0.25);
  assert.deepEqual(picked.contrast.map((c) => [c.scheme, c.scale, c.allclose]), [['random', 0.5, false], ['sinusoidal', 1, false]]);
  const other = why(config({ scheme: 'rope', scale: 0.25 }), { scheme: 'alibi', head: 3 });
  assert.equal(other.scheme, 'alibi');
  assert.equal(other.scale, 1);
  assert.equal(other.alibi.head, 0, 'a head past the last is the last (one head here)');
  assert.equal(why(config({ scheme: 'none' })).shift.allclose, true);
  assert.ok(why(config({ scheme: 'sinusoidal' })).sinusoidal.rotation.allclose);
});

test('createWhyClaims: memoised by what each claim reads, so the panel costs nothing on a repeat', () => {
  const { proxy, calls } = counting();
  const why = createWhyClaims(proxy);
  why(config({ scheme: 'sinusoidal' }));
  assert.deepEqual(calls, { run: 1, sinusoidal: 1 });
  // sentence B, the magnitude of the sinusoidal table: nothing new to compute
  why(config({ scheme: 'sinusoidal', sentence_b: 'cat the chased mouse the' }));
  assert.deepEqual(calls, { run: 1, sinusoidal: 1 });
  // a slider step: a new shift test, the same table
  why(config({ scheme: 'sinusoidal', scale: 2 }));
  assert.deepEqual(calls, { run: 2, sinusoidal: 1 });
  // RoPE: its own shift test and the stand-in's (sinusoidal's at its
  // default magnitude is the one above), then a repeat is free; a slider
  // step reruns only RoPE's (the contrasts keep their magnitude)
  why(config());
  assert.equal(calls.run, 4);
  why(config());
  assert.equal(calls.run, 4);
  why(config({ scale: 0.5 }));
  assert.equal(calls.run, 5);
  // a new d: everything again
  why(config({ dim: 8, scheme: 'sinusoidal' }));
  assert.deepEqual(calls, { run: 6, sinusoidal: 2 });
  // ALiBi: two runs (at s, at 0: A reversed is sentence B of both), and
  // one with the mask on (the outputs with the mask, the bias without);
  // a slider step needs only the run at s again
  why(config({ scheme: 'alibi' }));
  assert.equal(calls.run, 8);
  why(config({ scheme: 'alibi', sentence_b: 'dog' }));
  assert.equal(calls.run, 8);
  why(config({ scheme: 'alibi', causal: true }));
  assert.equal(calls.run, 10);
  why(config({ scheme: 'alibi', scale: 2 }));
  assert.equal(calls.run, 11);
});

test('ALiBi\'s runs differ only in scale and mask, so the core draws and projects once for them', () => {
  const { proxy } = counting();
  for (const causal of [false, true]) {
    proxy.configs.length = 0;
    alibiClaims(proxy, config({ heads: 2, offset_a: 4, causal }), 2, 1);
    assert.equal(proxy.configs.length, causal ? 3 : 2);
    const family = proxy.configs.map(({ scale, causal: mask, ...rest }) => JSON.stringify(rest));
    assert.equal(new Set(family).size, 1, family.join('\n'));
  }
});

test('createOwnLabClaims: null until its own lab is made, then the claims; a failure is returned, not thrown', async () => {
  let readyCalls = 0;
  let ready;
  const made = [];
  // the lab's compile takes what it takes (seconds on a loaded machine): wait for the call
  const onReady = () => { readyCalls++; ready(); };
  let isReady = new Promise((resolve) => { ready = resolve; });
  const own = createOwnLabClaims(async () => { made.push(1); return createLab(); }, onReady);
  assert.equal(own(config(), {}), null);
  assert.equal(own(config(), {}), null);
  await isReady;
  await new Promise((resolve) => setTimeout(resolve, 20)); // room for a second call, were there one
  assert.equal(made.length, 1, 'one lab');
  assert.equal(readyCalls, 1);
  assert.equal(own(config(), {}).shift.allclose, true);
  isReady = new Promise((resolve) => { ready = resolve; });
  const broken = createOwnLabClaims(() => Promise.reject(new Error('no WebAssembly')), onReady);
  assert.equal(broken(config(), {}), null);
  await isReady;
  assert.equal(readyCalls, 2);
  assert.equal(broken(config(), {}).failed.message, 'no WebAssembly');
});
