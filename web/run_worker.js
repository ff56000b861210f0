// run_worker.js - the transformer's work, off the page's thread: at 64
// words, d 512 and 12 blocks one run takes about a second, and its chart a
// hundred runs. The page keeps two of these (browser/sweeper.js's
// protocol): one for the verdicts, restarted when the state moves on to
// other draws so that stale runs are dropped (a slider step only skips the
// queued runs: see page.js's runInWorker), and one for the chart. The head model's
// chart keeps sweep_worker.js.
//
//   request: {run: config}           result: {result (lab.run's), ms}
//   request: a sweep_worker.js request, with the same replies
import { createLab } from './poslab.js';
import { sweepJob } from './app/sweep.js';
import { serveRequests } from './browser/sweeper.js';

serveRequests(createLab(), (request, lab, partial) => {
  if (!request.run) return sweepJob(request, lab, partial);
  const t0 = performance.now();
  const result = lab.run(request.run);
  return { result, ms: performance.now() - t0 };
});
