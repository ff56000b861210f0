// sweeper.js - the page's workers (sweep_worker.js for the chart,
// run_worker.js for the transformer) from both sides: their lifecycle on
// the page, and the one request/response protocol they speak.
//
//   page -> worker  {id, request, latestOnly}
//   worker -> page  {id, partial}   any number, before the end
//                   {id, result}    the end
//                   {id, error}     the core refused the request (an Error on the page)
//                   {id, broken}    the worker cannot compute at all
//                   {id, stale}     a newer latestOnly request came first
//                   {ready}         once, when its copy of the core has started
//                   {began: id}     a latestOnly request is being computed
//
// A worker that breaks (its script did not load, its copy of the core did
// not start) is dropped for good, and callers get {broken} (not an Error):
// from then on the page computes the chart itself.

// The page's side. `url`: the worker's script. With `spare`, more copies
// are started beside it and kept ready, so that restart() can drop a
// request that is no longer wanted without waiting for a new copy of the
// core to start.
export function createSweeper(url, { spare = false, name = 'sweep worker' } = {}) {
  let next = 0;
  const inFlight = new Set(); // {w, reject} of the calls not yet answered
  const started = new WeakSet(); // the workers whose copy of the core is ready
  const spawn = () => {
    try {
      const w = new Worker(url, { type: 'module' });
      w.addEventListener('message', ({ data }) => {
        if (data.ready) started.add(w);
        // It began a run while a newer one was on its way to it (sent before
        // the page heard it was ready): that run is stale already.
        if (data.began !== undefined && w === worker &&
            [...inFlight].some((c) => c.w === w && c.latestOnly && c.id > data.began)) restart();
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

  function drop(why) {
    if (!worker) return;
    console.warn(`poslab: the page computes on its own thread: the ${name} failed (${why})`);
    worker.terminate();
    standby.forEach((w) => w.terminate());
    worker = null;
    standby = [];
  }

  // Stops whatever the worker is computing (a run for a state the page has
  // left: at 64 words, d 512 and 12 blocks a second's work) and goes on
  // with a fresh copy; the calls it was answering reject with {stale}.
  // With a spare, a copy still starting is left alone: it has not begun
  // anything, and its queue skips to the newest `latestOnly` request
  // itself; ending it would only put a colder copy in its place. Returns
  // whether the worker was ended.
  function restart() {
    if (!worker || (spare && !started.has(worker))) return false;
    const old = worker;
    const ready = standby.findIndex((w) => started.has(w));
    worker = standby.length ? standby.splice(ready < 0 ? 0 : ready, 1)[0] : spawn();
    refill();
    old.terminate();
    for (const call of [...inFlight]) if (call.w === old) call.reject({ stale: true });
    return true;
  }

  // Sends `request`; resolves with the result, calls onPartial(partial) for
  // each partial reply before it. Rejects with an Error (the core's words),
  // with {broken}, or with {stale} after restart() or, for a `latestOnly`
  // request, when a newer one reached the worker before it began.
  function call(request, onPartial = () => {}, { latestOnly = false } = {}) {
    const w = worker;
    if (!w) return Promise.reject({ broken: 'no worker' });
    const id = ++next;
    return new Promise((resolve, reject) => {
      const entry = { w, id, latestOnly, reject: (why) => done(() => reject(why)) };
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
      w.postMessage({ id, request, latestOnly });
    });
  }

  return { call, restart, available: () => worker !== null };
}

// The worker's side: `start` is a promise of what the handler needs (its
// copy of the core); handler(request, ready, partial) returns the result,
// calls partial(x) for early replies, and throws for the core's errors.
// Requests are answered in order.
export function serveRequests(start, handler) {
  start.then(() => self.postMessage({ ready: true }), () => {}); // failures: reported with each request
  let newest = 0;
  self.onmessage = async ({ data: { id, request, latestOnly } }) => {
    newest = Math.max(newest, id);
    let ready;
    try {
      ready = await start;
    } catch (e) {
      self.postMessage({ id, broken: String(e?.message ?? e) });
      return;
    }
    // queued while the core started, and no longer wanted
    if (latestOnly && id < newest) {
      self.postMessage({ id, stale: true });
      return;
    }
    if (latestOnly) self.postMessage({ began: id });
    try {
      const result = await handler(request, ready, (partial) => self.postMessage({ id, partial }));
      self.postMessage({ id, result });
    } catch (e) {
      self.postMessage({ id, error: String(e?.message ?? e) });
    }
  };
}
