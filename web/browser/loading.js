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

// later.css, the styles of the parts loaded on demand, fetched with the
// first of them from beside the page's style.css. The single file has both
// stylesheets inline and no style.css to find: nothing to fetch there.
let later = null;
export function laterStyles() {
  const main = document.querySelector('link[rel="stylesheet"][href$="style.css"]');
  if (!main) return Promise.resolve();
  later ??= track(new Promise((resolve, reject) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = new URL('later.css', main.href).href;
    link.addEventListener('load', () => resolve());
    link.addEventListener('error', () => reject(new Error(`${link.href} could not be loaded`)));
    document.head.append(link);
  }));
  return later;
}
