// last_run.mjs - the machine's own speed in the last run in docs/benchmarks.md.
//
// Three figures in docs/benchmarks.md run none of poslab's code: DGEMM on
// OpenBLAS, DGEMM on the reference BLAS and the first paint of a page of one
// line. When they move between two runs, the machine moved (a shared host
// has slow days), and every other figure moved with it. On 2026-12-06 two
// runs fell short of 2026-12-04's targets while the build, served in turn
// with the earlier one, measured the same: OpenBLAS had fallen from 164 to
// 102 GFLOP/s. run.mjs sets these beside the new run's, so that a reader
// can tell a slow day from a slow build.

// The figures in a benchmarks.md as run.mjs and browser.mjs write them
// (missing ones are undefined).
export function machineFigures(md) {
  const number = (re) => { const m = md.match(re); return m ? Number(m[1]) : undefined; };
  return {
    written: md.match(/Written by `make bench` on (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/)?.[1],
    openblas: number(/\| NumPy on OpenBLAS \|[^\n]*DGEMM \d+² ([\d.]+) GFLOP\/s/),
    reference: number(/\| NumPy \|[^\n]*DGEMM \d+² ([\d.]+) GFLOP\/s/),
    blankPage: number(/a page of one line from the same server at ([\d.]+) ms/),
  };
}

// One paragraph: this run's figures against the last run's, or null when
// there is no last run (or it has none of them).
export function machineAgainstLast(now, last, num = String) {
  if (!last?.written) return null;
  const change = (a, b) => `${a >= b ? '+' : '−'}${Math.round(Math.abs(100 * (a / b - 1)))} %`;
  const parts = [['OpenBLAS DGEMM', 'openblas', ' GFLOP/s'], ['reference-BLAS DGEMM', 'reference', ' GFLOP/s'],
    ['a page of one line first painted at', 'blankPage', ' ms']]
    .filter(([, key]) => Number.isFinite(now[key]) && Number.isFinite(last[key]))
    .map(([what, key, unit]) => `${what} ${num(now[key])}${unit} against ${num(last[key])} (${change(now[key], last[key])})`);
  if (!parts.length) return null;
  return `The machine against the last run in docs/benchmarks.md (${last.written} UTC): ${parts.join(', ')}. ` +
    'None of these runs poslab\'s code: when they move, the machine has, and the figures below move with it.';
}
