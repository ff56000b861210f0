// checkpoint_model.js - the checkpoint models' part of the page's model
// (app/model.js), with no DOM, loaded the first time one is chosen: the
// loader that opens them (one at a time), the keys their results are cached
// under, the tokens the leading-space switch is about, and their chart,
// computed on this thread in slices (no worker holds their weights).
import { CheckpointLoader, loaderFor } from './checkpoints.js';
import { wordsOf, isCheckpointModel } from './state.js';
import { nextTurn } from '../lib/next_turn.js';

// A slice of a chart computed in steps ends after this long, and the page's
// input and frames come in between (a step is a third of a block of one
// sentence of a sweep point or a threshold's probe: a model trained here
// does a few points a slice; GPT-2 small one step, which can be longer).
export const STEP_SLICE_MS = 8;

// A checkpoint whose run costs more than this (12 C^2 per block and token,
// a rough count of its multiply-adds) runs in steps of a third of a block
// of one sentence rather than at once, so that no slider step waits for a
// whole run: the models trained here run at once, GPT-2 small in steps.
const QUICK_RUN_WORK = 1e7;

export class CheckpointModels {
  // model: app/model.js's Model, whose lab and caches these share; ranges:
  // {SWEEP, COARSE_SWEEP, thresholdFor} (app/sweep.js's, handed over so that
  // the page's bundle does not split that file off for this one).
  // `options`: a CheckpointLoader's of its own (tests), else the lab's shared one.
  constructor(model, ranges, options) {
    this.model = model;
    this.ranges = ranges;
    // the page's one loader (views/model_files.js opens GPT-2's files through it too)
    this.loader = options ? new CheckpointLoader(model.lab, options) : loaderFor(model.lab);
    this.reading = null; // the key of the checkpoint being read
    this.failures = new Map(); // key -> why it could not be opened
    this.opened = new WeakMap(); // open checkpoint -> its number, so keys tell two openings apart
    this.count = 0;
    this.tokenized = new Map(); // spaceContrast's: opening#word -> its tokens
    this.counted = null; // tokenCount's last answer
    this.latest = null; // the state the page is at (set by the page's view of a checkpoint)
    this.verdictRun = null; // the verdicts' run in steps wanted now (runs)
    this.verdictGate = null; // resolves when that run ends; the chart's slices wait for it
  }

  // The open checkpoint for a checkpoint state, or null: the loader's
  // answer, kept while the state's model and the loader's checkpoint stay
  // (the page asks several times a slider step, and each answer resolves
  // a URL).
  ready(state) {
    const memo = this.memo;
    const { held } = this.loader;
    if (memo && memo.held === held && memo.checkpoint === held?.checkpoint && memo.model === state.model &&
        memo.folder === state.checkpoint) return memo.ck;
    const ck = this.loader.ready(state);
    this.memo = { held, checkpoint: held?.checkpoint, model: state.model, folder: state.checkpoint, ck };
    return ck;
  }

  // Opens the state's checkpoint (CheckpointLoader.open's options: files,
  // onProgress); resolves to it. A second call shares the first's reading.
  open(state, options) {
    return this.loader.open(state, options);
  }

  // Which opening of a model `ck` is (1, 2, ...), so that two openings
  // (GPT-2 from other files has the same config) never share a cache key.
  number(ck) {
    if (!this.opened.has(ck)) {
      this.opened.set(ck, ++this.count);
    }
    return this.opened.get(ck);
  }

  // Reads the state's checkpoint for the page: resolves to true once it is
  // in or has failed (failure() then says why), to false when another
  // model was chosen meanwhile, and at once to false if it is being read
  // already (the first call's promise says when).
  read(state) {
    const key = `${state.model}#${state.checkpoint}`;
    if (this.reading === key) return Promise.resolve(false);
    this.reading = key;
    return this.open(state).then(() => true, (e) => {
      if (e?.name === 'AbortError') return false;
      this.failures.set(key, `Model ${state.model} could not be opened: ${e.message}`);
      return true;
    }).finally(() => { if (this.reading === key) this.reading = null; });
  }

  // Why the state's checkpoint could not be opened, or null.
  failure(state) {
    return this.failures.get(`${state.model}#${state.checkpoint}`) ?? null;
  }

  // How many tokens the open checkpoint makes of a sentence (its words
  // joined by single spaces, as a run joins them), or null.
  // (asked after every change of the page's value: the last answer is kept)
  tokenCount(state, text) {
    const ck = this.ready(state);
    const words = wordsOf(text);
    if (!ck || words.length === 0) return null;
    const joined = words.join(' ');
    const last = this.counted;
    if (last?.ck === ck && last.text === joined && last.space === state.space) return last.count;
    let count;
    try {
      count = ck.tokenize(joined, { prefixSpace: state.space }).length;
    } catch {
      count = null; // (text the run refuses: its own message says why)
    }
    this.counted = { ck, text: joined, space: state.space, count };
    return count;
  }

  // The first word of sentence A as the open checkpoint's tokens, with and
  // without a space before it (what the leading-space switch changes):
  // {word, spaced, bare}, or null.
  spaceContrast(state) {
    const ck = this.ready(state);
    const word = wordsOf(state.a)[0];
    if (!ck || !word) return null;
    const key = `${this.number(ck)}#${word}`;
    if (!this.tokenized.has(key)) {
      this.tokenized.set(key, { word, spaced: ck.tokenize(word, { prefixSpace: true }), bare: ck.tokenize(word, { prefixSpace: false }) });
    }
    return this.tokenized.get(key);
  }

  // A checkpoint's verdicts without positions, for the state at any
  // magnitude: the run at magnitude 1 with the magnitude asked for in its
  // config, or null (positions on, magnitude 1 itself, or not open). The
  // core adds no position table then, so every other number is the same to
  // the bit (tests/node/checkpoint_page.test.mjs), and a slider step on
  // nope or bag as trained runs nothing.
  unscaled(state) {
    if (!isCheckpointModel(state.model) || state.positions || state.scale === 1 || !this.ready(state)) return null;
    const one = this.model.verdict({ ...state, scale: 1 });
    return { ...one, config: { ...one.config, scale: state.scale } };
  }

  // Whether the state's verdicts are computed at once (see QUICK_RUN_WORK);
  // false while its checkpoint is not open.
  runIsQuick(state) {
    const ck = this.ready(state);
    if (!ck) return false;
    const { n_embd: c, n_layer: layers } = ck.info;
    const words = wordsOf(state.a).length + wordsOf(state.b).length;
    return 12 * c * c * layers * words <= QUICK_RUN_WORK;
  }

  // A large checkpoint's verdicts, shaped as the transformer's run worker
  // is (browser/sweeper.js's available(), call({run: config}), restart()),
  // so that the page's runInWorker serves both: the run goes in steps of one
  // block of one sentence on the checkpoint's own lab, with the page's
  // input and frames between slices of about STEP_SLICE_MS, and a newer
  // run (the next slider step) drops it at its next slice. A threshold
  // (lab.threshold) on the same lab ends a run in steps too: it starts again.
  get runs() {
    return (this.runsMade ??= {
      available: () => true,
      restart: () => { this.verdictRun = null; },
      restarts: () => 0,
      end: () => { this.verdictRun = null; },
      call: async ({ run: config }) => {
        const mine = {};
        this.verdictRun = mine;
        let open;
        const gate = new Promise((resolve) => { open = resolve; });
        this.verdictGate = gate;
        try {
          // Its first slice in a task of its own, not in the slider step's
          // handler that asked for it: under 2x throttling with GPT-2 small
          // that slice (up to STEP_SLICE_MS and a step more) made steps of
          // 56 ms and tasks of 54-71 ms during a fast drag.
          await nextTurn();
          const done = await this.runInSteps(config, mine);
          await nextTurn(); // (and the page's render of it in one more: its last slice was one)
          return done;
        } finally {
          if (this.verdictGate === gate) this.verdictGate = null;
          open();
        }
      },
    });
  }

  // The verdicts' run for `config` in steps (runs' call), until it is done
  // or `mine` is no longer the run wanted, or its checkpoint is no longer
  // the one open: other files chosen while the kept ones open, or another
  // model, dispose it between two slices.
  async runInSteps(config, mine) {
    const t0 = performance.now();
    for (;;) {
      const ck = this.loader.held?.checkpoint;
      if (!ck || this.verdictRun !== mine) throw { stale: true }; // eslint-disable-line no-throw-literal
      const steps = ck.lab.runSteps({ ...config, model: 'checkpoint' });
      let slice = performance.now();
      try {
        for (let step = steps.next(); ; step = steps.next()) {
          if (step.done) return { result: step.value, ms: performance.now() - t0 };
          if (performance.now() - slice >= STEP_SLICE_MS) {
            await nextTurn();
            if (this.verdictRun !== mine || this.loader.held?.checkpoint !== ck) throw { stale: true }; // eslint-disable-line no-throw-literal
            slice = performance.now();
          }
        }
      } catch (e) {
        if (!(e instanceof Error && /was dropped/.test(e.message))) throw e;
      }
    }
  }

  // The chart's work for a checkpoint, shaped as a sweep worker is
  // (browser/sweeper.js's available() and call(request, partial), with
  // app/sweep.js's request), so that the model's chartDataOffThread and the
  // page's scheduling serve it as they serve the head's worker: the coarse
  // curve first when asked, the sweep, then the thresholds. It runs on this
  // thread, since no worker holds the checkpoint's weights, in slices of
  // about STEP_SLICE_MS with the page's input and frames in between; its
  // sweeps and thresholds step on a lab of their own (Checkpoint.runSteps,
  // .thresholdSteps), so the verdicts' runs between two slices leave them
  // be. It is dropped ({stale}, as a worker's) at its next slice when the
  // page has moved on to another chart (this.latest(): the state the page
  // is at) or asked for another.
  get runner() {
    const { SWEEP, COARSE_SWEEP, thresholdFor } = this.ranges;
    const { model } = this;
    return (this.runnerMade ??= {
      available: () => true,
      call: async ({ config, range, pairs, sweep: given, coarse }, partial) => {
        const mine = {};
        this.computing = mine;
        const key = this.latest && model.sweepKey(this.latest());
        // (and when the page's model is no longer open: the checkpoint may be gone)
        const dropped = () => this.computing !== mine || (key && (model.sweepKey(this.latest()) !== key || !this.ready(this.latest())));
        if (this.latest && !this.ready(this.latest())) throw { stale: true }; // eslint-disable-line no-throw-literal
        // (its first slice in a task of its own too, not in the render that
        // asked for the chart: see runs' call)
        await nextTurn();
        if (dropped()) throw { stale: true }; // eslint-disable-line no-throw-literal
        let t0 = performance.now();
        // Between slices, and at once when the verdicts' run in steps is
        // on its way: that run goes first. Slice for slice with the chart,
        // a run on GPT-2 small at 3 tokens came back in 500-800 ms for
        // about 200 ms of its own work.
        const between = async () => {
          if (performance.now() - t0 < STEP_SLICE_MS && !this.verdictGate) return;
          await nextTurn();
          // (a task after the run's end, where the page renders its verdicts)
          while (this.verdictGate) {
            await this.verdictGate;
            await nextTurn();
          }
          if (dropped()) throw { stale: true }; // eslint-disable-line no-throw-literal
          t0 = performance.now();
        };
        const sweepOf = async (points) => {
          const steps = model.lab.runSteps({ ...config, sweep: points, packed: true });
          for (;;) {
            const step = steps.next();
            if (step.done) return step.value.sweep;
            await between();
          }
        };
        let sweep = given;
        if (!sweep && coarse) partial({ sweep: await sweepOf(COARSE_SWEEP), coarse: true });
        if (!sweep) {
          sweep = await sweepOf(range ?? SWEEP);
          partial({ sweep });
        }
        // The thresholds in steps too, on the lab the sweep stepped on: each
        // of a search's probes is a pass of both sentences (on GPT-2 small
        // a third of a second), so it goes in the run's steps.
        // Its range is thresholdFor's, asked of a lab whose threshold()
        // hands back the steps (Checkpoint.thresholdSteps) for the number.
        const thresholds = [];
        for (const pair of pairs) {
          await nextTurn();
          const ck = this.loader.held?.checkpoint;
          if (dropped() || !ck) throw { stale: true }; // eslint-disable-line no-throw-literal
          const stepped = { options: model.lab.options, threshold: (c, p, r) => ck.thresholdSteps(c, p, r) };
          const steps = thresholdFor(stepped, config, sweep, pair);
          let step = steps?.next();
          while (step && !step.done) {
            await between();
            step = steps.next();
          }
          thresholds.push([pair, step ? step.value : null]);
        }
        return thresholds;
      },
    });
  }
}
