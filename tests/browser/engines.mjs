// Shared by firefox.test.mjs and webkit.test.mjs: the built site served with
// a problem watcher, and one student's walk through the lab that each engine
// runs through a small driver (puppeteer-core for Firefox, WebDriver for
// WebKit). Not a test file itself (make test-browser runs *.test.mjs).
//
// WebKitWebDriver keeps no console log and MiniBrowser writes none for
// pages it drives, so the page is served with one extra script, run before
// anything else, that records what the console would show as an error:
// console.error and console.warn calls (the page warns when its sweep worker
// fails), uncaught exceptions, unhandled rejections, resources that failed
// to load and Content-Security-Policy violations. The server adds every
// request it could not answer. Firefox's own console events come on top.
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, SITE, MIME, isSettled } from './harness.mjs';

const { createLab } = await import(`${ROOT}build/site/poslab.js`);
const { sig } = await import(`${ROOT}web/app/format.js`);
const { rightAnswer, probability } = await import(`${ROOT}web/teach/lesson.js`);

const WATCHER = '/__problems.js';
const WATCHER_JS = `(() => {
  const problems = (window.__problems = []);
  const note = (what) => problems.push(String(what).slice(0, 300));
  const text = (args) => args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ');
  for (const level of ['error', 'warn']) {
    const original = console[level].bind(console);
    console[level] = (...args) => { note('console.' + level + ': ' + text(args)); original(...args); };
  }
  addEventListener('error', (e) => {
    if (e.target && e.target !== window) note('failed to load: ' + (e.target.src || e.target.href || e.target.tagName));
    else note('uncaught: ' + (e.message || e.error));
  }, true);
  addEventListener('unhandledrejection', (e) => note('unhandled rejection: ' + (e.reason?.message ?? e.reason)));
  addEventListener('securitypolicyviolation', (e) => note('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));
})();`;

// A page that shows ?src= in a frame of ?width= by ?height= CSS pixels: a
// phone's viewport for a browser whose window cannot be made that narrow.
const FRAME = '/__frame.html';
const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
function framePage(query) {
  const [src, width, height] = ['src', 'width', 'height'].map((k) => attr(query.get(k) ?? ''));
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>phone</title><link rel="icon" href="data:,">' +
    '<style>body { margin: 0; } iframe { border: 0; display: block; }</style></head>' +
    `<body><iframe src="${src}" width="${width}" height="${height}" title="poslab"></iframe></body></html>`;
}

// Serves build/site with the watcher as the first script of every HTML
// page (before the CSP meta tag, which allows only 'self' scripts anyway),
// and the frame page. `misses` collects requests that got no file.
export function serveSite() {
  const misses = [];
  return new Promise((resolve) => {
    const server = http.createServer(async (req, res) => {
      const url = new URL(req.url, 'http://x');
      const file = decodeURIComponent(url.pathname);
      if (file === WATCHER || file === FRAME) {
        res.writeHead(200, { 'content-type': MIME[file === WATCHER ? '.js' : '.html'] })
          .end(file === WATCHER ? WATCHER_JS : framePage(url.searchParams));
        return;
      }
      const full = path.join(SITE, path.normalize(file.endsWith('/') ? `${file}index.html` : file));
      try {
        if (!full.startsWith(SITE + path.sep)) throw new Error('outside the site');
        let body = await readFile(full);
        const type = MIME[path.extname(full)] ?? 'application/octet-stream';
        if (type.startsWith('text/html')) {
          body = body.toString('utf8').replace('<head>', `<head>\n<script src="${WATCHER}"></script>`);
        }
        // as a static server does: a checkpoint's files are read by their size
        res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
      } catch {
        misses.push(`HTTP 404: ${file}`);
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    });
    server.listen(0, '127.0.0.1', () => {
      const origin = `http://127.0.0.1:${server.address().port}`;
      const framed = (src, width, height) => `${origin}${FRAME}?${new URLSearchParams({ src, width, height })}`;
      resolve({ server, origin, misses, framed });
    });
  });
}

// harness.mjs's isSettled(), as a function body for the drivers.
const SETTLED = `return (${isSettled})()`;

// What the verdict table shows, the mean last.
const TABLE = `return [...document.querySelectorAll('#verdict-rows tr')].map((r) => ({
  word: r.querySelector('.w').textContent,
  allclose: r.querySelector('.verdict .text').textContent,
  maxDiff: r.querySelector('.maxdiff .num').textContent,
  cosine: r.querySelector('.cosine .num').textContent,
}))`;

// The chart's canvas: its size, how many pixels of the plotting area differ
// from the canvas's corner (its background) and in how many colours, and
// for each [magnitude, cosine distance] of `points`, how far (in device
// pixels) the middle of the followed word's curve, in that magnitude's
// column, is from where the axes put that point (null: not in the column).
const chartInk = (points = []) => `const chart = window.Chart?.getChart(document.getElementById('chart'));
  if (!chart) return null;
  const { canvas } = chart;
  const ratio = canvas.width / chart.width;
  const a = chart.chartArea;
  const x = Math.ceil(a.left * ratio), y = Math.ceil(a.top * ratio);
  const w = Math.floor((a.right - a.left) * ratio), h = Math.floor((a.bottom - a.top) * ratio);
  const ctx = canvas.getContext('2d');
  const bg = ctx.getImageData(1, 1, 1, 1).data.join();
  const data = ctx.getImageData(x, y, w, h).data;
  let ink = 0;
  const colours = new Set();
  for (let i = 0; i < data.length; i += 4) {
    const c = data[i] + ',' + data[i + 1] + ',' + data[i + 2] + ',' + data[i + 3];
    if (c !== bg) { ink++; colours.add(c); }
  }
  const probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  probe.fillStyle = chart.data.datasets[0].borderColor;
  probe.fillRect(0, 0, 1, 1);
  const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
  const offsets = ${JSON.stringify(points)}.map(([scale, value]) => {
    const px = Math.round(chart.scales.x.getPixelForValue(scale) * ratio);
    const py = chart.scales.y.getPixelForValue(value) * ratio;
    const column = ctx.getImageData(px, y, 1, h).data;
    const ys = [];
    for (let i = 0; i < column.length; i += 4) {
      if (Math.abs(column[i] - r) + Math.abs(column[i + 1] - g) + Math.abs(column[i + 2] - b) < 30) ys.push(y + i / 4 + 0.5);
    }
    return ys.length ? Math.round((ys.reduce((t, v) => t + v, 0) / ys.length - py) * 10) / 10 : null;
  });
  return { width: canvas.width, height: canvas.height, area: w * h, ink, colours: colours.size, offsets,
           rows: [...document.querySelectorAll('#chart-data tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)) };`;

// What the page should show for `config`, from the same WebAssembly module
// run under Node, formatted as the page does: the verdict table's text, and
// the chart's data table (a row per power of ten of the page's sweep, for
// the followed word `pair` and the mean).
let lab;
const SWEEP = { lo: 1e-9, hi: 1e3, count: 121 };
export async function expected(config, pair) {
  lab ??= await createLab();
  const r = lab.run({ ...config, sweep: SWEEP });
  const verdict = (p) => (p.allclose ? 'True' : 'False');
  const chart = r.sweep.scales.flatMap((scale, i) => {
    const exp = Math.log10(scale);
    if (Math.abs(exp - Math.round(exp)) > 1e-9) return [];
    const [p, m] = [r.sweep.pairs[pair][i], r.sweep.mean[i]];
    return [[Math.round(exp) === 0 ? '1' : `1e${Math.round(exp)}`, sig(p.cosine_distance), verdict(p),
             sig(m.cosine_distance), verdict(m)]];
  });
  // Where the followed word's curve runs straight (log-log), away from the
  // thresholds' dashed lines: 1e-5 to 1e-2.
  const points = r.sweep.scales.map((s, i) => [s, r.sweep.pairs[pair][i].cosine_distance])
    .filter(([s], i) => s >= 1e-5 && s <= 1e-2 && i % 10 === 0);
  return { table: tableOf(r), chart, points };
}

// The verdict table's text for a result of the lab's.
function tableOf(r) {
  const row = (word, f) => ({ word, allclose: f.allclose ? 'True' : 'False',
                              maxDiff: sig(f.max_abs_diff), cosine: sig(f.cosine_distance) });
  return [...r.pairs.map((p) => row(p.word, p)), row('sentence mean', r.mean)];
}

// Polls `script` (a function body) in the page until it returns a truthy value.
async function until(driver, script, what, timeout = 20000) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await driver.run(script);
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A student's first minutes, in one engine. `driver` gives run(body) (a
// function body run in the page, its return value back), open(url),
// type(selector, text) (select the field's text, type over it with keys),
// click(selector), resize(width, height), phone(url, width, height) (open
// `url` in a viewport of that size; later calls act on it), screenshot(file)
// of the whole page, and problems() (the engine's own console errors, if it
// reports them). `shots` names the screenshot files. Returns how long each
// step took, in ms.
export async function walk(driver, { origin, misses, shots }) {
  const times = {};
  const step = async (name, fn) => { const t0 = Date.now(); await fn(); times[name] = Date.now() - t0; };
  const settled = (what) => until(driver, SETTLED, what);
  const table = () => driver.run(TABLE);

  // Transformer blocks large enough for the worker on any machine (12 blocks:
  // on this thread only where a run is estimated at 8 ms, seven times the
  // reference machine's speed), which computes a run a
  // block at a time and reads its messages in between (a generator and a
  // MessageChannel in a module worker): a fast drag of the slider, and the
  // final state's verdicts are the core's.
  const words = Array.from({ length: 24 }, (_, i) => `w${i + 1}`);
  const deep = { sentence_a: words.join(' '), sentence_b: [...words].reverse().join(' '), scheme: 'rope', dim: 128,
                 heads: 4, model: 'transformer', layers: 12 };
  // (rows out of sight are filled a moment later: the table is busy until then)
  const verdictsShown = `return document.documentElement.dataset.ready !== undefined &&
    document.getElementById('verdicts').getAttribute('aria-busy') === 'false' &&
    document.querySelector('.verdict-table').getAttribute('aria-busy') === 'false'`;
  await step('transformer', async () => {
    await driver.resize(1280, 900);
    await driver.open(`${origin}/?debug#a=${words.join('+')}&b=${[...words].reverse().join('+')}&pos=1&scheme=rope` +
      '&scale=1&dim=128&heads=4&model=transformer&layers=12&word=0');
    await until(driver, verdictsShown, 'the transformer\'s verdicts');
    await driver.run(`return (async () => {
      const slider = document.getElementById('scale-slider');
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => requestAnimationFrame(r));
        slider.value = String(Number(slider.value) - 0.05);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
      }
      return true;
    })()`);
    await until(driver, verdictsShown, 'the verdicts after the drag');
  });
  const runs = await driver.run('return window.poslabDebug.transformerRuns()');
  assert.ok(runs.asked >= 2 && runs.finished >= 2 && runs.restarts === 0, `the worker's runs: ${JSON.stringify(runs)}; ` +
    `the page's calibration: ${JSON.stringify(await driver.run('return window.poslabDebug.sweeps().calibration'))}`);
  const scale = Number(await driver.run("return document.getElementById('scale-text').value"));
  assert.ok(scale < 1, `the drag moved the magnitude (${scale})`);
  lab ??= await createLab();
  assert.deepEqual(await table(), tableOf(lab.run({ ...deep, scale })));
  const deepSeen = await driver.run('return window.__problems ?? null');
  assert.deepEqual([...deepSeen, ...(await driver.problems()), ...misses], [], 'the transformer page reported problems');

  await step('open', async () => {
    await driver.resize(1280, 900);
    await driver.open(`${origin}/`);
    await settled('the first verdicts');
  });
  // Positions off: "man" is the same vector in both sentences.
  assert.deepEqual((await table()).map((r) => [r.word, r.allclose]),
    [['dog', 'True'], ['bites', 'True'], ['man', 'True'], ['sentence mean', 'True']]);
  assert.equal(await driver.run("return document.querySelector('#card-word .card-verdict .text').textContent"), 'True');
  const flat = await until(driver, chartInk(), 'the chart');

  // Positional information on: the module's figures, False and 0.9416.
  await step('positions on', async () => {
    await driver.click('#positions');
    await until(driver, "return document.getElementById('positions-state').textContent === 'on'", 'the switch');
    await settled('the verdicts with positions');
  });
  const on = await table();
  const man = on.find((r) => r.word === 'man');
  assert.deepEqual([man.allclose, man.maxDiff, man.cosine], ['False', '12.54', '0.9416']);
  assert.deepEqual([on.at(-1).allclose, on.at(-1).cosine], ['False', '0.5351']);
  const want = await expected({ sentence_a: 'dog bites man', sentence_b: 'man bites dog', scheme: 'random', scale: 0.5 }, 2);
  assert.deepEqual(on, want.table);
  assert.match(await driver.run("return document.querySelector('.chart-caption').textContent"),
    /np\.allclose says True for “man” only below a magnitude of about/);

  // The chart is drawn: curves, axes and shading are on the canvas, and the
  // curves moved off the floor where positions-off put them.
  const chart = await driver.run(chartInk(want.points));
  assert.ok(chart, 'Chart.js drew no chart');
  assert.ok(chart.width > 300 && chart.height > 150, `canvas ${chart.width}x${chart.height}`);
  assert.deepEqual(chart.rows, want.chart, 'the chart\'s numbers (its data table) are the module\'s sweep');
  assert.ok(chart.ink > chart.area / 20, `only ${chart.ink} of ${chart.area} pixels of the plotting area are drawn`);
  assert.ok(chart.colours >= 4, `only ${chart.colours} colours on the canvas`);
  assert.notEqual(chart.ink, flat.ink, 'the chart did not change when positions went on');
  assert.ok(want.points.length >= 3);
  // Within 1.5 px: the mean's curve runs about 4 px away there.
  assert.ok(chart.offsets.every((d) => d !== null && Math.abs(d) <= 1.5),
    `the curve of "man" is ${JSON.stringify(chart.offsets)} px off the points ${JSON.stringify(want.points)}`);
  await driver.screenshot(shots.desktop);

  // A word of the student's own appears in the verdicts, with the figures
  // the module computes for it.
  await step('typing', async () => {
    await driver.type('#sentence-a', 'dog bites postman');
    await driver.type('#sentence-b', 'postman bites dog');
    await settled('the verdicts for the typed words');
  });
  const typed = await table();
  assert.deepEqual(typed.map((r) => r.word), ['dog', 'bites', 'postman', 'sentence mean']);
  assert.deepEqual(typed, (await expected({ sentence_a: 'dog bites postman', sentence_b: 'postman bites dog',
                                            scheme: 'random', scale: 0.5 }, 2)).table);
  assert.match(await driver.run("return location.hash"), /[#&]a=dog\+bites\+postman(&|$)/);
  // Typed key by key, A passed through "d": the chart still follows the last word.
  assert.equal(await driver.run("return document.querySelector('#card-word .card-word').textContent"), '“postman”');

  // Under a dialog the fixed result bar is hidden: WebKit drew it over the
  // dialog's backdrop, undimmed.
  await step('dialog', async () => {
    await driver.run('window.scrollTo(0, document.documentElement.scrollHeight); return true');
    await until(driver, "return document.getElementById('result-bar').classList.contains('shown')", 'the result bar');
    await driver.click('#embed-open');
    await until(driver, "return document.querySelector('dialog[open]') !== null", 'the Embed dialog');
    await until(driver, "return getComputedStyle(document.getElementById('result-bar')).visibility === 'hidden'", 'the bar hidden under the dialog');
    await driver.run("document.querySelector('dialog[open]').close(); return true");
    await until(driver, "return getComputedStyle(document.getElementById('result-bar')).visibility === 'visible'", 'the bar back');
  });

  // The problems of this page load, before the next one replaces it.
  const seen = await driver.run('return window.__problems ?? null');
  assert.ok(Array.isArray(seen), 'the problem watcher did not run');
  assert.deepEqual([...seen, ...(await driver.problems()), ...misses], [], 'the page reported problems');

  // The same view from its link, on a phone: the link gives the same
  // verdicts, and nothing is wider than the screen.
  const link = await driver.run('return location.href');
  await step('phone', async () => {
    await driver.phone(link, 375, 800);
    await until(driver, 'return window.innerWidth === 375', 'a 375 px viewport');
    await settled('the page at 375 px');
  });
  assert.deepEqual(await table(), typed);
  const overflow = await driver.run('return document.documentElement.scrollWidth - document.documentElement.clientWidth');
  assert.equal(overflow, 0, 'the page scrolls sideways at 375 px');
  await driver.screenshot(shots.phone);
  const phoneSeen = await driver.run('return window.__problems ?? null');
  assert.ok(Array.isArray(phoneSeen), 'the problem watcher did not run');
  assert.deepEqual([...phoneSeen, ...(await driver.problems()), ...misses], [], 'the page reported problems at 375 px');
  return times;
}

// ---- exercise 2: the tour's steps on the models trained here -----------------

// What the tour says at steps 12 to 17, computed under Node with the same
// steps module and the same core, each model opened from build/site/models/.
async function exercise2Expected() {
  const { pathToFileURL } = await import('node:url');
  const { createStateForm } = await import(`${ROOT}web/app/state.js`);
  const { STEPS, revealAt } = await import(`${ROOT}web/teach/tour_steps.js`);
  const { CheckpointLoader } = await import(`${ROOT}web/app/checkpoints.js`);
  const ck = await createLab();
  const form = createStateForm(ck.options, { tourSteps: STEPS.length });
  const loader = new CheckpointLoader(ck, { base: pathToFileURL(`${SITE}/`).href });
  const steps = [];
  try {
    for (let k = 11; k < 17; k++) {
      const state = form.defaultState();
      STEPS[k].set(state, form);
      await loader.open(state);
      const verdict = (changes) => ck.run(form.configOf({ ...state, ...changes }));
      const ctx = { result: verdict({}), state, form, verdict, tourStep: false };
      const answer = STEPS[k].answer(ctx);
      steps.push({ title: STEPS[k].title, label: STEPS[k].choices.find((c) => c.value === answer).label, lines: revealAt(k, ctx) });
    }
  } finally {
    loader.release();
    ck.dispose();
  }
  return steps;
}

// The tour's exercise-2 steps (12 to 17: gpt, its figure, its table off, its
// mask off, bag, nope) in one engine, from a link to step 12: each step's
// model is read from the site, the right choice made, and the revealed text
// must be what the core computes for it under Node; then the lesson beside
// nope says its three points hold as docs/models.md says.
export async function walkExercise2(driver, { origin, misses }) {
  const want = await exercise2Expected();
  const times = {};
  await driver.open(`${origin}/#tour=12`);
  for (const [i, step] of want.entries()) {
    const n = 12 + i;
    const t0 = Date.now();
    if (i > 0) await driver.run("document.querySelector('.tour-next').click(); return true;");
    await until(driver, `const t = document.getElementById('tour');
      return !t.hidden && t.querySelector('.tour-count').textContent.startsWith('Guided tour · step ${n} of') &&
        t.querySelector('.tour-title').textContent === ${JSON.stringify(step.title)} &&
        document.getElementById('checkpoint')?.querySelector('h2') !== null;`, `tour step ${n}`);
    times[n] = Date.now() - t0;
    await driver.run(`[...document.querySelectorAll('.tour-choice')].find((b) => b.textContent === ${JSON.stringify(step.label)}).click(); return true;`);
    const shown = await until(driver, `const t = document.getElementById('tour');
      const lines = [...t.querySelectorAll('.tour-lines p')].map((p) => p.textContent);
      return !t.querySelector('.tour-reveal').hidden && lines.length ? { outcome: t.querySelector('.tour-outcome').textContent, lines } : null;`,
    `step ${n}'s answer`);
    assert.equal(shown.outcome, `You chose “${step.label}”: right.`, `step ${n}`);
    assert.deepEqual(shown.lines, step.lines, `step ${n} (${step.title})`);
  }
  const holds = await until(driver, `const li = [...document.querySelectorAll('#lesson li')];
    return li.length === 3 && !document.getElementById('lesson').hidden ? li.map((l) => l.dataset.holds) : null;`, 'the lesson');
  assert.deepEqual(holds, ['true', 'true', 'true']);
  assert.deepEqual([...(await driver.run('return window.__problems ?? []')), ...(await driver.problems()), ...misses], [],
    'the page reported problems');
  return times;
}

// The models trained here, in one engine: each opened from its link, with
// positions and mask as trained, shows the verdict table, exercise 2's
// figure and its answer as the checkpoint module computes them under Node.
// `misses`: the server's (none expected).
export async function trainedModels(driver, { origin, misses }) {
  const A = 'dog bites man . who bites ?';
  const B = 'man bites dog . who bites ?';
  const plus = (text) => encodeURIComponent(text).replace(/%20/g, '+');
  lab ??= await createLab();
  const seenTexts = {};
  for (const [model, trained] of [['gpt', { scheme: 'learned', causal: true }], ['nope', { scheme: 'none', causal: true }],
    ['bag', { scheme: 'none', causal: false }]]) {
    await driver.open(`${origin}/?debug#model=${model}&a=${plus(A)}&b=${plus(B)}`);
    // (a link that differs only after # is read without a reload: the model's own section says which it shows)
    await until(driver, `${SETTLED.replace('return ', `return document.querySelector('#checkpoint .ck-size')?.textContent.startsWith('${model}:') &&
      document.getElementById('verdicts').getAttribute('aria-busy') === 'false' && `)}`, `the ${model} model's verdicts`);
    const ck = await lab.openCheckpoint({ url: new URL(`models/${model}/`, `file://${SITE}/`).href });
    let want;
    try {
      want = lab.run({ model: 'checkpoint', sentence_a: A, sentence_b: B, ...trained });
    } finally {
      ck.dispose();
    }
    // words and verdicts whole; figures where they are not rounding (each
    // build has its own digits there)
    const shown = await driver.run(TABLE);
    const rows = tableOf(want);
    assert.deepEqual(shown.map((r) => [r.word, r.allclose]), rows.map((r) => [r.word, r.allclose]), `${model}: the verdict table`);
    const figures = [...want.pairs, want.mean];
    figures.forEach((f, i) => {
      if (Math.abs(f.cosine_distance) >= 1e-12) assert.equal(shown[i].cosine, sig(f.cosine_distance), `${model}: row ${i}'s cosine distance`);
    });
    const text = await driver.run(`return [...document.querySelectorAll('#checkpoint .ck-figure, #checkpoint .ck-row')]
      .map((e) => e.textContent)`);
    assert.ok(text.includes(`cosine similarity of the mean last hidden state${sig(want.mean_cosine_similarity)}`), `${model}: ${text}`);
    // (A asks who bites: the answer is marked right or wrong)
    const answerA = want.next_a[0].text.trim();
    const mark = answerA === rightAnswer(A) ? '✓ right' : `✗ (right: ${rightAnswer(A)})`;
    assert.ok(text.includes(`after A${answerA}p ${probability(want.next_a[0].probability)}${mark}`), `${model}: ${text}`);
    seenTexts[model] = shown.map((r) => r.allclose).join(' ');
    const problems = await driver.run('return window.__problems ?? null');
    assert.deepEqual([...problems, ...(await driver.problems())], [],
      `${model}: the page reported problems`);
  }
  // bag, with neither positions nor mask, cannot tell the orders apart
  assert.ok(/^(True ?)+$/.test(seenTexts.bag), `bag: ${seenTexts.bag}`);
  assert.deepEqual(misses, []);
  return seenTexts;
}
