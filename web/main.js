// main.js - starts the lab, wires the controls and draws the page. Control
// handlers only change `state` (or note typed text the lab refused) and call
// render(); render() draws everything from them.
import { createLab } from './poslab.js';
import { defaultState, parseHash, parseView, toHash, wordsOf, SCHEMES, excerpt, TOUR_STEPS } from './state.js';
import { Model } from './model.js';
import { createVerdicts } from './verdicts.js';
import { createPlot } from './plot.js';
import { PRESETS } from './presets.js';
import { readView, applyView, viewUrl, createEmbedPanel } from './embed.js';
import { sig } from './format.js';
import { STEPS } from './tour_steps.js';
import { createTour } from './tour.js';
import { createHeatmaps } from './heatmap.js';
import { createPermutation, createBaseline } from './permutation.js';
import { createExport } from './export.js';
import { setText, setHidden, setAttr, setChecked } from './dom.js';

const $ = (id) => document.getElementById(id);

// Typed fields: state property -> input id (its message has id `${id}-error`).
const TYPED = { a: 'sentence-a', b: 'sentence-b', scale: 'scale-text', dim: 'dim', seed: 'seed', rtol: 'rtol', atol: 'atol' };
const SLIDER = { min: -9, max: 3 };

const view = readView(window.location.search);
let state;
let model;
let verdicts;
let plot = null;
const refused = {}; // state property -> {raw, message}: typed text the lab did not accept
let sweepQueued = false;
let sweepFailed = null; // the sweep key that failed, so it is not retried in a loop
let sweepWorker = null; // sweep_worker.js, once started; null: the chart is computed here
// The guided tour: the step shown (0: none; kept in the hash as tour=n),
// the guesses made in this visit, and where a skipped tour would resume.
let tourStep = 0;
const guesses = new Map();
let tour;
let heatmaps;
let permutation;
let baseline;
let exporter;
const TOUR_KEY = 'poslab.tour'; // localStorage: the step a skipped tour resumes at

// Kept in memory once read: a page's first localStorage access can take
// tens of ms, so the first render (the verdicts) does not wait for it.
let tourResume = null;

function storedTourStep() {
  if (tourResume === null) {
    try {
      const n = Number(window.localStorage.getItem(TOUR_KEY));
      tourResume = Number.isInteger(n) && n >= 1 && n <= TOUR_STEPS ? n : 0;
    } catch {
      tourResume = 0; // storage can be off (private windows, sandboxed iframes)
    }
  }
  return tourResume;
}

function storeTourStep(n) {
  tourResume = n;
  try {
    if (n) window.localStorage.setItem(TOUR_KEY, String(n));
    else window.localStorage.removeItem(TOUR_KEY);
  } catch { /* nothing to keep then */ }
}

// The hash for the state and the page view.
const currentHash = () => toHash(state, { tour: tourStep });

// The address mirrors the state. history.replaceState costs a few ms per
// call, so while the state changes fast (a dragged slider, quick typing) the
// hash is written at most every HASH_WRITE_MS, the last state always.
// <html data-hash="pending"> marks a write still to come (tests wait for it).
const HASH_WRITE_MS = 200;
let hashWrittenAt = -Infinity;
let hashTimer = null;
let hashKnown = ''; // the hash as the page last read or wrote it

// hash: currentHash(), when the caller has it already.
function writeHash(hash = currentHash()) {
  clearTimeout(hashTimer);
  hashTimer = null;
  delete document.documentElement.dataset.hash;
  const shown = window.location.hash.slice(1);
  // Changed from outside (a pasted link) since: its hashchange event is on
  // the way and will load it; writing now would undo it.
  if (shown !== hashKnown) return;
  if (shown === hash) return;
  window.history.replaceState(null, '', `#${hash}`);
  hashKnown = window.location.hash.slice(1); // as the browser keeps it
  hashWrittenAt = performance.now();
}

// Called by render() with currentHash(); a delayed write reads the state then.
function mirrorHash(hash) {
  if (hashTimer !== null || window.location.hash.slice(1) === hash) return;
  const wait = hashWrittenAt + HASH_WRITE_MS - performance.now();
  if (wait <= 0) {
    writeHash(hash);
  } else {
    hashTimer = setTimeout(() => writeHash(), wait);
    document.documentElement.dataset.hash = 'pending';
  }
}

// Whether a section is shown and open (its group not hidden by the embed).
const isOpen = (id) => !view.hide.has($(id).dataset.group) && $(id).open;

// ---- drawing -------------------------------------------------------------

function showNotice(items) {
  const list = $('notice-list');
  list.replaceChildren(...items.map(({ label, value, reason }) => {
    const li = document.createElement('li');
    li.textContent = `${label} (“${value}”): ${reason}`;
    return li;
  }));
  setHidden($('notice'), items.length === 0);
}

function fail(what, error) {
  const box = $('startup');
  box.hidden = false;
  box.classList.add('failed');
  box.textContent = `${what}: ${error.message}`;
  console.error(error);
}

function showTyped(name) {
  const input = $(TYPED[name]);
  const message = $(`${TYPED[name]}-error`);
  const bad = refused[name];
  // The person typing owns the field; others see the state's value.
  if (document.activeElement !== input) {
    const text = bad ? bad.raw : String(state[name]);
    if (input.value !== text) input.value = text;
  }
  setAttr(input, 'aria-invalid', String(Boolean(bad)));
  setHidden(message, !bad);
  if (bad) {
    message.replaceChildren();
    const strong = document.createElement('strong');
    strong.textContent = bad.message;
    const kept = document.createElement('span');
    kept.className = 'kept';
    kept.textContent = 'The results still show the last valid input.';
    message.append(strong, kept);
  }
}

function showControls() {
  for (const name of Object.keys(TYPED)) showTyped(name);
  setChecked($('positions'), state.positions);
  setText($('positions-state'), state.positions ? 'on' : 'off');
  setChecked($('causal'), state.causal);
  setText($('causal-state'), state.causal ? 'on' : 'off');
  document.documentElement.classList.toggle('positions-off', !state.positions);
  for (const radio of document.querySelectorAll('input[name="scheme"]')) setChecked(radio, radio.value === state.scheme);
  const slider = $('scale-slider');
  const exponent = state.scale > 0 ? Math.log10(state.scale) : SLIDER.min;
  const position = Math.min(SLIDER.max, Math.max(SLIDER.min, exponent));
  if (document.activeElement !== slider && Math.abs(Number(slider.value) - position) > 1e-9) slider.value = String(position);
  setAttr(slider, 'aria-valuetext', sig(state.scale));
  // The word to follow: one option per word of sentence A.
  const select = $('plot-word');
  const words = wordsOf(state.a);
  const key = JSON.stringify(words);
  if (select.dataset.words !== key) {
    // Rewritten in place: a keystroke changes one word, not the list.
    while (select.options.length > words.length) select.lastElementChild.remove();
    words.forEach((word, k) => {
      const option = select.options[k] ?? select.appendChild(document.createElement('option'));
      setAttr(option, 'value', String(k));
      setText(option, `${k + 1}. ${excerpt(word, 40)}`);
    });
    select.dataset.words = key;
  }
  if (select.value !== String(state.word)) select.value = String(state.word);
  const presets = $('presets');
  if (presets.value !== '') presets.value = ''; // the menu is an action, not a setting
}

// A chart the core could not compute: said once, not retried for that key.
function chartFailed(key, error) {
  sweepFailed = key;
  fail('The chart could not be computed', error);
}

// The sweep and thresholds for the chart, on this thread.
function computeChart(options) {
  try {
    model.chartData(state, options);
  } catch (e) {
    chartFailed(model.sweepKey(state), e);
  }
}

// Resolves once the page has had a frame to paint what it has; the plain
// timer covers pages that get no animation frames (hidden tabs, off-screen
// iframes).
const afterPaint = () => new Promise((resolve) => {
  requestAnimationFrame(() => setTimeout(resolve, 0));
  setTimeout(resolve, 100);
});

// A worker of its own for the chart's data (sweep_worker.js), so that a
// slow sweep never holds up typing. Without one (an old browser, a worker
// that cannot start) the page computes the chart itself.
function startSweepWorker() {
  let worker;
  try {
    worker = new Worker(new URL('./sweep_worker.js', import.meta.url), { type: 'module' });
  } catch {
    return null;
  }
  // A worker whose script cannot load says so only with this event, and
  // would drop requests silently: from then on the page does the work (a
  // request already sent is rejected by its own listener, see scheduleSweep).
  worker.addEventListener('error', () => dropSweepWorker(worker, 'its script did not load'));
  return worker;
}

function dropSweepWorker(worker, why) {
  if (sweepWorker !== worker) return;
  console.warn(`poslab: the chart is computed on the page: the sweep worker failed (${why})`);
  worker.terminate();
  sweepWorker = null;
}

// The chart's data after the verdicts are painted, so typing never waits for
// it. In the worker: one scheduled request at a time (sharing the one a
// keystroke may have started), for the state current when it is sent;
// render() then asks again if the state has moved on. Without the
// worker: the sweep first, drawn at once, then the thresholds (a slow sweep's
// bisections take a tenth as long again) after that is painted.
function scheduleSweep() {
  if (sweepQueued) return;
  sweepQueued = true;
  afterPaint().then(async () => {
    const worker = sweepWorker;
    if (worker) {
      const key = model.sweepKey(state);
      try {
        await model.chartDataOffThread(state, worker, { onSweep: render });
      } catch (e) {
        if (e instanceof Error) {
          chartFailed(key, e);
        } else {
          dropSweepWorker(worker, e.broken);
        }
      }
    } else {
      computeChart({ sweepOnly: model.cachedSweep(state) === undefined });
    }
    sweepQueued = false;
    render();
  });
}

function renderTour(result) {
  const touring = tourStep > 0 && !view.hide.has('tour');
  setHidden($('tour-start'), touring || view.hide.has('tour'));
  if (!touring) {
    tour.hide();
    const resume = tourResume ?? 0; // read after the first render
    setText($('tour-start'), resume > 1 ? `Resume the tour (step ${resume} of ${TOUR_STEPS})` : 'Guided tour');
    return false;
  }
  const guess = guesses.get(tourStep);
  tour.render({
    step: tourStep,
    guess,
    ctx: { result, state, threshold: (pair) => model.threshold(state, pair) },
  });
  return guess === undefined; // the answer stays covered until the guess
}

function render() {
  const hash = currentHash();
  mirrorHash(hash);
  setAttr($('open-full'), 'href', viewUrl(hash));
  showControls();

  let result;
  try {
    // The heatmaps need the attention matrices: then one run with them
    // serves the verdicts too (still one run per slider step).
    result = isOpen('heatmap') ? model.full(state) : model.verdict(state);
  } catch (e) {
    fail('The lab could not compute this', e);
    return;
  }
  verdicts.render(result, state);
  const covered = renderTour(result);
  $('lab').classList.toggle('veiled', covered);
  if (exporter) { // the panels below the chart exist from the second render on
    if (result.attention_a) heatmaps.render(result);
    permutation.render(result, state);
    baseline.render(result, state);
    exporter.render({ hasChart: Boolean(plot) });
  }

  if (plot && !view.hide.has('plot')) {
    const cached = () => [model.cachedSweep(state), model.cachedThreshold(state, state.word), model.cachedThreshold(state, -1)];
    let [sweep, threshold, meanThreshold] = cached();
    let missing = (!sweep || threshold === undefined || meanThreshold === undefined) &&
      sweepFailed !== model.sweepKey(state);
    // A small sentence's chart is drawn with its verdicts, in the same frame.
    if (missing && model.chartDataIsQuick(state)) {
      computeChart();
      [sweep, threshold, meanThreshold] = cached();
      missing = false;
    }
    plot.update({ sweep, result, state, threshold: threshold ?? null, meanThreshold: meanThreshold ?? null, pending: missing });
    if (missing) scheduleSweep();
  }
  document.documentElement.dataset.ready = 'true';
}

// ---- the guided tour --------------------------------------------------------

// Shows step n (1..N), setting the lab to that step's state.
function goTour(n) {
  tourStep = Math.min(Math.max(1, n), TOUR_STEPS);
  STEPS[tourStep - 1].set(state);
  for (const name of Object.keys(refused)) delete refused[name];
  storeTourStep(tourStep);
  render();
}

// Leaves the tour; `resumeAt` is the step a later "Resume" opens (0: start over).
function endTour(resumeAt) {
  tourStep = 0;
  storeTourStep(resumeAt);
  if (!resumeAt) guesses.clear();
  render();
  $('tour-start').focus();
}

// ---- changing the state ---------------------------------------------------

function keepWordInRange() {
  const n = wordsOf(state.a).length;
  if (state.word > n - 1) state.word = n - 1;
}

function typed(name, raw) {
  // New words: a free sweep worker starts on their sweep now, while this
  // thread works out the verdicts (each needs the words' projections: at 64
  // words and d 512, ~50 ms done twice in parallel rather than in turn).
  // scheduleSweep() then shares the request. Text the lab refuses fails in
  // the worker too, and is reported below in the field's own words.
  if ((name === 'a' || name === 'b') && sweepWorker && !model.offThreadBusy()) {
    const next = { ...state, [name]: raw };
    if (!model.chartDataIsQuick(next)) model.chartDataOffThread(next, sweepWorker).catch(() => {});
  }
  const outcome = model.tryField(state, name, raw);
  if (outcome.message !== undefined) {
    refused[name] = { raw, message: outcome.message };
  } else {
    delete refused[name];
    state[name] = outcome.value;
    keepWordInRange();
  }
  render();
}

function setSentences(a, b) {
  state.a = a;
  state.b = b;
  state.word = wordsOf(a).length - 1;
  delete refused.a;
  delete refused.b;
  render();
}

function shuffled(words) {
  const out = words.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function loadHash() {
  hashKnown = window.location.hash.slice(1);
  const { state: read, ignored } = parseHash(window.location.hash);
  const { view: page, ignored: pageIgnored, setsState } = parseView(window.location.hash);
  state = read;
  for (const name of Object.keys(refused)) delete refused[name];
  showNotice([...ignored, ...pageIgnored, ...view.ignored]);
  tourStep = page.tour;
  // A bare link to a step ("#tour=3") opens that step's settings; a full
  // hash (a reload, a shared view) keeps its own.
  if (tourStep && !setsState) STEPS[tourStep - 1].set(state);
  if (tourStep) storeTourStep(tourStep);
}

function wire() {
  for (const [name, id] of Object.entries(TYPED)) {
    const input = $(id);
    input.addEventListener('input', () => typed(name, input.value));
    input.addEventListener('blur', () => render()); // show the value as stored
  }
  $('reverse-b').addEventListener('click', () => {
    state.b = wordsOf(state.b).reverse().join(' ');
    delete refused.b;
    render();
  });
  $('shuffle-b').addEventListener('click', () => {
    const words = wordsOf(state.b);
    let next = shuffled(words);
    for (let tries = 0; tries < 20 && next.join(' ') === words.join(' '); tries++) next = shuffled(words);
    state.b = next.join(' ');
    delete refused.b;
    render();
  });
  $('presets').append(...PRESETS.map((preset, k) => {
    const option = document.createElement('option');
    option.value = String(k);
    option.textContent = `${preset.a} / ${preset.b}`;
    return option;
  }));
  $('presets').addEventListener('change', (e) => {
    const preset = PRESETS[Number(e.target.value)];
    if (preset) setSentences(preset.a, preset.b);
  });
  $('positions').addEventListener('change', (e) => { state.positions = e.target.checked; render(); });
  $('causal').addEventListener('change', (e) => { state.causal = e.target.checked; render(); });
  for (const radio of document.querySelectorAll('input[name="scheme"]')) {
    radio.addEventListener('change', () => {
      state.scheme = radio.value;
      state.scale = SCHEMES[radio.value].defaultScale;
      delete refused.scale;
      render();
    });
  }
  $('scale-slider').addEventListener('input', (e) => {
    state.scale = Number((10 ** Number(e.target.value)).toPrecision(3));
    delete refused.scale;
    render();
  });
  $('plot-word').addEventListener('change', (e) => { state.word = Number(e.target.value); render(); });
  $('reset').addEventListener('click', () => {
    state = defaultState();
    for (const name of Object.keys(refused)) delete refused[name];
    showNotice([]);
    render();
  });
  $('notice-close').addEventListener('click', () => { $('notice').hidden = true; });
  $('tour-start').addEventListener('click', () => goTour(storedTourStep() || 1));
  for (const id of ['heatmap', 'permutation', 'baseline']) $(id).addEventListener('toggle', () => render());
  $('heat-align').addEventListener('change', () => render());
  window.addEventListener('pagehide', () => writeHash());
  window.addEventListener('hashchange', () => {
    if (window.location.hash.slice(1) === currentHash()) { hashKnown = window.location.hash.slice(1); return; }
    loadHash();
    render();
  });
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => plot?.retheme());
  createEmbedPanel({ dialog: $('embed-dialog'), openButton: $('embed-open'), getHash: currentHash, view });
}

// ---- start ----------------------------------------------------------------

async function start() {
  applyView(view);
  let lab;
  try {
    lab = await createLab();
  } catch (e) {
    fail('The lab could not start (serve this folder over HTTP, e.g. with make serve)', e);
    return;
  }
  model = new Model(lab);
  // ?debug lets a test watch the size of the WebAssembly memory (a number;
  // the heap itself stays inside poslab.js).
  if (new URLSearchParams(window.location.search).has('debug')) {
    window.poslabDebug = Object.freeze({ memoryBytes: () => lab.memoryBytes() });
  }
  verdicts = createVerdicts($('verdicts'));
  tour = createTour($('tour'), {
    guess: (value) => { guesses.set(tourStep, value); render(); },
    go: goTour,
    end: endTour,
  });
  loadHash();
  wire();
  $('startup').hidden = true;
  // The first hash write (a default page gets its state in the address)
  // waits like any other: history.replaceState is a few ms that the first
  // verdicts need not wait for.
  hashWrittenAt = performance.now();
  // The verdicts first, so that opening the page shows its answer as soon
  // as it can; then the panels below them, the tour button's "Resume" (from
  // localStorage) and Chart.js (a third of the page's bytes).
  render();
  const chartScript = view.hide.has('plot') ? null : import('./vendor/chart.min.js'); // defines window.Chart
  await afterPaint();
  heatmaps = createHeatmaps($('heatmap'));
  permutation = createPermutation($('permutation'));
  baseline = createBaseline($('baseline'));
  exporter = createExport($('export'), $('numpy-dialog'), {
    result: () => model.verdict(state),
    everything: () => model.everything(state),
    chart: () => plot?.chart ?? null,
    link: () => { writeHash(); return window.location.href; },
  });
  storedTourStep();
  if (chartScript) sweepWorker = startSweepWorker();
  render();
  if (chartScript) {
    try {
      await chartScript;
      plot = createPlot($('plot'));
    } catch (e) {
      fail('The chart could not start', e);
    }
    render();
  }
}

start();
