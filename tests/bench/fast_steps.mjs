// fast_steps.mjs - the benches' fast drag over the magnitude slider, for
// the transformer at (e) (browser.mjs) and GPT-2 open (model_files.mjs).

// Run in the page before the drag: keeps every long task it has (the
// longtask API, by the clock, so a task stretched by a busy machine
// counts), from the page's start.
export const WATCH_LONG_TASKS = () => {
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
    .observe({ type: 'longtask', buffered: true });
};

// In the page, once its verdicts are shown: 20 slider steps one a frame
// (a fast drag), each timed to its handler's end plus forced layout; the
// longest main-thread task from the first step until the last step's
// verdicts are shown (0 if none reached the 50 ms a long task starts at),
// how long after the last step that is, and what the run it waited for
// took (the page's own figure for its last run). Needs WATCH_LONG_TASKS
// and ?debug.
export function fastSteps(page) {
  return page.evaluate(async () => {
    const slider = document.getElementById('scale-slider');
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const busy = () => document.getElementById('verdicts').getAttribute('aria-busy') === 'true';
    while (busy()) await frame();
    const times = [];
    const start = performance.now();
    for (let i = 0; i < 20; i++) {
      await frame();
      const t0 = performance.now();
      slider.value = String(Number(slider.value) - 0.05);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      document.body.getBoundingClientRect();
      times.push(performance.now() - t0);
    }
    const last = performance.now();
    while (busy()) await frame();
    const shown = performance.now();
    await new Promise((r) => setTimeout(r, 200)); // long-task entries arrive a moment later
    const during = window.__longTasks.filter(([t, d]) => t + d > start && t < shown).map(([, d]) => d);
    return { times, longest: Math.max(0, ...during), latency: shown - last, runMs: window.poslabDebug.transformerRuns().lastMs };
  });
}
