// main.js - starts the lab and wires the page's controls to the store. A
// control only dispatches an update (app/store.js); the store calls the one
// render() (page.js), which draws everything from the store's value.
//
//   poslab.js      the core (WebAssembly), and its option table
//   app/           no DOM: the state form, the store, the model, number text
//   browser/       the address bar, storage and the sweep worker
//   views/         each part of the page, drawing what it is given
//   teach/         the tour's steps, example pairs, Copy as NumPy
import { createLab } from './poslab.js';
import { SINGLE_FILE } from './bundled.js';
import { createStateForm, isCheckpointModel } from './app/state.js';
import { Model } from './app/model.js';
import * as update from './app/store.js';
import { createUrlSync } from './browser/url_sync.js';
import { createTourMemory } from './browser/tour_memory.js';
import { createSweeper, shareSweeps } from './browser/sweeper.js';
import { track, laterStyles } from './browser/loading.js';
import { createPage, afterPaint, nextTask } from './page.js';
import { TYPED, showFailure, buildSchemeChoices } from './views/controls.js';
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
  // Files dropped anywhere on the lab go to GPT-2's picker, GPT-2 chosen
  // first if another model is (else the browser would leave the lab to
  // show the file); not where a teacher hid the model choice, nor over a
  // course host's checkpoint folder. The entries are taken while the event
  // lasts: the picker's code may still be loading.
  const takesFiles = (e) => {
    const lab = store.get().lab;
    return e.dataTransfer?.types.includes('Files') && !lab.checkpoint &&
      (lab.model === 'gpt2' || !document.querySelector('[data-group="model"]').hidden);
  };
  document.addEventListener('dragover', (e) => {
    if (!takesFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  });
  document.addEventListener('drop', (e) => {
    if (!takesFiles(e)) return;
    e.preventDefault();
    const dt = e.dataTransfer;
    const dropped = { files: [...dt.files], entries: [...dt.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean) };
    if (store.get().lab.model !== 'gpt2') go(update.chooseModel, 'gpt2', form);
    page.dropFiles(dropped);
  });
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

// The export row's code (views/export.js) loads as a student heads for one
// of its buttons (pointer, touch or focus); a click that comes before it
// has loaded waits for it and is then passed on.
function exportOnDemand(root, dialog, get) {
  let loaded = null;
  let loading = null;
  const load = () => (loading ??= track(import('./views/export.js')).then(({ createExport }) => { loaded = createExport(root, dialog, get); }));
  for (const button of root.querySelectorAll('button')) {
    for (const early of ['pointerenter', 'pointerdown', 'focus']) button.addEventListener(early, () => load().catch(() => {}), { once: true });
  }
  root.addEventListener('click', async (e) => {
    const button = e.target.closest('button');
    if (loaded || !button) return;
    e.stopImmediatePropagation();
    try {
      await load();
    } catch (error) {
      showFailure(document, 'The downloads could not be loaded', error);
      return;
    }
    button.click();
  }, { capture: true });
  // The chart button only when there is a chart.
  return { render: ({ hasChart }) => { $('download-png').hidden = !hasChart; } };
}

// The tour panel's buttons; the step is kept for a later "Resume".
function tourActionsFor({ store, form, tourMemory, tour }) {
  return {
    guess: (value) => store.dispatch(update.guess, value),
    async go(n) {
      let steps;
      try {
        steps = await tour.load();
      } catch (e) {
        showFailure(document, 'The tour could not be loaded', e);
        return;
      }
      store.dispatch(update.goTour, n, { form, steps });
      tourMemory.store(store.get().tour.step);
    },
    end(resumeAt) {
      tourMemory.store(resumeAt); // before the render that shows "Resume"
      store.dispatch(update.endTour, resumeAt);
      $('tour-start').focus();
    },
  };
}

// The tour's steps (their text and live claims, the page's largest module)
// load when a student starts the tour or a link opens one of its steps.
function tourSteps() {
  let steps = null;
  let loading = null;
  return {
    load: () => (loading ??= track(import('./teach/tour_steps.js')).then((m) => { steps = m.STEPS; return steps; })),
    loaded: () => steps,
  };
}
const linksTour = (hash) => new URLSearchParams(hash.replace(/^#/, '')).has('tour');

// A worker (browser/sweeper.js's) of the script `name`: a module beside the
// page, or, in the single file, a classic script made from the code it
// carries, with the cores in front (bundled.js says how), as a blob: URL,
// which a browser starts even for a page opened from disk.
const workerUrls = new Map();
function startWorker(name, options) {
  if (!SINGLE_FILE) return createSweeper(new URL(`./${name}.js`, import.meta.url), options);
  if (!workerUrls.has(name)) {
    const cores = `globalThis.POSLAB_SINGLE_FILE = ${JSON.stringify({ cores: SINGLE_FILE.cores })};\n`;
    workerUrls.set(name, URL.createObjectURL(new Blob([cores, SINGLE_FILE.workers[name]], { type: 'text/javascript' })));
  }
  return createSweeper(workerUrls.get(name), { ...options, type: 'classic' });
}

// The controls that change the model sit at the top of the results, beside
// the verdicts, where the page is wide enough for them in two columns;
// between 760 and 1100 px, under the sentences, so that the results column
// is not the long one. On a phone (one column) every panel stands in the
// order a student works down it: the sentences, the two switches and the
// model, the verdicts, then the scheme, the magnitude right over the chart,
// and the rest. Moved rather than styled (CSS order), so that Tab and a
// screen reader's reading go in the order that is seen.
function arrangePanels() {
  const wide = window.matchMedia('(min-width: 1100px)'), phone = window.matchMedia('(max-width: 759.98px)');
  const group = (name) => document.querySelector(`[data-group="${name}"]`);
  const place = () => {
    const block = $('model-block'), slot = document.querySelector('.tour-slot');
    const [scheme, magnitude, advanced] = ['scheme', 'magnitude', 'advanced'].map(group);
    if (phone.matches) {
      $('sentences').after(block);
      $('verdicts').before(slot);
      $('blocks').before(scheme);
      $('plot').before(magnitude);
      $('export').after(advanced);
      return;
    }
    group('positions').after(scheme, magnitude);
    document.querySelector('.controls').append(advanced);
    if (wide.matches) document.querySelector('.results').prepend(slot, block); // a tour step first
    else $('sentences').after(block), $('verdicts').before(slot);
  };
  place();
  wide.addEventListener('change', place);
  phone.addEventListener('change', place);
}

async function start() {
  // The core compiles on the browser's other threads while this one sets
  // the page out.
  const core = createLab();
  core.catch(() => {}); // (reported below, once awaited)
  const view = readView(window.location.search);
  applyView(view);
  arrangePanels();
  buildSchemeChoices(document);
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
  // The transformer's worker, made when a transformer first needs it.
  const workers = { runs: () => startWorker('run_worker', { spare: true, name: 'run worker' }) };
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
    page.attach({ sweeper: shareSweeps(startWorker('sweep_worker'), { more: () => startWorker('sweep_worker'),
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
