#!/usr/bin/python3
"""The rules of tests/compare.py inside a transformer's `layers`, on a real
fixture case: a verdict about the stream after a block may differ only where
NumPy's margin is at rounding level, against the fixtures and between two
builds (whose JSON holds no stream to compute a margin from, so compare.py
takes NumPy's when given the fixtures); a figure off by more than the
tolerance fails.

    /usr/bin/python3 tests/test_compare.py tests/fixtures/cases.json
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "compare.py")


def strip(x):
    """A NumPy expected result as a build would write it: no margins."""
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "allclose_margin"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def status(scratch, expected, results, fixtures=None):
    paths = []
    for name, data in (("expected", expected), ("results", results), ("fixtures", fixtures)):
        if data is None:
            continue
        path = os.path.join(scratch, f"{name}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f)
        paths.append(path)
    run = subprocess.run([sys.executable, COMPARE, *paths], capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    # a transformer case whose sentences part in the first block already
    case = next(c for c in cases if c["expected"].get("layers")
                and c["expected"]["layers"][0]["mean"]["max_abs_diff"] > 1e-3
                and c["expected"]["layers"][0]["pairs"][0] is not None)
    name, numpy = case["name"], case["expected"]
    fixtures = {"cases": [{"name": name, "expected": numpy}]}
    build = strip(numpy)

    def results(result, who="wasm"):
        return {"build": who, "cases": [{"name": name, "result": result}]}

    def flipped(result):
        r = copy.deepcopy(result)
        entry = r["layers"][0]["pairs"][0]
        entry["allclose"] = not entry["allclose"]
        return r

    def at_rounding_level(fixture):
        f = copy.deepcopy(fixture)
        f["cases"][0]["expected"]["layers"][0]["pairs"][0]["allclose_margin"] = 1e-13
        return f

    margin = numpy["layers"][0]["pairs"][0]["allclose_margin"]
    off = copy.deepcopy(build)
    off["layers"][0]["mean"]["max_abs_diff"] *= 1 + 1e-6
    checks = [
        # (what, expected file, results file, fixtures file or None, exit status wanted)
        ("the fixture's own figures", fixtures, results(build), None, 0),
        (f"a layer verdict flipped where NumPy's margin is {margin:.3g}", fixtures, results(flipped(build)), None, 1),
        ("a layer verdict flipped where NumPy's margin is 1e-13", at_rounding_level(fixtures),
         results(flipped(build)), None, 0),
        ("a layer's max_abs_diff off by 1e-6 of itself", fixtures, results(off), None, 1),
        ("two builds that agree", results(build, "native"), results(build), None, 0),
        ("two builds, a layer verdict flipped, no fixtures", results(build, "native"),
         results(flipped(build)), None, 1),
        (f"two builds, a layer verdict flipped, NumPy's margin {margin:.3g}", results(build, "native"),
         results(flipped(build)), fixtures, 1),
        ("two builds, a layer verdict flipped, NumPy's margin 1e-13", results(build, "native"),
         results(flipped(build)), at_rounding_level(fixtures), 0),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        for what, expected, got, numpy_margins, want in checks:
            code, output = status(scratch, expected, got, numpy_margins)
            ok = code == want
            failed += not ok
            print(f"{'ok' if ok else 'not ok'}: {what} (case {name}): exit {code}, wanted {want}")
            if not ok:
                print("  " + output.strip().replace("\n", "\n  "))
    print(f"test_compare: {len(checks) - failed} of {len(checks)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
