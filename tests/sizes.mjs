// The site's byte budgets (tests/sizes.json): each part judged by its gzip
// size, as a static host serves it (Node's zlib at level 9, the size of
// `gzip -9`), against a budget with room, and said with its change from
// the figure `make bench` last recorded. Shared by the size tests
// (tests/node/sizes.test.mjs, tests/browser/weight.test.mjs) and the bench.
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

export const SIZES_JSON = new URL('./sizes.json', import.meta.url);

export const gzipBytes = (data) => gzipSync(data, { level: 9 }).length;

// { part: { budget, recorded, what } }
export const readSizes = () => JSON.parse(readFileSync(SIZES_JSON, 'utf8')).parts;

const n = (x) => x.toLocaleString('en-US');
const signed = (x) => (x > 0 ? `+${n(x)}` : x < 0 ? `−${n(-x)}` : '±0');

// "poslab.wasm: 28,101 bytes gzip, +180 since the last record (27,921);
// budget 36,864 (76% of it)", and whether it fits.
export function judge(part, gzip, sizes = readSizes()) {
  const { budget, recorded } = sizes[part];
  const change = recorded ? `${signed(gzip - recorded)} since the last record (${n(recorded)})` : 'nothing recorded';
  return { ok: gzip <= budget,
    line: `${part}: ${n(gzip)} bytes gzip, ${change}; budget ${n(budget)} (${Math.round((100 * gzip) / budget)}% of it)` };
}

// make bench keeps today's figures as the next run's "last record".
export function record(figures) {
  const file = JSON.parse(readFileSync(SIZES_JSON, 'utf8'));
  for (const [part, gzip] of Object.entries(figures)) file.parts[part].recorded = gzip;
  writeFileSync(SIZES_JSON, `${JSON.stringify(file, null, 2)}\n`);
}
