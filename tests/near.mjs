// The one comparison of numbers for the JavaScript tests: the tolerance
// docs/experiment.md gives every implementation (1e-9 relative, 1e-12
// absolute), the same as tests/compare.py's for the native and Python side.
export const RTOL = 1e-9;
export const ATOL = 1e-12;

// Whether `got` agrees with `want` to that tolerance (relative to `want`).
export const near = (got, want) => Math.abs(got - want) <= ATOL + RTOL * Math.abs(want);
