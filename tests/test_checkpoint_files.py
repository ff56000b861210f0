#!/usr/bin/python3
"""Bad checkpoint files are user input: each one gets one line on stderr that
names the file and the tensor or key, with what was found and what was
expected, exit status 2 (1 for a file that cannot be read), and nothing on
stdout. Run under the ASan build too, where LeakSanitizer fails the run if
anything half-loaded is left.

    test_checkpoint_files.py POSLAB CHECKPOINTS   (tests/make_checkpoints.py's folder)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

POSLAB, ROOT = sys.argv[1], sys.argv[2]
TINY = os.path.join(ROOT, "tiny-f32")
failures = []


def read_st(path):
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    return json.loads(data[8:8 + n]), data[8 + n:]


def write_st(path, header, body, pad=True):
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + body)


def copy(src=TINY):
    d = tempfile.mkdtemp(prefix="poslab-bad-")
    for name in os.listdir(src):
        shutil.copyfile(os.path.join(src, name), os.path.join(d, name))
    return d


def run(args, folder):
    cmd = [POSLAB] + args
    if folder and "--model" not in args and "--checkpoint" not in args:
        cmd += ["--model", "checkpoint", "--checkpoint", folder]
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace")


def case(name, mutate, words, status=2, args=(), src=TINY):
    """mutate(folder) breaks a copy of src; stderr must hold every one of
    `words` on its one line."""
    d = copy(src)
    try:
        mutate(d)
        done = run(list(args), d)
        err = done.stderr.strip("\n")
        problems = []
        if done.returncode != status:
            problems.append(f"exit {done.returncode}, expected {status}")
        if done.stdout:
            problems.append("something on stdout")
        if "\n" in err or not err.startswith("poslab: "):
            problems.append("not one 'poslab: ' line")
        for w in words:
            if w not in err:
                problems.append(f"no {w!r}")
        if problems:
            failures.append(f"{name}: {'; '.join(problems)}\n    stderr: {err[:600]}")
        else:
            print(f"ok: {name}: {err}")
    finally:
        shutil.rmtree(d, ignore_errors=True)


ST = "model.safetensors"


def edit_header(fn, pad=True):
    def mutate(d):
        header, body = read_st(os.path.join(d, ST))
        fn(header)
        write_st(os.path.join(d, ST), header, body, pad)
    return mutate


def edit_json(file, fn):
    def mutate(d):
        with open(os.path.join(d, file)) as f:
            c = json.load(f)
        fn(c)
        with open(os.path.join(d, file), "w") as f:
            json.dump(c, f)
    return mutate


def write(file, data):
    def mutate(d):
        with open(os.path.join(d, file), "wb") as f:
            f.write(data)
    return mutate


def truncate(size):
    def mutate(d):
        p = os.path.join(d, ST)
        with open(p, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(data[:size] if size >= 0 else data[:size])
    return mutate


def set_entry(name, **kw):
    return edit_header(lambda h: h[name].update(kw))


def first_len(d):
    with open(os.path.join(d, ST), "rb") as f:
        return int.from_bytes(f.read(8), "little")


def header_length(value):
    def mutate(d):
        p = os.path.join(d, ST)
        with open(p, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(value.to_bytes(8, "little") + data[8:])
    return mutate


W = "transformer.h.0.attn.c_attn.weight"
header, _ = read_st(os.path.join(TINY, ST))
wb, we = header[W]["data_offsets"]
other = "transformer.h.0.attn.c_proj.weight"
ob, oe = header[other]["data_offsets"]

case("truncated in the data", truncate(-100), [ST, "data_offsets", "expected 0 <= begin <= end"])
case("shorter than 8 bytes", truncate(5), [ST, "5 bytes", "expected at least 8"])
case("header longer than the file", header_length(10 ** 6), [ST, "header of 1000000 bytes", "fit in the file"])
case("header over 100 MB", header_length(200 * 10 ** 6), [ST, "header of 200000000 bytes", "at most 100 MB"])
case("header that is not JSON", write(ST, (11).to_bytes(8, "little") + b'{"a": [1, 2'), [ST, "header byte", "expected"])
case("overlapping offsets", set_entry(W, data_offsets=[ob, ob + (we - wb)]), [ST, "overlap", W, other, "expected each byte in one tensor"])
def inside_with_empty(h):
    # an empty tensor between a long one and a short one inside it
    h["extra"] = {"dtype": "F32", "shape": [0], "data_offsets": [wb + 4, wb + 4]}
    h["transformer.ln_f.bias"]["data_offsets"] = [wb + 64, wb + 128]


case("a tensor inside another, behind an empty one", edit_header(inside_with_empty),
     [ST, "overlap", W, "transformer.ln_f.bias", "expected each byte in one tensor"])
case("offsets past the data", set_entry(W, data_offsets=[wb, wb + 10 ** 9]), [ST, W, "data_offsets", "leave the data"])
case("offsets that disagree with the shape", set_entry(W, data_offsets=[wb, we - 4]), [ST, W, "span", "expected [16, 48] x 4 bytes"])
case("unknown dtype", set_entry(W, dtype="F99"), [ST, W, '"F99" is unknown', "expected F32, F16 or BF16"])
case("a dtype with a line break in it", set_entry(W, dtype="F\n32"), [ST, W, '"F?32" is unknown'])
case("dtype that is not a float", set_entry(W, dtype="I32"), [ST, W, "dtype I32", "expected F32, F16 or BF16"])
case("shape that disagrees with config.json", edit_json("config.json", lambda c: c.update(n_positions=64)),
     [ST, "transformer.wpe.weight", "shape [32, 16]", "expected [64, 16] from config.json"])
case("missing tensor", edit_header(lambda h: h.pop("transformer.ln_f.bias")), [ST, "no tensor ln_f.bias", "expected"])
case("missing block tensor", edit_header(lambda h: h.pop("transformer.h.1.mlp.c_fc.bias")),
     [ST, "no tensor h.1.mlp.c_fc.bias", "expected"])
case("tensor twice (with and without the prefix)",
     edit_header(lambda h: h.update({"ln_f.bias": h["transformer.ln_f.bias"]})),
     [ST, "ln_f.bias", "expected it once"])
case("a block past n_layer", edit_json("config.json", lambda c: c.update(n_layer=1)),
     [ST, "transformer.h.1.", "expected blocks 0 to 0", "n_layer is 1"])
case("config.json without n_head", edit_json("config.json", lambda c: c.pop("n_head")), ["config.json", "no n_head"])
case("n_head that does not divide n_embd", edit_json("config.json", lambda c: c.update(n_head=3)),
     ["config.json", "n_head 3 does not divide n_embd 16"])
case("config.json with a string size", edit_json("config.json", lambda c: c.update(n_embd="16")),
     ["config.json", "n_embd", "whole number"])
case("another activation", edit_json("config.json", lambda c: c.update(activation_function="relu")),
     ["config.json", '"relu"', "gelu_new"])
# the family table: model_type names the row; without it, the architectures
# do, and without a row for them the first row (GPT-2) reads the file
case("a model_type no family has", edit_json("config.json", lambda c: c.update(model_type="llama")),
     ["config.json", 'model_type "llama"', "expected one poslab reads: gpt2"])
case("no model_type, an architecture no family has: read as GPT-2",
     edit_json("config.json", lambda c: (c.pop("model_type", None), c.update(architectures=["X"], n_head=3))),
     ["config.json", "n_head 3 does not divide n_embd 16"])
case("vocab.json not an object", write("vocab.json", b"[1, 2, 3]"), ["vocab.json", "not a JSON object"])
# an id past the embedding's rows: said at load, naming both files, though
# no token of the sentence has it
case("vocab.json id past vocab_size", edit_json("vocab.json", lambda v: v.update({"zzqq": 500})),
     ["config.json: vocab_size", "expected more than vocab.json's largest id 500"])
case("merges naming unknown symbols", lambda d: open(os.path.join(d, "merges.txt"), "a").write("qq zz\n"),
     ["merges.txt", "qq"])
case("sentence longer than the positions", lambda d: None, ["--a: 40 tokens", "32 positions", "allowed: at most 32 tokens from position 0"],
     args=("--a", " ".join(["dog"] * 40)))
case("offset past the positions", lambda d: None, ["--b: 3 tokens from position 30", "allowed: at most 2 tokens from position 30"],
     args=("--offset-b", "30"))
case("first position past the positions", lambda d: None, ["--b: 3 tokens from position 40", "allowed: a first position below 32"],
     args=("--offset-b", "40"))
case("no such folder", lambda d: shutil.rmtree(d), ["No such file"], status=1)
case("config.json missing", lambda d: os.remove(os.path.join(d, "config.json")), ["config.json", "No such file"], status=1)
case("--dim with a checkpoint", lambda d: None, ["--dim", "set by the checkpoint"], args=("--dim", "8"))
case("--scheme rope with a checkpoint", lambda d: None, ["scheme", '"rope"', "allowed: learned, none"],
     args=("--scheme", "rope"))
case("--scheme learned without a checkpoint", lambda d: None, ["scheme", '"learned"', "model checkpoint only"],
     args=("--model", "head", "--scheme", "learned"))
case("--model checkpoint without --checkpoint", lambda d: None, ["--model checkpoint needs --checkpoint", "allowed: --checkpoint PATH"],
     args=("--model", "checkpoint"))
case("--checkpoint without --model checkpoint", lambda d: None, ["--checkpoint", "only for --model checkpoint"],
     args=("--model", "head", "--checkpoint", "x"))


def shard_escape(d):
    index = os.path.join(d, "model.safetensors.index.json")
    with open(index) as f:
        c = json.load(f)
    c["weight_map"]["wte.weight"] = "../model.safetensors"
    with open(index, "w") as f:
        json.dump(c, f)


case("a shard outside the folder", shard_escape, ["model.safetensors.index.json", "wte.weight", "a file name beside the index"],
     src=os.path.join(ROOT, "tiny-sharded"))
case("a missing shard", lambda d: os.remove(os.path.join(d, "model-00002-of-00003.safetensors")),
     ["model-00002-of-00003.safetensors", "No such file"], status=1, src=os.path.join(ROOT, "tiny-sharded"))

# --tokenize needs only the tokenizer's files
d = copy()
try:
    for f in ("config.json", ST):
        os.remove(os.path.join(d, f))
    done = run(["--tokenize", "--checkpoint", d, "--a", "dog bites man"], None)
    want = "277\t dog\n275\t bites\n296\t man\n"
    if done.returncode or done.stdout != want:
        failures.append(f"--tokenize without weights: exit {done.returncode}, {done.stdout!r}; expected {want!r} {done.stderr}")
    done = run(["--tokenize", "--checkpoint", d, "--a", "dog bites man", "--prefix-space=false", "--json"], None)
    got = json.loads(done.stdout) if not done.returncode else None
    # "dog" at the start has no space before it: not the token " dog"
    if not got or got["tokens"] != [{"id": 266, "text": "do"}, {"id": 70, "text": "g"}, {"id": 275, "text": " bites"},
                                    {"id": 296, "text": " man"}]:
        failures.append(f"--tokenize --json --prefix-space=false: {done.stdout!r} {done.stderr}")
    else:
        print("ok: --tokenize, lines and JSON, from the tokenizer's files alone")
finally:
    shutil.rmtree(d, ignore_errors=True)

for f in failures:
    print("not ok:", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
