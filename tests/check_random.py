#!/usr/bin/python3
"""Randomized cross-check of the poslab CLI against the NumPy reference.

Usage (Debian's NumPy lives only in /usr/bin/python3):

    /usr/bin/python3 tests/check_random.py build/native/poslab [--cases N] [--seed S]

Each case draws a random configuration (words from a small vocabulary with
repeats and non-ASCII tokens, every scheme, random dims, seeds, scales,
tolerances, head counts and sentence offsets, sometimes a sweep; a third of
them through the transformer's blocks), runs the CLI with --json --full and compares
every field with reference.experiment(). The fixtures pin known cases; this
script looks for the cases nobody thought of. The same --seed replays the same
configurations, so a failure printed here can be reproduced exactly.

Agreement rule (docs/experiment.md, "Agreement between implementations"):
  * floats: |cli - ref| <= 1e-12 + 1e-9*|ref|; null only where the reference has null;
    in output_a/output_b the 1e-12 is taken on the scale of the row (see _row_atol);
  * allclose answers must match unless the reference's margin is itself at
    rounding level, |margin| <= 1e-12 + 1e-9*max|b|: there a correct
    implementation may round the other way;
  * a max_abs_diff may differ by that rounding level, 1e-12 + 1e-9*max|b|
    (the difference of two rows carries their rounding error, which follows
    the rows' size, not the difference's);
  * everything else (tokens, indices, ints, other booleans) exactly.
Keys the reference has only for tests ("allclose_margin", "b_max_abs") are not
expected from the CLI; extra keys the CLI adds are ignored.
"""

import argparse
import json
import math
import os
import random
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import experiment  # noqa: E402  (path set just above)
# The fixtures' comparator (compare.py) holds the spec's tolerances; this
# script compares with NumPy run live, whose detail fields (b_max_abs) allow
# the finer per-row and per-pair rounding levels described above.
from compare import ATOL as ABS_TOL, RTOL as REL_TOL  # noqa: E402

REFERENCE_ONLY = {"allclose_margin", "b_max_abs"}
SHOW_MISMATCHES = 5

# Repeats matter for pairing; non-ASCII, punctuation and case test that tokens
# are raw bytes compared exactly.
VOCAB = ["dog", "bites", "man", "the", "cat", "saw", "a", "Dog", "man.", "it's",
         "café", "naïve", "日本", "über", "🙂", "x"]
SCHEMES = ["none", "random", "sinusoidal", "rope", "alibi"]


# --------------------------------------------------------------------------
# Random configurations
# --------------------------------------------------------------------------

def _log_uniform(rng, lo_exp, hi_exp):
    return 10 ** rng.uniform(lo_exp, hi_exp)


def _sentence(rng, words):
    # Mostly single spaces, sometimes other ASCII whitespace, which must split too.
    seps = [rng.choice([" ", " ", " ", "  ", "\t", "\n"]) for _ in words]
    text = "".join(w + s for w, s in zip(words, seps)).rstrip(" \t\n")
    return (" " + text) if rng.random() < 0.1 else text


def random_options(rng):
    """One configuration as CLI option strings (floats as repr, so they round-trip)."""
    vocab = VOCAB[:rng.randint(2, len(VOCAB))]      # a small vocabulary forces repeats
    words_a = [rng.choice(vocab) for _ in range(rng.randint(1, 12))]
    if rng.random() < 0.5:
        words_b = rng.sample(words_a, len(words_a))          # same words, new order
    else:
        words_b = [rng.choice(VOCAB) for _ in range(rng.randint(1, 12))]
    seed = rng.choice([rng.randint(0, 2**32 - 1)] * 8 + [0, 2, 2**32 - 1])
    scale = 0.0 if rng.random() < 0.1 else _log_uniform(rng, -6, 3)
    dim = rng.randint(1, 40)
    options = {
        "a": _sentence(rng, words_a),
        "b": _sentence(rng, words_b),
        "dim": str(dim),
        "seed": str(seed),
        "scheme": rng.choice(SCHEMES),
        "scale": repr(scale),
        "causal": rng.choice(["true", "false"]),
        "rtol": "1e-05",
        "atol": "1e-08",
    }
    if rng.random() < 0.25:
        options["rtol"] = repr(rng.choice([0.0, 1e-3, _log_uniform(rng, -12, -1)]))
        options["atol"] = repr(rng.choice([0.0, 1e-3, _log_uniform(rng, -12, -1)]))
    # Heads: any count from 1 to 8 that divides d. Offsets: mostly none,
    # otherwise anywhere up to the largest, often equal (sentences that
    # start together share the position rows).
    options["heads"] = str(rng.choice([h for h in range(1, 9) if dim % h == 0]))
    if rng.random() < 0.5:
        first = rng.choice([0, rng.randint(0, 20), rng.randint(0, 1024)])
        options["offset-a"] = str(first)
        options["offset-b"] = str(first if rng.random() < 0.3 else rng.choice([0, rng.randint(0, 1024)]))
    if rng.random() < 0.3:
        lo = _log_uniform(rng, -6, 0)
        hi = 10 ** rng.uniform(math.log10(lo), 3)
        options["sweep"] = f"{lo!r}:{hi!r}:{rng.randint(1, 25)}"
    # The transformer in a third of the cases: 1 to 12 blocks, and a weight
    # scale from GPT-2's 0.02 through peaked attention at 1 up to the largest
    # allowed, 10. Otherwise the head model, sometimes with the transformer's
    # options, which it echoes and ignores.
    if rng.random() < 1 / 3:
        options["model"] = "transformer"
        options["layers"] = str(rng.randint(1, 12))
        options["weight-std"] = repr(rng.choice([0.02, 1.0, 10.0, _log_uniform(rng, -3, 1)]))
        if "sweep" in options:  # every point is a full forward pass of every block
            lo, hi, count = options["sweep"].split(":")
            options["sweep"] = f"{lo}:{hi}:{min(int(count), 5)}"
    elif rng.random() < 0.1:
        options["layers"] = str(rng.randint(1, 12))
        options["weight-std"] = repr(_log_uniform(rng, -3, 1))
    return options


def cli_argv(cli, options):
    argv = [cli, "--a", options["a"], "--b", options["b"],
            "--dim", options["dim"], "--seed", options["seed"],
            "--scheme", options["scheme"], "--scale", options["scale"]]
    if options["causal"] == "true":
        argv.append("--causal")
    argv += ["--rtol", options["rtol"], "--atol", options["atol"], "--heads", options["heads"]]
    for key in ("offset-a", "offset-b", "model", "layers", "weight-std"):
        if key in options:
            argv += [f"--{key}", options[key]]
    if "sweep" in options:
        argv += ["--sweep", options["sweep"]]
    return argv + ["--json", "--full"]


def _shell_word(arg):
    """Quote for bash on one line; $'...' keeps tabs and newlines visible."""
    if not any(c in arg for c in "\t\n\r\f\v"):
        return shlex.quote(arg)
    for raw, esc in (("\\", "\\\\"), ("'", "\\'"), ("\t", "\\t"), ("\n", "\\n"),
                     ("\r", "\\r"), ("\f", "\\f"), ("\v", "\\v")):
        arg = arg.replace(raw, esc)
    return "$'" + arg + "'"


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------

class Report:
    """Mismatches of one case, and its largest float difference."""

    def __init__(self):
        self.mismatches = []
        self.worst = None        # (|c - r| / tolerance, |c - r|, path)

    def add(self, path, ref, got, why=""):
        self.mismatches.append((path, ref, got, why))

    def note_float(self, path, diff, tol):
        if self.worst is None or diff / tol > self.worst[0]:
            self.worst = (diff / tol, diff, path)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _at_rounding_level(value, entry):
    """Is value (a margin or a difference) noise on the scale of the compared rows?"""
    size = entry.get("b_max_abs")
    if value is None or size is None or not _is_number(value):
        return False
    return abs(value) <= ABS_TOL + REL_TOL * size


def _row_atol(row):
    """Absolute allowance for one output row: 1e-12 on the row's own scale.

    out[i, k] = sum_j A[i, j] V[j, k] can cancel to a value far smaller than
    its terms; its rounding error follows the terms (~ the row's size), not the
    result. "1e-12 absolute near zero" then means near zero for that row.
    """
    finite = [abs(x) for x in row if _is_number(x)]
    return ABS_TOL * max([1.0] + finite)


def compare(ref, got, path, report, atol=ABS_TOL):
    if isinstance(ref, dict):
        if not isinstance(got, dict):
            report.add(path, "{...}", got, "expected an object")
            return
        for key, r in ref.items():
            if key in REFERENCE_ONLY:
                continue
            sub = f"{path}.{key}"
            if key not in got:
                report.add(sub, r, "<missing>")
            elif key == "allclose" and got[key] != r and isinstance(got[key], bool):
                # The reference's margin says how far its answer is from flipping.
                if not _at_rounding_level(ref.get("allclose_margin"), ref):
                    report.add(sub, r, got[key],
                               f"margin {ref.get('allclose_margin')!r} is not at rounding level")
            elif (key == "max_abs_diff" and _is_number(r) and _is_number(got[key])
                  and _at_rounding_level(got[key] - r, ref)):
                # The difference of two rows carries their rounding error, whose
                # size follows the rows (|b| ~ 1e4 gives ~1e-12), not the
                # difference: rows that agree to 1e-9 of |b| make differences
                # that agree to that much (compare.py's rule, with this
                # comparison's own |b|). It matters for a transformer's stream
                # after a block, which at large weight scales is far larger
                # than the difference between the sentences.
                pass
            elif key in ("output_a", "output_b") and isinstance(r, list):
                if not isinstance(got[key], list) or len(got[key]) != len(r):
                    compare(r, got[key], sub, report)     # reports the shape
                    continue
                for i, (rr, gr) in enumerate(zip(r, got[key])):
                    compare(rr, gr, f"{sub}[{i}]", report, atol=_row_atol(rr))
            else:
                compare(r, got[key], sub, report)
    elif isinstance(ref, list):
        if not isinstance(got, list) or len(got) != len(ref):
            report.add(path, f"list of {len(ref)}",
                       f"list of {len(got)}" if isinstance(got, list) else got)
            return
        for k, (r, g) in enumerate(zip(ref, got)):
            compare(r, g, f"{path}[{k}]", report, atol)
    elif isinstance(ref, bool) or ref is None or isinstance(ref, str):
        if got != ref or type(got) is not type(ref):
            report.add(path, ref, got)
    elif isinstance(ref, int):
        if not _is_number(got) or got != ref:
            report.add(path, ref, got)
    elif isinstance(ref, float):
        if not _is_number(got):
            report.add(path, ref, got)
            return
        diff, tol = abs(got - ref), atol + REL_TOL * abs(ref)
        report.note_float(path, diff, tol)
        if not diff <= tol:
            report.add(path, ref, got, f"|diff| {diff:.3g} > tolerance {tol:.3g}")
    else:
        raise TypeError(f"unexpected reference value at {path}: {ref!r}")


def run_case(cli, options):
    """Return a Report (its mismatches empty when the CLI agrees)."""
    report = Report()
    ref = experiment(options, detail=True)
    proc = subprocess.run(cli_argv(cli, options), capture_output=True, timeout=120)
    if proc.returncode != 0:
        report.add("<exit status>", 0, proc.returncode,
                   proc.stderr.decode("utf-8", "replace").strip())
        return report
    try:
        got = json.loads(proc.stdout.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        report.add("<stdout>", "one JSON object", proc.stdout[:200], str(e))
        return report
    compare(ref, got, "$", report)
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli", help="path to the poslab executable")
    ap.add_argument("--cases", type=int, default=60, help="number of random cases (default 60)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the case generator (default 0)")
    args = ap.parse_args()
    if not os.access(args.cli, os.X_OK):
        print(f"check_random: {args.cli} is not an executable file", file=sys.stderr)
        return 2

    rng = random.Random(args.seed)
    passed = failed = 0
    for n in range(args.cases):
        options = random_options(rng)
        report = run_case(args.cli, options)
        if not report.mismatches:
            passed += 1
            continue
        failed += 1
        print(f"case {n} (--seed {args.seed}) failed: {len(report.mismatches)} mismatch(es)")
        print("  " + " ".join(_shell_word(w) for w in cli_argv(args.cli, options)))
        for path, ref, got, why in report.mismatches[:SHOW_MISMATCHES]:
            print(f"  {path}: reference {ref!r}, cli {got!r}" + (f"  ({why})" if why else ""))
        if report.worst is not None:
            ratio, diff, path = report.worst
            print(f"  largest difference: {diff:.3g} at {path} ({ratio:.3g} x tolerance)")
    print(f"check_random: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
