// A checkpoint's thresholds in the page go in steps: on a checkpoint whose
// pass of one sentence takes long (C 384, 8 blocks: tens of milliseconds a
// pass in WebAssembly, where lab.threshold searches for a second or more
// in one call), asking for another word's threshold leaves no task on the
// page's thread much longer than a slice, and the threshold the chart
// states is still lab.threshold's to the bit; and new words' chart, whose
// sweep points go in the same steps too, leaves no task as
// long as one point at once, its sweep the lab's to the bit. The
// checkpoint is opened from files, as GPT-2's are. Run `make site`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, copyFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, openPage, settled, useSite } from './harness.mjs';
import { FILES } from './gpt2_files.mjs';
import { passSteps, nextSteps } from '../checkpoint_steps.mjs';

const { SWEEP, thresholdSearch, thresholdRange } = await import(`${ROOT}web/app/sweep.js`);
const { STEP_SLICE_MS } = await import(`${ROOT}web/app/checkpoint_model.js`);
const { createLab } = await import(`${ROOT}build/site/poslab.js`);
const site = useSite();

// The page on the slow checkpoint, opened from its files through the file
// picker, in a browser context of its own: the other test's page keeps the
// files on the device (OPFS) as it closes, and a page opened into that
// would start reading the kept copy by itself. Each test starts from none.
// On a timeout the error says where the read stood.
async function openFromFiles(folder, hash) {
  const context = await site.browser.newContext();
  const { page, done } = await openPage(context, site.origin, `/?debug#${hash}`);
  await page.waitForSelector('#model-files .mf-pick');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#model-files .mf-pick')]);
  // its first chart (121 magnitudes, a pass of both sentences each) takes
  // seconds, more on a busy machine
  page.setDefaultTimeout(180000);
  await chooser.setFiles(FILES.map((f) => path.join(folder, f)));
  await page.waitForFunction(() => /GPT-2 is open/.test(document.querySelector('#model-files .mf-status')?.textContent),
    null, { timeout: 120000 }).catch(async (e) => {
    const where = await page.evaluate(() => ['.mf-status', '.mf-error', 'progress'].map((s) => {
      const e = document.querySelector(`#model-files ${s}`);
      return `${s}: ${e?.hidden ? '(hidden) ' : ''}${s === 'progress' ? `${e?.value} of ${e?.max}` : e?.textContent}`;
    }).join('; '));
    throw new Error(`${e.message}; the page: ${where}`);
  });
  await settled(page);
  return { context, page, async done() { try { await done(); } finally { await context.close(); } } };
}

const A = 'dog bites man . who bites ?';
const B = 'man bites dog . who bites ?';
const [C, L, H, P] = [384, 8, 6, 64];

// A GPT-2-shaped checkpoint with random weights (a seeded generator) and the
// tokenizer of the models trained here (366 tokens: a small wte, so the
// blocks are nearly all of its 57 MB), made once into build/test-checkpoints/.
function slowCheckpoint() {
  const folder = path.join(ROOT, 'build', 'test-checkpoints', `threshold-c${C}-l${L}`);
  const file = path.join(folder, 'model.safetensors');
  if (existsSync(file) && statSync(file).mtimeMs > statSync(new URL(import.meta.url)).mtimeMs) return folder;
  mkdirSync(folder, { recursive: true });
  for (const f of ['vocab.json', 'merges.txt']) copyFileSync(path.join(ROOT, 'models', 'gpt', f), path.join(folder, f));
  const V = 366;
  writeFileSync(path.join(folder, 'config.json'), JSON.stringify({
    architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', activation_function: 'gelu_new', n_embd: C, n_layer: L,
    n_head: H, vocab_size: V, n_positions: P, layer_norm_epsilon: 1e-5,
  }));
  let seed = 7;
  const uniform = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) + 0.5) / 2 ** 32;
  const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  // [name, shape, value(): a draw] in order; weights about 1 / sqrt(fan-in), gains about 1
  const tensors = [['wte.weight', [V, C], () => normal()], ['wpe.weight', [P, C], () => normal()]];
  for (let i = 0; i < L; i++) {
    const w = (fanIn) => () => normal() / Math.sqrt(fanIn), small = () => 0.1 * normal(), gain = () => 1 + 0.1 * normal();
    tensors.push([`h.${i}.ln_1.weight`, [C], gain], [`h.${i}.ln_1.bias`, [C], small],
      [`h.${i}.attn.c_attn.weight`, [C, 3 * C], w(C)], [`h.${i}.attn.c_attn.bias`, [3 * C], small],
      [`h.${i}.attn.c_proj.weight`, [C, C], w(C)], [`h.${i}.attn.c_proj.bias`, [C], small],
      [`h.${i}.ln_2.weight`, [C], gain], [`h.${i}.ln_2.bias`, [C], small],
      [`h.${i}.mlp.c_fc.weight`, [C, 4 * C], w(C)], [`h.${i}.mlp.c_fc.bias`, [4 * C], small],
      [`h.${i}.mlp.c_proj.weight`, [4 * C, C], w(4 * C)], [`h.${i}.mlp.c_proj.bias`, [C], small]);
  }
  tensors.push(['ln_f.weight', [C], () => 1], ['ln_f.bias', [C], () => 0]);
  const header = {};
  let at = 0;
  for (const [name, shape] of tensors) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const out = Buffer.alloc(8 + text.length + at);
  out.writeBigUInt64LE(BigInt(text.length));
  out.write(text, 8);
  const data = new Float32Array(out.buffer, out.byteOffset + 8 + text.length, at / 4);
  let k = 0;
  for (const [, shape, value] of tensors) for (let n = shape.reduce((a, b) => a * b, 1); n > 0; n--) data[k++] = value();
  writeFileSync(file, out);
  return folder;
}

test('a slow checkpoint\'s threshold: steps no longer than a slice or so, the number lab.threshold\'s', async () => {
  const folder = slowCheckpoint();
  // What the page should state, from the wrapper in Node on the same files
  // (the same WebAssembly build): the sweep, then lab.threshold where the
  // page searches, timed (the one call the page used to make).
  const lab = await createLab();
  const ck = await lab.openCheckpoint({ url: pathToFileURL(`${folder}/`).href });
  const config = { model: 'checkpoint', sentence_a: A, sentence_b: B, scheme: 'learned', causal: false };
  const { sweep, pairs } = lab.run({ ...config, sweep: SWEEP });
  const range = (pair) => thresholdSearch(pair < 0 ? sweep.mean : sweep.pairs[pair], sweep.scales,
    thresholdRange(lab.options.limits));
  const word = pairs.findIndex((p, i) => i > 0 && p.index_b !== null && sweep.pairs[i].some((q) => q.allclose) &&
    sweep.pairs[i].some((q) => !q.allclose));
  assert.ok(word > 0, 'a word whose curve turns from True to False on the chart');
  let t0 = performance.now();
  const want = lab.threshold(config, word, range(word));
  const wholeMs = performance.now() - t0;
  t0 = performance.now();
  const steps = ck.thresholdSteps(config, word, range(word));
  let longestStep = 0, count = 0;
  for (let s = steps.next(); !s.done; s = steps.next()) {
    const t = performance.now();
    longestStep = Math.max(longestStep, t - t0);
    t0 = t;
    count++;
  }
  ck.dispose();
  lab.dispose();
  console.log(`# lab.threshold: ${wholeMs.toFixed(0)} ms in one call; in ${count} steps, the longest ${longestStep.toFixed(1)} ms`);
  // one to begin, then a pass of each sentence a probe: a search of about ten probes
  assert.ok(count > 100 && (count - 1) % (2 * passSteps(ck)) === 0, `${count} steps`);

  const { page, done } = await openFromFiles(folder, `a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}&model=gpt2&causal=0`);
  assert.equal(await page.isChecked('#causal'), false, 'the mask is off, as the link says');

  // another word to follow: its threshold is all the page computes (the
  // sweep is the one on the chart), in steps between the page's tasks
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__long.push(e.duration); })
      .observe({ type: 'longtask' });
  });
  const started = Date.now();
  await page.selectOption('#plot-word', String(word));
  await settled(page);
  const ms = Date.now() - started;
  const long = await page.evaluate(() => window.__long);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const json = JSON.parse(await (await import('node:fs/promises')).readFile(await download.path(), 'utf8'));
  await done();
  const stated = json.thresholds.map((t) => t.threshold);
  console.log(`# the page: ${ms} ms to the threshold; long tasks (ms): ${long.map((d) => d.toFixed(0)).join(', ') || 'none'}`);
  assert.ok(stated.some((t) => Object.is(t, want)), `the page states lab.threshold's ${want}: ${JSON.stringify(stated)}`);
  // A task is a slice of about STEP_SLICE_MS and the step that ends it (a
  // few ms here), or the page's own work: the Long Tasks API reports none
  // over 50 ms on a quiet machine. The search in one call, which is what
  // the page's thread used to wait for, took wholeMs: a task that long (the
  // search not stepped) fails here, with room left for a busy machine
  // stretching a slice.
  const longest = Math.max(0, ...long);
  assert.ok(longest < wholeMs / 2,
    `the longest task while the threshold was computed: ${longest} ms (the search at once: ${wholeMs} ms; a slice: ${STEP_SLICE_MS} ms)`);
});

// The chart's sweep goes in steps too: each of its 121 points is a pass of
// both sentences, which the core now steps a third of a block of one
// sentence at a time (as a threshold's probes). New words on the slow checkpoint: while
// the whole chart is computed, no task on the page's thread takes as much
// of the thread's own time as one point at once (by CPU time from a trace,
// which a busy shared machine does not stretch as it does the clock), and
// the page's sweep is the lab's to the bit.
test('a slow checkpoint\'s chart: its sweep points in steps, no task as long as a point, the lab\'s sweep', async () => {
  const folder = slowCheckpoint();
  const A2 = 'cat bites man . who bites ?';
  const lab = await createLab();
  const ck = await lab.openCheckpoint({ url: pathToFileURL(`${folder}/`).href });
  const config = { model: 'checkpoint', sentence_a: A2, sentence_b: B, scheme: 'learned', causal: false };
  const want = lab.run({ ...config, sweep: SWEEP }).sweep;
  // one point at once: a run of both sentences in one call, by this
  // process's CPU time (the least of three)
  let pointMs = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = process.cpuUsage();
    lab.run({ ...config, scale: want.scales[60] });
    const { user, system } = process.cpuUsage(t0);
    pointMs = Math.min(pointMs, (user + system) / 1000);
  }
  let count = 0;
  const steps = ck.runSteps({ ...config, sweep: SWEEP });
  for (let s = steps.next(); !s.done; s = steps.next()) count++;
  ck.dispose();
  lab.dispose();
  // one to begin, each point's two passes, then the run's own and its next tokens (its last returns)
  const pass = passSteps(ck);
  assert.equal(pass, 3 * L);
  assert.equal(count, 1 + SWEEP.count * 2 * pass + 2 * pass + 2 * nextSteps(ck) - 1, `${count} steps: a third of a block of one sentence each`);

  const { page, done } = await openFromFiles(folder, `a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}&model=gpt2&causal=0`);
  const browser = site.browser;
  await browser.startTracing(page, { categories: ['toplevel'] });
  const started = Date.now();
  await page.fill('#sentence-a', A2);
  await settled(page);
  const ms = Date.now() - started;
  const events = JSON.parse(await browser.stopTracing()).traceEvents;
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const tasks = events.filter((e) => e.ph === 'X' && /RunTask$/.test(e.name) && main.has(`${e.pid}:${e.tid}`));
  const cpu = tasks.map((e) => (e.tdur ?? 0) / 1000);
  const longest = Math.max(0, ...cpu);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
  const json = JSON.parse(await (await import('node:fs/promises')).readFile(await download.path(), 'utf8'));
  await done();
  console.log(`# a point at once: ${pointMs.toFixed(0)} ms of CPU; the page: ${ms} ms to the new chart, ${tasks.length} tasks, ` +
    `the longest ${longest.toFixed(1)} ms of CPU, ${cpu.filter((t) => t > 50).length} over 50 ms`);
  assert.deepEqual(json.sweep, want, 'the page\'s sweep is the lab\'s');
  // A task is a slice of about STEP_SLICE_MS and the step that ends it, or
  // the page's own work; a point at once (the sweep not stepped) makes a
  // task of at least a point's time, which fails here.
  assert.ok(longest < 0.75 * pointMs,
    `the longest task while the chart was computed: ${longest} ms of CPU (a point at once: ${pointMs} ms; a slice: ${STEP_SLICE_MS} ms)`);
});
