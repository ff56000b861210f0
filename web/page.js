// page.js - draws the whole page from the store's value: the one render().
// It asks the model for what the value needs (verdicts, the chart's sweep
// and thresholds), hands each view what it shows, and schedules the chart's
// slow work after the verdicts are painted. Nothing here changes the store
// (a checkpoint once read has it settle again: its tokens place the word).
import { hashOf, currentGuess, set } from './app/store.js';
import { isCheckpointModel } from './app/state.js';
import { reorderingBadges } from './app/reordering.js';
import { GPT2_ONLY_STEPS } from './teach/tour_length.js';
import { viewUrl } from './views/embed.js';
import { createVerdicts } from './views/verdicts.js';
import { createControls, showFailure } from './views/controls.js';
import { createLab } from './poslab.js';
import { setText, setHidden, setAttr } from './views/dom.js';
import { createSight } from './views/sight.js';
import { track, laterStyles } from './browser/loading.js';

// Resolves once the page has had a frame to paint what it has; the plain
// timer covers pages that get no animation frames (hidden tabs, off-screen
// iframes).
export const afterPaint = () => new Promise((resolve) => {
  requestAnimationFrame(() => setTimeout(resolve, 0));
  setTimeout(resolve, 100);
});

// Resolves in a task of its own, after what is already queued (input first).
export const nextTask = () => new Promise((resolve) => { setTimeout(resolve, 0); });

// What the NumPy script does, under its button: a drawn model's numbers come
// from NumPy's seeded draws; a trained model's from its checkpoint's files.
const exportHint = (lab) => (isCheckpointModel(lab.model)
  ? 'The NumPy script reads the checkpoint’s files with NumPy alone, runs its forward pass on the token ids shown and prints the table above.'
  : 'The NumPy script reproduces exactly these numbers (same seed, same draws) and prints the table above.');

// A model as the status line names it ("the figures shown are still those of ...").
const MODEL_NAMES = { head: 'the one attention head', transformer: 'the transformer blocks', gpt: 'gpt', nope: 'nope', bag: 'bag', gpt2: 'GPT-2' };

// doc: the document; form: app/state.js's; model: app/model.js's; view: the
// embed view (?embed, ?hide); tourMemory, urlSync: browser/'s; tourActions:
// the tour panel's {guess, go, end}; store: app/store.js's.
// workers: {runs()} makes the transformer's worker (browser/sweeper.js's),
// started the first time a transformer needs it.
// A checkpoint model (the models trained here, GPT-2) goes through the same
// render as the others: the model opens it (the page says it is reading it
// meanwhile), then computes its verdicts and chart on this thread.
export function createPage({ doc, form, model, view, tourMemory, urlSync, tourActions, store, workers }) {
  const $ = (id) => doc.getElementById(id);
  const controls = createControls(doc, form);
  const verdicts = createVerdicts($('verdicts'));
  // The sections below the verdicts are drawn when in sight, or when the
  // renders pause (views/sight.js): a slider step redraws what the student
  // sees. Before a print, everything.
  const sections = createSight({ margin: '300px 0px', quietMs: 150 });
  doc.defaultView.addEventListener('beforeprint', () => sections.flush());
  // Views whose code loads when their section is first opened (esbuild puts
  // it in a chunk of its own): get() is the view once loaded, else null;
  // load() starts loading it, and render() runs again when it has.
  function onDemand(what, load) {
    let view = null;
    let loading = null;
    return {
      get: () => view,
      load: () => (loading ??= track(Promise.all([load(), laterStyles()])).then(([v]) => { view = v; render(store.get()); },
        (e) => showFailure(doc, `${what} could not be loaded`, e))),
    };
  }
  // The Why panel and its own lab for the claims (kept, to say what its memory holds).
  let whyLab = null;
  const why = onDemand('The panel', () => import('./why_panel.js').then(({ createWhy, createOwnLabClaims }) => ({
    panel: createWhy($('why'), () => render(store.get())),
    claims: createOwnLabClaims(() => createLab().then((lab) => { whyLab = lab; return lab; }), () => render(store.get())),
  })));
  $('why').addEventListener('toggle', () => { if ($('why').open) why.load(); });
  const tour = onDemand('The tour', () => import('./views/tour.js').then(({ createTour }) => createTour($('tour'), tourActions)));
  const heatmaps = onDemand('The heatmaps', () => import('./views/heatmap.js').then(({ createHeatmaps }) => createHeatmaps($('heatmap'), () => render(store.get()))));
  // A checkpoint's own parts (its tokens, what it says, its controls),
  // loaded the first time one is chosen; the block-by-block picture, the
  // first time a model has blocks.
  // With it the lesson in three switches (views/lesson.js).
  const checkpoint = onDemand('The checkpoint view', () => import('./views/lesson.js').then(({ createCheckpointViews }) =>
    createCheckpointViews(doc, { model, form, store, render, set, showWords: controls.showWords, sight: sections })));
  // GPT-2 from the student's files: its file picker, loaded when GPT-2 is chosen.
  const modelFiles = onDemand('GPT-2\'s file picker', () => import('./views/model_files.js').then((m) =>
    m.createModelFiles(doc, model.lab, () => store.settle())));
  const badges = ['permutation', 'baseline'].map((id) => $(id).querySelector('summary .summary-figure'));
  const reordering = onDemand('The reordering views', () => import('./views/permutation.js').then((m) =>
    ({ permutation: m.createPermutation($('permutation')), baseline: m.createBaseline($('baseline')) })));
  const blocks = onDemand('The block-by-block view', () => import('./views/blocks.js').then(({ createBlocks }) => createBlocks($('blocks'))));
  // The transformer's worker, for its verdicts and its chart, on one copy of
  // the drawn weights (with spares, so a run for a state the page has left
  // is dropped at once); null where workers fail.
  const transformerWorkers = { run: null };
  const transformerWorker = () => {
    transformerWorkers.run ??= workers?.runs() ?? null;
    return transformerWorkers.run?.available() ? transformerWorkers.run : null;
  };
  // WebAssembly memory never shrinks: a worker that drew a large
  // transformer's weights (302 MB at 12 blocks, d 512) holds them until it
  // is ended. So once the page has left the transformer for RETIRE_MS, its
  // worker and spares are ended, and made afresh if a transformer comes
  // back. (A student flicking between the models keeps them.)
  const RETIRE_MS = 2000;
  let retiring = null;
  let retiredRestarts = 0;
  function retireTransformer(lab) {
    if (lab.model === 'transformer') {
      clearTimeout(retiring);
      retiring = null;
    } else if (transformerWorkers.run) {
      retiring ??= setTimeout(() => {
        retiring = null;
        if (store.get().lab.model === 'transformer') return;
        retiredRestarts += transformerWorkers.run.restarts();
        transformerWorkers.run.end();
        transformerWorkers.run = null;
      }, RETIRE_MS);
    }
  }
  // What the verdicts show: the last result computed, and the state it is for.
  let shown = null;
  // What renderResults last drew: the result, and the tour and notice it drew with.
  let drawn = {};
  // The transformer's runs in the worker: asked for, finished, dropped as stale.
  const runStats = { asked: 0, finished: 0, dropped: 0 };
  // A checkpoint's limits (its positions) are known only once it is read,
  // so a link or a change of model can ask it for settings it refuses,
  // where typing them would have been refused in the field. The core's
  // line for each such state (by run key), said where a model that could
  // not be opened is said, not as a failure of the lab.
  const refusedRuns = new Map();
  const refuse = (lab, e) => {
    const problem = `${MODEL_NAMES[lab.model]} cannot run these settings: ${e.message}`;
    refusedRuns.set(model.runKey(lab), problem);
    return problem;
  };
  // Created after the first render (panels) and once Chart.js has loaded (plot).
  let panels = null;
  let plot = null;
  let sweeper = null;
  let sweepQueued = false;
  let sweepFailed = null; // the sweep key that failed, so it is not retried in a loop
  let chartModel = null; // the model (and opening of a checkpoint) the chart was last drawn for

  // Whether a section is shown and open (its group not hidden by the embed).
  // The one render for the store's value as it is now: one function, so that
  // a sweep's callbacks (a keystroke's and the chart's) run it once, not twice.
  const rerender = () => render(store.get());

  const isOpen = (id) => !view.hide.has($(id).dataset.group) && $(id).open;

  // A chart the core could not compute: said once, not retried for that key.
  function chartFailed(key, error) {
    sweepFailed = key;
    showFailure(doc, 'The chart could not be computed', error);
  }

  // The sweep and thresholds for the chart, on this thread.
  function computeChart(lab, options) {
    try {
      model.chartData(lab, options);
    } catch (e) {
      chartFailed(model.sweepKey(lab), e);
    }
  }

  // The chart's data after the verdicts are painted, so typing never waits
  // for it. In the worker: one scheduled request at a time (sharing the one
  // a keystroke may have started), for the state current when it is sent;
  // render() then asks again if the state has moved on. Without the worker:
  // the sweep first, drawn at once, then the thresholds (a slow sweep's
  // bisections take a tenth as long again) after that is painted.
  function scheduleSweep() {
    if (sweepQueued) return;
    sweepQueued = true;
    afterPaint().then(async () => {
      const { lab } = store.get();
      const transformer = lab.model === 'transformer';
      // (a checkpoint's is computed on this thread, in slices: CheckpointModels.runner)
      const worker = transformer ? transformerWorker() : isCheckpointModel(lab.model) ? model.ck.runner : sweeper;
      if (worker?.available()) {
        const key = model.sweepKey(lab);
        // In the transformer's worker, a sweep for words the page has left
        // (it can take minutes) is dropped at its next step by this newer
        // request, and a run asked for later drops this one.
        try {
          await model.chartDataOffThread(lab, worker.call, { onSweep: rerender, yields: transformer });
        } catch (e) {
          if (e instanceof Error) chartFailed(key, e); // else: dropped, or the worker broke (the page computes from now on)
        }
      } else if (model.cachedSweep(lab) === undefined && model.coarseSweep(lab) === undefined && model.wantsCoarse(lab)) {
        // a long sweep on this thread: a first curve now, the rest after it is painted
        try { model.computeCoarse(lab); } catch (e) { chartFailed(model.sweepKey(lab), e); }
      } else {
        computeChart(lab, { sweepOnly: model.cachedSweep(lab) === undefined });
      }
      sweepQueued = false;
      render(store.get());
    });
  }

  // `verdictOf(changes)`: the result for the lab with a few settings
  // changed (by default the model's cached verdict); `more`: more for the
  // steps' ctx.
  function renderTour(page, result, verdictOf = (changes) => model.verdict({ ...page.lab, ...changes }), more = {}) {
    const { step } = page.tour;
    const touring = step > 0 && !view.hide.has('tour');
    setHidden($('tour-start'), touring || view.hide.has('tour'));
    if (!touring) {
      tour.get()?.hide();
      const resume = tourMemory.known(); // read after the first render
      // counted as the tour counts them: its GPT-2 step only while GPT-2 is open
      setText($('tour-start'), resume > 1 ? `Resume the tour (step ${resume} of ${Math.max(resume, form.tourSteps - GPT2_ONLY_STEPS)})` : 'Guided tour');
      return false;
    }
    const panel = tour.get();
    if (!panel) {
      tour.load();
      return false;
    }
    const guess = currentGuess(page);
    const { lab } = page;
    panel.render({ step, guess, ctx: {
      result, state: lab, form, threshold: (pair) => model.threshold(lab, pair),
      verdict: verdictOf, // the lab with a few settings changed
      ...more, // on a checkpoint: gpt2, whether GPT-2 is open
    } });
    return guess === undefined; // the answer stays covered until the guess
  }

  // Starts the sweep workers on the head's sweep for `lab` now, when they
  // are free and it will not be computed with the verdicts: for new words
  // (typed, reversed, a preset, a link) they work while this thread works
  // out the verdicts and paints them, not after that frame
  // (scheduleSweep's request then shares this one). At 64 words and d 512
  // each needs the words' projections, ~50 ms done in parallel rather than
  // in turn; at 16 words the curves come a frame sooner. Only when they are
  // not sweeping, so that a burst of keystrokes queues one sweep there, not
  // one each; a request searching thresholds gives way to the new words at
  // its next search. `typed`: text not yet accepted by the core, whose
  // refusal is the field's to report, not the chart's.
  function sweepEarly(lab, { typed = false } = {}) {
    if (lab.model !== 'head' || !sweeper?.available() || model.offThreadSweeping() ||
        model.cachedSweep(lab) !== undefined || model.chartDataIsQuick(lab)) return;
    model.chartDataOffThread(lab, sweeper.call, { onSweep: rerender })
      .catch((e) => { if (e instanceof Error && !typed) chartFailed(model.sweepKey(lab), e); });
  }

  function renderChart({ lab }, result) {
    const cached = () => [model.cachedSweep(lab), model.cachedThreshold(lab, lab.word), model.cachedThreshold(lab, -1)];
    let [sweep, threshold, meanThreshold] = cached();
    let missing = (!sweep || threshold === undefined || meanThreshold === undefined) &&
      sweepFailed !== model.sweepKey(lab);
    // A small sentence's curves are drawn with its verdicts, in the same
    // frame (their thresholds, which take as long again, after it is
    // painted); a larger one's coarse first curve, when that is quick.
    if (missing && !sweep && model.chartDataIsQuick(lab)) {
      computeChart(lab, { sweepOnly: true });
      [sweep, threshold, meanThreshold] = cached();
      missing = (threshold === undefined || meanThreshold === undefined) && sweepFailed !== model.sweepKey(lab);
    } else if (missing && !sweep && model.coarseSweep(lab) === undefined && model.coarseIsQuick(lab) &&
               (!sweeper?.available() || model.wantsCoarse(lab, true))) {
      // (not when the sweep workers' whole curve is due soon: it would cost this thread a draw more)
      try { model.computeCoarse(lab); } catch (e) { chartFailed(model.sweepKey(lab), e); }
    }
    if (missing && !sweep) sweepEarly(lab);
    const coarse = !sweep ? model.coarseSweep(lab) : undefined;
    plot.update({ sweep: sweep ?? coarse, coarse: Boolean(coarse), result, state: lab, threshold: threshold ?? null,
      meanThreshold: meanThreshold ?? null, pending: missing });
    if (missing) scheduleSweep();
  }

  function render(page) {
    const hash = hashOf(page, form);
    urlSync.mirror(hash);
    setAttr($('open-full'), 'href', viewUrl(hash));
    controls.render(page);
    controls.showNotice(page.notice);
    const { lab } = page;
    if (modelFiles.get()) modelFiles.get().render(lab);
    else if (lab.model === 'gpt2') modelFiles.load(); // it hides itself for a course host's folder
    const checkpointModel = isCheckpointModel(lab.model);
    if (checkpointModel && !checkpoint.get()) checkpoint.load();
    checkpoint.get()?.controls(lab); // (and a checkpoint left behind gives its memory back)
    let result;
    let pending = false;
    let problem = null;
    if (checkpointModel && !model.checkpointReady(lab)) {
      // opened first by its view; render() runs again when it is in
      problem = checkpoint.get()?.read(lab);
      pending = !problem;
    } else if (checkpointModel && refusedRuns.has(model.runKey(lab))) {
      problem = refusedRuns.get(model.runKey(lab));
    } else try {
      // The heatmaps need the attention matrices: then one run with them
      // serves the verdicts too (still one run per slider step).
      const full = isOpen('heatmap');
      // (a large checkpoint's run goes in steps on this thread: CheckpointModels.runs)
      const runs = model.runIsQuick(lab) ? null : checkpointModel ? model.ck.runs : transformerWorker();
      if (runs) {
        result = model.cachedRun(lab, full);
        if (!result) {
          runInWorker(lab, full, runs);
          pending = true;
        }
      } else {
        result = full ? model.full(lab) : model.verdict(lab);
      }
    } catch (e) {
      if (!(checkpointModel && e instanceof Error)) {
        showFailure(doc, 'The lab could not compute this', e);
        return;
      }
      problem = refuse(lab, e);
    }
    if (result) shown = { result, lab };
    retireTransformer(lab);
    showPending(pending, lab, problem);
    // Nothing computed yet and nothing coming until the student acts (a
    // link to GPT-2 with no files): empty cards, table and chart showed
    // grey circles and blank names; the note above them says why.
    for (const id of ['verdicts', 'plot', 'blocks']) $(id).classList.toggle('empty', !shown && Boolean(problem));
    setHidden($('plot-word').parentElement, !shown && Boolean(problem));
    // The script and downloads are of the figures shown: none while they are
    // another model's or missing (a GPT-2 link with no files said "Could
    // not write the script: model: "checkpoint" runs on an opened checkpoint").
    const exportable = Boolean(shown) && shown.lab.model === lab.model && !problem;
    for (const button of $('export').querySelectorAll('button')) if (button.disabled === exportable) button.disabled = !exportable;
    setText($('export-hint'), exportable ? exportHint(lab) : 'The script and the downloads come with this model’s own figures.');
    if (!shown) { // the first result is still being computed (or its model could not be opened)
      if (problem) {
        setAttr($('plot'), 'aria-busy', 'false'); // (no chart is on its way)
        setAttr(doc.documentElement, 'data-ready', 'true');
      }
      return;
    }
    // While a run is on its way, a slider step changes nothing below the
    // controls: the figures stay the previous state's until it is back.
    if (!(pending && drawn.result === shown.result && drawn.tour === page.tour && drawn.notice === page.notice)) {
      renderResults(page, shown.result, shown.lab, pending || Boolean(problem), // (no chart for a model that is not open)
        { slow: shown.result !== drawn.result && !model.runIsQuick(shown.lab) });
      drawn = { result: shown.result, tour: page.tour, notice: page.notice };
    }
    setAttr(doc.documentElement, 'data-ready', 'true'); // rewriting it would restyle the whole page each step
  }

  // A transformer run in the worker; the page renders again when it is
  // back. A run for a state the page has since left is dropped first.
  function runInWorker(lab, full, runs) {
    const running = model.runningKey();
    const key = model.runKey(lab);
    if (running === key && (model.runningFull() || !full)) return; // asked already
    // A run for other draws (other words, d, seed, blocks...) is ended: the
    // new one draws afresh anyway. One that differs only in the magnitude
    // (a slider step) is dropped by the worker itself at its next block,
    // and the new run goes on with the worker's drawn weights (302 MB at 12
    // blocks, d 512), which a fresh copy would spend longer drawing again
    // (3.6 s against a 0.8 s run at 64 words).
    // So is one computing the chart for other draws. The chart for these
    // draws gives way to the run at its next step (it asks again once the
    // verdicts are shown).
    const chartForOthers = model.offThreadIsTransformer() && model.offThreadKey() !== model.sweepKey(lab);
    if ((running !== null && !model.runningSharesDraws(lab)) || chartForOthers) {
      runs.restart(); // a copy still starting skips the stale run itself
    }
    runStats.asked += 1;
    model.runOffThread(lab, runs.call, { full }).then(() => {
      runStats.finished += 1;
      render(store.get());
    }, (e) => {
      if (e instanceof Error && isCheckpointModel(lab.model)) {
        refuse(lab, e);
        render(store.get());
      } else if (e instanceof Error) showFailure(doc, 'The lab could not compute this', e);
      else if (e?.broken) render(store.get()); // the page computes from now on
      else if (e?.stale) {
        // the page has moved on and asked for a newer run, or (if none is
        // on its way) this one is asked for again on a fresh copy
        runStats.dropped += 1;
        if (model.runningKey() === null) render(store.get());
      }
    });
  }

  // While the worker computes, or a checkpoint is read, the figures shown
  // are the previous state's: said so in a line that floats above the page
  // (style.css), so that saying it lays nothing out again.
  function showPending(pending, lab, problem) {
    setAttr($('verdicts'), 'aria-busy', String(pending));
    // Figures of another model (the last one's, while this one is read or
    // its files are awaited) are dimmed, and the status line says whose
    // they are: GPT-2 chosen and no file read yet showed the one head's
    // True beside switches set for GPT-2.
    const others = shown && shown.lab.model !== lab.model ? shown.lab.model : null;
    for (const id of ['verdicts', 'plot', 'blocks']) $(id).classList.toggle('stale', Boolean(others));
    const whose = others ? `; the figures shown are still those of ${MODEL_NAMES[others]}` : '';
    // What lasts until the student acts (GPT-2's files to choose, settings
    // the model refuses) is said beside the figures and in the result bar:
    // floating over the page, it covered the files' progress and their error.
    if (problem) laterStyles(); // (the note's styles: later.css)
    for (const id of ['stale-note', 'rb-note']) {
      setHidden($(id), !problem);
      setText($(id), problem ? `${problem}${whose}` : '');
    }
    setHidden($('run-status'), Boolean(problem) || (lab.model === 'head' && !others));
    $('run-status').classList.toggle('idle', !pending);
    if (pending && lab.model !== 'transformer') {
      setText($('run-status'), `Reading model ${lab.model}…${whose}`);
    } else if (pending) {
      setText($('run-status'), `Computing ${lab.layers} transformer block${lab.layers === 1 ? '' : 's'} for these ` +
        `settings${shown ? '; the figures shown are still the previous settings’ ones' : ''}…`);
    }
  }

  // slow: a new result of a model whose runs are not quick (a checkpoint's
  // go in steps, the transformer's to its worker), whose sections are large.
  function renderResults(page, result, lab, pending, { slow = false } = {}) {
    verdicts.render(result, lab, checkpoint.get()?.story(result, lab));
    // (a result for GPT-2 is there only while it is open). While another
    // model is read, the figures are the last one's: no step is asked on them.
    const reading = lab.model !== page.lab.model;
    if (reading) tour.get()?.hide();
    $('lab').classList.toggle('veiled', !reading && renderTour(page, result, undefined, { gpt2: lab.model === 'gpt2' }));
    if (panels) {
      if (result.attention_a) {
        const view = heatmaps.get();
        if (view) sections.draw($('heatmap'), () => view.render(result));
        else heatmaps.load();
      }
      reorderingBadges(result).forEach((text, k) => setText(badges[k], text));
      if (isOpen('permutation') || isOpen('baseline')) {
        const views = reordering.get();
        if (!views) reordering.load();
        for (const id of views ? ['permutation', 'baseline'] : []) sections.draw($(id), () => views[id].render(result, lab));
      }
      panels.exporter.render({ hasChart: Boolean(plot) });
    }
    if (isOpen('why')) {
      // The panel's claims are about what a scheme does to one attention's
      // scores: they are computed with the module's head whatever the model
      // (a transformer's runs there would block the page at 12 blocks).
      const panel = why.get();
      if (panel) sections.draw($('why'), () => panel.panel.render(panel.claims(model.configOf({ ...lab, model: 'head' }), panel.panel.choice())));
      else why.load();
    }
    // the transformer's blocks, and a checkpoint's
    const layered = Boolean(result.layers?.length);
    checkpoint.get()?.render(result, lab);
    setHidden($('blocks'), !layered || view.hide.has('blocks'));
    if (layered && !view.hide.has('blocks')) {
      const panel = blocks.get();
      if (panel) sections.draw($('blocks'), () => panel.render(result, lab));
      else blocks.load();
    }
    sections.settle();
    if (plot && !view.hide.has('plot') && !pending) {
      // A model's first figures bring its sections with them (GPT-2's
      // tokens, lesson and next tokens: some 300 elements), and drawing
      // the chart in the same task makes Chart.js lay them all out then
      // (its title's font): the chart waits for that frame, so the page's
      // thread gets two shorter tasks (on GPT-2 small, one of 81 ms of CPU
      // before). So does a slow run's result: its block view and panels
      // are laid out again too (GPT-2 small's final verdicts after a fast
      // drag under 2x throttling: one task of 51-76 ms, the chart's title
      // some 20 of them).
      const key = model.keysOf(lab).prefix + lab.model;
      if (key === chartModel && !slow) renderChart(page, result);
      else {
        chartModel = key;
        setAttr($('plot'), 'aria-busy', 'true');
        afterPaint().then(() => { if (store.get() === page) renderChart(page, result); });
      }
    }
  }

  return {
    render,
    rerender,
    // The heatmaps' code, before their section is opened (a keyboard user
    // on its summary Tabs on into its controls right after Enter).
    preloadHeatmaps: () => heatmaps.load(),
    dropFiles: (dropped) => modelFiles.load().then(() => modelFiles.get()?.drop(dropped)),
    // The parts that come after the first render: the panels below the
    // chart, the sweep worker, the chart.
    attach(parts) {
      if (parts.panels) panels = parts.panels;
      if (parts.sweeper) sweeper = parts.sweeper;
      if (parts.plot) plot = parts.plot;
    },
    sweeper: () => sweeper,
    sweepEarly,
    // the transformer's run worker (null on the head), and what it was asked (for ?debug)
    runs: () => (store.get().lab.model === 'transformer' ? transformerWorker() : null),
    runStats: () => ({ ...runStats, lastMs: model.lastWorkerRunMs ?? null,
      restarts: retiredRestarts + (transformerWorkers.run?.restarts() ?? 0) }),
    // Every copy of the core by name: the labs on this thread and the
    // workers' pools, for ?debug's memory report (browser/memory_report.js).
    copies: () => ({ labs: { page: model.lab, why: whyLab }, pools: { sweep: sweeper, ...transformerWorkers } }),
  };
}
