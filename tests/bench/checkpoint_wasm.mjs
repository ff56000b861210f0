// The WebAssembly side of tests/bench/checkpoint.sh: opens a checkpoint
// from its folder as the page opens a URL (the files streamed in chunks into
// the checkpoint module) and times one run of both sentences at each length.
//
//   node tests/bench/checkpoint_wasm.mjs DIR REPS A B [A B ...]
//
// Prints one JSON object: load seconds, the process's peak resident memory
// (VmHWM: Node itself, the module and its memory) and the best run times.
import { readFileSync } from 'node:fs';
import { pathToFileURL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SITE = process.env.SITE_DIR ?? `${root}build/site`;
const { openCheckpoint } = await import(`${SITE}/poslab.js`);
const [dir, repsText, ...sentences] = process.argv.slice(2);
const reps = Number(repsText);

// CPU time of this process (the machine is shared): user + system
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const rssBefore = peak();
let t = cpu();
const wall = performance.now();
const ck = await openCheckpoint({ url: pathToFileURL(`${dir}/`).href, chunkBytes: 1 << 20 });
const load = cpu() - t;
const loadWall = (performance.now() - wall) / 1000;
const runs = [];
for (let k = 0; k + 1 < sentences.length; k += 2) {
  let best = Infinity;
  let result;
  for (let r = 0; r < reps; r++) {
    const config = { sentence_a: sentences[k], sentence_b: sentences[k + 1] };
    t = cpu();
    result = ck.run(config);
    best = Math.min(best, cpu() - t);
  }
  runs.push({ tokens_a: result.tokens_a.length, tokens_b: result.tokens_b.length, seconds: best,
    mean_cosine_similarity: result.mean_cosine_similarity });
}
console.log(JSON.stringify({ load_seconds: load, load_wall_seconds: loadWall, bytes_needed: ck.bytesNeeded, rss_before: rssBefore, peak_rss: peak(), runs }));
ck.dispose();
