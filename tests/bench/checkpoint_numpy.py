#!/usr/bin/python3
"""The NumPy side of tests/bench/checkpoint.sh.

    checkpoint_numpy.py DIR REPS A B [A B ...]

For each pair of sentences: the time NumPy's float64 matmul (DGEMM on the
BLAS it is linked with; the script names it) takes for exactly the
products one run makes, weight matrices distinct per block as in the model,
and the time of tests/checkpoint_reference.py's forward pass of both
sentences with the next-token scores. Prints one JSON object.
"""
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import checkpoint_reference as ref  # noqa: E402


def blas_library():
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.lower() and line.split()[-1].startswith("/")}
    return sorted(libs)


def best(fn, reps):
    out = float("inf")
    for _ in range(reps):
        t = time.process_time()  # CPU time: the machine is shared
        fn()
        out = min(out, time.process_time() - t)
    return out


def main(argv):
    folder, reps, sentences = argv[1], int(argv[2]), argv[3:]
    t = time.perf_counter()
    cfg, w, vocab, merges = ref.load(folder)
    load = time.perf_counter() - t
    C, L, V = cfg["n_embd"], cfg["n_layer"], cfg["vocab_size"]
    rng = np.random.RandomState(0)
    blocks = [[rng.standard_normal(s) for s in ((C, 3 * C), (C, C), (C, 4 * C), (4 * C, C))] for _ in range(L)]
    wte_t = np.ascontiguousarray(w["wte.weight"].T)
    runs = []
    for k in range(0, len(sentences) - 1, 2):
        ids = [ref.tokenize(s, vocab, merges, True) for s in sentences[k:k + 2]]
        xs = [rng.standard_normal((len(i), C)) for i in ids]

        def dgemm():
            for x in xs:
                h4 = np.empty((x.shape[0], 4 * C))
                for a, b, c, d in blocks:
                    x @ a
                    x @ b
                    h4 = x @ c
                    h4 @ d
                x[-1:] @ wte_t

        def forward():
            for i in ids:
                out, _ = ref.forward(cfg, w, i, 0, "learned", 1.0, True)
                ref.softmax(out[-1] @ wte_t)

        runs.append({"tokens_a": len(ids[0]), "tokens_b": len(ids[1]), "dgemm_seconds": best(dgemm, reps),
                     "reference_seconds": best(forward, max(1, reps // 2))})
    print(json.dumps({"blas": blas_library(), "threads": os.environ.get("OPENBLAS_NUM_THREADS"),
                      "load_seconds": load, "runs": runs}))


if __name__ == "__main__":
    main(sys.argv)
