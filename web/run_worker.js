// run_worker.js - the transformer's work, off the page's thread: at 64
// words, d 512 and 12 blocks one run takes about a second, and its chart a
// hundred runs. The page keeps one of these (browser/sweeper.js's
// protocol, with spares) for both: the verdicts, restarted when the state
// moves on to other draws so that stale runs are dropped (a slider step's
// newer run takes over between blocks: see page.js's runInWorker), and the
// chart, on the same drawn weights (one copy, not one per worker: a large
// transformer's weights are the page's largest memory). The head model's
// chart keeps sweep_worker.js.
//
//   request: {run: config}           result: {result (lab.run's), ms, steps}
//   request: a sweep_worker.js request, with the same replies (its
//            partial replies with `steps` too)
// `steps`: how many times the request read the worker's messages so far (a
// newer run takes over at the next), for the tests: a transformer's run
// and each point of its sweep go a block of one sentence a step.
import { createLab } from './lib/poslab.js';
import { sweepJob } from './app/sweep.js';
import { serveRequests } from './browser/sweeper.js';

// A run goes in steps of one block of one sentence (about 40 ms at (e)),
// reading messages between them: a slider step's newer run takes over at
// the next step, on the weights this copy has drawn, instead of after a
// whole run or on a spare copy that has to draw them again. So does the
// chart's sweep: a point of it is a whole run (most of a second at (e)),
// which a drag begun during the chart would otherwise wait for.
serveRequests(createLab(), async (request, lab, partial, between) => {
  let read = 0;
  const counted = () => { read += 1; return between(); };
  if (!request.run) return sweepJob(request, lab, (p) => partial({ ...p, steps: read }), { between: counted });
  const t0 = performance.now();
  const steps = lab.runSteps(request.run);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return { result: step.value, ms: performance.now() - t0, steps: read };
    await counted();
  }
});
