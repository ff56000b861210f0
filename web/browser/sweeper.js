// sweeper.js - the page's workers (sweep_worker.js for the chart,
// run_worker.js for the transformer) from both sides: their lifecycle on
// the page, and the one request/response protocol they speak.
//
//   page -> worker  {id, request, latestOnly, yields}
//                   {memory: n}     how much WebAssembly memory its core holds
//                                   (browser/memory_report.js asks)
//   worker -> page  {id, partial}   any number, before the end
//                   {id, result}    the end
//                   {id, error}     the core refused the request (an Error on the page)
//                   {id, broken}    the worker cannot compute at all
//                   {id, stale}     a newer latestOnly request came first
//                   {ready}         once, when its copy of the core has started
//                   {began: id}     a latestOnly request is being computed
//                   {memory: n, bytes, heap}  the answer: memory.buffer.byteLength
//                                   and the allocator's bytes in use (0 if
//                                   its core never started)
//
// A worker that breaks (its script did not load, its copy of the core did
// not start) is dropped for good, and callers get {broken} (not an Error):
// from then on the page computes the chart itself.
//
// A `latestOnly` request is dropped ({stale}) when a newer one reaches the
// worker: before it begins, or between the steps of a handler that takes
// them (serveRequests' `between`, the transformer's runs). The worker
// keeps what it holds that way (its drawn weights); ending it
// (restart()) is for work that cannot wait for the next step. A request
// that `yields` (the transformer's chart, which shares the run worker
// and its weights) is dropped so by a newer request of any kind; one that
// does not, only by a newer one that does not yield either: asking for a
// chart never drops the run it waits for.
//
// WebAssembly memory never shrinks: a worker whose core grew (a large
// transformer's weights) gives its memory back only when it is ended
// (end()); copies() lists the copies running, for memory_report.js.
import { mergeShares } from '../app/sweep.js';

// The page's side. `url`: the worker's script. With `spare`, more copies
// are started beside it and kept ready, so that restart() can drop a
// request that is no longer wanted without waiting for a new copy of the
// core to start.
// `type`: 'module' (the site's workers) or 'classic' (the single file's).
export function createSweeper(url, { spare = false, name = 'sweep worker', type = 'module' } = {}) {
  let next = 0;
  const inFlight = new Set(); // {w, reject} of the calls not yet answered
  const started = new WeakSet(); // the workers whose copy of the core is ready
  // Ends a copy, marked so for whoever awaits an answer from it.
  const end = (w) => {
    w.terminate();
    w.ended = true;
  };
  const spawn = () => {
    try {
      const w = new Worker(url, { type });
      w.addEventListener('message', ({ data }) => {
        if (data.ready) started.add(w);
        // It began a run while a newer one was on its way to it (sent before
        // the page heard it was ready): that run is stale already. One of the
        // same `group` (the same draws) will drop it at its first step and
        // use what it drew; for another, the worker is ended.
        if (data.began !== undefined && w === worker) {
          const began = [...inFlight].find((c) => c.w === w && c.id === data.began);
          if ([...inFlight].some((c) => c.w === w && c.latestOnly && !c.yields && c.id > data.began &&
                                 (c.group === null || c.group !== began?.group))) restart();
        }
      });
      // A worker whose script cannot load says so only with this event, and
      // would drop requests silently.
      w.addEventListener('error', () => { if (w === worker || standby.includes(w)) drop('its script did not load'); });
      return w;
    } catch {
      return null; // an old browser, or workers refused: the page computes
    }
  };
  let worker = spawn();
  // Spares, oldest first: two, so that during a fast drag (a new state every
  // frame) the one that takes over has had two turns to start.
  const SPARES = 2;
  let standby = [];
  const refill = () => {
    while (worker && spare && standby.length < SPARES) {
      const w = spawn();
      if (!w) break;
      standby.push(w);
    }
  };
  refill();

  // Without `why`, end(): every copy is ended, for good (the page makes a
  // new sweeper when it needs one again); the calls they were answering
  // reject with {stale}, or with {broken} after a failure.
  function drop(why) {
    if (!worker) return;
    if (why) console.warn(`poslab: the page computes on its own thread: the ${name} failed (${why})`);
    [worker, ...standby].forEach(end);
    worker = null;
    standby = [];
    for (const call of [...inFlight]) call.reject(why ? { broken: why } : { stale: true });
  }

  // Stops whatever the worker is computing (a run for a state the page has
  // left: at 64 words, d 512 and 12 blocks a second's work) and goes on
  // with a fresh copy; the calls it was answering reject with {stale}.
  // With a spare, a copy still starting is left alone: it has not begun
  // anything, and its queue skips to the newest `latestOnly` request
  // itself; ending it would only put a colder copy in its place. Returns
  // whether the worker was ended.
  let restarts = 0;
  function restart() {
    if (!worker || (spare && !started.has(worker))) return false;
    restarts += 1;
    const old = worker;
    const ready = standby.findIndex((w) => started.has(w));
    worker = standby.length ? standby.splice(ready < 0 ? 0 : ready, 1)[0] : spawn();
    refill();
    end(old);
    for (const call of [...inFlight]) if (call.w === old) call.reject({ stale: true });
    return true;
  }

  // Sends `request`; resolves with the result, calls onPartial(partial) for
  // each partial reply before it. Rejects with an Error (the core's words),
  // with {broken}, or with {stale} after restart() or, for a `latestOnly`
  // request, when a newer one reached the worker before it began or
  // before its next step. `group`: requests that share what the worker
  // draws for them (see the `began` message above).
  function call(request, onPartial = () => {}, { latestOnly = false, yields = false, group = null } = {}) {
    const w = worker;
    if (!w) return Promise.reject({ broken: 'no worker' });
    const id = ++next;
    return new Promise((resolve, reject) => {
      const entry = { w, id, latestOnly, yields, group, reject: (why) => done(() => reject(why)) };
      const done = (fn) => {
        inFlight.delete(entry);
        w.removeEventListener('message', onMessage);
        w.removeEventListener('error', onError);
        fn();
      };
      const onMessage = ({ data }) => {
        if (data.id !== id) return;
        if ('partial' in data) onPartial(data.partial);
        else if ('result' in data) done(() => resolve(data.result));
        else if ('error' in data) done(() => reject(new Error(data.error)));
        else if ('stale' in data) done(() => reject({ stale: true }));
        else done(() => { drop(data.broken); reject({ broken: data.broken }); });
      };
      const onError = (event) => done(() => reject({ broken: event.message || 'the worker failed' }));
      inFlight.add(entry);
      w.addEventListener('message', onMessage);
      w.addEventListener('error', onError);
      w.postMessage({ id, request, latestOnly, yields });
    });
  }

  return { call, restart, end: () => drop(), available: () => worker !== null, restarts: () => restarts,
    ready: () => started.has(worker),
    copies: () => [worker, ...standby].filter(Boolean) }; // the one in use first
}

// Sweep workers as one (the same face as createSweeper's): `first`, and
// `extras` more made by `more()` where there are cores for them. A chart
// request that needs a sweep is computed in all that are ready at once,
// each taking its share of the magnitudes (sweepJob's `share`), and the
// shares are merged into one sweep, equal to one worker's to the bit,
// before onPartial sees it; the thresholds are then split between them. On
// two cores the curves come back in about half the time. The extras start
// with the first sweep (not with a request that only one worker would
// serve) and end after `idleMs` without a request, so that a page
// left on other work holds one copy of the core for its chart, not two
// (a request that comes while they start is the first's alone). A sweep
// without positions (one point serves all) and a request for thresholds
// only go to one worker; so does everything once a worker has broken.
// The thresholds of a shared sweep are asked for `pauseMs` after its
// curves, and only if no newer request has come meanwhile: a search cannot
// be cut short once begun (at 64 words, d 512 and 8 heads under 2x
// throttling, up to a tenth of a second), and one for words already typed
// past held up the next words' sweep in its worker by as much. Such a call
// resolves with no thresholds; the page asks again for the words it shows.
export function shareSweeps(first, { more = null, extras = 0, idleMs = 10000, pauseMs = 0 } = {}) {
  let others = [];
  let idle = null;
  let calls = 0;
  const rest = () => {
    clearTimeout(idle);
    idle = setTimeout(() => { others.forEach((s) => s.end()); others = []; }, idleMs);
  };
  const ready = () => [first, ...others.filter((s) => s.ready())].filter((s) => s.available());
  function call(request, onPartial = () => {}, options) {
    const mine = ++calls;
    // (A new copy draws its weights in its first share: at 64 words and d
    // 512 a warm-up run made it draw them as it started, and its first share
    // took 15 ms instead of 102-148 under 2x throttling, but the draws held
    // it 4.6 MiB larger 10 s after (e): 66 MiB in all, over 64.)
    const shared = !request.sweep && request.config.scheme !== 'none';
    if (shared && more && others.length < extras) others.push(...Array.from({ length: extras - others.length }, more));
    const all = ready();
    const done = (promise) => promise.finally(rest);
    if (all.length < 2 || !shared) {
      return done(all.length ? all[0].call(request, onPartial, options) : Promise.reject({ broken: 'no worker' }));
    }
    const n = all.length, got = { coarse: [], sweep: [] };
    let sweep;
    const shares = all.map((s, k) => s.call({ ...request, pairs: [], share: [k, n] }, (part) => {
      const these = got[part.coarse ? 'coarse' : 'sweep'];
      these[k] = part;
      if (these.filter(Boolean).length < n) return;
      const merged = mergeShares(these.map((p) => p.sweep));
      if (!part.coarse) sweep = merged;
      onPartial({ ...part, sweep: merged, ms: Math.max(...these.map((p) => p.ms)), threadMs: these.reduce((sum, p) => sum + p.ms, 0) });
    }, options));
    const paused = () => new Promise((resolve) => { setTimeout(resolve, pauseMs); });
    return done(Promise.all(shares).then(() => (pauseMs > 0 ? paused() : null)).then(() => (mine < calls ? [] :
      Promise.all(all.map((s, k) => s.call({ ...request, sweep, coarse: false, coarsePass: null,
        pairs: request.pairs.filter((_, i) => i % n === k) }, undefined, options))))).then((parts) => parts.flat()));
  }
  const each = () => [first, ...others];
  return { call, available: () => first.available() || others.some((s) => s.available()),
    end: () => { clearTimeout(idle); each().forEach((s) => s.end()); others = []; },
    restart: () => each().map((s) => s.restart()).some(Boolean),
    restarts: () => each().reduce((sum, s) => sum + s.restarts(), 0),
    copies: () => each().flatMap((s) => s.copies()) };
}

// The worker's side: `start` is a promise of what the handler needs (its
// copy of the core); handler(request, ready, partial, between, newer)
// returns the result, calls partial(x) for early replies, and throws for
// the core's errors. A handler that works in steps awaits between() after
// each: it lets the worker read its messages, and throws (the request is
// answered {stale}) when a newer `latestOnly` request has arrived for this
// one. newer() says whether any request has arrived after this one (read
// by the last between()): a handler may then cut short work that is only
// worth having while its request is the newest.
// Requests are answered one at a time, in order. `start` resolves to a lab
// (poslab.js's), which also answers what its memory holds, at once or
// between two steps of a request.
export function serveRequests(start, handler) {
  start.then(() => self.postMessage({ ready: true }), () => {}); // failures: reported with each request
  let newest = 0; // the newest request that does not yield
  let newestAny = 0;
  let queue = Promise.resolve();
  const STALE = Symbol('stale');
  self.onmessage = ({ data }) => {
    if (data.memory !== undefined) {
      start.then((lab) => ({ bytes: lab.memoryBytes(), heap: lab.heapBytesInUse() }), () => ({ bytes: 0, heap: 0 }))
        .then((answer) => self.postMessage({ memory: data.memory, ...answer }));
      return;
    }
    // seen by the request in hand at its next step
    if (!data.yields) newest = Math.max(newest, data.id);
    newestAny = Math.max(newestAny, data.id);
    queue = queue.then(() => serve(data));
  };
  async function serve({ id, request, latestOnly, yields }) {
    let ready;
    try {
      ready = await start;
    } catch (e) {
      self.postMessage({ id, broken: String(e?.message ?? e) });
      return;
    }
    const superseded = () => latestOnly && id < (yields ? newestAny : newest);
    if (superseded()) { // queued while the core started or a run computed, and no longer wanted
      self.postMessage({ id, stale: true });
      return;
    }
    if (latestOnly) self.postMessage({ began: id });
    const between = async () => {
      await afterMessages();
      if (superseded()) throw STALE;
    };
    try {
      const result = await handler(request, ready, (partial) => self.postMessage({ id, partial }), between, () => id < newestAny);
      self.postMessage({ id, result });
    } catch (e) {
      self.postMessage(e === STALE ? { id, stale: true } : { id, error: String(e?.message ?? e) });
    }
  }
}

// Resolves once the messages that reached the worker before it are
// handled: a message to itself queues behind them. (setTimeout(0) would
// do, but browsers hold a timer set from a timer's callback 4 ms from the
// fifth on: 24 steps of a run at 12 blocks would lose a tenth of a second.)
const channel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
function afterMessages() {
  if (!channel) return new Promise((resolve) => { setTimeout(resolve, 0); });
  return new Promise((resolve) => {
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}
