// numpy_checkpoint.js - "Copy as NumPy" for a checkpoint model: a
// self-contained Python script that reads the checkpoint's safetensors with
// NumPy alone (no PyTorch), runs GPT-2's forward pass on the token ids the
// page shows (written into the script, so no tokenizer is needed), and
// prints the page's lines with every figure at full precision. No DOM here:
// the page and the tests share it.

const py = (x) => (typeof x === 'string' ? JSON.stringify(x) : typeof x === 'boolean' ? (x ? 'True' : 'False') : String(x));
const pyList = (xs) => `[${xs.map(py).join(', ')}]`;

// `result`: the lab's result for a checkpoint run (its config and tokens);
// `folder`: where the checkpoint's files are, as the script's default
// (a path given on the command line wins); `trained`: whether it is one of
// the models trained here, which answer a question with their next token.
export function numpyCheckpointScript(result, { folder, trained = false, link = '' }) {
  const c = result.config;
  const ids = (tokens) => pyList(tokens.map((t) => t.id));
  return `# poslab: ${c.sentence_a.join(' ')} / ${c.sentence_b.join(' ')} on a GPT-2-family checkpoint, with NumPy alone.
${link ? `# ${link}\n` : ''}# Run: python3 this.py [CHECKPOINT_FOLDER]   (config.json, model.safetensors, vocab.json)
import json, os, re, sys
import numpy as np

folder = sys.argv[1] if len(sys.argv) > 1 else ${py(folder)}
if not os.path.exists(os.path.join(folder, "config.json")):
    sys.exit(f"no config.json in {os.path.abspath(folder)}: give the checkpoint's folder, python3 this.py FOLDER")

def read_safetensors(path):  # 8 bytes of header length, a JSON header, then the raw tensors
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        raw = data[8 + n + begin:8 + n + end]
        if t["dtype"] == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif t["dtype"] == "F16":
            a = np.frombuffer(raw, dtype="<f2")
        elif t["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            continue  # GPT-2's mask buffers are not weights
        out[name] = a.astype(np.float64).reshape(t["shape"])
    return out

cfg = json.load(open(os.path.join(folder, "config.json")))
index = os.path.join(folder, "model.safetensors.index.json")
files = sorted(set(json.load(open(index))["weight_map"].values())) if os.path.exists(index) else ["model.safetensors"]
w = {}
for file in files:
    for name, a in read_safetensors(os.path.join(folder, file)).items():
        w[name[len("transformer."):] if name.startswith("transformer.") else name] = a

def layer_norm(x, g, b, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b

def gelu(x):  # GPT-2's tanh approximation
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))

def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

# GPT-2's forward pass: token vectors plus (scale times) the position table's
# rows from \`offset\`, then blocks of attention and MLP, then a last layer norm.
def forward(ids, offset):
    C, H, eps = cfg["n_embd"], cfg["n_head"], cfg.get("layer_norm_epsilon", 1e-5)
    n, hd = len(ids), C // H
    h = w["wte.weight"][ids]
    if scheme == "learned":
        h = h + scale * w["wpe.weight"][offset:offset + n]
    for i in range(cfg["n_layer"]):
        p = f"h.{i}."
        a = layer_norm(h, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        q, k, v = np.split(a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"], 3, axis=1)
        heads = []
        for j in range(H):
            cols = slice(j * hd, (j + 1) * hd)
            s = q[:, cols] @ k[:, cols].T / np.sqrt(hd)
            if causal:  # each token sees itself and the ones before it
                s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
            heads.append(softmax(s) @ v[:, cols])
        h = h + np.concatenate(heads, axis=1) @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = layer_norm(h, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        h = h + gelu(m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]) @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    return layer_norm(h, w["ln_f.weight"], w["ln_f.bias"], eps)

# The page's settings and the token ids it shows.
scheme, scale, causal = ${py(c.scheme)}, ${py(c.scale)}, ${py(c.causal)}
offset_a, offset_b, rtol, atol = ${py(c.offset_a)}, ${py(c.offset_b)}, ${py(c.rtol)}, ${py(c.atol)}
ids_a = ${ids(result.tokens_a)}
ids_b = ${ids(result.tokens_b)}

# Token texts, from vocab.json (GPT-2 writes each byte as a printable character).
bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
chars = bs + [256 + i for i in range(256 - len(bs))]
bs += [b for b in range(256) if b not in bs]
byte_of = {chr(c): b for b, c in zip(bs, chars)}
text_of = {i: bytes(byte_of[ch] for ch in s).decode("utf-8", errors="replace") for s, i in json.load(open(os.path.join(folder, "vocab.json"), encoding="utf-8")).items()}

out_a, out_b = forward(ids_a, offset_a), forward(ids_b, offset_b)
print("tokens A:  ", " | ".join(f"{t} {json.dumps(text_of[t])}" for t in ids_a))
print("tokens B:  ", " | ".join(f"{t} {json.dumps(text_of[t])}" for t in ids_b))

def cosine_distance(x, y):
    return 1 - x @ y / (np.linalg.norm(x) * np.linalg.norm(y))

# Each token of A with the same token in B (the first one not yet taken).
taken = set()
for i, t in enumerate(ids_a):
    j = next((j for j, u in enumerate(ids_b) if u == t and j not in taken), None)
    if j is None:
        print(f"{text_of[t]:<7} no partner in B")
        continue
    taken.add(j)
    x, y = out_a[i], out_b[j]
    print(f"{text_of[t]:<7} np.allclose(out_a[{i}], out_b[{j}]) = {np.allclose(x, y, rtol=rtol, atol=atol)}   max|diff| {np.max(np.abs(x - y))!r}   cosine distance {cosine_distance(x, y)!r}")
x, y = out_a.mean(0), out_b.mean(0)
print(f"mean    np.allclose(out_a.mean(0), out_b.mean(0)) = {np.allclose(x, y, rtol=rtol, atol=atol)}   max|diff| {np.max(np.abs(x - y))!r}   cosine distance {cosine_distance(x, y)!r}")
print(f"cosine similarity of the mean last hidden state: {1 - cosine_distance(x, y)!r}")

# What the model says next: the last token's vector against every token's.
for name, out in (("A", out_a), ("B", out_b)):
    p = softmax(out[-1] @ w["wte.weight"].T)
    top = sorted(range(len(p)), key=lambda t: (-p[t], t))[:5]
    print(f"most likely next tokens after {name}:", ", ".join(f"{t} {json.dumps(text_of[t])} {p[t]!r}" for t in top))
${trained ? `    print(f"answer {name}: {text_of[top[0]].strip()} (probability {p[top[0]]!r})")\n` : ''}`;
}
