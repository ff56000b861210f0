// page.js - draws the whole page from the store's value: the one render().
// It asks the scheduler (browser/scheduler.js) for what the value needs
// (verdicts, the chart's sweep and thresholds: computed here, in a worker or
// later) and hands each view what it shows. Nothing here changes the store
// (a checkpoint once read has it settle again: its tokens place the word).
import { hashOf, currentGuess, set } from './app/store.js';
import { isCheckpointModel, modelOf } from './app/models.js';
import { reorderingBadges } from './app/reordering.js';
import { GPT2_ONLY_STEPS } from './teach/tour_length.js';
import { viewUrl } from './views/embed.js';
import { createVerdicts } from './views/verdicts.js';
import { createControls, showFailure } from './views/controls.js';
import { createLab } from './lib/poslab.js';
import { createScheduler, afterPaint } from './browser/scheduler.js';
import { setText, setHidden, setAttr } from './views/dom.js';
import { createSight } from './views/sight.js';
import { track, laterStyles } from './browser/loading.js';

// What the NumPy script does, under its button: a drawn model's numbers come
// from NumPy's seeded draws; a trained model's from its checkpoint's files.
const exportHint = (lab) => (isCheckpointModel(lab.model)
  ? 'The NumPy script reads the checkpoint’s files with NumPy alone, runs its forward pass on the token ids shown and prints the table above.'
  : 'The NumPy script reproduces exactly these numbers (same seed, same draws) and prints the table above.');

// doc: the document; form: app/state.js's; model: app/model.js's; view: the
// embed view (?embed, ?hide); tourMemory, urlSync: browser/'s; tourActions:
// the tour panel's {guess, go, end}; store: app/store.js's.
// workers: {runs()} makes the run worker (browser/scheduler.js).
// A checkpoint model goes through the same render as the others: its view
// opens it (the page says it is reading it meanwhile), then the scheduler
// has its verdicts and chart computed.
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
  // The student's own files: their picker, loaded when a model that reads them is chosen.
  const modelFiles = onDemand('GPT-2\'s file picker', () => import('./views/model_files.js').then((m) =>
    m.createModelFiles(doc, model.lab, () => store.settle())));
  const badges = ['permutation', 'baseline'].map((id) => $(id).querySelector('summary .summary-figure'));
  const reordering = onDemand('The reordering views', () => import('./views/permutation.js').then((m) =>
    ({ permutation: m.createPermutation($('permutation')), baseline: m.createBaseline($('baseline')) })));
  const blocks = onDemand('The block-by-block view', () => import('./views/blocks.js').then(({ createBlocks }) => createBlocks($('blocks'))));
  // What the verdicts show: the last result computed, and the state it is for.
  let shown = null;
  // What renderResults last drew: the result, and the tour and notice it drew with.
  let drawn = {};
  // A checkpoint's limits (its positions) are known only once it is read,
  // so a link or a change of model can ask it for settings it refuses,
  // where typing them would have been refused in the field. The core's
  // line for each such state (by run key), said where a model that could
  // not be opened is said, not as a failure of the lab.
  const refusedRuns = new Map();
  const refuse = (lab, e) => {
    const problem = `${modelOf(lab.model).named} cannot run these settings: ${e.message}`;
    refusedRuns.set(model.runKey(lab), problem);
    return problem;
  };
  // Created after the first render (panels) and once Chart.js has loaded (plot).
  let panels = null;
  let plot = null;
  let chartModel = null; // the model (and opening of a checkpoint) the chart was last drawn for

  // The one render for the store's value as it is now: one function, so that
  // a sweep's callbacks (a keystroke's and the chart's) run it once, not twice.
  const rerender = () => render(store.get());

  // Whether a section is shown and open (its group not hidden by the embed).
  const isOpen = (id) => !view.hide.has($(id).dataset.group) && $(id).open;

  const scheduler = createScheduler({ model, store, workers, render: rerender, failed: (what, e) => showFailure(doc, what, e),
    refuse: (lab, e) => refuse(lab, e) });

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
      ...more, // tourStep: whether the model of the tour's last step is open
    } });
    return guess === undefined; // the answer stays covered until the guess
  }

  function renderChart({ lab }, result) {
    const { sweep, coarse, threshold, meanThreshold, missing } = scheduler.chartNow(lab);
    plot.update({ sweep, coarse, result, state: lab, threshold: threshold ?? null,
      meanThreshold: meanThreshold ?? null, pending: missing });
  }

  function render(page) {
    const hash = hashOf(page, form);
    urlSync.mirror(hash);
    setAttr($('open-full'), 'href', viewUrl(hash));
    controls.render(page);
    controls.showNotice(page.notice);
    const { lab } = page;
    if (modelFiles.get()) modelFiles.get().render(lab);
    else if (modelOf(lab.model).files === 'yours') modelFiles.load(); // it hides itself for a course host's folder
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
      result = scheduler.verdicts(lab, full);
      pending = !result;
    } catch (e) {
      if (!(checkpointModel && e instanceof Error)) {
        showFailure(doc, 'The lab could not compute this', e);
        return;
      }
      problem = refuse(lab, e);
    }
    if (result) shown = { result, lab };
    scheduler.retire(lab);
    showPending(pending, lab, problem);
    // Nothing computed yet and nothing coming until the student acts (a
    // link to GPT-2 with no files): the cards, table and chart are left
    // empty rather than blank, and the note above them says why.
    for (const id of ['verdicts', 'plot', 'blocks']) $(id).classList.toggle('empty', !shown && Boolean(problem));
    setHidden($('plot-word').parentElement, !shown && Boolean(problem));
    // The script and downloads are of the figures shown: none while they are
    // another model's or missing.
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

  // While a run is computed off this thread, or a checkpoint is read, the figures shown
  // are the previous state's: said so in a line that floats above the page
  // (style.css), so that saying it lays nothing out again.
  function showPending(pending, lab, problem) {
    setAttr($('verdicts'), 'aria-busy', String(pending));
    // Figures of another model (the last one's, while this one is read or
    // its files are awaited) are dimmed, and the status line says whose
    // they are, so that they are not read as this model's.
    const others = shown && shown.lab.model !== lab.model ? shown.lab.model : null;
    for (const id of ['verdicts', 'plot', 'blocks']) $(id).classList.toggle('stale', Boolean(others));
    const whose = others ? `; the figures shown are still those of ${modelOf(others).named}` : '';
    // What lasts until the student acts (GPT-2's files to choose, settings
    // the model refuses) is said beside the figures and in the result bar,
    // where it covers nothing (not the files' progress and their error).
    if (problem) laterStyles(); // (the note's styles: later.css)
    for (const id of ['stale-note', 'rb-note']) {
      setHidden($(id), !problem);
      setText($(id), problem ? `${problem}${whose}` : '');
    }
    const { runs } = modelOf(lab.model);
    setHidden($('run-status'), Boolean(problem) || (runs === 'page' && !others));
    $('run-status').classList.toggle('idle', !pending);
    if (pending && runs !== 'run-worker') {
      setText($('run-status'), `Reading model ${lab.model}…${whose}`);
    } else if (pending) {
      setText($('run-status'), `Computing ${lab.layers} transformer block${lab.layers === 1 ? '' : 's'} for these ` +
        `settings${shown ? '; the figures shown are still the previous settings’ ones' : ''}…`);
    }
  }

  // slow: a new result of a model whose runs are not quick (a checkpoint's
  // go in steps, drawn blocks' to the run worker), whose sections are large.
  function renderResults(page, result, lab, pending, { slow = false } = {}) {
    verdicts.render(result, lab, checkpoint.get()?.story(result, lab));
    // (the tour's last step is there only while its model is open). While another
    // model is read, the figures are the last one's: no step is asked on them.
    const reading = lab.model !== page.lab.model;
    if (reading) tour.get()?.hide();
    $('lab').classList.toggle('veiled', !reading && renderTour(page, result, undefined, { tourStep: modelOf(lab.model).lesson === 'tour-step' }));
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
    // the blocks of the models that have them
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
      // A model's first figures bring its sections with them (a
      // checkpoint's tokens, lesson and next tokens), and so does a slow
      // run's result (its block view and panels): the chart waits for
      // that frame, so that Chart.js does not lay them all out in the same
      // task, and the page's thread gets two shorter tasks.
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
      if (parts.sweeper) scheduler.attachSweeper(parts.sweeper);
      if (parts.plot) plot = parts.plot;
    },
    sweeper: scheduler.sweeper,
    sweepEarly: scheduler.sweepEarly,
    runs: scheduler.runs,
    runStats: scheduler.runStats,
    // Every copy of the core by name: the labs on this thread and the
    // workers' pools, for ?debug's memory report (browser/memory_report.js).
    copies: () => ({ labs: { page: model.lab, why: whyLab }, pools: scheduler.pools() }),
  };
}
