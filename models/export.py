"""Write a trained model in GPT-2's Hugging Face layout, and read it back.

A folder per model: config.json, model.safetensors (float32), vocab.json,
merges.txt. The files are what the core's checkpoint loader reads for GPT-2
itself; keys starting with poslab_ say how the model was trained (Hugging
Face ignores keys it does not know).

safetensors is written with NumPy alone (there is no safetensors package
here): an unsigned 64-bit little-endian header length, the JSON header padded
with spaces to a multiple of 8 bytes, then the tensors, row-major,
little-endian, in the header's order.
"""

import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpe  # noqa: E402
import recipe  # noqa: E402
import world  # noqa: E402

TASK = ("who did what to whom: 'X verb Y . who verb ?' (answer X) or "
        "'X verb Y . who is participle ?' (answer Y); the answer is the next token")


def write_safetensors(path, tensors):
    """tensors: name -> float32 NumPy array. Names in sorted order, as
    Hugging Face's writer puts them, so the file does not depend on the order
    the model built its parameters in."""
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype="<f4")
        blob = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: {name} is {info['dtype']}, this reader takes F32")
        begin, end = info["data_offsets"]
        out[name] = np.frombuffer(data[8 + n + begin:8 + n + end], dtype="<f4").reshape(info["shape"])
    return out


def config(model, vocab_size, name, steps):
    return {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "n_embd": model.C, "n_layer": model.L, "n_head": model.H,
        "n_positions": model.P, "n_ctx": model.P,
        "vocab_size": vocab_size,
        "layer_norm_epsilon": recipe.EPS,
        "activation_function": "gelu_new",
        "initializer_range": recipe.INIT_STD,
        "tie_word_embeddings": True,
        "poslab_model": name,
        "poslab_trained_positions": model.positions,
        "poslab_trained_causal": model.causal,
        "poslab_task": TASK,
        "poslab_split": {
            "seed": world.SPLIT_SEED, "held_out_fraction": world.HELD_OUT_FRACTION,
            "unit": "unordered noun pair and verb, held out in both orders and with both questions",
            "always_held_out": "dog man bites",
            "held_out_prompts": len(world.prompts(world.split()[0])),
            "training_prompts": len(world.prompts(world.split()[1])),
        },
        "poslab_seed": recipe.SEED,
        "poslab_steps": steps,
        "poslab_batch": recipe.BATCH,
        "poslab_optimizer": f"AdamW lr {recipe.LR} (warmup {recipe.WARMUP}, cosine), "
                            f"betas 0.9 0.95, weight decay {recipe.WEIGHT_DECAY} on matrices",
        "poslab_loss": "cross-entropy of the answer at the prompt's last token",
    }


def write(folder, model, merges, vocab, name, steps):
    os.makedirs(folder, exist_ok=True)
    tensors = {k: v.double().numpy().astype(np.float32) for k, v in model.tensors().items()}
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config(model, len(vocab), name, steps), f, indent=2)
        f.write("\n")
    bpe.save(folder, merges, vocab)
