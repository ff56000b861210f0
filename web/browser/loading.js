// loading.js - parts of the page a student may never use (the tour, the
// heatmaps, the Why panel, Copy as NumPy) are chunks of their own, fetched
// the first time they are needed. While any is on its way, <html
// data-loading> says so: the page has more to draw (tests wait for it).
let inFlight = 0;

// Returns `promise`, marking the page as loading until it settles.
export function track(promise) {
  if (inFlight++ === 0) document.documentElement.dataset.loading = 'true';
  const done = () => {
    if (--inFlight === 0) delete document.documentElement.dataset.loading;
  };
  promise.then(done, done);
  return promise;
}
