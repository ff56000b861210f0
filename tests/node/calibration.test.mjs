// The page's calibration (Model.calibrate): what runs on the page's thread
// and what goes to a worker follows the speed measured on the device. The
// clock is the test's own, so what is asserted is the decision, not a time:
// a device on which every core call seems to take 400 ms sends every sweep
// and transformer run off the page's thread; one on which they take a
// tenth of a millisecond keeps the small ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const { stateForm } = await import('../state_form.mjs');
const { form, lab } = await stateForm();
const { Model, QUICK_CHART_MS, MAX_KEYSTROKE_CHART_MS } = await import(`${WEB}app/model.js`);

// A clock that moves `ms` during each core call and stands still otherwise.
function deviceTaking(ms) {
  let t = 0;
  const model = new Model({ ...lab, run: (config) => { t += ms; return lab.run(config); }, options: lab.options }, form);
  return { model, now: () => t };
}
const words = (n) => Array.from({ length: n }, (_, i) => `w${i + 1}`).join(' ');
const at = (n, dim, changes = {}) => ({ ...form.defaultState(), a: words(n), b: words(n).split(' ').reverse().join(' '),
  dim, positions: true, ...changes });
const A = at(3, 6);
const B = at(16, 64, { scheme: 'rope', heads: 8 });
const D = at(16, 64, { model: 'transformer', layers: 4, heads: 4 });

test('before calibrating, nothing is known: the sweeps go to the worker', () => {
  const model = new Model(lab, form);
  assert.equal(model.chartDataIsQuick(A), false);
  assert.equal(model.chartDataIsQuick(B), false);
});

test('a transformer opened before the calibration is placed by this device\'s speed: the model calibrates first', () => {
  // (the page calibrates after its first verdicts; a link to the
  // transformer asks where its first run goes before that)
  const busy = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
  const model = new Model({ ...lab, run: (config) => { busy(5); return lab.run(config); }, options: lab.options }, form);
  assert.equal(model.calibration, undefined);
  assert.equal(model.runIsQuick(D), false, 'on a device this slow a (d)-sized run goes to the worker');
  assert.ok(model.calibration.slower > 5, `calibrated on demand: ${model.calibration.slower} times slower`);
});

test('a slow device: every sweep and transformer run leaves the page\'s thread', () => {
  const { model, now } = deviceTaking(400);
  const figures = model.calibrate(now);
  assert.ok(figures.slower > 100, `the device is ${figures.slower} times slower than the reference`);
  for (const state of [A, B]) assert.equal(model.chartDataIsQuick(state), false, state.a);
  assert.equal(model.runIsQuick(D), false, 'a (d)-sized transformer run goes to the worker');
  assert.equal(model.wantsCoarse(B, true), true, 'and a long sweep shows its coarse curve first');
});

test('a fast device: the small sweeps and runs stay with the keystroke', () => {
  const { model, now } = deviceTaking(0.1);
  const figures = model.calibrate(now);
  assert.ok(figures.slower < 1, `the device is ${figures.slower} times as slow as the reference`);
  assert.equal(model.chartDataIsQuick(A), true);
  assert.equal(model.chartDataIsQuick(B), true);
  assert.equal(model.runIsQuick(D), true);
  assert.equal(model.chartDataIsQuick(at(64, 512, { scheme: 'rope', heads: 8 })), false, '(c) still goes to the worker');
  // without positions the core computes one point for the whole sweep
  assert.equal(model.chartDataIsQuick(at(64, 512, { scheme: 'rope', heads: 8, positions: false })), true);
});

test('a sweep the workers took long over sends the next of its kind to them; other kinds keep the calibrated figure', () => {
  const { model, now } = deviceTaking(0.1);
  model.calibrate(now);
  const page = model.msPerWork;
  model.learnChart(B, 5000, undefined, true); // a sweep that took 5 s in the worker
  assert.equal(model.msPerWork, page);
  assert.equal(model.wantsCoarse(B, true), true);
  assert.equal(model.chartDataIsQuick(B), false, 'the next of its kind goes to the workers');
  assert.equal(model.chartDataIsQuick({ ...B, a: words(15) }), false, 'whatever its words');
  assert.equal(model.chartDataIsQuick({ ...B, heads: 1 }), true, 'one head is another kind');
  assert.equal(model.chartDataIsQuick({ ...B, scheme: 'random' }), true, 'so is another scheme');
});

test('on a device that calibrated slow, a kind the workers measured quick is drawn with the keystroke', () => {
  // (the calibration's small sweep is only a model of the others: in Node,
  // at 16 words and d 64 with one head, it predicts RoPE's sweep at 0.43 of
  // what it costs)
  const { model, now } = deviceTaking(5);
  model.calibrate(now);
  assert.equal(model.chartDataIsQuick(B), false, 'calibrated, (b)\'s sweep looks too slow for the keystroke');
  model.learnChart(B, 2, undefined, true, 4); // two workers took 2 ms each: 4 ms of one thread's work
  assert.equal(model.chartDataIsQuick(B), true, 'measured, it fits');
  model.learnChart(B, (QUICK_CHART_MS + 2) / 2, undefined, true, QUICK_CHART_MS + 2);
  assert.equal(model.chartDataIsQuick(B), false, `what two workers shared counts whole: ${QUICK_CHART_MS + 2} ms here`);
  assert.equal(model.chartDataIsQuick({ ...B, scheme: 'alibi' }), false, 'an unmeasured kind keeps the calibrated figure');
});

// A clock whose core calls take `first` ms for the first `slowCalls` calls
// (a browser's baseline tier, a page still loading) and `later` ms after.
function deviceWarming(first, slowCalls, later) {
  let t = 0, calls = 0;
  const model = new Model({ ...lab, run: (config) => { t += calls++ < slowCalls ? first : later; return lab.run(config); }, options: lab.options }, form);
  return { model, now: () => t, calls: () => calls };
}
const noPause = () => Promise.resolve();

test('recalibrating once the page has settled finds the device\'s real speed', async () => {
  // three start-up calls at 3 ms each (41 points), then the whole sweep (121
  // points) at 1 ms, each timed over 4 ms: the device is (3 x 121/41) / 1 = about 8.9 times faster
  // than it looked
  const { model, now, calls } = deviceWarming(3, 3, 1);
  const start = model.calibrate(now);
  const b = at(16, 64); // (b) with one head
  assert.equal(model.chartDataIsQuick(b), false, 'at start (b)\'s sweep seemed too slow for the keystroke');
  const settled = await model.recalibrate(noPause, now);
  assert.equal(calls(), 3 + 3 * 4, 'three more timings, each of 4 ms at least: 4 calls');
  assert.ok(Math.abs(start.slower / settled.slower - 3 * 121 / 41) < 1e-9, `${start.slower} then ${settled.slower}`);
  assert.equal(model.msPerWork, settled.msPerWork);
  assert.deepEqual(model.calibration, settled);
  assert.equal(model.chartDataIsQuick(b), true, 'now it is drawn with the keystroke');
});

test('a device busier when recalibrating keeps its start-up figure', async () => {
  const { model, now } = deviceWarming(0.1, 3, 50);
  const start = model.calibrate(now);
  let pauses = 0;
  const settled = await model.recalibrate(() => { pauses += 1; return Promise.resolve(); }, now);
  assert.equal(pauses, 3, 'each timing in a task of its own');
  assert.deepEqual(settled, start);
  assert.equal(model.msPerWork, start.msPerWork);
});

// Browsers coarsen their clock (Chromium's reads in steps of 0.1 ms): a
// tiny transformer run timed at 0 ms once made the next large one, 24
// words at d 128 through 4 blocks, look free, and it ran on the page's
// thread.
test('a run or sweep too short for the clock (it reads 0 ms) teaches nothing: the next large one still leaves the page\'s thread', () => {
  const { model, now } = deviceTaking(400);
  model.calibrate(now);
  const large = at(24, 128, { model: 'transformer', layers: 4, heads: 4 });
  assert.equal(model.runIsQuick(large), false);
  const { now: clock } = performance;
  performance.now = () => 1000; // a clock that does not move
  try {
    model.verdict(at(1, 1, { model: 'transformer', layers: 1 }));
  } finally {
    performance.now = clock;
  }
  assert.equal(model.runIsQuick(large), false, 'after a run that read 0 ms');
  model.learnChart(large, 0);
  assert.equal(model.chartDataIsQuick(large), false, 'after a transformer sweep that read 0 ms');
  const before = model.chartDataIsQuick(B);
  model.learnChart(B, 0, undefined, true);
  model.learnChart(B, 0);
  assert.equal(model.chartDataIsQuick(B), before, 'after head sweeps that read 0 ms, here and in the workers');
  // one the clock can see teaches as before
  model.learnChart(large, 1);
  assert.equal(model.chartDataIsQuick(large), true, 'a transformer sweep that read 1 ms');
});

test('one slow sweep on the page sends the next to the workers, not every later one', () => {
  const { model, now } = deviceTaking(0.1);
  model.calibrate(now);
  const b = at(16, 64);
  assert.equal(model.chartDataIsQuick(b), true);
  model.learnChart(b, 500); // a sweep here that a collection held up for half a second
  assert.equal(model.chartDataIsQuick(b), false, 'the next goes to the workers');
  model.learnChart(b, 3, undefined, true); // which computed it
  assert.equal(model.chartDataIsQuick(b), true, 'and the one after is tried here again');
  assert.equal(model.msPerWork, model.calibration.msPerWork);
});

// A device whose calls cost `msPerPoint` per magnitude of their sweep, and
// whose clock reads in steps of `stepMs` (0: exact).
function deviceWithClock(msPerPoint, stepMs) {
  let t = 0.37; // (the clock's steps do not start with the page)
  const model = new Model({ ...lab, run: (config) => { t += msPerPoint * config.sweep.count; return lab.run(config); }, options: lab.options }, form);
  return { model, now: () => (stepMs ? Math.floor(t / stepMs) * stepMs : t) };
}

// Firefox's clock reads in steps of 1 ms. On a fast machine its sweeps of
// 0.2 and 0.7 ms read 0 ms, which once made the device look ten times
// faster than it is: a transformer run of 20 ms (24 words, d 128, 6
// blocks) then ran on the page's thread during a slider drag.
test('a clock that reads in 1 ms steps measures the device as an exact one does', async () => {
  const deep = at(24, 128, { model: 'transformer', layers: 6, heads: 4, scheme: 'rope' });
  const exact = deviceWithClock(1e-3, 0);
  await exact.model.recalibrate(noPause, exact.model.calibrate(exact.now) && exact.now);
  // a device half as fast as the reference machine, where the deep run takes about 15 ms
  const msPerPoint = 1e-3 * (0.5 / exact.model.calibration.slower);
  const devices = [0, 1].map((step) => deviceWithClock(msPerPoint, step));
  const figures = [];
  for (const { model, now } of devices) {
    model.calibrate(now);
    figures.push(await model.recalibrate(noPause, now));
  }
  assert.ok(Math.abs(figures[0].slower - 0.5) < 1e-9, `the exact clock: ${figures[0].slower}`);
  const ratio = figures[1].slower / figures[0].slower;
  assert.ok(ratio > 0.75 && ratio < 1.34, `the 1 ms clock measured ${ratio} of the exact figure`);
  assert.equal(devices[0].model.runIsQuick(deep), false, 'the deep run leaves the page\'s thread');
  assert.equal(devices[1].model.runIsQuick(deep), false, 'with either clock');
});

// The workers' answer comes later than their own time says (messages, and
// this thread busy with the keystroke's verdicts): a sweep a little over
// QUICK_CHART_MS is computed with the keystroke once that wait is known to
// be longer, and a long one still leaves this thread.
test('a sweep just over the quick limit stays with the keystroke when the workers\' answer would come later', () => {
  const { model, now } = deviceTaking(0.1);
  model.calibrate(now);
  const overBy = (ms) => model.learnChart(B, ms); // the last sweep of B's kind took `ms` here
  overBy(QUICK_CHART_MS + 4);
  assert.equal(model.chartDataIsQuick(B), false, 'before the workers have answered once, it goes to them');
  // the workers' answer to a request: 6 ms of their time, 30 ms after it was sent
  const { now: clock } = performance;
  let t = 1000;
  performance.now = () => t;
  try {
    const call = (request, onPartial) => {
      t += 30;
      onPartial({ sweep: lab.run({ ...request.config, sweep: request.range, packed: true }).sweep, ms: 6, threadMs: 12 });
      return Promise.resolve([]);
    };
    model.chartDataOffThread({ ...B, a: words(14) }, call);
    assert.equal(model.workerWaitMs, null, 'their first answer also waited for them to start, and does not count');
    model.chartDataOffThread({ ...B, a: words(15) }, call);
  } finally {
    performance.now = clock;
  }
  assert.equal(model.workerWaitMs, 24, 'they answered 24 ms later than their own 6 ms');
  overBy(QUICK_CHART_MS + 4);
  assert.equal(model.chartDataIsQuick(B), true, `${QUICK_CHART_MS + 4} ms here against about 6 + 24 ms there`);
  overBy(MAX_KEYSTROKE_CHART_MS + 1);
  assert.equal(model.chartDataIsQuick(B), false, `over ${MAX_KEYSTROKE_CHART_MS} ms the workers take it whatever their wait`);
  overBy(QUICK_CHART_MS + 4);
  model.workerWaitMs = 1;
  assert.equal(model.chartDataIsQuick(B), false, 'when they answer at once, the workers take it');
});
