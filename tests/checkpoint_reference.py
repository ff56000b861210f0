#!/usr/bin/python3
"""NumPy float64 reference for model checkpoint (docs/experiment.md,
"Checkpoints"), reading the safetensors files with NumPy alone.

    checkpoint_reference.py DIR [--a TEXT] [--b TEXT] [--scheme learned|none]
        [--scale X] [--causal true|false] [--offset-a N] [--offset-b N]
        [--prefix-space true|false] [--sweep LO:HI:COUNT]
                                     # prints the figures as poslab's JSON
    checkpoint_reference.py --check POSLAB CHECKPOINTS
                                     # runs poslab on every case below and
                                     # compares (exit 1 on a difference)
    checkpoint_reference.py --cases CHECKPOINTS OUT.json
                                     # the cases and NumPy's answers, for the
                                     # WebAssembly test under Node

The tokenizer here is GPT-2's for ASCII text (Python's re has no \\p{L}):
the test sentences are ASCII, so it is exact for them, and it checks the
C tokenizer's ids independently of it.
"""
import json
import math
import os
import re
import subprocess
import sys

import numpy as np

# ---- safetensors --------------------------------------------------------------


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        raw = body[begin:end]
        shape = tuple(t["shape"])
        if t["dtype"] == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif t["dtype"] == "F16":
            a = np.frombuffer(raw, dtype="<f2")
        elif t["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            continue  # buffers of other dtypes are not weights
        out[name] = a.astype(np.float64).reshape(shape)
    return out


def load(folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    index = os.path.join(folder, "model.safetensors.index.json")
    tensors = {}
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    for file in files:
        tensors.update(read_safetensors(os.path.join(folder, file)))
    w = {}
    for name, a in tensors.items():
        name = name[len("transformer."):] if name.startswith("transformer.") else name
        if name == "lm_head.weight" or re.fullmatch(r"h\.\d+\.attn\.(bias|masked_bias)", name):
            continue
        w[name] = a
    with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(folder, "merges.txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    merges = [tuple(l.split(" ")) for l in lines[1:] if l]
    return cfg, w, vocab, merges

# ---- GPT-2's tokenizer, for ASCII text -----------------------------------------


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


PATTERN = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def tokenize(text, vocab, merges, prefix_space):
    assert text.isascii(), "the reference tokenizes ASCII only"
    if prefix_space:
        text = " " + text
    b2u = bytes_to_unicode()
    ranks = {m: r for r, m in enumerate(merges)}
    ids = []
    for piece in PATTERN.findall(text):
        word = [b2u[b] for b in piece.encode("utf-8")]
        while len(word) > 1:
            pairs = [(ranks.get((a, b), math.inf), i) for i, (a, b) in enumerate(zip(word, word[1:]))]
            rank, _ = min(pairs)
            if rank == math.inf:
                break
            a, b = merges[rank]
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            word = out
        ids += [vocab[s] for s in word]
    return ids


def piece(id_, vocab):
    u2b = {v: k for k, v in bytes_to_unicode().items()}
    text = next(k for k, v in vocab.items() if v == id_)
    return bytes(u2b[c] for c in text).decode("utf-8", errors="replace")

# ---- the forward pass (Hugging Face's GPT2Model, eval mode) -----------------


def layer_norm(x, g, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def forward(cfg, w, ids, offset, scheme, scale, causal):
    C, H, L = cfg["n_embd"], cfg["n_head"], cfg["n_layer"]
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    n, hd = len(ids), C // H
    h = w["wte.weight"][ids]
    if scheme == "learned":
        h = h + scale * w["wpe.weight"][offset:offset + n]
    layers = []
    for i in range(L):
        p = f"h.{i}."
        a = layer_norm(h, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = qkv[:, :C], qkv[:, C:2 * C], qkv[:, 2 * C:]
        heads = []
        for j in range(H):
            cols = slice(j * hd, (j + 1) * hd)
            s = q[:, cols] @ k[:, cols].T / np.sqrt(hd)
            if causal:
                s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
            heads.append(softmax(s) @ v[:, cols])
        h = h + np.concatenate(heads, axis=1) @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = layer_norm(h, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        h = h + gelu(m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]) @ w[p + "mlp.c_proj.weight"] \
            + w[p + "mlp.c_proj.bias"]
        layers.append(h)
    return layer_norm(h, w["ln_f.weight"], w["ln_f.bias"], eps), layers

# ---- the lab's comparisons --------------------------------------------------------


def figures(a, b, rtol=1e-5, atol=1e-8):
    return {"allclose": bool(np.allclose(a, b, rtol=rtol, atol=atol)),
            "max_abs_diff": float(np.max(np.abs(a - b))),
            "cosine_distance": float(1 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))}


def pair(ids_a, ids_b):
    used, out = set(), []
    for i, t in enumerate(ids_a):
        j = next((j for j, u in enumerate(ids_b) if u == t and j not in used), None)
        if j is not None:
            used.add(j)
        out.append(j)
    return out


def next_tokens(out, w, vocab):
    p = softmax(out[-1] @ w["wte.weight"].T)
    order = sorted(range(len(p)), key=lambda t: (-p[t], t))[:5]
    return [{"id": t, "text": piece(t, vocab), "probability": float(p[t])} for t in order]


def run(folder, a="dog bites man", b="man bites dog", scheme="learned", scale=1.0, causal=None,
        offset_a=0, offset_b=0, prefix_space=True, sweep=None):
    cfg, w, vocab, merges = load(folder)
    if causal is None:
        causal = cfg.get("poslab_trained_causal", True)
    # the CLI's sentences are words joined by single spaces
    a, b = " ".join(a.split()), " ".join(b.split())
    ids_a, ids_b = tokenize(a, vocab, merges, prefix_space), tokenize(b, vocab, merges, prefix_space)
    out_a, layers_a = forward(cfg, w, ids_a, offset_a, scheme, scale, causal)
    out_b, layers_b = forward(cfg, w, ids_b, offset_b, scheme, scale, causal)
    partner = pair(ids_a, ids_b)
    res = {"tokens_a": [{"id": t, "text": piece(t, vocab)} for t in ids_a],
           "tokens_b": [{"id": t, "text": piece(t, vocab)} for t in ids_b],
           "pairs": [dict({"word": piece(t, vocab), "id": t, "index_a": i, "index_b": j},
                          **(figures(out_a[i], out_b[j]) if j is not None else {}))
                     for i, (t, j) in enumerate(zip(ids_a, partner))],
           "mean": figures(out_a.mean(0), out_b.mean(0)),
           "layers": [{"mean": figures(la.mean(0), lb.mean(0)),
                       "pairs": [figures(la[i], lb[j]) if j is not None else None for i, j in enumerate(partner)]}
                      for la, lb in zip(layers_a, layers_b)],
           "next_a": next_tokens(out_a, w, vocab), "next_b": next_tokens(out_b, w, vocab)}
    res["mean_cosine_similarity"] = 1 - res["mean"]["cosine_distance"]
    if sweep:
        lo, hi, count = sweep
        scales = [lo if t == 0 else hi if t == count - 1 else 10 ** (math.log10(lo) + t * ((math.log10(hi) - math.log10(lo)) / (count - 1)))
                  for t in range(count)]
        points = []
        for s in scales:
            oa, _ = forward(cfg, w, ids_a, offset_a, scheme, s, causal)
            ob, _ = forward(cfg, w, ids_b, offset_b, scheme, s, causal)
            points.append((figures(oa.mean(0), ob.mean(0)),
                           [figures(oa[i], ob[j]) if j is not None else None for i, j in enumerate(partner)]))
        res["sweep"] = {"scales": scales,
                        "mean": [{"cosine_distance": m["cosine_distance"], "allclose": m["allclose"]} for m, _ in points],
                        "pairs": [[{"cosine_distance": p[i]["cosine_distance"], "allclose": p[i]["allclose"]}
                                   for _, p in points] if partner[i] is not None else []
                                  for i in range(len(ids_a))]}
    return res

# ---- the cases and the comparison ---------------------------------------------------

LAYOUTS = ["tiny-f32", "tiny-f16", "tiny-bf16", "tiny-sharded", "tiny-bag"]
CASES = [
    {},
    {"scheme": "none", "causal": False},
    {"scheme": "none", "causal": True},
    {"scale": 0.5, "offset_a": 3, "offset_b": 7},
    {"prefix_space": False},
    {"a": "the cat chased the mouse", "b": "the mouse chased the dog", "scale": 2.0},
    {"sweep": (0.01, 10.0, 5)},
]


def cli_args(case):
    args = []
    for key, value in case.items():
        if key == "sweep":
            args += ["--sweep", "%r:%r:%d" % value]
        elif key in ("causal", "prefix_space"):
            args.append("--%s=%s" % (key.replace("_", "-"), "true" if value else "false"))
        else:
            args += ["--" + key.replace("_", "-"), str(value)]
    return args


def near(got, want):
    if want is None or got is None:
        return got is None and want is None
    return abs(got - want) <= 1e-12 + 1e-9 * abs(want)


def compare(got, want, where, errors):
    """Every key of want (NumPy's) must be in got (poslab's) and agree."""
    if isinstance(want, dict):
        for k, v in want.items():
            if k not in got:
                errors.append(f"{where}.{k}: missing")
            else:
                compare(got[k], v, f"{where}.{k}", errors)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            errors.append(f"{where}: {got!r} vs NumPy's {want!r}")
            return
        for i, (g, v) in enumerate(zip(got, want)):
            compare(g, v, f"{where}[{i}]", errors)
    elif isinstance(want, bool) or isinstance(want, str) or want is None or isinstance(want, int):
        if got != want:
            errors.append(f"{where}: {got!r}; NumPy: {want!r}")
    elif not near(got, want):
        errors.append(f"{where}: {got!r}; NumPy: {want!r} (difference {abs(got - want):.3g})")


def all_cases(root):
    for layout in LAYOUTS:
        for case in CASES:
            yield layout, case


def check(poslab, root):
    errors, count = [], 0
    for layout, case in all_cases(root):
        folder = os.path.join(root, layout)
        want = run(folder, **case)
        cmd = [poslab, "--model", "checkpoint", "--checkpoint", folder, "--json"] + cli_args(case)
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            errors.append(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}")
            continue
        got = json.loads(done.stdout)
        before = len(errors)
        compare(got, want, f"{layout} {case}", errors)
        count += 1
        if len(errors) > before:
            errors.append("  command: " + " ".join(cmd))
    for e in errors[:20]:
        print("not ok:", e)
    print(f"{count} checkpoint runs compared with NumPy, {len(errors)} differences")
    return 1 if errors else 0


def write_cases(root, out):
    cases = []
    for layout, case in all_cases(root):
        c = dict(case)
        if "sweep" in c:
            c["sweep"] = {"lo": c["sweep"][0], "hi": c["sweep"][1], "count": c["sweep"][2]}
        cases.append({"layout": layout, "config": c, "numpy": run(os.path.join(root, layout), **case)})
    with open(out, "w") as f:
        json.dump(cases, f)


def main(argv):
    if len(argv) >= 4 and argv[1] == "--check":
        sys.exit(check(argv[2], argv[3]))
    if len(argv) >= 4 and argv[1] == "--cases":
        write_cases(argv[2], argv[3])
        return
    if len(argv) < 2:
        sys.exit(__doc__)
    kw, i = {}, 2
    while i + 1 < len(argv):
        key, value = argv[i].lstrip("-").replace("-", "_"), argv[i + 1]
        if key in ("scale",):
            value = float(value)
        elif key in ("offset_a", "offset_b"):
            value = int(value)
        elif key in ("causal", "prefix_space"):
            value = value == "true"
        elif key == "sweep":
            lo, hi, count = value.split(":")
            value = (float(lo), float(hi), int(count))
        kw[key] = value
        i += 2
    json.dump(run(argv[1], **kw), sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv)
