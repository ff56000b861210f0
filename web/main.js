// main.js - starts the lab and wires the page's controls to the store. A
// control only dispatches an update (app/store.js); the store calls the one
// render() (page.js), which draws everything from the store's value.
//
// Each folder imports only from those above it:
//   lib/           the npm wrapper: the core (WebAssembly), its option table, checkpoints
//   app/           no DOM: the models' table, the state form, the store, the model, number text
//   teach/         the tour's steps, example pairs, Copy as NumPy
//   browser/       the address bar, storage, the workers and the scheduler
//   views/         each part of the page, drawing what it is given
import { createLab } from './lib/poslab.js';
import { SINGLE_FILE } from './lib/bundled.js';
import { createStateForm } from './app/state.js';
import { isCheckpointModel } from './app/models.js';
import { Model } from './app/model.js';
import * as update from './app/store.js';
import { createUrlSync } from './browser/url_sync.js';
import { createTourMemory } from './browser/tour_memory.js';
import { shareSweeps } from './browser/sweeper.js';
import { track, laterStyles } from './browser/loading.js';
import { startWorker } from './browser/workers.js';
import { afterPaint, nextTask } from './browser/scheduler.js';
import { createPage } from './page.js';
import { TYPED, showFailure, buildChoices } from './views/controls.js';
import { arrangePanels } from './views/arrange.js';
import { exportOnDemand } from './views/export_row.js';
import { takeDroppedFiles } from './views/file_drop.js';
import { tourActionsFor, tourSteps, linksTour } from './views/tour_actions.js';
import { readView, applyView } from './views/embed.js';
import { createPlot } from './views/plot.js';
import { TOUR_STEPS } from './teach/tour_length.js';
import { PRESETS } from './teach/presets.js';

const $ = (id) => document.getElementById(id);

// How long the sweep workers wait after a shared sweep's curves before
// searching its thresholds, which cannot be cut short: a keystroke within
// it (typing at 10 keys a second) has them left out, so that the next
// words' sweep does not wait behind a search for words typed past.
const THRESHOLD_PAUSE_MS = 100;

// Controls -> store. `store.dispatch(update.x, ...)` is the only way the
// page's value changes.
function wire({ store, form, model, page, tourMemory, tourActions, view, urlSync }) {
  const go = (fn, ...args) => store.dispatch(fn, ...args);
  for (const [name, id] of Object.entries(TYPED)) {
    const input = $(id);
    input.addEventListener('input', () => {
      const raw = input.value;
      // new words: the sweep workers start before this thread computes the verdicts
      if (name === 'a' || name === 'b') page.sweepEarly({ ...store.get().lab, [name]: raw }, { typed: true });
      go(update.typed, name, raw, model.tryField(store.get().lab, name, raw));
    });
    input.addEventListener('blur', () => page.render(store.get())); // show the value as stored
  }
  $('reverse-b').addEventListener('click', () => go(update.reverseB));
  $('shuffle-b').addEventListener('click', () => go(update.shuffleB));
  $('presets').append(...PRESETS.map((preset, k) => {
    const option = document.createElement('option');
    option.value = String(k);
    option.textContent = preset.label ?? `${preset.a} / ${preset.b}`;
    return option;
  }));
  $('presets').addEventListener('change', (e) => {
    const preset = PRESETS[Number(e.target.value)];
    if (preset) go(update.applyPreset, preset, form);
  });
  $('positions').addEventListener('change', (e) => go(update.set, { positions: e.target.checked }));
  $('causal').addEventListener('change', (e) => go(update.set, { causal: e.target.checked }));
  $('heads').addEventListener('change', (e) => go(update.set, { heads: Number(e.target.value) }));
  for (const radio of document.querySelectorAll('input[name="model"]')) {
    radio.addEventListener('change', () => go(update.chooseModel, radio.value, form));
  }
  for (const radio of document.querySelectorAll('input[name="scheme"]')) {
    radio.addEventListener('change', () => go(update.chooseScheme, radio.value, form));
  }
  takeDroppedFiles(document, { store, page, form });
  $('scale-slider').addEventListener('input', (e) => go(update.slideScale, Number(e.target.value)));
  $('scale-slider').addEventListener('keydown', (e) => {
    const slider = e.target;
    const next = update.keyedScale(store.get().lab.scale, e.key, 10 ** Number(slider.min), 10 ** Number(slider.max));
    if (next === null) return;
    e.preventDefault();
    go(update.setScale, next);
    slider.value = String(Math.log10(next)); // (render leaves a focused slider's thumb to the pointer)
  });
  $('plot-word').addEventListener('change', (e) => go(update.set, { word: Number(e.target.value) }));
  $('reset').addEventListener('click', () => { urlSync.keep(); go(update.reset, form); });
  $('notice-close').addEventListener('click', () => go(update.dismissNotice));
  $('tour-start').addEventListener('click', () => tourActions.go(tourMemory.read() || 1));
  // (their panels' styles are in later.css, with the other on-demand parts')
  for (const id of ['heatmap', 'permutation', 'baseline']) {
    $(id).addEventListener('toggle', () => { if ($(id).open) laterStyles(); page.render(store.get()); });
  }
  for (const early of ['focus', 'pointerenter']) $('heatmap').querySelector('summary').addEventListener(early, () => page.preloadHeatmaps(), { once: true });
  // The Embed dialog's code loads on the first click of its button.
  let embed = null;
  $('embed-open').addEventListener('click', async () => {
    try {
      embed ??= track(Promise.all([import('./views/embed_dialog.js'), laterStyles()])).then(([{ createEmbedPanel }]) =>
        createEmbedPanel({ dialog: $('embed-dialog'), getHash: () => update.hashOf(store.get(), form), view }));
      (await embed).open();
    } catch (e) {
      showFailure(document, 'The Embed dialog could not be loaded', e);
    }
  });
}

async function start() {
  // The core compiles on the browser's other threads while this one sets
  // the page out.
  const core = createLab();
  core.catch(() => {}); // (reported below, once awaited)
  const view = readView(window.location.search);
  applyView(view);
  arrangePanels();
  buildChoices(document);
  if (view.embed) import('./browser/frame.js').then((m) => { m.reportHeight(); m.followView(); }).catch(() => {});
  let lab;
  try {
    lab = await core;
  } catch (e) {
    showFailure(document, SINGLE_FILE ? 'The lab could not start'
      : 'The lab could not start (serve this folder over HTTP, e.g. with make serve)', e);
    return;
  }
  const form = createStateForm(lab.options, { tourSteps: TOUR_STEPS });
  const model = new Model(lab, form);
  let settled = false; // recalibrated (for ?debug)
  // (?debug: what a test watches, browser/debug.js)
  if (new URLSearchParams(window.location.search).has('debug')) {
    const { exposeDebug } = await import('./browser/debug.js');
    exposeDebug({ lab, model, page: () => page, settled: () => settled });
  }
  const tourMemory = createTourMemory(TOUR_STEPS);
  const tour = tourSteps();
  const fromLink = (hash) => update.fromHash(hash, { form, steps: tour.loaded(), ignored: view.ignored });
  if (linksTour(window.location.hash)) await tour.load();
  let page = null; // the one render, once it exists: the store's listener
  const store = update.createStore(fromLink(window.location.hash), (value) => page.render(value),
    (value) => update.settleWord(value, model.lastToken(value.lab)));
  // A link that opens a tour step is where a skipped tour resumes.
  const rememberLinkedStep = () => { if (store.get().tour.step) tourMemory.store(store.get().tour.step); };
  const urlSync = createUrlSync({
    currentHash: () => update.hashOf(store.get(), form),
    async onLink(hash) {
      if (linksTour(hash)) {
        await tour.load();
        if (window.location.hash !== hash) return; // moved on meanwhile: a later call has it
      }
      store.dispatch(() => fromLink(hash));
      rememberLinkedStep();
    },
  });
  rememberLinkedStep();
  const tourActions = tourActionsFor({ store, form, tourMemory, tour });
  // The run worker, made when a model first needs it (browser/scheduler.js).
  const workers = { runs: () => startWorker('run_worker', { spare: true, name: 'run worker' }, import.meta.url) };
  page = createPage({ doc: document, form, model, view, tourMemory, urlSync, tourActions, store, workers });
  wire({ store, form, model, page, tourMemory, tourActions, view, urlSync });
  $('startup').hidden = true;

  // The verdicts first, so that opening the page shows its answer as soon
  // as it can; then the panels below them, the tour button's "Resume" (from
  // localStorage) and Chart.js (a third of the page's bytes).
  page.render(store.get());
  const chartScript = view.hide.has('plot') ? null : import('./vendor/chart.min.js'); // defines window.Chart
  await afterPaint();
  // This device's speed (a few milliseconds, the first calls' compiling
  // included), before any sweep is placed on this thread or a worker; not
  // before the first verdicts, which it held back (a transformer's first
  // run has it done on demand: Model.runMsPerWork). A task of its own,
  // not one more share of the next (a tap waits for one at a time).
  if (!model.calibration) {
    model.calibrate();
    await nextTask();
  }
  let plot = null;
  page.attach({
    panels: {
      exporter: exportOnDemand($('export'), $('numpy-dialog'), {
        // the verdicts shown (a transformer's are cached once shown)
        // (a checkpoint's from the open model itself, whatever the cache holds)
        result: () => (isCheckpointModel(store.get().lab.model) ? lab.run(model.configOf(store.get().lab))
          : model.cachedRun(store.get().lab) ?? model.verdict(store.get().lab)),
        state: () => store.get().lab,
        everything: () => model.everything(store.get().lab, page.runs()?.call),
        chart: () => plot?.chart ?? null,
        // the thresholds stated for the followed word and the mean, as far as worked out
        thresholds: () => [store.get().lab.word, -1].map((pair) => ({ pair, threshold: model.cachedThreshold(store.get().lab, pair) ?? null })),
        link: urlSync.link,
      }),
    },
  });
  tourMemory.read();
  // The single file has no worker script, and a browser would refuse one
  // from disk anyway: its page computes the sweeps itself.
  // A second where there are two cores, started with the first sweep: each computes half of a sweep.
  // Their thresholds wait for a pause in the typing (THRESHOLD_PAUSE_MS).
  if (chartScript) {
    const two = (navigator.hardwareConcurrency ?? 1) > 1;
    page.attach({ sweeper: shareSweeps(startWorker('sweep_worker', {}, import.meta.url), { more: () => startWorker('sweep_worker', {}, import.meta.url),
      extras: two ? 1 : 0, pauseMs: THRESHOLD_PAUSE_MS }) });
  }
  page.render(store.get());
  if (chartScript) {
    try {
      // Chart.js's evaluation, the chart's first layout and its first curves
      // in three tasks rather than one, so that a tap or a keystroke waits
      // for at most one of them.
      await chartScript;
      await nextTask();
      plot = createPlot($('plot'), { maxScale: form.limits.max_scale });
      await nextTask();
      page.attach({ plot });
      window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => plot.retheme());
    } catch (e) {
      showFailure(document, 'The chart could not start', e);
    }
    page.render(store.get());
  }
  // the device's speed once more, now that the page has settled (Model.recalibrate)
  const idle = () => new Promise((resolve) => (window.requestIdleCallback ? requestIdleCallback(() => resolve(), { timeout: 2000 }) : setTimeout(resolve, 500)));
  await new Promise((resolve) => { setTimeout(resolve, 1000); });
  await model.recalibrate(idle);
  settled = true;
}

start();
