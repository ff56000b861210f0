// views/sight.js with a stand-in IntersectionObserver: a draw for a target
// in sight (or not yet placed, or hidden) is made at once; one out of
// sight waits, marked aria-busy, until the renders pause or the target
// comes into sight, and only the last one asked for is made.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The observer the page would have: `report` plays the browser's callback.
const observers = [];
globalThis.IntersectionObserver = class {
  constructor(callback) {
    this.callback = callback;
    this.targets = new Set();
    this.observed = 0;
    observers.push(this);
  }
  observe(target) { this.targets.add(target); this.observed += 1; }
  unobserve(target) { this.targets.delete(target); }
};
const report = (observer, target, { inSight, box = true }) => observer.callback([{ target, isIntersecting: inSight,
  boundingClientRect: box ? { width: 800, height: 400 } : { width: 0, height: 0 } }]);
const element = () => {
  const attributes = new Map();
  return { getAttribute: (k) => attributes.get(k) ?? null, setAttribute: (k, v) => attributes.set(k, v) };
};
const pause = (ms) => new Promise((r) => { setTimeout(r, ms); });

const { createSight } = await import('../../web/views/sight.js');

test('out of sight, the last draw waits until the renders pause; in sight, at once', async () => {
  const sight = createSight({ quietMs: 30 });
  const io = observers.at(-1);
  const target = element();
  const drawn = [];
  sight.draw(target, () => drawn.push('first')); // not placed yet: at once
  sight.settle();
  assert.deepEqual(drawn, ['first']);
  report(io, target, { inSight: false });
  for (const step of [1, 2, 3]) {
    sight.draw(target, () => drawn.push(`step ${step}`));
    sight.settle();
    await pause(10); // renders closer together than the pause
  }
  assert.deepEqual(drawn, ['first'], 'nothing drawn while the renders keep coming');
  assert.equal(target.getAttribute('aria-busy'), 'true');
  await pause(50);
  assert.deepEqual(drawn, ['first', 'step 3'], 'then only the last');
  assert.equal(target.getAttribute('aria-busy'), 'false');
  report(io, target, { inSight: true });
  sight.draw(target, () => drawn.push('in sight'));
  assert.deepEqual(drawn.at(-1), 'in sight');
});

test('a waiting target that comes into sight is drawn then, alone; now() and forget() drop its wait', async () => {
  const sight = createSight({ quietMs: 10000 });
  const io = observers.at(-1);
  const [a, b, c] = [element(), element(), element()];
  const drawn = [];
  for (const t of [a, b, c]) {
    sight.draw(t, () => {});
    report(io, t, { inSight: false });
    sight.draw(t, () => drawn.push(t));
  }
  sight.settle();
  report(io, a, { inSight: true });
  assert.deepEqual(drawn, [a], 'one coming into sight is drawn, the others wait');
  sight.flush();
  assert.deepEqual(drawn, [a, b, c]);
  sight.draw(b, () => drawn.push('b later'));
  sight.now(b, () => drawn.push('b now'));
  sight.draw(c, () => drawn.push('c later'));
  sight.forget(c);
  sight.flush();
  assert.deepEqual(drawn.slice(3), ['b now'], 'now() replaced the wait; a forgotten target is not drawn');
  assert.equal(b.getAttribute('aria-busy'), 'false');
});

test('a hidden target is drawn at once, and observed anew so that its place is known once shown', () => {
  const sight = createSight({ quietMs: 10000 });
  const io = observers.at(-1);
  const target = element();
  const drawn = [];
  sight.draw(target, () => drawn.push(1));
  report(io, target, { inSight: false, box: false }); // hidden
  sight.draw(target, () => drawn.push(2));
  assert.deepEqual(drawn, [1, 2]);
  assert.equal(io.observed, 2, 'observed again: the browser reports a target once when it is observed');
  report(io, target, { inSight: false }); // shown, below the fold
  sight.draw(target, () => drawn.push(3));
  assert.deepEqual(drawn, [1, 2], 'now it waits');
  assert.equal(target.getAttribute('aria-busy'), 'true');
});

test('several targets marked busy on one element: it stays busy until the last is drawn', () => {
  const table = element();
  const sight = createSight({ quietMs: 10000, busyOf: () => table });
  const io = observers.at(-1);
  const [r1, r2] = [element(), element()];
  for (const r of [r1, r2]) {
    sight.draw(r, () => {});
    report(io, r, { inSight: false });
    sight.draw(r, () => {});
  }
  assert.equal(table.getAttribute('aria-busy'), 'true');
  sight.now(r1, () => {});
  assert.equal(table.getAttribute('aria-busy'), 'true', 'a row still waits');
  sight.now(r2, () => {});
  assert.equal(table.getAttribute('aria-busy'), 'false');
});

test('a row removed while it waits leaves its table no longer busy', () => {
  const table = element();
  const sight = createSight({ quietMs: 10000, busyOf: () => table });
  const io = observers.at(-1);
  const row = element();
  sight.draw(row, () => {});
  report(io, row, { inSight: false });
  sight.draw(row, () => assert.fail('a forgotten row is not drawn'));
  sight.settle();
  assert.equal(table.getAttribute('aria-busy'), 'true');
  sight.forget(row);
  sight.settle();
  assert.equal(table.getAttribute('aria-busy'), 'false');
  sight.flush();
});
