// tour_memory.js - the step a skipped tour resumes at, kept in
// localStorage across visits. Storage can be off (private windows,
// sandboxed iframes): then the tour simply starts over.
const KEY = 'poslab.tour';

export function createTourMemory(steps) {
  // Kept in memory once read: a page's first localStorage access can take
  // tens of ms, so the first render (the verdicts) does not wait for it.
  let resume = null;
  return {
    // The step to resume at (0: none), read once.
    read() {
      if (resume === null) {
        try {
          const n = Number(window.localStorage.getItem(KEY));
          resume = Number.isInteger(n) && n >= 1 && n <= steps ? n : 0;
        } catch {
          resume = 0;
        }
      }
      return resume;
    },
    // What read() gave, without reading: 0 before the first read.
    known: () => resume ?? 0,
    store(n) {
      resume = n;
      try {
        if (n) window.localStorage.setItem(KEY, String(n));
        else window.localStorage.removeItem(KEY);
      } catch { /* nothing to keep then */ }
    },
  };
}
