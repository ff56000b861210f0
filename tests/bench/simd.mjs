// simd.mjs - what WebAssembly SIMD gains: the site's two cores, poslab.wasm
// (-msimd128) and poslab-nosimd.wasm (plain WebAssembly 1.0, for browsers
// without SIMD), timed under Node on the same work through the page's
// wrapper. run.mjs prints it as a section of its own; on its own,
//
//   node tests/bench/simd.mjs [--quick]
//
// prints just that section. The two cores take turns, one repetition each,
// so that a change in the machine's load (other jobs on two cores) falls on
// both alike; every repetition draws afresh (seeds alternate) as in the
// full-experiment rows of run.mjs.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

const words = (n) => Array.from({ length: n }, (_, i) => `w${String(i + 1).padStart(2, '0')}`);
const pair = (n) => (n === 3 ? ['dog bites man', 'man bites dog'] : [words(n).join(' '), words(n).reverse().join(' ')]);
const SWEEP = { lo: 1e-9, hi: 1e3, count: 121 };
export const SIMD_WORKLOADS = [
  { label: '(a) module defaults, 3 words, d 6', n: 3, config: { dim: 6 } },
  { label: '(b) 16 words, d 64', n: 16, config: { dim: 64 } },
  { label: '(c) 64 words, d 512', n: 64, config: { dim: 512 } },
  { label: '(c) with RoPE, 8 heads', n: 64, config: { dim: 512, scheme: 'rope', scale: 1, heads: 8 } },
  { label: 'transformer, 2 blocks, 16 words, d 64', n: 16, config: { dim: 64, model: 'transformer', layers: 2 } },
];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = (s.length - 1) / 2;
  return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2;
};

// {rows: [{label, simd_ms, nosimd_ms, reps}], bytes: {simd, nosimd}}
export async function simdBench({ quick = false, budgetMs = 2000, minReps = 5 } = {}) {
  const { createLab } = await import(`${root}build/site/poslab.js`);
  const labs = { simd: await createLab({ simd: true }), nosimd: await createLab({ simd: false }) };
  const rows = [];
  for (const w of SIMD_WORKLOADS) {
    const [a, b] = pair(w.n);
    const config = (i) => ({ sentence_a: a, sentence_b: b, sweep: SWEEP, ...w.config, seed: 2 + (i & 1) });
    const times = { simd: [], nosimd: [] };
    const once = (name, i) => {
      const t0 = performance.now();
      const result = labs[name].run(config(i));
      times[name].push(performance.now() - t0);
      return result.mean.cosine_distance;
    };
    // warm-up: V8 tiers a WebAssembly function up once it is hot
    for (const warm = performance.now(); performance.now() - warm < (quick ? 0 : 300);) once('simd', 0), once('nosimd', 0);
    times.simd.length = 0;
    times.nosimd.length = 0;
    const begun = performance.now();
    for (let i = 0; quick ? i < 1 : (i < minReps || performance.now() - begun < budgetMs); i++) {
      const x = once('simd', i), y = once('nosimd', i);
      if (x !== y) throw new Error(`simd bench: the cores disagree on ${w.label}: ${x} and ${y}`);
    }
    rows.push({ label: w.label, simd_ms: median(times.simd), nosimd_ms: median(times.nosimd), reps: times.simd.length });
  }
  Object.values(labs).forEach((lab) => lab.dispose());
  const { statSync } = await import('node:fs');
  const bytes = Object.fromEntries(['poslab.wasm', 'poslab-nosimd.wasm'].map((f) => [f, statSync(`${root}build/site/${f}`).size]));
  return { rows, bytes };
}

const ms = (x) => (x >= 100 ? x.toFixed(0) : Number(x.toPrecision(3)).toString());

// The section's markdown lines.
export function simdMarkdown({ rows, bytes }) {
  return [
    '## What WebAssembly SIMD gains (Node, the two cores of the site)',
    '',
    'The whole experiment plus a 121-point sweep through `lab.run`, medians, the two cores taking turns; ' +
      `poslab.wasm ${bytes['poslab.wasm'].toLocaleString('en-US')} bytes with SIMD, ` +
      `poslab-nosimd.wasm ${bytes['poslab-nosimd.wasm'].toLocaleString('en-US')} bytes without ` +
      '(what browsers without WebAssembly SIMD load). Both give the same numbers, bit for bit.',
    '',
    '| workload | SIMD, ms | no SIMD, ms | SIMD gains | repetitions each |',
    '|:---|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.label} | ${ms(r.simd_ms)} | ${ms(r.nosimd_ms)} | ${(r.nosimd_ms / r.simd_ms).toFixed(2)}x | ${r.reps} |`),
    '',
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lines = simdMarkdown(await simdBench({ quick: process.argv.includes('--quick') }));
  process.stdout.write(`${lines.join('\n')}\n`);
}
