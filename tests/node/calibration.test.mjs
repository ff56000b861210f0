// The page's calibration (Model.calibrate): what runs on the page's thread
// and what goes to a worker follows the speed measured on the device. The
// clock is the test's own, so what is asserted is the decision, not a time:
// a device on which every core call seems to take 200 ms sends every sweep
// and transformer run off the page's thread; one on which they take a
// tenth of a millisecond keeps the small ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const { stateForm } = await import('../state_form.mjs');
const { form, lab } = await stateForm();
const { Model } = await import(`${WEB}app/model.js`);

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

test('a slow device: every sweep and transformer run leaves the page\'s thread', () => {
  const { model, now } = deviceTaking(200);
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

test('the sweep worker\'s own speed decides its coarse curve; the page\'s thread keeps its figure', () => {
  const { model, now } = deviceTaking(0.1);
  model.calibrate(now);
  const page = model.msPerWork;
  model.learnChart(B, 5000, undefined, true); // a sweep that took 5 s in the worker
  assert.equal(model.msPerWork, page);
  assert.equal(model.wantsCoarse(B, true), true);
  assert.equal(model.wantsCoarse(B), false);
  assert.equal(model.chartDataIsQuick(B), true);
});
