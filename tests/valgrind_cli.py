"""Valgrind memcheck of the CLI over NumPy fixture cases and bad inputs:
zero errors and zero leaks of any kind, or the test fails.

usage: python3 tests/valgrind_cli.py VALGRIND POSLAB FIXTURES.json
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

valgrind, cli, fixtures = sys.argv[1:4]
cases = json.load(open(fixtures, encoding="utf-8"))["cases"]

runs = []
for case in cases[::12]:  # every twelfth case: ASan runs them all; this keeps the test near 30 s
    args = ["--json", "--full"]
    for key, value in case["options"].items():
        if key == "causal":
            args += ["--causal"] if value == "true" else []
        else:
            args += [f"--{key}", value]
    runs.append((case["name"], args, 0))
runs += [
    ("largest", ["--a", " ".join(f"w{i}" for i in range(64)), "--b", " ".join(f"w{i}" for i in range(63, -1, -1)),
                 "--dim", "512", "--sweep", "1e-3:1:3", "--scheme", "rope"], 0),
    ("checkpoint", ["--model", "checkpoint", "--checkpoint", os.path.join(os.path.dirname(__file__), "..", "models", "gpt"),
                    "--sweep", "1e-3:1:3", "--json", "--full"], 0),
    ("bad dim", ["--dim", "0"], 2),
    ("bad utf-8", ["--a", "caf\udcc3"], 2),
    ("bad sweep", ["--sweep", "1:0:x"], 2),
]

def check(run):
    name, args, status = run
    proc = subprocess.run([valgrind, "--error-exitcode=99", "--leak-check=full", "--show-leak-kinds=all",
                           "--errors-for-leak-kinds=all", "-q", cli, *args], capture_output=True)
    report = proc.stderr.decode(errors="replace")
    if status == 2:  # the CLI's own one-line message is all stderr may hold
        report = "\n".join(l for l in report.splitlines() if not l.startswith("poslab: "))
    if proc.returncode == status and not report.strip():
        return None
    return f"not ok: {name}: exit {proc.returncode} (expected {status})\n{report[:2000]}"


# valgrind runs one thread a process: one process a core
with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
    problems = [p for p in pool.map(check, runs) if p]
for p in problems:
    print(p)
failed = len(problems)
passed = len(runs) - failed
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
