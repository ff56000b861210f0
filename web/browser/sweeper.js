// sweeper.js - the page's workers (sweep_worker.js for the chart,
// run_worker.js for the transformer) from both sides: their lifecycle on
// the page, and the one request/response protocol they speak.
//
//   page -> worker  {id, request}
//   worker -> page  {id, partial}   any number, before the end
//                   {id, result}    the end
//                   {id, error}     the core refused the request (an Error on the page)
//                   {id, broken}    the worker cannot compute at all
//
// A worker that breaks (its script did not load, its copy of the core did
// not start) is dropped for good, and callers get {broken} (not an Error):
// from then on the page computes the chart itself.

// The page's side. `url`: the worker's script. With `spare`, a second
// copy is started beside it and kept ready, so that restart() can drop a
// request that is no longer wanted without waiting for a new copy of the
// core to start.
export function createSweeper(url, { spare = false, name = 'sweep worker' } = {}) {
  let next = 0;
  const inFlight = new Set(); // {w, reject} of the calls not yet answered
  const spawn = () => {
    try {
      const w = new Worker(url, { type: 'module' });
      // A worker whose script cannot load says so only with this event, and
      // would drop requests silently.
      w.addEventListener('error', () => { if (w === worker || w === standby) drop('its script did not load'); });
      return w;
    } catch {
      return null; // an old browser, or workers refused: the page computes
    }
  };
  let worker = spawn();
  let standby = worker && spare ? spawn() : null;

  function drop(why) {
    if (!worker) return;
    console.warn(`poslab: the page computes on its own thread: the ${name} failed (${why})`);
    worker.terminate();
    standby?.terminate();
    worker = null;
    standby = null;
  }

  // Stops whatever the worker is computing (a run for a state the page has
  // left: at 64 words, d 512 and 12 blocks a second's work) and goes on
  // with a fresh copy; the calls it was answering reject with {stale}.
  function restart() {
    if (!worker) return;
    const old = worker;
    worker = standby ?? spawn();
    standby = worker && spare ? spawn() : null;
    old.terminate();
    for (const call of [...inFlight]) if (call.w === old) call.reject({ stale: true });
  }

  // Sends `request`; resolves with the result, calls onPartial(partial) for
  // each partial reply before it. Rejects with an Error (the core's words),
  // with {broken}, or with {stale} after restart().
  function call(request, onPartial = () => {}) {
    const w = worker;
    if (!w) return Promise.reject({ broken: 'no worker' });
    const id = ++next;
    return new Promise((resolve, reject) => {
      const entry = { w, reject: (why) => done(() => reject(why)) };
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
        else done(() => { drop(data.broken); reject({ broken: data.broken }); });
      };
      const onError = (event) => done(() => reject({ broken: event.message || 'the worker failed' }));
      inFlight.add(entry);
      w.addEventListener('message', onMessage);
      w.addEventListener('error', onError);
      w.postMessage({ id, request });
    });
  }

  return { call, restart, available: () => worker !== null };
}

// The worker's side: `start` is a promise of what the handler needs (its
// copy of the core); handler(request, ready, partial) returns the result,
// calls partial(x) for early replies, and throws for the core's errors.
// Requests are answered in order.
export function serveRequests(start, handler) {
  start.catch(() => {}); // reported with each request instead
  self.onmessage = async ({ data: { id, request } }) => {
    let ready;
    try {
      ready = await start;
    } catch (e) {
      self.postMessage({ id, broken: String(e?.message ?? e) });
      return;
    }
    try {
      const result = await handler(request, ready, (partial) => self.postMessage({ id, partial }));
      self.postMessage({ id, result });
    } catch (e) {
      self.postMessage({ id, error: String(e?.message ?? e) });
    }
  };
}
