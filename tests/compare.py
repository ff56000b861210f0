#!/usr/bin/python3
"""The one comparison of a build's results with the NumPy fixtures.

usage: compare.py EXPECTED.json RESULTS.json [FIXTURES.json]

EXPECTED is tests/fixtures/cases.json ({"cases": [{"name", "expected"}]}),
or another build's results file, whose allclose margins are then computed
here from its outputs. A transformer's JSON compares the residual stream
after each block (`layers`) without holding the stream, so no margin can be
computed for those verdicts: between builds they are taken from FIXTURES
(NumPy's margins for the case of the same name) when given, and must
otherwise match exactly. RESULTS is what a build wrote:

    {"build": "core", "cases": [{"name": "...", "result": {...}}, ...]}

with each result the CLI's JSON of that case with --full (and its sweep).
test_core (C, via CTest) and tests/node/wasm.test.mjs (WebAssembly) write
one; this script is the only place the tolerance rule is written. Exits 0
when every case agrees, 1 with the largest difference and the first
mismatches of each case otherwise, 2 on unreadable input. Standard library
only.

The rule (experiment.md, "Agreement between implementations"):
  * numbers: |got - want| <= 1e-12 + 1e-9*|want|; a max_abs_diff (the
    difference of two nearly equal outputs, carrying their rounding error)
    may instead differ by 1e-12 + 1e-9*M, M the case's largest |output|;
  * an allclose answer must match unless the expected margin,
    max_k(|a_k - b_k| - atol - rtol*|b_k|), is itself within 1e-12 + 1e-9*M:
    there a correct build may round the other way;
  * strings, nulls, other booleans and list lengths exactly; every field
    the expected result has ("allclose_margin" aside) must be there. So
    the per-head weights and scores of --full are held to the number rule,
    and a score the mask hides must be null on both sides.
"""
import json
import sys

RTOL, ATOL = 1e-9, 1e-12
SHOW = 5  # mismatches printed per case


def near(got, want, scale=None):
    """|got - want| <= ATOL + RTOL * |want| (or RTOL * scale when given)."""
    return abs(got - want) <= ATOL + RTOL * (abs(want) if scale is None else scale)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def max_abs(m):
    if isinstance(m, list):
        return max([0.0] + [max_abs(x) for x in m])
    return abs(m) if _is_number(m) else 0.0


class Case:
    """Mismatches of one case, and its largest difference of numbers."""

    def __init__(self, build, magnitude):
        self.build = build
        self.magnitude = magnitude
        self.mismatches = []
        self.largest = (0.0, None, None, None)  # (|diff|, path, got, want)

    def mismatch(self, path, got, want, why=""):
        self.mismatches.append(f"{path}: {self.build} {json.dumps(got)}, expected {json.dumps(want)}"
                               + (f" ({why})" if why else ""))

    def compare(self, got, want, path, parent=None):
        if _is_number(want):
            if not _is_number(got):
                self.mismatch(path, got, want, "not a number")
                return
            diff = abs(got - want)
            if diff > self.largest[0]:
                self.largest = (diff, path, got, want)
            is_difference = path.endswith("max_abs_diff")
            if not (near(got, want) or (is_difference and near(got, want, self.magnitude))):
                self.mismatch(path, got, want, f"|diff| {diff:.3g}")
        elif isinstance(want, bool):
            if not isinstance(got, bool):
                self.mismatch(path, got, want, "not a boolean")
                return
            margin = parent.get("allclose_margin") if isinstance(parent, dict) else None
            if _is_number(margin) and near(0.0, margin, self.magnitude):
                return  # NumPy's answer is itself at rounding level
            if got != want:
                self.mismatch(path, got, want)
        elif isinstance(want, list):
            if not isinstance(got, list) or len(got) != len(want):
                self.mismatch(path, f"{len(got)} items" if isinstance(got, list) else got, f"{len(want)} items")
                return
            for i, (g, w) in enumerate(zip(got, want)):
                self.compare(g, w, f"{path}[{i}]", want)
        elif isinstance(want, dict):
            if not isinstance(got, dict):
                self.mismatch(path, got, "an object")
                return
            for key, w in want.items():
                if key == "allclose_margin":
                    continue  # the expected side's only
                if key not in got:
                    self.mismatch(f"{path}.{key}", "<missing>", w)
                else:
                    self.compare(got[key], w, f"{path}.{key}", want)
        elif got != want or type(got) is not type(want):
            self.mismatch(path, got, want)


def _mean(rows):
    """Column means, rows added in order as NumPy's mean(0) reference does."""
    mean = [0.0] * len(rows[0])
    for row in rows:
        for j, x in enumerate(row):
            mean[j] += x
    return [s / len(rows) for s in mean]


def with_margins(result, numpy=None):
    """A build's result as an expected one: allclose margins from its outputs,
    and for the stream after each block NumPy's (numpy: the fixture's expected
    result of the same case, or None)."""
    rtol, atol = result["config"]["rtol"], result["config"]["atol"]
    out_a, out_b = result.get("output_a"), result.get("output_b")
    if not out_a or not out_b or any(x is None for row in out_a + out_b for x in row):
        return result

    def margin(a, b):
        return max(abs(x - y) - atol - rtol * abs(y) for x, y in zip(a, b))

    for p in result["pairs"]:
        if p["index_b"] is not None:
            p["allclose_margin"] = margin(out_a[p["index_a"]], out_b[p["index_b"]])
    result["mean"]["allclose_margin"] = margin(_mean(out_a), _mean(out_b))
    for layer, reference in zip(result.get("layers", []), (numpy or {}).get("layers", [])):
        for mine, theirs in zip([layer["mean"]] + layer["pairs"], [reference["mean"]] + reference["pairs"]):
            if mine is not None and theirs is not None and "allclose_margin" in theirs:
                mine["allclose_margin"] = theirs["allclose_margin"]
    return result


def expected_cases(data, fixtures=None):
    """name -> expected result, from fixtures or from another build's results
    (with the layers' margins from fixtures, {"cases": [...]}, when given)."""
    if all("expected" in c for c in data["cases"]):
        return {c["name"]: c["expected"] for c in data["cases"]}, "NumPy"
    numpy = {c["name"]: c["expected"] for c in (fixtures or {"cases": []})["cases"]}
    return ({c["name"]: with_margins(c["result"], numpy.get(c["name"])) for c in data["cases"]},
            data.get("build", "the other build"))


def main(argv):
    if len(argv) not in (3, 4):
        print("usage: compare.py EXPECTED.json RESULTS.json [FIXTURES.json]", file=sys.stderr)
        return 2
    try:
        fixtures = None
        if len(argv) == 4:
            with open(argv[3], encoding="utf-8") as f:
                fixtures = json.load(f)
        with open(argv[1], encoding="utf-8") as f:
            expected, source = expected_cases(json.load(f), fixtures)
        with open(argv[2], encoding="utf-8") as f:
            results = json.load(f)
    except (OSError, ValueError, KeyError) as e:
        print(f"compare.py: cannot read the input: {e}", file=sys.stderr)
        return 2
    build = results.get("build", "build")
    got = {c["name"]: c["result"] for c in results["cases"]}
    failed = 0
    largest = (0.0, None, None, None)
    for name, want in expected.items():
        if name not in got:
            print(f"not ok: case {name}: no result from {build}")
            failed += 1
            continue
        magnitude = max(max_abs(want.get("output_a")), max_abs(want.get("output_b")))
        case = Case(build, magnitude)
        case.compare(got[name], want, name)
        if case.largest[0] > largest[0]:
            largest = case.largest
        if case.mismatches:
            failed += 1
            diff, path, g, w = case.largest
            print(f"not ok: case {name}: {len(case.mismatches)} mismatches with {source}; "
                  f"largest difference {diff:.3g} at {path} ({build} {g!r}, expected {w!r})")
            for line in case.mismatches[:SHOW]:
                print(f"  {line}")
    diff, path = largest[0], largest[1]
    print(f"compare.py: {len(expected) - failed} of {len(expected)} cases of {build} agree with {source}; "
          f"largest difference {diff:.3g}" + (f" at {path}" if path else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
