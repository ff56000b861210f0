"""The CLI's contract (docs/interfaces.md): the module's results in text and
JSON, and one clear stderr line with exit status 2 for every bad input.

usage: python3 tests/test_cli.py PATH_TO_POSLAB
Needs only the standard library.
"""
import json
import subprocess
import sys

from compare import near  # the spec's tolerance, as the fixture comparison uses it

CLI = sys.argv[1]
passed = failed = 0


def run(*args):
    return subprocess.run([CLI, *args], capture_output=True)


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("not ok:", what)


# ---- the module's verified results -------------------------------------
out = run("--scheme", "none")
lines = out.stdout.decode().splitlines()
man = [l for l in lines if l.startswith("man ")]
check(out.returncode == 0 and len(man) == 1 and "np.allclose(out_a[2], out_b[0]) = True" in man[0],
      f"poslab --scheme none: man line {man}")

out = run()
text = out.stdout.decode()
check("np.allclose(out_a[2], out_b[0]) = False   max|diff| 12.54   cosine distance 0.9416" in text,
      f"poslab: man line as in docs/interfaces.md, got:\n{text}")
check("np.allclose(out_a.mean(0), out_b.mean(0)) = False" in text, "poslab: mean is False")

res = json.loads(run("--json").stdout)
man = res["pairs"][2]
check(res["config"] == {"sentence_a": ["dog", "bites", "man"], "sentence_b": ["man", "bites", "dog"],
                        "dim": 6, "seed": 2, "scheme": "random", "scale": 0.5, "causal": False,
                        "rtol": 1e-05, "atol": 1e-08, "offset_a": 0, "offset_b": 0, "model": "head", "heads": 1, "layers": 2,
                        "weight_std": 0.02},
      f"--json config {res['config']}")
check(man["word"] == "man" and man["index_a"] == 2 and man["index_b"] == 0 and man["allclose"] is False,
      f"--json man pair {man}")
check(near(man["max_abs_diff"], 12.536657700122994, 12.5), f"man max_abs_diff {man}")
check(res["mean"]["allclose"] is False and res["permutation"] is True, "--json mean and permutation")
check("output_a" not in res and "sweep" not in res, "--json without --full or --sweep is compact")

# the text table: a line per magnitude, none ending in spaces (a column
# without its " *" left two)
text = run("--sweep", "1e-3:10:3").stdout.decode()
table = text.split("cosine distance by scale")[1].splitlines()[1:]
check(len(table) == 4 and table[0].split() == ["scale", "mean", "dog", "bites", "man"], f"--sweep's table: {table!r}")
check(not any(line.endswith(" ") for line in text.splitlines()), f"a --sweep line ends in spaces: {text!r}")
res = json.loads(run("--json", "--full", "--sweep", "1e-6:10:8", "--b", "man bites cat").stdout)
check(res["pairs"][0] == {"word": "dog", "index_a": 0, "index_b": None}, f"unpaired dog: {res['pairs'][0]}")
check(res["unpaired_b"] == [2] and res["permutation"] is False, "cat in B is unpaired; no permutation")
check(len(res["sweep"]["scales"]) == 8 and res["sweep"]["pairs"][0] == [] and len(res["sweep"]["pairs"][2]) == 8,
      "sweep shape with an unpaired word")
check(len(res["output_a"]) == 3 and len(res["output_a"][0]) == 6 and len(res["attention_b"][0]) == 3,
      "--full matrices")
check(all(abs(sum(row) - 1) < 1e-12 for row in res["attention_a"]), "attention rows sum to 1")

# the settings line names heads and offsets only when they are not the module's
line = run().stdout.decode().splitlines()[2]
check(line == "d 6, seed 2, random positions at scale 0.5, no mask, rtol 1e-05, atol 1e-08",
      f"settings line of the module's run: {line!r}")
line = run("--heads", "3", "--scheme", "alibi", "--offset-b", "4").stdout.decode().splitlines()[2]
check(line == "d 6, seed 2, 3 heads, alibi positions at scale 1, A starts at position 0, B at 4, "
              "no mask, rtol 1e-05, atol 1e-08", f"settings line with heads and an offset: {line!r}")

text = run("--b", "man bites cat").stdout.decode()
check("no partner" in text and "not a reordering" in text, f"text notes unpaired words:\n{text}")

res = json.loads(run("--json", "--a", "caf\u00e9 \"q\" \\b", "--b", "\\b caf\u00e9 \"q\"").stdout)
check(res["config"]["sentence_a"] == ["caf\u00e9", "\"q\"", "\\b"], f"UTF-8 and escapes: {res['config']}")

# ---- bad input: exit 2, nothing on stdout, one line naming the value -----
long_word = "x" * 65
ALL_OPTIONS = ("--a, --b, --dim, --seed, --scheme, --scale, --causal, --rtol, --atol, --offset-a, --offset-b, --model, "
               "--heads, --layers, --weight-std, --sweep, --checkpoint, --prefix-space, --json, --full, --tokenize, --help, --version")
bad = [
    (["--a", ""], 'poslab: --a: "" has no words; allowed: 1 to 64 words separated by spaces'),
    (["--b", "   \t "], 'poslab: --b: "   \\x09 " has no words; allowed: 1 to 64 words separated by spaces'),
    (["--a", " ".join(["w"] * 65)], "poslab: --a: 65 words given; allowed: 1 to 64 words"),
    (["--a", "ok " + long_word], 'poslab: --a: word 2 ("' + "x" * 40 + '...") is 65 bytes long; allowed: 1 to 64 bytes per word'),
    ([b"--a", b"dog \xff\xfe man"], "poslab: --a: word 2 is not valid UTF-8 (byte 0xff at byte 4 of the text); allowed: UTF-8 text"),
    ([b"--b", b"caf\xc3"], "poslab: --b: word 1 is not valid UTF-8 (byte 0xc3 at byte 3 of the text); allowed: UTF-8 text"),
    (["--dim", "0"], 'poslab: --dim: "0" is out of range; allowed: an integer from 1 to 512'),
    (["--dim", "513"], 'poslab: --dim: "513" is out of range; allowed: an integer from 1 to 512'),
    (["--dim", "6.5"], 'poslab: --dim: "6.5" is not an integer; allowed: an integer from 1 to 512'),
    (["--seed", "-1"], 'poslab: --seed: "-1" is out of range; allowed: an integer from 0 to 4294967295'),
    (["--seed", "4294967296"], 'poslab: --seed: "4294967296" is out of range; allowed: an integer from 0 to 4294967295'),
    (["--scheme", "learnt"], 'poslab: --scheme: "learnt" is not a scheme; allowed: none, random, sinusoidal, rope, alibi, learned'),
    (["--scheme", "learned"], 'poslab: --scheme: "learned" is a checkpoint\'s own table, for model checkpoint only; allowed with model head: none, random, sinusoidal, rope, alibi'),
    (["--scheme", "ALIBI"], 'poslab: --scheme: "ALIBI" is not a scheme; allowed: none, random, sinusoidal, rope, alibi, learned'),
    (["--offset-a", "-1"], 'poslab: --offset-a: "-1" is out of range; allowed: an integer from 0 to 1024'),
    (["--offset-b", "1025"], 'poslab: --offset-b: "1025" is out of range; allowed: an integer from 0 to 1024'),
    (["--offset-a", "1.5"], 'poslab: --offset-a: "1.5" is not an integer; allowed: an integer from 0 to 1024'),
    (["--offset-b", "abc"], 'poslab: --offset-b: "abc" is not an integer; allowed: an integer from 0 to 1024'),
    (["--offset-b=1024"], None),
    (["--heads", "0"], 'poslab: --heads: "0" is out of range; allowed: an integer from 1 to 8 that divides dim'),
    (["--heads", "9"], 'poslab: --heads: "9" is out of range; allowed: an integer from 1 to 8 that divides dim'),
    (["--heads", "4"], 'poslab: --heads: "4" does not divide dim 6; allowed: an integer from 1 to 8 that divides dim (1, 2, 3, 6)'),
    (["--heads", "4", "--dim", "8"], None),
    (["--model", "gpt3"], 'poslab: --model: "gpt3" is not a model; allowed: head, transformer, checkpoint'),
    # the page's names for its checkpoints, typed by habit
    (["--model", "gpt"], 'poslab: --model: "gpt" is a checkpoint trained here, not a model of its own; allowed: head, transformer, or checkpoint with the folder models/gpt/'),
    (["--model=bag"], 'poslab: --model: "bag" is a checkpoint trained here, not a model of its own; allowed: head, transformer, or checkpoint with the folder models/bag/'),
    (["--model", "gpt2"], 'poslab: --model: "gpt2" is a checkpoint (GPT-2\'s files, from Hugging Face\'s openai-community/gpt2), not a model of its own; allowed: head, transformer, or checkpoint with the folder of GPT-2\'s files'),
    (["--layers", "0"], 'poslab: --layers: "0" is out of range; allowed: an integer from 1 to 12'),
    (["--layers", "13"], 'poslab: --layers: "13" is out of range; allowed: an integer from 1 to 12'),
    (["--weight-std", "0"], 'poslab: --weight-std: "0" is out of range; allowed: a finite number above 0, up to 10'),
    (["--weight-std", "-1"], 'poslab: --weight-std: "-1" is out of range; allowed: a finite number above 0, up to 10'),
    (["--weight-std", "11"], 'poslab: --weight-std: "11" is out of range; allowed: a finite number above 0, up to 10'),
    (["--weight-std", "nan"], 'poslab: --weight-std: "nan" is not a finite number; allowed: a finite number above 0, up to 10'),
    (["--model", "transformer", "--heads", "4"], 'poslab: --heads: "4" does not divide dim 6; allowed: an integer from 1 to 8 that divides dim (1, 2, 3, 6)'),
    (["--model", "transformer", "--layers", "12", "--weight-std", "10"], None),
    (["--dim", "8", "--heads", "3"], 'poslab: --heads: "3" does not divide dim 8; allowed: an integer from 1 to 8 that divides dim (1, 2, 4, 8)'),
    (["--scale", "nan"], 'poslab: --scale: "nan" is not a finite number; allowed: a finite number from 0 to 1e6'),
    (["--scale", "inf"], 'poslab: --scale: "inf" is not a finite number; allowed: a finite number from 0 to 1e6'),
    (["--scale", "-0.5"], 'poslab: --scale: "-0.5" is out of range; allowed: a finite number from 0 to 1e6'),
    (["--scale", "1000001"], 'poslab: --scale: "1000001" is out of range; allowed: a finite number from 0 to 1e6'),
    (["--scale", "abc"], 'poslab: --scale: "abc" is not a number; allowed: a finite number from 0 to 1e6'),
    (["--scale", "0x10"], 'poslab: --scale: "0x10" is not a number; allowed: a finite number from 0 to 1e6'),
    (["--scale", " 1"], 'poslab: --scale: " 1" is not a number; allowed: a finite number from 0 to 1e6'),
    (["--scale", "1."], None),
    (["--rtol", "-1e-5"], 'poslab: --rtol: "-1e-5" is out of range; allowed: a finite number >= 0'),
    (["--atol", "NaN"], 'poslab: --atol: "NaN" is not a finite number; allowed: a finite number >= 0'),
    (["--sweep", "1e-6:10"], 'poslab: --sweep: "1e-6:10" is not a valid sweep; allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "0:10:5"], 'poslab: --sweep: "0:10:5" is not a valid sweep (LO is out of range); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "10:1:5"], 'poslab: --sweep: "10:1:5" is not a valid sweep (LO is above HI); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:10:0"], 'poslab: --sweep: "1:10:0" is not a valid sweep (COUNT is out of range); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:10:1002"], 'poslab: --sweep: "1:10:1002" is not a valid sweep (COUNT is out of range); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "a:b:c"], 'poslab: --sweep: "a:b:c" is not a valid sweep (LO is not a number); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:2:3:4"], 'poslab: --sweep: "1:2:3:4" is not a valid sweep; allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:x:3"], 'poslab: --sweep: "1:x:3" is not a valid sweep (HI is not a number); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "nan:1:3"], 'poslab: --sweep: "nan:1:3" is not a valid sweep (LO is not a finite number); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:1e999:3"], 'poslab: --sweep: "1:1e999:3" is not a valid sweep (HI is not a finite number); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:2e6:3"], 'poslab: --sweep: "1:2e6:3" is not a valid sweep (HI is out of range); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "-0:1:3"], 'poslab: --sweep: "-0:1:3" is not a valid sweep (LO is out of range); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:2:2.5"], 'poslab: --sweep: "1:2:2.5" is not a valid sweep (COUNT is not an integer); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:2:-3"], 'poslab: --sweep: "1:2:-3" is not a valid sweep (COUNT is out of range); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:2:99999999999"], 'poslab: --sweep: "1:2:99999999999" is not a valid sweep (COUNT is out of range); allowed: LO:HI:COUNT with 0 < LO <= HI <= 1e6 and COUNT an integer from 1 to 1001'),
    (["--sweep", "1:1:+3"], None),  # COUNT is read as the other integers are
    # what kind of thing is wrong: only a number of the right sort outside the limits is out of range
    (["--scale", "-inf"], 'poslab: --scale: "-inf" is not a finite number; allowed: a finite number from 0 to 1e6'),
    (["--scale", "Infinity"], 'poslab: --scale: "Infinity" is not a finite number; allowed: a finite number from 0 to 1e6'),
    (["--scale", "1e999"], 'poslab: --scale: "1e999" is not a finite number; allowed: a finite number from 0 to 1e6'),
    (["--scale", ""], 'poslab: --scale: "" is not a number; allowed: a finite number from 0 to 1e6'),
    (["--scale", "nano"], 'poslab: --scale: "nano" is not a number; allowed: a finite number from 0 to 1e6'),
    (["--rtol", "1e-400"], None),  # underflows to 0, which is allowed
    (["--dim", "nan"], 'poslab: --dim: "nan" is not an integer; allowed: an integer from 1 to 512'),
    (["--dim", "1e2"], 'poslab: --dim: "1e2" is not an integer; allowed: an integer from 1 to 512'),
    (["--dim", ""], 'poslab: --dim: "" is not an integer; allowed: an integer from 1 to 512'),
    (["--dim", "-"], 'poslab: --dim: "-" is not an integer; allowed: an integer from 1 to 512'),
    (["--layers", "-3"], 'poslab: --layers: "-3" is out of range; allowed: an integer from 1 to 12'),
    (["--layers", "-0"], 'poslab: --layers: "-0" is out of range; allowed: an integer from 1 to 12'),
    (["--offset-a", "-0"], None),  # 0, as strtol and int() read it
    (["--dim", "+8"], None),
    (["--dim"], "poslab: --dim needs a value; allowed: an integer from 1 to 512"),
    (["--a", "--dim", "8"], 'poslab: --a needs a value, and "--dim" is an option; allowed: 1 to 64 words separated by spaces, or --a=--dim to mean that text'),
    (["--b", "--causal"], 'poslab: --b needs a value, and "--causal" is an option; allowed: 1 to 64 words separated by spaces, or --b=--causal to mean that text'),
    (["--\xff\x01"], None),  # (replaced below by the raw bytes)
    (["--" + "x" * 40], "poslab: --" + "x" * 30 + "... is not an option; allowed: " + ALL_OPTIONS),
    (["stray" * 10], 'poslab: unexpected argument "' + ("stray" * 10)[:40] + '..."; allowed: options such as --a TEXT (see --help)'),
    (["--seed", "99999999999999999999"], 'poslab: --seed: "99999999999999999999" is out of range; allowed: an integer from 0 to 4294967295'),
    # switches as GNU tools take them: bare, =true|false or =1|0
    (["--causal=maybe"], 'poslab: --causal: "maybe" is not a switch value; allowed: true, false, 1 or 0'),
    (["--causal="], 'poslab: --causal: "" is not a switch value; allowed: true, false, 1 or 0'),
    (["--causal=TRUE"], 'poslab: --causal: "TRUE" is not a switch value; allowed: true, false, 1 or 0'),
    (["--json=maybe"], 'poslab: --json: "maybe" is not a switch value; allowed: true, false, 1 or 0'),
    (["--help=1"], "poslab: --help takes no value; allowed: --help alone"),
    (["--version=yes"], "poslab: --version takes no value; allowed: --version alone"),
    (["--causal", "true"], 'poslab: unexpected argument "true"; allowed: options such as --a TEXT (see --help)'),
    (["--colour"], "poslab: --colour is not an option; allowed: --a, --b, --dim, --seed, --scheme, --scale, --causal, --rtol, --atol, --offset-a, --offset-b, --model, --heads, --layers, --weight-std, --sweep, --checkpoint, --prefix-space, --json, --full, --tokenize, --help, --version"),
    (["--dim"], "poslab: --dim needs a value; allowed: an integer from 1 to 512"),
    (["stray"], 'poslab: unexpected argument "stray"; allowed: options such as --a TEXT (see --help)'),
]
for args, message in bad:
    if args == ["--\xff\x01"]:  # raw bytes in an option's name are shown escaped, not written to the terminal
        args, message = [b"--\xff\x01"], "poslab: --\\xff\\x01 is not an option; allowed: " + ALL_OPTIONS
    out = run(*args)
    if message is None:  # accepted spellings
        check(out.returncode == 0, f"{args}: should be accepted, got {out.stderr!r}")
        continue
    err = out.stderr.decode(errors="replace")
    check(out.returncode == 2, f"{args}: exit status {out.returncode}, expected 2")
    check(out.stdout == b"", f"{args}: printed on stdout: {out.stdout[:80]!r}")
    check(err == message + "\n", f"{args}: stderr\n  got:  {err!r}\n  want: {message!r}")

# one short line even for a huge input (one argument can hold at most 128 KiB)
out = run("--a", "y" * 100_000)
check(out.returncode == 2 and out.stderr.count(b"\n") == 1 and len(out.stderr) < 200,
      f"100 kB word: {out.returncode} {out.stderr[:120]!r}")

# ---- switches: every SWITCH row and CLI flag takes =true|false and =1|0 --
def settings(*args):
    return run(*args).stdout.decode().splitlines()[2]

for on in (["--causal"], ["--causal=true"], ["--causal=1"], ["--causal=false", "--causal"]):
    check("causal mask" in settings(*on), f"{on} turns the mask on")
for off in ([], ["--causal=false"], ["--causal=0"], ["--causal", "--causal=false"]):
    check("no mask" in settings(*off), f"{off} leaves the mask off")
check(run("--json=false").stdout == run().stdout, "--json=false prints text")
check(run("--json=1", "--full=true").stdout == run("--json", "--full").stdout, "--json=1 --full=true is --json --full")
check(run("--json", "--full=0").stdout == run("--json").stdout, "--full=0 is no --full")

# ---- --version: the one version, package.json's --------------------------
import os
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(root, "package.json")) as f:
    version = json.load(f)["version"]
with open(os.path.join(root, "web", "lib", "package.json")) as f:
    npm_version = json.load(f)["version"]
out = run("--version")
check(out.returncode == 0 and out.stdout.decode() == f"poslab {version}\n",
      f"--version: {out.stdout!r}, package.json says {version}")
check(npm_version == version, f"web/lib/package.json's version {npm_version} is package.json's {version}")

# ---- --help: made from the option table ----------------------------------
out = run("--help")
help_text = out.stdout.decode()
check(out.returncode == 0 and out.stderr == b"", f"--help exits 0: {out.returncode} {out.stderr!r}")
check(run("-h").stdout == out.stdout, "-h is --help")
check(all(len(line) <= 80 for line in help_text.splitlines()),
      "--help lines fit 80 columns: " + repr([l for l in help_text.splitlines() if len(l) > 80]))
options = json.loads(run("--json").stdout)["config"]  # the rows the JSON echoes
import re
listed = set(re.findall(r"^  (--[a-z][a-z0-9-]*)", help_text, re.M))
usage = help_text.split("\n\n")[0]
for flag in ["--a", "--b", "--dim", "--seed", "--scheme", "--scale", "--causal", "--rtol", "--atol",
             "--offset-a", "--offset-b", "--model", "--heads", "--layers", "--weight-std", "--sweep",
             "--json", "--full", "--tokenize", "--help", "--version"]:
    check(flag in listed and f"[{flag}" in usage, f"--help lists {flag} in its usage and its options")
# every option the CLI's own error line allows is described, and nothing else
allowed = run("--colour").stderr.decode().split("allowed: ")[1].strip().split(", ")
check(set(allowed) == listed, f"--help's options {sorted(listed)} are those the CLI takes {sorted(allowed)}")
# every choice word is described on a line of its own, with its default scale for a scheme
for word in ["none", "random", "sinusoidal", "rope", "alibi", "head", "transformer"]:
    check(re.search(rf"^ {{26}}{word}  +\S", help_text, re.M), f"--help describes the choice {word}")
check(re.search(r"random +the module's stand-in.*\n.*\(default scale\s+0\.5\)", help_text),
      "--help gives random's default scale from the scheme table")
check("Defaults:" not in help_text and "dog bites man" in help_text, "defaults come from the rows")
check(re.search(r"exit status:\n  0  done\n  1  out of memory, a checkpoint's file could not be read.*\n.*\n  2  bad input", help_text),
      "--help ends with the exit statuses")
check("--causal=false" in help_text and "--name=VALUE" in help_text, "--help says how switches and values are written")
examples = re.findall(r"^  poslab (.*)$", help_text.split("examples, one per model:\n")[1], re.M)
models = set(re.findall(r"--model (\S+)", " ".join(examples)))
model_words = set(json.loads(run("--json").stdout)["config"].keys()) and \
    set(re.search(r"--model (\S+)", usage).group(1).strip("]").split("|"))
check(models == model_words, f"one example per model {sorted(model_words)}: {examples}")
for example in examples:  # each example without a placeholder (PATH) runs as shown
    if re.search(r"\b[A-Z]{3,}\b", example):
        continue
    out = run(*example.split())
    check(out.returncode == 0 and out.stdout.startswith(b"sentence A:"), f"--help example poslab {example}: {out.stderr!r}")

# ---- output that cannot be written: status 1 and one line, --help too ----
for args in (["--help"], ["--version"], []):
    with open("/dev/full", "wb") as full:
        out = subprocess.run([CLI, *args], stdout=full, stderr=subprocess.PIPE)
    check(out.returncode == 1 and out.stderr == b"poslab: could not write the output\n",
          f"poslab {' '.join(args)} > /dev/full: {out.returncode} {out.stderr!r}")

# ---- an option repeated any number of times is still checked once ---------
many = ["--rtol", "1e-5"] * 70
out = run(*many, "--prefix-space=false")
check(out.returncode == 2 and out.stderr == b"poslab: --prefix-space: only for --model checkpoint and --tokenize; allowed: add --model checkpoint\n",
      f"70 --rtol then --prefix-space without a checkpoint: {out.returncode} {out.stderr!r}")

# ---- a checkpoint's numbers as every number is written: 1e-05, not 1.0000000000000001e-05
gpt = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models", "gpt")
out = run("--model", "checkpoint", "--checkpoint", gpt, "--json")
check(out.returncode == 0 and b'"layer_norm_epsilon":1e-05,' in out.stdout,
      f"layer_norm_epsilon in shortest form: {out.stdout[:400]!r} {out.stderr!r}")

check(run("--offset-a", "-0", "--seed=-0").stdout == run("--seed", "0").stdout, "-0 is 0")
check(json.loads(run("--scale", "-0", "--json").stdout)["config"]["scale"] == 0 and
      b"scale -0" not in run("--scale", "-0").stdout, "--scale -0 is echoed as 0")

# ---- --help and --version act wherever they are (options come in any order)
for args in (["--dim", "513", "--help"], ["--bogus", "--help"], ["--a", "--help"], ["--dim", "0", "-h"]):
    out = run(*args)
    check(out.returncode == 0 and out.stdout == run("--help").stdout, f"{args}: the help, exit 0: {out.returncode} {out.stderr!r}")
out = run("--dim", "0", "--version")
check(out.returncode == 0 and out.stdout.decode() == run("--version").stdout.decode(), f"--dim 0 --version: {out.stderr!r}")
# a sweep's numbers may be written with any number of digits, however long
# the whole text
long_lo = "0.000000001" + "0" * 150
check(run("--sweep", f"{long_lo}:1e3:5").stdout == run("--sweep", "1e-9:1e3:5").stdout and
      run("--sweep", f"{long_lo}:1e3:5").returncode == 0, "a 170-character --sweep is read")

# ---- a zero vector's cosine distance is nan, as NumPy prints it, not -nan --
# (at d 1 the transformer's final LayerNorm leaves every output 0)
out = run("--model", "transformer", "--dim", "1", "--sweep", "1:2:2")
text = out.stdout.decode()
check(out.returncode == 0 and "cosine distance nan\n" in text and "-nan" not in text
      and re.search(r"^1 +nan \* +nan \*", text, re.M),
      f"--model transformer --dim 1: {text!r}")
check(json.loads(run("--model", "transformer", "--dim", "1", "--json").stdout)["mean"]["cosine_distance"] is None,
      "the JSON's zero-vector cosine distance is null")

# ---- --tokenize reads --a, --checkpoint and --prefix-space only ----------
for extra, name in ((["--scale", "3"], "--scale"), (["--b", "cat"], "--b"), (["--full"], "--full")):
    out = run("--tokenize", "--checkpoint", gpt, *extra)
    check(out.returncode == 2 and out.stdout == b"" and out.stderr ==
          f"poslab: {name}: not read by --tokenize; allowed: --a, --checkpoint, --prefix-space, --json\n".encode(),
          f"--tokenize {extra}: {out.returncode} {out.stderr!r}")
out = run("--tokenize", "--checkpoint", gpt, "--prefix-space=true", "--json")
check(out.returncode == 0 and [t["text"] for t in json.loads(out.stdout)["tokens"]] == [" dog", " bites", " man"],
      f"--tokenize with its own options: {out.stdout!r} {out.stderr!r}")
# --tokenize reads --a's words as a run does: joined by single spaces
out = run("--tokenize", "--checkpoint", gpt, "--a", "dog\t bites  man")
check(out.returncode == 0 and out.stdout == run("--tokenize", "--checkpoint", gpt, "--a", "dog bites man").stdout,
      f"--tokenize of words separated by a tab and two spaces: {out.stdout!r}")
with open("/dev/full", "wb") as full:
    out = subprocess.run([CLI, "--tokenize", "--checkpoint", gpt], stdout=full, stderr=subprocess.PIPE)
check(out.returncode == 1 and out.stderr == b"poslab: could not write the output\n", f"--tokenize > /dev/full: {out.stderr!r}")
# more tokens than the lab takes: the count and the limit that stops it
# (12 words the model has no token for, " zebra" in 6 pieces each: it said "more than 64 tokens")
out = run("--model", "checkpoint", "--checkpoint", gpt, "--a", " ".join(["zebra"] * 12))
check(out.returncode == 2 and out.stderr == b"poslab: --a: 72 tokens from position 0 pass the checkpoint's 16 positions; "
      b"allowed: at most 16 tokens from position 0\n", f"72 tokens on gpt: {out.stderr!r}")
out = run("--tokenize")
check(out.returncode == 2 and out.stderr == b"poslab: --tokenize needs --checkpoint; allowed: --checkpoint PATH, "
      b"a folder with vocab.json and merges.txt\n", f"--tokenize alone: {out.stderr!r}")

# ---- --checkpoint naming a file that is not .safetensors is bad input (2) --
readme = os.path.join(root, "README.md")
for args in (["--model", "checkpoint", "--checkpoint", readme], ["--tokenize", "--checkpoint", readme]):
    out = run(*args)
    check(out.returncode == 2 and out.stderr.decode() == f"poslab: --checkpoint: {readme} is not a folder or a "
          ".safetensors file; allowed: a checkpoint folder (config.json, model.safetensors, vocab.json, merges.txt) "
          "or its .safetensors file\n", f"{args}: {out.returncode} {out.stderr!r}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
