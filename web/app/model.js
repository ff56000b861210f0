// model.js - the computation behind the page, with no DOM: turns the state
// into the lab's config, runs the verdict on every change and the sweep only
// when something other than the magnitude changed (both cached).
import { MAX_SENTENCE_CHARS, NUL_PROBLEM, wordsOf } from './state.js';
import { modelOf, isCheckpointModel } from './models.js';
import { SWEEP, COARSE_SWEEP, COARSE_STRIDE, thresholdFor, unpackSweep, inPass, joinPasses, coarseCurve } from './sweep.js';

// The ranges and the threshold search live in sweep.js, which the sweep
// worker shares.
export { SWEEP, thresholdRange, thresholdSearch, thresholdFor } from './sweep.js';

// Lone UTF-16 surrogates (from pasted text) become U+FFFD before they reach
// the core, which takes UTF-8.
const wellFormed = (s) => (typeof s.toWellFormed === 'function' ? s.toWellFormed()
  : s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));

// A chart update expected to take at most this long is computed with the
// verdicts, so the chart follows the keystroke in the same frame; a longer
// one waits until the verdicts are painted, so typing never stalls behind
// it (its coarse first curve is drawn at once when that fits in this).
export const QUICK_CHART_MS = 14;
// A longer one is still computed with the keystroke when the workers would
// bring it back no sooner (their own time plus their measured wait), up to
// this long: past it the verdicts would wait too long for the curves. Such
// a sweep is neither split with a worker nor held for the workers' curves:
// this thread reads their answer only after the keystroke's frame is
// painted. (Both figures were measured at 16 words, d 64, under 2x
// throttling; the figures are in the commit messages that set them.)
export const MAX_KEYSTROKE_CHART_MS = 30;
// The points of a sweep outside its coarse pass (app/sweep.js).
const REST_COUNT = SWEEP.count - COARSE_SWEEP.count;
// A sweep expected to take longer than this shows a coarse curve first
// (COARSE_SWEEP, a tenth of the work). Before any sweep has been timed or
// the thread calibrated, one of more than COARSE_WORK words² × d is
// expected to.
export const COARSE_FIRST_MS = 60;
const COARSE_WORK = 1e6;

// What calibrate() times on the page's thread: a sweep small enough to cost
// half a millisecond on a current laptop, large enough that the core's
// fixed costs do not hide its speed.
const CALIBRATION_WORDS = Array.from({ length: 12 }, (_, i) => `c${i}`);
const CALIBRATION = { sentence_a: CALIBRATION_WORDS.join(' '), sentence_b: [...CALIBRATION_WORDS].reverse().join(' '),
  dim: 32, heads: 2, scheme: 'random', scale: 0.5, sweep: { ...SWEEP, count: 41 } };
// its work in chartWork's units: two sentences of 12 words, d 32, 2 heads, 41 points
const CALIBRATION_WORK = (2 * 12 ** 2 * (32 + 16 * 2) * 41) / SWEEP.count;

// The work of a sweep grows as words² × d (both sentences' products) plus
// words² × heads (their softmax's exponentials, each worth about 16 of the
// products' multiply-adds).
const sweepWork = (state) => (wordsOf(state.a).length ** 2 + wordsOf(state.b).length ** 2) *
  (state.dim + 16 * (state.heads ?? 1));
// What makes one sweep's cost per unit of sweepWork differ from another's:
// the scheme (RoPE rotates every query and key at each magnitude), the
// heads and the width (the core's fixed costs weigh more in small ones);
// not the words, which a keystroke changes.
const kindOf = (state) => `${state.positions === false ? 'none' : state.scheme}/${state.heads ?? 1}/${state.dim}`;

// Drawn blocks (the transformer: a model whose runs may go to the run
// worker, app/models.js's `runs`) have no shortcut through a sweep, and one
// run can take a second. Their work, in multiply-adds: per block and
// sentence of n words, 12 n d² for the projections and the MLP, and 2 n² d
// for the scores and the weighted sums.
const runsInWorker = (state) => modelOf(state.model).runs === 'run-worker';
// (a model whose chart the sweep workers compute, through the head's sweep)
const sweepsInWorkers = (state) => modelOf(state.model).chart === 'sweep-workers';
const runWork = (state) => state.layers * [state.a, state.b].reduce((sum, text) => {
  const n = wordsOf(text).length;
  return sum + 12 * n * state.dim ** 2 + 2 * n * n * state.dim;
}, 0);
// A transformer run expected to take at most this long is computed with the
// slider step or keystroke, on the page's thread (the default blocks are
// well under it); a longer one goes to a worker and never blocks the page.
export const QUICK_RUN_MS = 8;
// Browsers coarsen their clock: only what took at least CLOCK_MS teaches
// a figure (perWork), since a run the clock reads as taking no time would
// make the next of its kind look free, however large.
const CLOCK_MS = 1;
const perWork = (ms, work) => (ms >= CLOCK_MS ? ms / work : null);
// How long the settled page's calibration times each of its three sweeps
// (a few calls each on a current laptop), and at most how many calls one
// timing makes whatever the clock says.
const RECALIBRATION_MS = 4 * CLOCK_MS;
const MAX_CALIBRATION_CALLS = 64;
// What a multiply-add of drawn blocks costs before any run on this thread
// has been timed, on a reference machine whose sweep costs
// REFERENCE_MS_PER_WORK: calibrate() scales it by this device's speed, so
// that large runs start in the worker.
const PRIOR_MS_PER_RUN_WORK = 5e-7;
const REFERENCE_MS_PER_WORK = 8e-5;
// The chart's work for a state, and what a unit of it costs: the head's
// sweep shares its projections across magnitudes (sweepWork); the
// transformer's is one run per magnitude.
// Without positions nothing depends on the magnitude, and the core computes
// one point of the head's sweep for all.
const chartWork = (state, count = SWEEP.count) => (runsInWorker(state) ? count * runWork(state)
  : isCheckpoint(state) ? Infinity
  : sweepWork(state) * ((state.positions === false ? 1 : count) / SWEEP.count));

// A checkpoint runs in a module of its own on this thread; its part of the
// model (app/checkpoint_model.js) loads with the first one chosen, as
// this.ck. Its chart is never computed with the verdicts: its work counts
// as endless here.
const isCheckpoint = (state) => isCheckpointModel(state.model);

// The head's and the random transformer's numbers depend on the words only
// through which of them are the same word: the k-th distinct word, in
// order of first appearance (A, then B), gets the k-th vector drawn
// (docs/experiment.md, Random draws), whatever its letters. So a sweep
// (which holds no words) is cached under the sentences with each word
// replaced by that k, and a keystroke inside a word, which changes no
// number, draws the chart it has instead of computing the same curves
// again; the verdicts, which name the words, are still run. A word that
// might be over the core's 64 bytes keeps its letters in the key, so a
// sentence the core refuses never shares a key with one it takes.
export function wordPattern(a, b) {
  const seen = new Map();
  const of = (text) => wordsOf(text).map((w) => {
    let k = seen.get(w);
    if (k === undefined) seen.set(w, (k = seen.size));
    return w.length > 21 ? `${k}:${w}` : k; // (3 bytes of UTF-8 at most per UTF-16 unit)
  }).join(' ');
  return { sentence_a: of(a), sentence_b: of(b) };
}

// A small map that forgets its oldest entries.
class Cache {
  constructor(size) { this.size = size; this.map = new Map(); }
  get(key) {
    if (!this.map.has(key)) return undefined;
    const value = this.map.get(key);
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }
  // (a question only: unlike get(), it leaves the entry as old as it was)
  has(key) { return this.map.has(key); }
  set(key, value) {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value);
    return value;
  }
}

export class Model {
  // form: the page's state form (state.js), made from lab.options.
  constructor(lab, form) {
    this.lab = lab;
    this.form = form;
    this.runs = new Cache(16);
    this.fulls = new Cache(8); // with outputs and attention matrices, for the open views
    this.sweeps = new Cache(8); // switching positions off and on again is free
    // first curves of long sweeps, until the sweep itself is cached: {pass, curve}, the sweep's
    // coarse pass (from a checkpoint's runner, COARSE_SWEEP's own points) and the curve drawn
    this.coarse = new Cache(4);
    this.thresholds = new Cache(64);
    // What a unit of a head's chart work costs on this thread (calibrate())
    // and in the sweep workers (the last sweep they computed, by the clock:
    // shared between two, half the work's time); null until known.
    this.msPerWork = null;
    this.workerMsPerWork = null;
    // What a unit costs on one thread in a kind of sweep (kindOf), as the
    // last sweep of that kind measured wherever it ran.
    this.kinds = new Map();
    this.keys = new WeakMap(); // state -> its cache keys (keysOf)
    this.msPerRunWork = null; // measured by calibrate(), then on the last transformer run on this thread
    this.msPerChartRunWork = null; // on the last transformer sweep, wherever it ran
    // How much later than their own time the workers' last sweep came back
    // (messages, and this thread busy with the keystroke); null until known.
    this.workerWaitMs = null;
    this.workersAnswered = false;
    this.offThread = null; // the request it is computing: {key, promise, onSweep}
    this.swept = { page: 0, worker: 0 }; // the chart's sweeps computed on this thread and in a worker (for ?debug)
    this.running = null; // the transformer run in the worker: {key, full, promise}
    this.ck = null; // the checkpoints' part, once one was chosen (app/checkpoint_model.js)
  }

  // The checkpoints' part, loaded the first time it is needed.
  checkpoints() {
    return (this.ckLoading ??= import('./checkpoint_model.js').then(({ CheckpointModels }) =>
      (this.ck = new CheckpointModels(this, { SWEEP, COARSE_SWEEP, thresholdFor }))));
  }

  // The open checkpoint for a checkpoint state, or null while it is not in.
  checkpointReady(state) {
    return this.ck?.ready(state) ?? null; // (the loader's answer is null for the others)
  }

  // The keys the state's results are cached under: its config (for its
  // sweep, without the magnitude), and for a checkpoint which opening of a
  // model (GPT-2 from other files has the same config). Worked out once per
  // state (a state is never changed, only replaced): a render asks for them
  // a dozen times, and at 16 words they are long strings, which the caches'
  // maps hash only once when they are the same string.
  runKey(state) {
    return this.keysOf(state).run;
  }

  keysOf(state) {
    const ck = this.checkpointReady(state);
    const prefix = ck ? `${this.ck.number(ck)}#` : '';
    let keys = this.keys.get(state);
    if (keys?.prefix !== prefix) {
      const config = this.configOf(state);
      const { scale, ...rest } = config;
      if (!isCheckpoint(state)) Object.assign(rest, wordPattern(rest.sentence_a, rest.sentence_b));
      keys = { prefix, run: prefix + JSON.stringify(config), sweep: prefix + JSON.stringify(rest) };
      this.keys.set(state, keys);
    }
    return keys;
  }

  // What a unit of the state's chart work costs (chartWork) on this thread,
  // or, `inWorker`, where the chart is computed off it (the workers' own
  // figure if they have computed one, else this thread's: a worker runs on
  // a core like this one); null if unknown. On this thread, what the last
  // sweep of the same kind measured, else the calibrated figure.
  chartMsPerWork(state, inWorker = false) {
    if (runsInWorker(state)) return this.msPerChartRunWork ?? this.runMsPerWork();
    if (inWorker) return this.workerMsPerWork ?? this.msPerWork;
    return this.kinds.get(kindOf(state)) ?? this.msPerWork;
  }

  // Notes how long the chart's work for `state` took: `ms` by the clock,
  // on this thread or (`inWorker`) in the sweep workers, and `threadMs`
  // what it took them together (what it would take on this thread).
  // The last sweep of a kind decides, wherever it ran: words² × (d + 16
  // heads) is only a model, and a worker's figure is all this thread has
  // for a kind it has sent there.
  learnChart(state, ms, count = SWEEP.count, inWorker = false, threadMs = ms) {
    if (isCheckpoint(state)) return; // (timed with the page's work between its slices)
    const work = chartWork(state, count);
    if (runsInWorker(state)) this.msPerChartRunWork = perWork(ms, work) ?? this.msPerChartRunWork;
    else {
      if (inWorker) this.workerMsPerWork = perWork(ms, work) ?? this.workerMsPerWork;
      const figure = perWork(threadMs, work);
      if (figure !== null) this.kinds.set(kindOf(state), figure);
    }
  }

  // Measures this thread's speed on a small sweep, so that what runs here
  // and what goes to a worker is decided by this device's speed from the
  // first keystroke on; drawn blocks' estimate is scaled by the same factor
  // until a run here is timed. `now`: the clock (a test can pass its own).
  // Each of the `times` timings repeats the sweep until the clock has
  // moved `minMs`, since a coarse clock reads a short sweep as taking no time.
  // Returns the figures. The sweep runs on a lab of its own in the same
  // copy of the core (lab.sibling()), so the page's lab keeps the draws of
  // the state shown.
  calibrate(now = () => performance.now(), sweep = CALIBRATION.sweep, times = 3, minMs = CLOCK_MS) {
    const lab = this.lab.sibling?.() ?? this.lab; // (a test's stand-in lab has no sibling)
    // The fastest of three: the first call of a function compiles it
    // (browsers compile WebAssembly lazily), and the machine may be busy
    // for a moment.
    let ms = Infinity;
    try {
      for (let i = 0; i < times; i++) {
        const t0 = now();
        let calls = 0, elapsed = 0;
        do {
          lab.run({ ...CALIBRATION, sweep });
          calls += 1;
          elapsed = now() - t0;
        } while (elapsed < minMs && calls < MAX_CALIBRATION_CALLS);
        // (calls the clock never saw took less than a step between them)
        ms = Math.min(ms, Math.max(elapsed, CLOCK_MS) / calls);
      }
    } finally {
      if (lab !== this.lab) lab.dispose();
    }
    this.msPerWork = (ms / CALIBRATION_WORK) * (CALIBRATION.sweep.count / sweep.count);
    const slower = this.msPerWork / REFERENCE_MS_PER_WORK;
    this.msPerRunWork = PRIOR_MS_PER_RUN_WORK * slower;
    this.calibration = { msPerWork: this.msPerWork, msPerRunWork: this.msPerRunWork, slower };
    return this.calibration;
  }

  // What a multiply-add of drawn blocks costs on this thread; calibrated
  // here if a link opens on them before the page has calibrated, so that
  // their first run is placed by this device's speed.
  runMsPerWork() {
    if (this.msPerRunWork === null && this.calibration === undefined) this.calibrate();
    return this.msPerRunWork ?? PRIOR_MS_PER_RUN_WORK;
  }

  // calibrate() once more when the page has settled, the whole sweep timed
  // three times in three tasks (`pause` between them), since at start the
  // browser runs only just compiled code while the page loads beside it.
  // The faster figure of the two calibrations is kept: a device that is
  // slow stays so; one that was busy at start gets its real speed.
  async recalibrate(pause, now = () => performance.now()) {
    const before = this.calibration;
    let best = null;
    for (let i = 0; i < 3; i++) {
      await pause();
      const figures = this.calibrate(now, SWEEP, 1, RECALIBRATION_MS);
      if (!best || figures.msPerWork < best.msPerWork) best = figures;
    }
    if (before && before.msPerWork < best.msPerWork) best = before;
    Object.assign(this, { msPerWork: best.msPerWork, msPerRunWork: best.msPerRunWork, calibration: best });
    return best;
  }

  // The lab's config for a state (positions off: the scheme "none").
  configOf(state) {
    const config = this.form.configOf(state);
    config.sentence_a = wellFormed(config.sentence_a);
    config.sentence_b = wellFormed(config.sentence_b);
    return config;
  }

  // The verdicts for the state: the CLI's JSON result (no sweep).
  verdict(state) {
    const key = this.runKey(state);
    return this.runs.get(key) ?? this.runs.set(key, this.ck?.unscaled(state) ?? this.timed(state, () => this.lab.run(this.configOf(state))));
  }

  // Runs fn() on this thread; a transformer run's time predicts the next.
  timed(state, fn) {
    if (!runsInWorker(state)) return fn();
    const t0 = performance.now();
    const result = fn();
    this.msPerRunWork = perWork(performance.now() - t0, runWork(state)) ?? this.msPerRunWork;
    return result;
  }

  // Whether the state's verdicts belong on this thread: always for the
  // head, and for a checkpoint once it is open; for drawn blocks, when their run should fit in QUICK_RUN_MS.
  runIsQuick(state) {
    if (isCheckpoint(state)) return Boolean(this.checkpointReady(state)) && this.ck.runIsQuick(state); // else in steps here
    return !runsInWorker(state) || this.runMsPerWork() * runWork(state) <= QUICK_RUN_MS;
  }

  // The cached result for the state (with the outputs and attention
  // matrices if `full`), or undefined.
  cachedRun(state, full = false) {
    return (full ? this.fulls : this.runs).get(this.runKey(state));
  }

  // Runs the state in a worker (`call`: browser/sweeper.js's) and caches
  // the result; a second call for the run being computed shares it.
  // Rejects as `call` does ({stale} when the page restarted the worker).
  runOffThread(state, call, { full = false } = {}) {
    const config = this.configOf(state);
    const key = this.runKey(state); // (a checkpoint's names its opening)
    if (this.running?.key === key && (this.running.full || !full)) return this.running.promise;
    // runs that differ only in the magnitude share the worker's draws (and a sweep)
    const group = this.sweepKey(state);
    const request = { key, full, group };
    const finished = () => { if (this.running === request) this.running = null; };
    request.promise = call({ run: full ? { ...config, full: true } : config }, undefined, { latestOnly: true, group }).then(({ result, ms }) => {
      finished();
      this.lastWorkerRunMs = ms;
      this.runs.set(key, result);
      if (full) this.fulls.set(key, result);
      return result;
    }, (e) => {
      finished();
      throw e;
    });
    this.running = request;
    return request.promise;
  }

  // Whether the run in the worker has the outputs and attention matrices.
  runningFull() {
    return this.running?.full ?? false;
  }

  // The key of the run in the worker, or null.
  runningKey() {
    return this.running?.key ?? null;
  }

  // Whether the run in the worker is for the same draws as `state` (it
  // differs at most in the magnitude), so that the worker can go on to
  // state's run with what it drew.
  runningSharesDraws(state) {
    return this.running !== null && this.running.group === this.sweepKey(state);
  }

  // The verdicts plus the outputs and attention matrices (`full`), for the
  // views that draw them. One run serves both: it also fills the verdict
  // cache, so an open heatmap costs no second run per slider step.
  full(state) {
    const key = this.runKey(state);
    const cached = this.fulls.get(key);
    if (cached) return cached;
    const config = this.configOf(state);
    const result = this.timed(state, () => this.lab.run({ ...config, full: true }));
    this.runs.set(key, result);
    return this.fulls.set(key, result);
  }

  // Everything the CLI's `--json --full --sweep` prints for the state, for
  // the JSON and CSV downloads (computed on demand, not cached).
  // A transformer's whose run would block the page comes from a worker
  // (`call`, browser/sweeper.js's), with the chart's sweep if it has one:
  // then a promise.
  everything(state, call = null) {
    const config = this.configOf(state);
    if (!call || this.runIsQuick(state)) return this.lab.run({ ...config, sweep: SWEEP, full: true });
    const sweep = this.cachedSweep(state);
    return call({ run: { ...config, full: true, sweep: sweep ? null : SWEEP } })
      .then(({ result }) => (sweep ? { ...result, sweep: unpackSweep(sweep) } : result)); // (in the CLI's shape)
  }

  // The sweep does not depend on the magnitude, so its key leaves it out.
  sweepKey(state) {
    return this.keysOf(state).sweep;
  }

  // The cached sweep for the state, or undefined if it has to be computed.
  cachedSweep(state) {
    return this.sweeps.get(this.sweepKey(state));
  }

  // The coarse first curve for the state, if one was computed.
  coarseSweep(state) {
    return this.coarse.get(this.sweepKey(state))?.curve;
  }

  // Whether the state's sweep is expected to take long enough to show a
  // coarse curve first (on this thread, or `inWorker`).
  wantsCoarse(state, inWorker = false) {
    const ms = this.chartMsPerWork(state, inWorker);
    return ms === null ? sweepWork(state) > COARSE_WORK : ms * chartWork(state) > COARSE_FIRST_MS;
  }

  // Whether the coarse first curve (a tenth of the sweep) fits in QUICK_CHART_MS.
  coarseIsQuick(state) {
    const ms = this.chartMsPerWork(state);
    return ms !== null && ms * chartWork(state, COARSE_SWEEP.count) < QUICK_CHART_MS;
  }

  // Computes the coarse first curve on this thread.
  computeCoarse(state) {
    const key = this.sweepKey(state);
    if (!this.coarse.has(key)) {
      const pass = inPass(this.lab, 'coarse', () => this.lab.run({ ...this.configOf(state), sweep: SWEEP, packed: true }).sweep);
      this.keepCoarse(key, { ...pass, passes: COARSE_STRIDE });
    }
    return this.coarse.get(key).curve;
  }

  // How many of the sweep's points are still to compute: those outside its
  // coarse pass once that is in.
  restCount(state) {
    return this.coarse.get(this.sweepKey(state))?.pass.passes ? REST_COUNT : SWEEP.count;
  }

  // Keeps a sweep's coarse pass and the curve drawn from it (coarseCurve).
  keepCoarse(key, pass) {
    this.coarse.set(key, { pass, curve: coarseCurve(pass) });
  }

  // The sweep at SWEEP's magnitudes, packed (app/sweep.js); computed once per key.
  sweep(state) {
    const key = this.sweepKey(state);
    const cached = this.sweeps.get(key);
    if (cached) return cached;
    // the rest of a sweep whose coarse pass this thread or the workers computed (each point once)
    const coarse = this.coarse.get(key)?.pass;
    const run = () => this.lab.run({ ...this.configOf(state), sweep: SWEEP, packed: true }).sweep;
    return this.sweeps.set(key, coarse?.passes ? joinPasses(coarse, inPass(this.lab, 'rest', run)) : run());
  }

  // Everything the chart shows beyond the verdicts: the sweep (timed, to
  // predict the next) and, unless sweepOnly, the thresholds of the plotted
  // word and of the mean.
  chartData(state, { sweepOnly = false } = {}) {
    if (this.cachedSweep(state) === undefined) {
      const points = this.restCount(state);
      const t0 = performance.now();
      this.sweep(state);
      this.learnChart(state, performance.now() - t0, points);
      this.swept.page += 1;
    }
    if (sweepOnly) return;
    this.threshold(state, state.word);
    this.threshold(state, -1);
  }

  // Computes chartData(state) in the sweep worker instead, so that the
  // page's thread stays free: `call` is the worker's (browser/sweeper.js).
  // A call for the sweep being computed shares its request; the page queues
  // at most two (the one a keystroke starts while the worker is free, and
  // the chart's own). Calls onSweep() once the sweep is cached (the curves
  // can be drawn), and resolves once the thresholds of the plotted word and
  // the mean are too. Rejects as `call` does. `yields`: the worker also
  // computes the verdicts (the transformer's run worker), and a newer run
  // there drops this request ({stale}) at its next step.
  chartDataOffThread(state, call, { onSweep = () => {}, yields = false } = {}) {
    const key = this.sweepKey(state);
    if (this.offThread?.key === key) {
      this.offThread.onSweep.add(onSweep);
      return this.offThread.promise;
    }
    const sweep = this.sweeps.get(key) ?? null;
    const pairs = [state.word, -1].filter((pair) => this.cachedThreshold(state, pair) === undefined);
    if (sweep && pairs.length === 0) return Promise.resolve(); // nothing to compute
    const request = { key, onSweep: new Set([onSweep]), yields };
    const finished = () => { if (this.offThread === request) this.offThread = null; };
    const coarse = !sweep && !this.coarse.get(key) && this.wantsCoarse(state, true);
    // a coarse pass this thread computed: the workers compute the rest (a
    // checkpoint runner's coarse curve is a sweep of its own, not a pass)
    const pass = this.coarse.get(key)?.pass;
    const coarsePass = !sweep && pass?.passes ? pass : null;
    const options = yields ? { latestOnly: true, yields: true, group: key } : undefined;
    const sent = performance.now();
    request.promise = call({ config: this.configOf(state), range: SWEEP, pairs, sweep, coarse, coarsePass }, (partial) => {
      if (partial.coarse) {
        this.keepCoarse(key, partial.sweep);
      } else {
        this.sweeps.set(key, partial.sweep);
        // (not after a coarse pass, nor from the workers' first answer, which
        // also waited for them to start: neither is their usual wait)
        if (!coarse && sweepsInWorkers(state)) {
          if (this.workersAnswered) this.workerWaitMs = Math.max(0, performance.now() - sent - partial.ms);
          this.workersAnswered = true;
        }
        // (after a coarse pass, only the rest was timed)
        this.learnChart(state, partial.ms, partial.sweep.passes ? REST_COUNT : SWEEP.count, true, partial.threadMs);
        this.swept.worker += 1;
      }
      request.onSweep.forEach((f) => f());
    }, options).then((thresholds) => {
      for (const [pair, value] of thresholds) this.thresholds.set(`${key}#${pair}`, value);
      finished();
    }, (e) => {
      finished();
      throw e;
    });
    this.offThread = request;
    return request.promise;
  }

  // The sweep key of the request in a worker, or null.
  offThreadKey() {
    return this.offThread?.key ?? null;
  }

  // Whether that request yields to runs (it shares the run worker).
  offThreadYields() {
    return this.offThread?.yields ?? false;
  }

  // Whether the worker is computing a request's sweep. (A request whose
  // sweep is in is only searching thresholds, which the worker leaves out
  // once a newer request reaches it: one is then not kept waiting.)
  offThreadSweeping() {
    return this.offThread !== null && !this.sweeps.has(this.offThread.key);
  }

  // Whether chartData(state) is computed with the keystroke, judged by the
  // last sweep: when it fits in QUICK_CHART_MS, or in MAX_KEYSTROKE_CHART_MS
  // when the workers are known to answer no sooner.
  chartDataIsQuick(state) {
    const ms = this.chartMsPerWork(state);
    if (ms === null) return false;
    const here = ms * chartWork(state);
    if (here < QUICK_CHART_MS) return true;
    if (here >= MAX_KEYSTROKE_CHART_MS || this.workerWaitMs === null || !sweepsInWorkers(state)) return false;
    return here <= this.chartMsPerWork(state, true) * chartWork(state) + this.workerWaitMs;
  }

  // What threshold(state, pair) would return, or undefined if not computed yet.
  cachedThreshold(state, pair) {
    if (!state.positions) return null;
    return this.thresholds.get(`${this.sweepKey(state)}#${pair}`);
  }

  // The largest magnitude at which np.allclose still holds for pair `pair`
  // (-1: the sentence mean); null when positions are off or it has no partner.
  threshold(state, pair) {
    if (!state.positions) return null;
    const key = `${this.sweepKey(state)}#${pair}`;
    let value = this.thresholds.get(key);
    if (value === undefined) {
      value = thresholdFor(this.lab, this.configOf(state), this.sweep(state), pair);
      this.thresholds.set(key, value);
    }
    return value;
  }

  // Checks text typed into the field for state property `name` by running the
  // lab with it. Returns {value} (the value to store) or {message} (why not,
  // in the core's words, without the field name the page shows beside it).
  tryField(state, name, raw) {
    const field = this.fieldConfig(state, name, raw);
    if (field.message !== undefined) return field;
    // A transformer whose run would block the page is checked by running the
    // module's head with the same options (the core checks and echoes the
    // transformer's with it too, in the same words); its own run then goes
    // to a worker.
    const next = { ...state, [name]: field.sentence ? field.text : state[name] };
    // (so is a checkpoint's text while the checkpoint is being read)
    const quick = this.runIsQuick(next);
    let result;
    try {
      result = quick ? this.timed(next, () => this.lab.run(field.config))
        : this.lab.run({ ...field.config, model: 'head', ...(isCheckpoint(next) && { scheme: 'none', prefix_space: null }) });
    } catch (e) {
      return this.refusal(field, e);
    }
    return this.accepted(state, name, raw, field, result, quick ? result : null);
  }

  // The config tryField runs, or {message} for text refused before that.
  fieldConfig(state, name, raw) {
    const key = this.form.property(name)?.json;
    if (!key) throw new Error(`tryField: ${name} is not a field of the core's`);
    const sentence = name === 'a' || name === 'b';
    const text = sentence ? wellFormed(raw) : raw.trim();
    if (sentence && text.length > MAX_SENTENCE_CHARS) {
      return { message: `${text.length} characters; allowed: up to ${MAX_SENTENCE_CHARS}` };
    }
    if (sentence && text.includes('\0')) return { message: NUL_PROBLEM };
    return { key, sentence, text, config: { ...this.configOf(state), [key]: text } };
  }

  // The field does not show its own name; a message about another field
  // keeps that field's name (d 5 refused because of 2 heads says "heads: ...").
  refusal({ key }, e) {
    const message = String(e.message);
    return { message: message.startsWith(`${key}: `) ? message.slice(key.length + 2) : message };
  }

  // The value to store for an accepted field, and its result cached
  // (`cache`: the run for that state, or null).
  accepted(state, name, raw, { key, sentence }, result, cache = result) {
    const value = sentence ? raw : (result.config[key] || 0); // the core's reading; no -0
    if (cache) {
      const next = { ...state, [name]: value };
      this.runs.set(this.runKey(next), cache);
    }
    return { value };
  }

  // The index of sentence A's last token under the state's checkpoint, or
  // null while its tokenizer is not in (the store's settleWord).
  lastToken(state) {
    const count = isCheckpoint(state) ? this.ck?.tokenCount(state, state.a) : null;
    return count ? count - 1 : null;
  }
}
