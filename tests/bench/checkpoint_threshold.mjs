// A checkpoint's threshold search at once and in steps, in WebAssembly under
// Node, on the checkpoint with GPT-2 small's shapes that checkpoint.sh
// writes (build/bench/checkpoints/gpt2-small, made here if missing): for
// the mean and the first word whose curve turns False on the chart, the
// range the page searches (the chart's step, app/sweep.js), the time of
// lab.threshold (one call: what the page's thread was blocked for before
// it searched in steps), and of ck.thresholdSteps: its steps, the longest
// one and the whole. Not part of make bench. Needs `make site`.
//   node tests/bench/checkpoint_threshold.mjs
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = `${ROOT}build/bench/checkpoints/gpt2-small`;
if (!existsSync(`${DIR}/model.safetensors`)) {
  console.error(`bench: writing ${DIR} (548 MB)`);
  const done = spawnSync('/usr/bin/python3', ['-c',
    "import sys; sys.path.insert(0, 'tests'); import make_checkpoints as m; m.gpt2_small('build/bench/checkpoints')"],
  { cwd: ROOT, stdio: 'inherit' });
  if (done.status !== 0) process.exit(1);
}
const { createLab } = await import(`${ROOT}build/site/poslab.js`);
const { SWEEP, thresholdSearch, thresholdRange } = await import(`${ROOT}web/app/sweep.js`);

const lab = await createLab();
const ck = await lab.openCheckpoint({ url: pathToFileURL(`${DIR}/`).href });
// the mask off: with it, the sentences differ at every magnitude and the
// search ends at its first probe
const config = { model: 'checkpoint', sentence_a: 'dog bites man', sentence_b: 'man bites dog', causal: false };
let t0 = performance.now();
const { sweep, pairs } = lab.run({ ...config, sweep: SWEEP });
const sweepMs = performance.now() - t0;
const turns = (points) => points.some((p) => p.allclose) && points.some((p) => !p.allclose);
const word = pairs.findIndex((p, i) => p.index_b !== null && turns(sweep.pairs[i]));
const rows = [];
for (const pair of [-1, word].filter((p) => p >= -1)) {
  const range = thresholdSearch(pair < 0 ? sweep.mean : sweep.pairs[pair], sweep.scales, thresholdRange(lab.options.limits));
  t0 = performance.now();
  const whole = lab.threshold(config, pair, range);
  const wholeMs = performance.now() - t0;
  const steps = ck.thresholdSteps(config, pair, range);
  let count = 0, longest = 0, total = 0, step;
  for (;;) {
    const t = performance.now();
    step = steps.next();
    const ms = performance.now() - t;
    longest = Math.max(longest, ms);
    total += ms;
    if (step.done) break;
    count++;
  }
  if (!Object.is(step.value, whole)) throw new Error(`pair ${pair}: in steps ${step.value}, at once ${whole}`);
  rows.push(`| ${pair < 0 ? 'mean' : `word ${pair} (${pairs[pair].word.trim()})`} | ${range.lo.toPrecision(3)} to ` +
    `${range.hi.toPrecision(3)} | ${whole.toPrecision(4)} | ${(wholeMs / 1000).toFixed(2)} | ${count} | ` +
    `${longest.toFixed(1)} | ${(total / 1000).toFixed(2)} |`);
}
ck.dispose();
lab.dispose();
console.log(`GPT-2 small's shapes, "dog bites man" / "man bites dog", mask off; the sweep (${SWEEP.count} points): ` +
  `${(sweepMs / 1000).toFixed(1)} s\n`);
console.log('| threshold of | range searched | threshold | lab.threshold, one call (s) | steps | longest step (ms) | all steps (s) |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
