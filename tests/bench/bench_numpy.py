#!/usr/bin/python3
"""NumPy contestant of `make bench`: the experiment as the course module's code
computes it (its softmax and self_attention verbatim, np.allclose, cosine
distance with np.linalg.norm), with a sweep that does what that code would do
at every scale: rebuild X + s*P and redo (X + s*P) @ W, the scores and the
softmax. It draws with np.random.seed/randn in docs/experiment.md's order, so it
computes the same numbers as the core, and checks that it does against the
CLI's JSON before timing.

    /usr/bin/python3 tests/bench/bench_numpy.py info
    /usr/bin/python3 tests/bench/bench_numpy.py run JOB_JSON CLI_PATH
    /usr/bin/python3 tests/bench/bench_numpy.py script JOB_JSON SCRIPT_PATH CLI_JSON_PATH
    /usr/bin/python3 tests/bench/bench_numpy.py dgemm JOB_JSON

`script` times the page's Copy-as-NumPy script for the transformer
(web/teach/numpy_script.js, written out by tests/bench/transformer.mjs)
as it stands: the whole script (draws, both sentences through the blocks,
the comparisons; its printing goes to a buffer), and the forward pass alone,
transformer(X1, pa) and transformer(X2, pb) on its own draws. It checks
the script's outputs against the CLI's --full JSON first. `dgemm` times a @ b for given shapes (the benchmark sets
OPENBLAS_NUM_THREADS=1 for it).

Prints one JSON object. Debian's python3-numpy is only visible to
/usr/bin/python3.
"""

import contextlib
import ctypes
import io
import json
import math
import os
import subprocess
import sys
import time

import numpy as np


# --- the course module's code -------------------------------------------

def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def self_attention(X, Wq, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    return softmax(scores, axis=-1) @ V


# --- the experiment ------------------------------------------------------

def cosine_distance(a, b):
    return 1 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


def compare(a, b, rtol, atol):
    return {"allclose": bool(np.allclose(a, b, rtol=rtol, atol=atol)),
            "max_abs_diff": float(np.max(np.abs(a - b))),
            "cosine_distance": float(cosine_distance(a, b))}


def experiment(words_a, words_b, d, seed, scale, sweep, rtol=1e-5, atol=1e-8):
    np.random.seed(seed)
    vocab = {}
    for w in words_a + words_b:
        if w not in vocab:
            vocab[w] = np.random.randn(d)
    Wq, Wk, Wv = (np.random.randn(d, d) for _ in range(3))
    pos = np.random.randn(max(len(words_a), len(words_b)), d)

    X1 = np.array([vocab[w] for w in words_a])
    X2 = np.array([vocab[w] for w in words_b])
    P1, P2 = pos[:len(words_a)], pos[:len(words_b)]

    # the k-th occurrence of a word in A pairs with its k-th occurrence in B
    used, partner = set(), []
    for w in words_a:
        j = next((j for j, v in enumerate(words_b) if v == w and j not in used), -1)
        if j >= 0:
            used.add(j)
        partner.append(j)

    out1 = self_attention(X1 + scale * P1, Wq, Wk, Wv)
    out2 = self_attention(X2 + scale * P2, Wq, Wk, Wv)
    result = {
        "pairs": [dict(word=w, index_a=i, index_b=None) if partner[i] < 0 else
                  dict(word=w, index_a=i, index_b=partner[i], **compare(out1[i], out2[partner[i]], rtol, atol))
                  for i, w in enumerate(words_a)],
        "mean": compare(out1.mean(axis=0), out2.mean(axis=0), rtol, atol),
    }
    if sweep:
        scales = np.logspace(math.log10(sweep["lo"]), math.log10(sweep["hi"]), sweep["count"])
        mean, pairs = [], [[] for _ in words_a]
        for s in scales:
            o1 = self_attention(X1 + s * P1, Wq, Wk, Wv)
            o2 = self_attention(X2 + s * P2, Wq, Wk, Wv)
            for i, j in enumerate(partner):
                if j >= 0:
                    pairs[i].append({"cosine_distance": float(cosine_distance(o1[i], o2[j])),
                                     "allclose": bool(np.allclose(o1[i], o2[j], rtol=rtol, atol=atol))})
            m1, m2 = o1.mean(axis=0), o2.mean(axis=0)
            mean.append({"cosine_distance": float(cosine_distance(m1, m2)),
                         "allclose": bool(np.allclose(m1, m2, rtol=rtol, atol=atol))})
        result["sweep"] = {"scales": scales.tolist(), "mean": mean, "pairs": pairs}
    return result


# --- agreement with the CLI ----------------------------------------------

REL, ABS = 1e-9, 1e-12


def check(mine, cli):
    """Compares every float of pairs, mean and sweep; returns the count and
    the largest error as a fraction of the allowed one."""
    checked, worst = 0, 0.0

    def near(got, want, where):
        nonlocal checked, worst
        err = abs(got - want)
        if not err <= ABS + REL * abs(want):
            raise SystemExit(f"bench_numpy: {where}: NumPy {got!r}, CLI {want!r} (differ by {err:.3g})")
        checked += 1
        worst = max(worst, err / (ABS + REL * abs(want)))

    for k, (p, q) in enumerate(zip(mine["pairs"], cli["pairs"])):
        if q["index_b"] is None:
            continue
        for key in ("max_abs_diff", "cosine_distance"):
            near(p[key], q[key], f"pairs[{k}].{key}")
    for key in ("max_abs_diff", "cosine_distance"):
        near(mine["mean"][key], cli["mean"][key], f"mean.{key}")
    if "sweep" in cli:
        for t, (p, q) in enumerate(zip(mine["sweep"]["mean"], cli["sweep"]["mean"])):
            near(p["cosine_distance"], q["cosine_distance"], f"sweep.mean[{t}]")
        for k, (rows, cli_rows) in enumerate(zip(mine["sweep"]["pairs"], cli["sweep"]["pairs"])):
            for t, (p, q) in enumerate(zip(rows, cli_rows or [])):
                near(p["cosine_distance"], q["cosine_distance"], f"sweep.pairs[{k}][{t}]")
    return checked, worst


# --- timing --------------------------------------------------------------

def run(job, cli):
    words_a, words_b = job["a"].split(), job["b"].split()
    sweep = job.get("sweep")
    args = [cli, "--json", "--a", job["a"], "--b", job["b"], "--dim", str(job["dim"]),
            "--seed", str(job["seed"]), "--scheme", "random", "--scale", repr(job["scale"])]
    if sweep:
        args += ["--sweep", f"{sweep['lo']!r}:{sweep['hi']!r}:{sweep['count']}"]
    cli_result = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    t0 = time.perf_counter()
    mine = experiment(words_a, words_b, job["dim"], job["seed"], job["scale"], sweep)
    first_ms = (time.perf_counter() - t0) * 1e3
    checked, worst = check(mine, cli_result)

    # with warmup 0 the checked run is also the first timed one
    times, started, i = ([first_ms] if job.get("warmup", 1) == 0 else []), time.perf_counter(), 1
    while len(times) < job.get("maxReps", 1000):
        if i > job.get("warmup", 1) and len(times) >= job.get("minReps", 5) and \
                time.perf_counter() - started >= job.get("budget", 2.0):
            break
        seed = job["seed"] + (i & 1)  # alternating, as the other contestants do
        t0 = time.perf_counter()
        experiment(words_a, words_b, job["dim"], seed, job["scale"], sweep)
        t1 = time.perf_counter()
        if i >= job.get("warmup", 1):  # the checked run was the first warm-up
            times.append((t1 - t0) * 1e3)
        else:
            started = time.perf_counter()
        i += 1
    return {"total_ms": times, "checked": checked, "tolerance_used": worst}


# --- what NumPy runs on ----------------------------------------------------

def blas_info():
    """The BLAS library this process loaded, and OpenBLAS's own report."""
    info = {"numpy": np.__version__, "blas_library": None}
    np.ones((4, 4)) @ np.ones((4, 4))
    try:
        with open("/proc/self/maps") as maps:
            libs = sorted({line.split()[-1] for line in maps
                           if "blas" in line.lower() and line.split()[-1].startswith("/")})
        info["blas_library"] = [os.path.realpath(p) for p in libs]
    except OSError:
        pass
    try:
        import threadpoolctl  # noqa: F401  (not in Debian's default install)
        info["threadpoolctl"] = threadpoolctl.threadpool_info()
    except ImportError:
        pass
    for path in info["blas_library"] or []:
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            lib.openblas_get_config.restype = ctypes.c_char_p
            info["openblas_core"] = lib.openblas_get_corename().decode()
            info["openblas_config"] = lib.openblas_get_config().decode().strip()
            info["openblas_threads"] = lib.openblas_get_num_threads()
        except (OSError, AttributeError):
            continue
    # the practical arithmetic limit: the best of a few square DGEMMs
    n = 1024
    a, b = np.random.rand(n, n), np.random.rand(n, n)
    best = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
        if best > 2:
            break
    info["dgemm_n"] = n
    info["dgemm_gflops"] = 2 * n ** 3 / best / 1e9
    return info


# --- the Copy-as-NumPy transformer script -------------------------------

def check_arrays(got, want, where, counter):
    """Every element within 1e-9 relative + 1e-12 of the CLI's."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    if got.shape != want.shape:
        raise SystemExit(f"bench_numpy: {where}: shape {got.shape}, CLI {want.shape}")
    err = np.abs(got - want)
    allowed = ABS + REL * np.abs(want)
    if not np.all(err <= allowed):
        k = int(np.argmax(err - allowed))
        raise SystemExit(f"bench_numpy: {where}: NumPy {got.flat[k]!r}, CLI {want.flat[k]!r}")
    counter[0] += got.size
    counter[1] = max(counter[1], float(np.max(err / allowed)))


def run_script(job, script_path, cli_path):
    with open(script_path) as f:
        code = compile(f.read(), script_path, "exec")
    with open(cli_path) as f:
        cli = json.load(f)

    def once():
        scope = {"__name__": "__copy_as_numpy__"}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, scope)
        return scope

    scope = once()
    counter = [0, 0.0]
    check_arrays(scope["out_a"], cli["output_a"], "output_a", counter)
    check_arrays(scope["out_b"], cli["output_b"], "output_b", counter)

    def repeat(fn, warmup, min_reps, budget):
        times, started, i = [], time.perf_counter(), 0
        while len(times) < job.get("maxReps", 1000):
            if i >= warmup and len(times) >= min_reps and time.perf_counter() - started >= budget:
                break
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
            if i >= warmup:
                times.append((t1 - t0) * 1e3)
            else:
                started = time.perf_counter()
            i += 1
        return times

    warmup, min_reps, budget = job.get("warmup", 1), job.get("minReps", 3), job.get("budget", 2.0)
    total = repeat(once, warmup, min_reps, budget)
    forward_fn = scope["transformer"]
    X1, X2, pa, pb = scope["X1"], scope["X2"], scope["pa"], scope["pb"]
    forward = repeat(lambda: (forward_fn(X1, pa), forward_fn(X2, pb)), warmup, min_reps, budget)
    return {"total_ms": total, "forward_ms": forward, "checked": counter[0], "tolerance_used": counter[1]}


def dgemm(job):
    """GFLOP/s of a @ b for each (n, k, m) in job["shapes"], the best of several."""
    out = []
    for n, k, m in job["shapes"]:
        a, b = np.random.rand(n, k), np.random.rand(k, m)
        best, started = math.inf, time.perf_counter()
        while time.perf_counter() - started < job.get("budget", 0.5) or best == math.inf:
            t0 = time.perf_counter()
            a @ b
            best = min(best, time.perf_counter() - t0)
        out.append({"shape": [n, k, m], "ms": best * 1e3, "gflops": 2 * n * k * m / best / 1e9})
    return {"dgemm": out}


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "info":
        print(json.dumps(blas_info()))
    elif len(sys.argv) == 5 and sys.argv[1] == "script":
        print(json.dumps(run_script(json.loads(sys.argv[2]), sys.argv[3], sys.argv[4])))
    elif len(sys.argv) == 3 and sys.argv[1] == "dgemm":
        print(json.dumps(dgemm(json.loads(sys.argv[2]))))
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        print(json.dumps(run(json.loads(sys.argv[2]), sys.argv[3])))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
