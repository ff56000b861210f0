// scheduler.js - where and when the page's work is computed: a state's
// verdicts on the page's thread, in the run worker or in steps, and the
// chart's sweep and thresholds with the verdicts, after they are painted, in
// the sweep workers or beside the runs. Which of these a model uses is its
// row's `runs` and `chart` (app/models.js); this module never asks which
// model it is. It draws nothing: the page renders again when work is in.
import { modelOf, isCheckpointModel } from '../app/models.js';

// Resolves once the page has had a frame to paint what it has; the plain
// timer covers pages that get no animation frames (hidden tabs, off-screen
// iframes).
export const afterPaint = () => new Promise((resolve) => {
  requestAnimationFrame(() => setTimeout(resolve, 0));
  setTimeout(resolve, 100);
});

// Resolves in a task of its own, after what is already queued (input first).
export const nextTask = () => new Promise((resolve) => { setTimeout(resolve, 0); });

// WebAssembly memory never shrinks: a run worker that drew a large
// transformer's weights holds them until it is ended. So once the page has
// left the models that use it for this long, it and its spares are ended,
// and made afresh when one comes back (a student flicking between the
// models keeps them).
const RETIRE_MS = 2000;

const usesRunWorker = (lab) => modelOf(lab.model).runs === 'run-worker' || modelOf(lab.model).chart === 'run-worker';

// model: app/model.js's; store: the page's ({get}); workers: {runs()} makes
// the run worker (browser/sweeper.js's), started the first time a model
// needs it; render(): the page's one render for the store's value now;
// failed(what, error): says a failure of the lab's; refuse(lab, error): a
// checkpoint's refusal of settings, said where its model is.
export function createScheduler({ model, store, workers, render, failed, refuse }) {
  const runWorkers = { run: null };
  let sweeper = null; // the sweep workers, once attached
  let sweepQueued = false;
  let sweepFailed = null; // the sweep key that failed, so it is not retried in a loop
  let retiring = null;
  let retiredRestarts = 0;
  // The run worker's runs: asked for, finished, dropped as stale.
  const runStats = { asked: 0, finished: 0, dropped: 0 };

  // The run worker for its verdicts and its chart, on one copy of the drawn
  // weights (with spares, so a run for a state the page has left is
  // dropped at once); null where workers fail.
  const runWorker = () => {
    runWorkers.run ??= workers?.runs() ?? null;
    return runWorkers.run?.available() ? runWorkers.run : null;
  };

  function retire(lab) {
    if (usesRunWorker(lab)) {
      clearTimeout(retiring);
      retiring = null;
    } else if (runWorkers.run) {
      retiring ??= setTimeout(() => {
        retiring = null;
        if (usesRunWorker(store.get().lab)) return;
        retiredRestarts += runWorkers.run.restarts();
        runWorkers.run.end();
        runWorkers.run = null;
      }, RETIRE_MS);
    }
  }

  // A chart the core could not compute: said once, not retried for that key.
  function chartFailed(key, error) {
    sweepFailed = key;
    failed('The chart could not be computed', error);
  }
  const hasFailed = (lab) => sweepFailed === model.sweepKey(lab);

  // The sweep and thresholds for the chart, on this thread.
  function computeChart(lab, options) {
    try {
      model.chartData(lab, options);
    } catch (e) {
      chartFailed(model.sweepKey(lab), e);
    }
  }

  function computeCoarse(lab) {
    try { model.computeCoarse(lab); } catch (e) { chartFailed(model.sweepKey(lab), e); }
  }

  // Where the chart's work goes off this thread for the state's model, or
  // null (none there, or it is not available).
  function chartWorker(lab) {
    const { chart } = modelOf(lab.model);
    const worker = chart === 'run-worker' ? runWorker() : chart === 'slices' ? model.ck.runner : sweeper;
    return worker?.available() ? worker : null;
  }

  // The chart's data after the verdicts are painted, so typing never waits
  // for it. Off this thread: one scheduled request at a time (sharing the
  // one a keystroke may have started), for the state current when it is
  // sent; render() then asks again if the state has moved on. Without a
  // worker: the sweep first, drawn at once, then the thresholds (a slow
  // sweep's bisections take a tenth as long again) after that is painted.
  function scheduleSweep() {
    if (sweepQueued) return;
    sweepQueued = true;
    afterPaint().then(async () => {
      const { lab } = store.get();
      const worker = chartWorker(lab);
      if (worker) {
        const key = model.sweepKey(lab);
        // Beside the runs, a sweep for words the page has left (it can
        // take minutes) is dropped at its next step by this newer request,
        // and a run asked for later drops this one.
        const yields = modelOf(lab.model).chart === 'run-worker';
        try {
          await model.chartDataOffThread(lab, worker.call, { onSweep: () => render(), yields });
        } catch (e) {
          if (e instanceof Error) chartFailed(key, e); // else: dropped, or the worker broke (the page computes from now on)
        }
      } else if (model.cachedSweep(lab) === undefined && model.coarseSweep(lab) === undefined && model.wantsCoarse(lab)) {
        computeCoarse(lab); // a long sweep on this thread: a first curve now, the rest after it is painted
      } else {
        computeChart(lab, { sweepOnly: model.cachedSweep(lab) === undefined });
      }
      sweepQueued = false;
      render();
    });
  }

  // Starts the sweep workers on the sweep for `lab` now, when they are free
  // and it will not be computed with the verdicts: for new words (typed,
  // reversed, a preset, a link) they work while this thread works out the
  // verdicts and paints them (scheduleSweep's request then shares this
  // one). Only when they are not sweeping, so that a burst of keystrokes
  // queues one sweep there, not one each; a request searching thresholds
  // gives way to the new words at its next search. `typed`: text not yet
  // accepted by the core, whose refusal is the field's to report.
  function sweepEarly(lab, { typed = false } = {}) {
    if (modelOf(lab.model).chart !== 'sweep-workers' || !sweeper?.available() || model.offThreadSweeping() ||
        model.cachedSweep(lab) !== undefined || model.chartDataIsQuick(lab)) return;
    model.chartDataOffThread(lab, sweeper.call, { onSweep: () => render() })
      .catch((e) => { if (e instanceof Error && !typed) chartFailed(model.sweepKey(lab), e); });
  }

  // What the chart can show for `lab` now: a small sentence's curves are
  // computed here with its verdicts, in the same frame (their thresholds,
  // which take as long again, after it is painted); a larger one's coarse
  // first curve, when that is quick; the rest is scheduled.
  // Returns {sweep, coarse, threshold, meanThreshold, missing}.
  function chartNow(lab) {
    const cached = () => [model.cachedSweep(lab), model.cachedThreshold(lab, lab.word), model.cachedThreshold(lab, -1)];
    let [sweep, threshold, meanThreshold] = cached();
    let missing = (!sweep || threshold === undefined || meanThreshold === undefined) && !hasFailed(lab);
    if (missing && !sweep && model.chartDataIsQuick(lab)) {
      computeChart(lab, { sweepOnly: true });
      [sweep, threshold, meanThreshold] = cached();
      missing = (threshold === undefined || meanThreshold === undefined) && !hasFailed(lab);
    } else if (missing && !sweep && model.coarseSweep(lab) === undefined && model.coarseIsQuick(lab) &&
               (!sweeper?.available() || model.wantsCoarse(lab, true))) {
      // (not when the sweep workers' whole curve is due soon: it would cost this thread a draw more)
      computeCoarse(lab);
    }
    if (missing && !sweep) sweepEarly(lab);
    const coarse = !sweep ? model.coarseSweep(lab) : undefined;
    if (missing) scheduleSweep();
    return { sweep: sweep ?? coarse, coarse: Boolean(coarse), threshold, meanThreshold, missing };
  }

  // Where the state's verdicts are computed when not on this thread at
  // once: the run worker, or a checkpoint's runs in steps; null: here.
  function runsFor(lab) {
    if (model.runIsQuick(lab)) return null;
    const { runs } = modelOf(lab.model);
    return runs === 'slices' ? model.ck.runs : runs === 'run-worker' ? runWorker() : null;
  }

  // A run off this thread; the page renders again when it is back. A run
  // for a state the page has since left is dropped first.
  function runOffThread(lab, full, runs) {
    const running = model.runningKey();
    const key = model.runKey(lab);
    if (running === key && (model.runningFull() || !full)) return; // asked already
    // A run for other draws (other words, d, seed, blocks...) is ended: the
    // new one draws afresh anyway. One that differs only in the magnitude
    // (a slider step) is dropped by the worker itself at its next block,
    // and the new run goes on with the worker's drawn weights, which a
    // fresh copy would spend longer drawing again. So is one computing the
    // chart for other draws. The chart for these draws gives way to the run
    // at its next step (it asks again once the verdicts are shown).
    const chartForOthers = model.offThreadYields() && model.offThreadKey() !== model.sweepKey(lab);
    if ((running !== null && !model.runningSharesDraws(lab)) || chartForOthers) {
      runs.restart(); // a copy still starting skips the stale run itself
    }
    runStats.asked += 1;
    model.runOffThread(lab, runs.call, { full }).then(() => {
      runStats.finished += 1;
      render();
    }, (e) => {
      if (e instanceof Error && isCheckpointModel(lab.model)) {
        refuse(lab, e);
        render();
      } else if (e instanceof Error) failed('The lab could not compute this', e);
      else if (e?.broken) render(); // the page computes from now on
      else if (e?.stale) {
        // the page has moved on and asked for a newer run, or (if none is
        // on its way) this one is asked for again on a fresh copy
        runStats.dropped += 1;
        if (model.runningKey() === null) render();
      }
    });
  }

  // The state's verdicts (with the outputs and attention matrices if
  // `full`): the result, or undefined while it is computed off this thread.
  // Throws as the lab does.
  function verdicts(lab, full) {
    const runs = runsFor(lab);
    if (!runs) return full ? model.full(lab) : model.verdict(lab);
    const result = model.cachedRun(lab, full);
    if (!result) runOffThread(lab, full, runs);
    return result;
  }

  return {
    verdicts,
    chartNow,
    sweepEarly,
    retire,
    attachSweeper: (s) => { sweeper = s; },
    sweeper: () => sweeper,
    // the run worker while the state's model uses it (else null), and what it was asked (for ?debug)
    runs: () => (usesRunWorker(store.get().lab) ? runWorker() : null),
    runStats: () => ({ ...runStats, lastMs: model.lastWorkerRunMs ?? null,
      restarts: retiredRestarts + (runWorkers.run?.restarts() ?? 0) }),
    pools: () => ({ sweep: sweeper, ...runWorkers }),
  };
}
