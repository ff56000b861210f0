// memory_report.js - how much WebAssembly memory every copy of the core
// holds, for ?debug (loaded when first asked): the labs on the page's
// thread, and each worker of each pool (browser/sweeper.js's), which
// answers {memory: n} with its memory.buffer.byteLength and the allocator's
// bytes in use, at once when idle, else between two steps of its work.
//
//   copies: {labs: {name: lab or null}, pools: {name: sweeper or null}}
//   returns [{what, bytes, heap}]: "page" (a lab), "run worker", "run
//   worker (spare)" (a pool's copy in use, its spares)
import { heldCheckpointLab } from '../app/checkpoints.js';

let question = 0;

// A worker's answer; {bytes: 0, heap: 0} if it is ended before it answers.
function ask(w) {
  return new Promise((resolve) => {
    const n = ++question;
    const finish = (answer) => {
      clearInterval(watch);
      w.removeEventListener('message', onMessage);
      resolve(answer);
    };
    const onMessage = ({ data }) => { if (data.memory === n) finish({ bytes: data.bytes, heap: data.heap }); };
    const watch = setInterval(() => { if (w.ended) finish({ bytes: 0, heap: 0 }); }, 100);
    w.addEventListener('message', onMessage);
    w.postMessage({ memory: n });
  });
}

export async function wasmMemory({ labs, pools }) {
  // an open checkpoint has a module (and a memory) of its own
  const checkpoint = labs.page ? heldCheckpointLab(labs.page) : null;
  const parts = Object.entries({ ...labs, checkpoint }).filter(([, lab]) => lab)
    .map(([what, lab]) => ({ what, bytes: lab.memoryBytes(), heap: lab.heapBytesInUse() }));
  for (const [name, pool] of Object.entries(pools)) {
    for (const [k, w] of (pool?.copies() ?? []).entries()) {
      parts.push({ what: `${name} worker${k ? ' (spare)' : ''}`, ...(await ask(w)) });
    }
  }
  return parts;
}
