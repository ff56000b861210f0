// sweep.js - the chart's range of magnitudes and the search for the
// threshold, shared by the page (model.js) and the sweep worker. No DOM.

// The plot's magnitudes: 10 per decade from 1e-9 to 1e3.
export const SWEEP = { lo: 1e-9, hi: 1e3, count: 121 };
// Every tenth of them, one per power of ten (so the chart's table is
// whole): a first curve for a sweep that takes long (64 words at d 512 with
// RoPE: about half a second on a slow laptop), drawn while the rest is
// computed. The head's and the transformer's is the sweep's own first pass
// (lab.sweepPass: its every COARSE_STRIDE-th point, then the rest), so that
// no point is computed twice: a coarse sweep of its own and then the whole
// sweep cost a tenth more (at 64 words, d 512, RoPE and 8 heads under 2x
// throttling the full curve came at p50 445 ms against 414 in passes).
// Those points are COARSE_SWEEP's to the bit (shared_sweep.test and
// test_core check it). A sweep computed so carries `passes` (the stride);
// until its rest is in, only its coarse points hold numbers.
export const COARSE_STRIDE = 10;
export const COARSE_SWEEP = { lo: SWEEP.lo, hi: SWEEP.hi, count: (SWEEP.count - 1) / COARSE_STRIDE + 1 };
// Where lab.threshold looks for the last magnitude at which allclose holds:
// from far below the plot up to the core's largest magnitude.
export const thresholdRange = (limits) => ({ lo: 1e-12, hi: limits.max_scale, relTol: 1e-3 });

// Where lab.threshold should look, given the sweep already on the plot: the
// step between the last True and the first False, so that the core bisects
// one step instead of walking the whole range again (at 64 words and d 512
// that walk costs as much as the sweep). Below or above the plot when the
// curve is False or True all along it. `points`: a curve's
// {allclose} points (a sweep's mean or pairs[k]).
export function thresholdSearch(points, scales, range) {
  return searchAround(points.findIndex((p) => !p.allclose), scales, range);
}

// first: the index of the first magnitude where allclose is False (-1: none).
function searchAround(first, scales, range) {
  if (first === 0) return { ...range, hi: scales[0] };
  if (first < 0) return { ...range, lo: scales[scales.length - 1] };
  return { lo: scales[first - 1], hi: scales[first], relTol: range.relTol };
}

// The threshold of pair `pair` (-1: the sentence mean) given the state's
// sweep (packed); null for a word with no partner in B.
export function thresholdFor(lab, config, sweep, pair) {
  const r = pair + 1, count = sweep.scales.length;
  if (!(r < sweep.empty.length) || sweep.empty[r] || count === 0) return null;
  const at = sweep.close.subarray(r * count, (r + 1) * count).indexOf(0);
  return lab.threshold(config, pair, searchAround(at, sweep.scales, thresholdRange(lab.options.limits)));
}

// Which of n labs sharing a sweep computed its point t (lab.shareSweep):
// t % n, or, for a sweep computed in passes (`stride`: lab.sweepPass), the
// place of t among its pass's points % n.
export function shareOf(t, n, stride = 0) {
  if (!stride) return t % n;
  return (t % stride === 0 ? t / stride : t - Math.floor(t / stride) - 1) % n;
}

// Runs run() with the lab computing only `pass` of a sweep's points
// ('coarse' or 'rest', COARSE_STRIDE apart), and puts the lab back on
// every point after, when run() returns or, for a promise (a run in
// steps), when that settles, dropped mid-way included.
export function inPass(lab, pass, run) {
  lab.sweepPass(pass, COARSE_STRIDE);
  let result;
  try {
    result = run();
  } catch (e) {
    lab.sweepPass('all');
    throw e;
  }
  if (result instanceof Promise) return result.finally(() => lab.sweepPass('all'));
  lab.sweepPass('all');
  return result;
}

// A packed sweep with the coarse points of `coarse` and the other points
// of `rest`: the two passes of one lab (inPass), one sweep.
export function joinPasses(coarse, rest) {
  return { ...pick(rest, (t) => (t % COARSE_STRIDE === 0 ? coarse : rest)), passes: COARSE_STRIDE };
}

// A packed sweep whose point t is from(t)'s.
function pick(base, from) {
  const { scales, empty } = base, count = scales.length;
  const cosine = new Float64Array(base.cosine.length), close = new Uint8Array(base.close.length);
  for (let i = 0; i < cosine.length; i++) {
    const part = from(i % count);
    cosine[i] = part.cosine[i];
    close[i] = part.close[i];
  }
  return { packed: true, scales: Float64Array.from(scales, (_, t) => from(t).scales[t]), cosine, close, empty };
}

// One packed sweep from the packed parts that labs sharing it computed
// (lab.shareSweep; in passes when the parts carry `passes`: shareOf).
export function mergeShares(parts) {
  const stride = parts[0].passes ?? 0;
  const merged = pick(parts[0], (t) => parts[shareOf(t, parts.length, stride)]);
  return stride ? { ...merged, passes: stride } : merged;
}

// The coarse curve (COARSE_SWEEP's points) of a sweep whose coarse pass is
// in; a sweep of COARSE_SWEEP's own points as it is.
export function coarseCurve(sweep) {
  if (sweep.scales.length === COARSE_SWEEP.count) return sweep;
  const { scales, empty } = sweep, count = scales.length, rows = empty.length, n = COARSE_SWEEP.count;
  const cosine = new Float64Array(rows * n), close = new Uint8Array(rows * n);
  for (let r = 0; r < rows; r++) {
    for (let k = 0; k < n; k++) {
      cosine[r * n + k] = sweep.cosine[r * count + k * COARSE_STRIDE];
      close[r * n + k] = sweep.close[r * count + k * COARSE_STRIDE];
    }
  }
  return { packed: true, scales: Float64Array.from({ length: n }, (_, k) => scales[k * COARSE_STRIDE]), cosine, close, empty };
}

// A sweep as typed arrays, the page's and its workers' form throughout
// (lab.run's `packed`): a sweep of 16 words as objects is some 2,000 of
// them, which the page's caches kept alive through every young-generation
// collection, and whose structured clone cost the page's thread about a
// millisecond per message. Row 0 is the mean, row 1 + i pair i; `empty`
// marks a word with no partner (its row is NaN); a non-finite distance is
// NaN. curveOf gives curve r of one (0: the mean, 1 + k: pairs[k]) as
// views, or null for a word with no partner.
export function curveOf(sweep, r) {
  if (sweep.empty[r]) return null;
  const count = sweep.scales.length;
  return { cosine: sweep.cosine.subarray(r * count, (r + 1) * count), close: sweep.close.subarray(r * count, (r + 1) * count) };
}

// The CLI's shape of a packed sweep (for the downloads).
export function unpackSweep(sweep) {
  const { scales, cosine, close, empty } = sweep, count = scales.length;
  const row = (r) => (empty[r] ? [] : Array.from({ length: count }, (_, t) => {
    const c = cosine[r * count + t];
    return { cosine_distance: Number.isFinite(c) ? c : null, allclose: close[r * count + t] === 1 };
  }));
  return { scales: Array.from(scales), mean: row(0), pairs: empty.slice(1).map((_, i) => row(i + 1)) };
}

// A worker's chart request (browser/sweeper.js's protocol): `sweep` is the
// page's copy when it has one (it then needs only thresholds), `coarse`
// asks for the sweep's coarse pass first (a partial reply whose sweep holds
// only those points: coarseCurve gives the curve), `coarsePass` is that
// pass when the page computed it (only the rest is then computed, and
// joined to it), `share` ([k, n]) asks for only
// the points that are share k of n (shareSweeps in browser/sweeper.js). Sends the sweep as a partial reply
// ({sweep, ms, coarse?}, the sweep packed) and returns [[pair, threshold], ...].
// With `between` (serveRequests'), it is awaited before each threshold,
// and, unless `stepSweeps` is false, the sweeps go in lab.runSteps' steps
// (a transformer's point a block of one sentence a step) with between()
// awaited after each: the run worker computes a transformer's chart on the
// weights it drew for the verdicts (one copy of them, not two), and a newer
// run for those weights takes over at the next step. Once `newer()` says a
// request came after this one, the thresholds not yet computed are left
// out of the answer.
export async function sweepJob({ config, range, pairs, coarse, coarsePass, sweep: given, share = [0, 1] }, lab, partial,
  { between = null, stepSweeps = true, newer = () => false } = {}) {
  lab.shareSweep(...share);
  const sweepOf = async (points) => {
    if (!between || !stepSweeps) return lab.run({ ...config, sweep: points, packed: true }).sweep;
    const steps = lab.runSteps({ ...config, sweep: points, packed: true });
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return step.value.sweep;
      await between();
    }
  };
  let sweep = given;
  let first = sweep ? null : coarsePass;
  if (!sweep && !first && coarse) {
    // the coarse pass, then the rest: one sweep, every point computed once
    // (a partial reply of each; the page takes the coarse curve from the
    // first: coarseCurve)
    const t0 = performance.now();
    first = { ...(await inPass(lab, 'coarse', () => sweepOf(range))), passes: COARSE_STRIDE };
    partial({ sweep: first, ms: performance.now() - t0, coarse: true });
  }
  if (!sweep) {
    const t0 = performance.now();
    sweep = first ? joinPasses(first, await inPass(lab, 'rest', () => sweepOf(range))) : await sweepOf(range);
    partial({ sweep, ms: performance.now() - t0 });
  }
  const thresholds = [];
  for (const pair of pairs) {
    if (between) await between();
    if (newer()) break;
    thresholds.push([pair, thresholdFor(lab, config, sweep, pair)]);
  }
  return thresholds;
}
