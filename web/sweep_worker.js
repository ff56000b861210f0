// sweep_worker.js - the chart's sweep and thresholds, computed on a thread of
// their own with a second copy of the core, so that typing never waits for
// them: at 64 words and d 512 a sweep takes about 0.2 s, which on the page's
// thread held up every keystroke. The protocol is browser/sweeper.js's.
//
//   request: {config, range (the sweep's), pairs: [pair, ...], sweep}
//            sweep: the page's copy when it has one (it then needs only
//            thresholds, and the worker does not sweep again), else null
//            coarse: whether to send the sweep's coarse pass first
//            coarsePass: that pass, when the page computed it (the
//            worker then computes only the rest)
//   partial: {sweep, ms, coarse: true}, first, if asked for: the sweep's
//            coarse pass (every tenth point; coarseCurve in app/sweep.js),
//            so that a long sweep shows a first curve early
//   partial: {sweep, ms}, if the request had no sweep (so the page can
//            draw the curves while the thresholds are computed)
//   result:  [[pair, threshold], ...]
import { createLab } from './lib/poslab.js';
import { sweepJob } from './app/sweep.js';
import { serveRequests } from './browser/sweeper.js';

// The head's sweep in one call: its requests are never dropped mid-way.
// Their thresholds are: while the student types faster than the chart
// follows, each keystroke's request would otherwise wait behind the
// threshold searches of words already typed past (at 16 words, d 64 and 8
// heads under 2x throttling, a frame or two); they are computed again if
// the page goes back to those words.
serveRequests(createLab(), (request, lab, partial, between, newer) =>
  sweepJob(request, lab, partial, { between, newer, stepSweeps: false }));
