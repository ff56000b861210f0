#!/usr/bin/env python3
"""The table of docs/models.md, computed by the C core from the committed
checkpoints (models/gpt, models/nope, models/bag).

    test_models.py POSLAB            recompute every figure; fail if docs/models.md
                                     holds anything else, or if a target fails
    test_models.py POSLAB --write    write the table into docs/models.md
    --models DIR                     read the checkpoints from DIR (default models/)

Every figure comes from the native CLI (`--model checkpoint`), run on the
held-out prompts of models/world.py: each prompt as sentence A and its mirror
(the two nouns swapped, same question) as sentence B, so one run answers both.
Nothing here needs NumPy or PyTorch.
"""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "models"))
import world  # noqa: E402

DOC = os.path.join(ROOT, "docs", "models.md")
MODELS = os.path.join(ROOT, "models")
BEGIN = "<!-- table: written by tests/test_models.py from the core's figures; do not edit by hand -->"
END = "<!-- end of table -->"

# (label, folder, extra CLI options)
RUNS = [
    ("gpt", "gpt", []),
    ("gpt, table removed (`--scale 0`)", "gpt", ["--scale", "0"]),
    ("nope", "nope", []),
    ("bag", "bag", []),
]
KIND = {"gpt": ("learned table", "causal"), "nope": ("none (zeros)", "causal"),
        "bag": ("none (zeros)", "none")}

EXAMPLES = ["dog bites man . who bites ?", "man bites dog . who bites ?",
            "dog bites man . who is bitten ?", "man bites dog . who is bitten ?"]


def core(poslab, folder, a, b, extra=()):
    cmd = [poslab, "--model", "checkpoint", "--checkpoint", os.path.join(MODELS, folder),
           "--a", a, "--b", b, "--json", *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def held_out_runs(poslab, folder, extra=()):
    """[(prompt, mirror, core JSON)] for every held-out mirrored pair."""
    held, _ = world.split()
    pairs = world.mirrored_pairs(held)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda pm: core(poslab, folder, pm[0][0], pm[1][0], extra), pairs))
    return [(p, m, r) for (p, m), r in zip(pairs, results)]


def measure(poslab):
    rows, examples = [], {}
    for label, folder, extra in RUNS:
        runs = held_out_runs(poslab, folder, extra)
        right = pairs_right = 0
        by_question = {world.ACTIVE: 0, world.PASSIVE: 0}
        for p, m, r in runs:
            ok_a = r["next_a"][0]["text"] == " " + p[1]
            ok_b = r["next_b"][0]["text"] == " " + m[1]
            right += ok_a + ok_b
            by_question[p[5]] += ok_a + ok_b
            pairs_right += ok_a and ok_b
            for text, nxt in ((p[0], r["next_a"]), (m[0], r["next_b"])):
                if text in EXAMPLES:
                    examples.setdefault(label, {})[text] = nxt[0]
            if p[0] == EXAMPLES[0]:
                verdicts = [q["allclose"] for q in r["pairs"]]
                examples.setdefault(label, {})["verdicts"] = (sum(verdicts), len(verdicts))
        rows.append(dict(label=label, folder=folder, prompts=2 * len(runs), right=right,
                         active=by_question[world.ACTIVE], passive=by_question[world.PASSIVE],
                         pairs=len(runs), pairs_right=pairs_right))
    return rows, examples


def pct(k, n):
    return f"{k}/{n} ({100.0 * k / n:.1f}%)"


def prob(p):
    # near 1, four decimals would all be 9s (or round to 1): say how far from 1
    return f"1 - {1 - p:.2g}" if p > 0.9999 else f"{p:.4f}"


def table(rows, examples):
    lines = ["| model | positions | mask | held-out accuracy | `who verb ?` | `who is participle ?` "
             "| mirrored pairs both right |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        pos, mask = KIND[r["folder"]]
        if "scale" in r["label"]:
            pos = "learned table, multiplied by 0"
        half = r["prompts"] // 2
        lines.append(f"| {r['label']} | {pos} | {mask} | {pct(r['right'], r['prompts'])} "
                     f"| {pct(r['active'], half)} | {pct(r['passive'], half)} "
                     f"| {pct(r['pairs_right'], r['pairs'])} |")
    lines += ["", "The most likely next token (over the whole vocabulary) and its probability; "
              "the right answer is in the column's heading. The last column: of the tokens of "
              "\"dog bites man . who bites ?\" and \"man bites dog . who bites ?\", how many are "
              "`True` between the two orders (the lab's verdict on the final hidden states).", ""]
    head = " | ".join(f"{e} ({'dog' if e.startswith('dog') == ('who bites' in e) else 'man'})"
                      for e in EXAMPLES)
    lines += [f"| model | {head} | tokens `True` |", "|---|---|---|---|---|---|"]
    for r in rows:
        ex = examples[r["label"]]
        cells = " | ".join(f"{ex[e]['text'].strip()} {prob(ex[e]['probability'])}" for e in EXAMPLES)
        t, n = ex["verdicts"]
        lines.append(f"| {r['label']} | {cells} | {t}/{n} |")
    return "\n".join(lines)


def targets(rows):
    """The targets of the experiment; a list of failures."""
    by = {r["label"]: r for r in rows}
    fails = []
    if by["gpt"]["right"] < 0.99 * by["gpt"]["prompts"]:
        fails.append("gpt below 99% on the held-out prompts")
    if by["nope"]["right"] < 0.95 * by["nope"]["prompts"]:
        fails.append("nope below 95% on the held-out prompts")
    if by["bag"]["right"] > 0.5 * by["bag"]["prompts"]:
        fails.append("bag above 50% on the held-out prompts")
    if by["bag"]["pairs_right"] != 0:
        fails.append("bag got both prompts of a mirrored pair right")
    return fails


def current_table():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"FAIL: {DOC} has no table markers")
    return text, text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def models_option(argv):
    """--models DIR, removed from argv; sets MODELS."""
    global MODELS
    if "--models" in argv:
        i = argv.index("--models")
        MODELS = os.path.abspath(argv[i + 1])
        del argv[i:i + 2]
    return argv


def main():
    argv = models_option(sys.argv[1:])
    if not argv:
        raise SystemExit("usage: test_models.py POSLAB [--write] [--models DIR]")
    poslab = argv[0]
    rows, examples = measure(poslab)
    new = table(rows, examples)
    print(new)
    if "--write" in argv[1:]:
        text, _ = current_table()
        before, rest = text.split(BEGIN, 1)
        after = rest.split(END, 1)[1]
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(before + BEGIN + "\n" + new + "\n" + END + after)
        print(f"written to {DOC}")
    else:
        _, old = current_table()
        if old != new:
            import difflib
            print("\n".join(difflib.unified_diff(old.split("\n"), new.split("\n"),
                                                 "docs/models.md", "the core now", lineterm="")))
            raise SystemExit("FAIL: docs/models.md's table differs from the core's figures")
    fails = targets(rows)
    for f in fails:
        print("FAIL:", f)
    if fails:
        raise SystemExit(1)
    print("OK: every figure of docs/models.md recomputed by the core; targets hold")


if __name__ == "__main__":
    main()
