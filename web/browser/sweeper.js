// sweeper.js - the sweep worker (sweep_worker.js) from both sides: its
// lifecycle on the page, and the one request/response protocol they speak.
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

// The page's side. `url`: the worker's script.
export function createSweeper(url) {
  let worker = null;
  let next = 0;
  try {
    worker = new Worker(url, { type: 'module' });
    // A worker whose script cannot load says so only with this event, and
    // would drop requests silently.
    worker.addEventListener('error', () => drop('its script did not load'));
  } catch {
    worker = null; // an old browser, or workers refused: the page computes
  }

  function drop(why) {
    if (!worker) return;
    console.warn(`poslab: the chart is computed on the page: the sweep worker failed (${why})`);
    worker.terminate();
    worker = null;
  }

  // Sends `request`; resolves with the result, calls onPartial(partial) for
  // each partial reply before it. Rejects with an Error (the core's words)
  // or with {broken}.
  function call(request, onPartial = () => {}) {
    const w = worker;
    if (!w) return Promise.reject({ broken: 'no sweep worker' });
    const id = ++next;
    return new Promise((resolve, reject) => {
      const done = (fn) => {
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
      const onError = (event) => done(() => reject({ broken: event.message || 'the sweep worker failed' }));
      w.addEventListener('message', onMessage);
      w.addEventListener('error', onError);
      w.postMessage({ id, request });
    });
  }

  return { call, available: () => worker !== null };
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
