"""The documents against the built CLI and the repository: README.md and
docs/*.md must show only commands and options that exist, examples that run
as shown, and links that lead somewhere.

- Every `--option` the documents show for poslab (in a poslab command line,
  in a usage synopsis, or as inline code starting with `--`) must be listed
  by `poslab --help`.
- Every shown command line that runs poslab on its own (`$ poslab ...` or
  `$ build/native/poslab ...` in a code block, possibly piped into head,
  tail, grep, sed, wc or python3; `poslab ...` as inline code) is run: it must
  exit 0, or 2 when the lines shown under it are an error (`poslab: ...`),
  and the lines shown under it must appear in its output, in order (a line
  `...` stands for lines left out).
- Every relative link and image must name a file of the repository (not a
  build output), and an anchor must name a heading of that file.
- Every file path in backticks (`src/positions.c`) must be a file or folder
  of the repository (or a build output listed in BUILT), and every C or JS
  name in backticks (`poslab_run`, `createLab`, `lab.threshold`) must be
  defined in the code; a JSON field counts when the code writes it. Every
  miss is listed with its document and line.

usage: python3 tests/test_docs.py ROOT PATH_TO_POSLAB
       python3 tests/test_docs.py ROOT            (paths, names and links only: no build needed)
       python3 tests/test_docs.py ROOT --list     (every path and name the documents cite, and where)
Needs only the standard library.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1])
LIST = "--list" in sys.argv[2:]
CLI = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 and not LIST else None
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("not ok:", what)


def documents():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def rel(path):
    return os.path.relpath(path, ROOT)


# ---- reading a document ------------------------------------------------
class Doc:
    """A markdown file split into code blocks (with their first line
    number) and prose lines with inline code spans."""

    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        self.blocks = []  # (line number, [lines])
        self.prose = []  # (line number, text)
        fence = None
        block = None
        previous_blank = True
        for n, line in enumerate(self.lines, 1):
            if fence is not None:
                if line.strip().startswith(fence):
                    self.blocks.append(block)
                    fence, block = None, None
                else:
                    block[1].append(line[indent:] if line[:indent].strip() == "" else line.strip())
                continue
            m = re.match(r"^(\s*)(```+|~~~+)", line)
            if m:
                if block is not None:
                    self.blocks.append(dedent(block))
                fence, indent, block = m.group(2), len(m.group(1)), (n + 1, [])
                continue
            if line.startswith("    ") and (block is not None or previous_blank):
                if block is None:
                    block = (n, [])
                block[1].append(line)
            elif line.strip() == "" and block is not None:
                block[1].append("")
            else:
                if block is not None:
                    self.blocks.append(dedent(block))
                    block = None
                self.prose.append((n, line))
            previous_blank = line.strip() == ""
        if block is not None:
            self.blocks.append(dedent(block))

    def inline_code(self):
        """(line number, span) for every inline code span of the prose,
        spans across a line break joined."""
        text = "\n".join(f"\x00{n}\x00{line}" for n, line in self.prose)
        for m in re.finditer(r"(?<!`)`([^`]+)`(?!`)", text):
            start = text.rfind("\x00", 0, m.start())
            n = int(text[text.rfind("\x00", 0, start) + 1:start])
            span = re.sub(r"\x00\d+\x00", "", m.group(1)).replace("\n", " ")
            yield n, span


def dedent(block):
    """An indented code block without its common indentation (4 spaces, or
    more inside a list item)."""
    first, lines = block
    indent = min(len(l) - len(l.lstrip()) for l in lines if l.strip())
    return first, [l[indent:] for l in lines]


def headings(path):
    """GitHub's anchors for the headings of a markdown file."""
    seen, anchors = {}, set()
    fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if re.match(r"^\s*(```|~~~)", line):
                fence = not fence
            m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            k = seen.get(slug, 0)
            seen[slug] = k + 1
            anchors.add(slug if k == 0 else f"{slug}-{k}")
    return anchors


# ---- what the CLI offers -----------------------------------------------
if CLI:
    help_run = subprocess.run([CLI, "--help"], capture_output=True, text=True)
    check(help_run.returncode == 0, f"poslab --help exits 0: {help_run.returncode}")
    OFFERED = set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", help_run.stdout))
    check({"a", "scheme", "causal", "json", "help", "version"} <= OFFERED, f"--help lists the options: {sorted(OFFERED)}")

PROGRAM = re.compile(r"^(?:build/native/)?poslab(?=\s|$)")
PIPE_TOOLS = {"head", "tail", "grep", "sed", "wc", "python3"}


def options_of(command):
    """The option names a command line or synopsis shows."""
    return [m.group(1) for m in re.finditer(r"(?<![\w-])--([a-z][a-z0-9-]*)", command)]


def self_contained(command):
    """Whether a shown poslab command runs on its own: poslab first, pipes
    only into text tools, nothing read from or written to files."""
    if not PROGRAM.match(command) or re.search(r"[<>]", re.sub(r"'[^']*'|\"[^\"]*\"", "", command)):
        return False
    stages = re.split(r"\|(?![^'\"]*['\"][^'\"]*$)", command)
    return all(stage.split()[0] in PIPE_TOOLS for stage in stages[1:] if stage.strip())


def run(command):
    shell = PROGRAM.sub(lambda m: "'" + CLI + "'", command, count=1)
    with tempfile.TemporaryDirectory() as cwd:
        out = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, cwd=cwd, timeout=120)
    return out


def shown_in_order(shown, got):
    """Whether every shown line (but `...`) is a line of got, in order."""
    lines = [l.rstrip() for l in got.split("\n")]
    at = 0
    for want in shown:
        if want.strip() in ("...", ""):
            continue
        while at < len(lines) and lines[at] != want.rstrip():
            at += 1
        if at == len(lines):
            return want
        at += 1
    return None




# ---- file paths and code names the prose cites --------------------------
# A path in backticks must be a file or folder of the repository; a C or JS
# name must be defined in the code (a function, a constant, a member, an
# export) or, for a JSON field or config key, be written by it. Names go
# stale when code is renamed, so every miss is listed with its place.
CODE_DIRS = ("src", "web", "tests", "models")
CODE_FILES = ("CMakeLists.txt", "Makefile", "package.json")
CODE_EXT = (".c", ".h", ".js", ".mjs", ".ts", ".py", ".json", ".cmake", ".sh", ".html", ".css", ".txt")
# Outputs of the build and files a user brings: cited, never committed.
BUILT = {"poslab.wasm", "poslab-nosimd.wasm", "poslab-core.js", "poslab-checkpoint.js", "poslab-checkpoint.wasm",
         "poslab.html", "model.safetensors", "model.safetensors.index.json", "kept.json", "poslab.js",
         "poslab.d.ts", "checkpoints.js", "poslab-checkpoint.d.ts"}
BUILT_DIRS = ("build/", "dist/", "node_modules/", "tests/artifacts/", "poslab-gpt2/", "chunks/")
# Names of other projects' code and files, and example paths, that the
# documents cite on purpose.
EXTERNAL = {
    "AbortSignal", "AbortError",  # the web platform's
    "init_genrand",         # MT19937's reference seeding, which NumPy follows
    "last_hidden_state",    # Hugging Face's output name
    "encoder.py", "encoder.json", "src/encoder.py",  # OpenAI's GPT-2 tokenizer
    "openai-community/gpt2",  # GPT-2 on Hugging Face
    "onnx/config.json",     # a file Hugging Face's GPT-2 folder holds
    "models/gpt2/",         # where a site may put GPT-2 (not committed: 548 MB)
}
# Dotted names are checked only on the wrapper's own objects; np.x,
# Blob.x, navigator.x and the like belong to others.
OWN_OBJECTS = {"lab", "ck", "steps", "poslabDebug", "window.poslabDebug", "loader"}
FILE_EXT = r"\.(?:c|h|js|mjs|ts|py|json|cmake|sh|md|html|css|wasm|txt|safetensors)"
TOP = ("src/", "web/", "tests/", "models/", "docs/", "build/", "dist/", ".github/")
PATH_SPAN = re.compile(r"^[\w.@*-]+(?:/[\w.@*-]+)*/?$")
NAME_SPAN = re.compile(r"^(?:new\s+)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\(.*\))?;?$")


def tree_files():
    out = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True)
    if out.returncode == 0 and out.stdout.strip():
        return set(out.stdout.split("\n")) - {""}
    found = set()
    for base, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in (".git", "build", "dist", "node_modules")]
        found.update(os.path.relpath(os.path.join(base, f), ROOT) for f in files)
    return found


def code_texts():
    """(path, text) of each source file (fuzz inputs and fixtures are data)
    and build file in the tree, in path order."""
    for f in sorted(TREE):
        source = f.split("/")[0] in CODE_DIRS and f.endswith(CODE_EXT) and "/fuzz/" not in f and "/fixtures/" not in f
        if not (source or f in CODE_FILES):
            continue
        try:
            with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
                yield f, fh.read()
        except (OSError, UnicodeDecodeError):
            continue


def code_index():
    """word -> the lines of source that hold it, and the build files' words
    (a CMake target, an Emscripten setting or export name is defined there)."""
    index, build_words = {}, set()
    for f, text in code_texts():
        if f in CODE_FILES:
            build_words.update(re.findall(r"[A-Za-z_]\w*", text) + re.findall(r"-s([A-Z_]+)", text))
        for line in text.split("\n"):
            for word in set(re.findall(r"[A-Za-z_$][\w$]*", line)):
                index.setdefault(word, []).append(line)
    return index, build_words


def path_exists(span):
    if span in EXTERNAL:
        return True
    p = span.rstrip("/")
    if p.startswith("./"):
        p = p[2:]
    if any(span.startswith(d) for d in BUILT_DIRS) or os.path.basename(p) in BUILT:
        return True
    if "*" in p:
        rx = re.compile("^" + re.escape(p).replace(r"\*", "[^/]*") + "$")
        return any(rx.match(f) or rx.match(os.path.basename(f)) for f in TREE)
    # from the root, from web/ (the site's own paths) or, for a bare file name, anywhere
    for base in ("", "web/", "src/", "tests/"):
        q = base + p
        if q in TREE or any(f.startswith(q + "/") for f in TREE):
            return True
    if "/" not in p:
        return any(os.path.basename(f) == p or ("/" + p + "/") in ("/" + f) for f in TREE)
    return False


def looks_like_code_name(name, called):
    """A C or JS identifier worth checking: snake_case, camelCase, an
    UPPER_CASE constant, or anything written as a call; not a plain word."""
    last = name.split(".")[-1]
    return called or "_" in last or re.search(r"[a-z][A-Z]", last) or "." in name


def defined(name):
    """Whether the code defines (or, for a field, writes) this name."""
    last = name.split(".")[-1]
    if last in EXTERNAL or re.match(r"^[A-Za-z]_[A-Za-z0-9]{1,2}$", last):  # X_A, m_h: the math's notation
        return True
    if last in BUILD_WORDS or last in STEMS:
        return True
    lines = CODE.get(last)
    if not lines:
        return False
    n = re.escape(last)
    patterns = [
        rf"\b(?:function\*?|class|const|let|var|get|set|async|export|typedef|struct|enum|#define)\s+\*?{n}\b",
        rf"\b{n}\s*\([^;{{]*\)\s*(?:\{{|=>|:)",   # a C definition, a JS method, a declared member
        rf"^\s*(?:static\s+)?[\w\s\*]+\b{n}\s*\(",  # a C declaration
        rf"(?:^|[\s{{,]){n}\s*\??:",               # an object member, an interface field
        rf"[\"'/.]{n}[\"'.]",                       # a JSON field or key, a tensor name in a string
        rf"\b{n}\s*=[^=]",                          # an assignment (a member set in a constructor)
        rf"^\s*{n}\s*,?\s*$",                      # a row of a list of names
        rf"[{{,]\s*{n}\s*[}},]",                    # an export list or object shorthand
    ]
    text = "\n".join(lines)
    return any(re.search(p, text, re.M) for p in patterns)


def cited_names(doc):
    """(line number, span, kind) for each path or code name in the prose."""
    for n, span in doc.inline_code():
        span = span.strip()
        if not span or span.startswith("-") or PROGRAM.match(span) or " " in span.split("(")[0]:
            continue
        if re.match(FILE_EXT + "$", span):  # a kind of file (`.wasm`), not a file
            continue
        if PATH_SPAN.match(span) and (re.search(FILE_EXT + "$", span) or span.startswith(TOP)
                                      or ("/" in span and span.endswith("/"))):
            if not span.startswith(("application/", "text/")):
                yield n, span, "path"
            continue
        m = NAME_SPAN.match(span)
        if not m:
            continue
        name, called = m.group(1), bool(m.group(2))
        if re.search(r"\.(?:c|h|js|mjs|ts|py|json|md|wasm|html|css|sh|txt)$", name):
            yield n, name, "path"
            continue
        if "." in name and name.split(".")[0] not in OWN_OBJECTS and not name.startswith("window.poslabDebug"):
            continue
        if looks_like_code_name(name, called):
            yield n, name, "name"


def check_names(paths):
    missing, seen = [], 0
    for path in paths:
        doc = Doc(path)
        for n, span, kind in cited_names(doc):
            seen += 1
            ok = path_exists(span) if kind == "path" else defined(span)
            if not ok:
                missing.append(f"{rel(path)}:{n}: `{span}` ({'no such file' if kind == 'path' else 'not defined in the code'})")
    return seen, missing


def code_citations():
    """(file:line, document, section) for each `docs/X.md, "Section"` the
    code cites, and (file:line, document) for each document it names."""
    cited, named = [], []
    rx = re.compile(r"(docs/)?\b([\w-]+\.md)(?:['\u2019]s)?,?[ \t]*(?:\n[ \t]*(?:[*#]|//)?[ \t]*)?\(?\"([A-Za-z][^\"\n]{1,59})\"")
    for f, text in code_texts():
        if f == "tests/test_docs.py":
            continue
        for m in re.finditer(r"docs/([\w-]+\.md)", text):
            named.append((f"{f}:{text.count(chr(10), 0, m.start()) + 1}", m.group(1)))
        for m in rx.finditer(text):
            # a bare name (experiment.md, "Draws") counts when docs/ has such a file
            if m.group(1) or os.path.exists(os.path.join(ROOT, "docs", m.group(2))):
                cited.append((f"{f}:{text.count(chr(10), 0, m.start()) + 1}", m.group(2), m.group(3)))
    return cited, named


def heading_texts(path):
    with open(path, encoding="utf-8") as f:
        return {re.sub(r"^#+\s*", "", l).strip().lower() for l in f if re.match(r"^#{1,6}\s", l)}


TREE = tree_files()
CODE, BUILD_WORDS = code_index()
STEMS = {os.path.basename(f).split(".")[0] for f in TREE}


if LIST:
    for path in documents():
        for n, span, kind in cited_names(Doc(path)):
            print(f"{rel(path)}:{n}\t{kind}\t{span}")
    sys.exit(0)

commands_run = options_seen = links_seen = 0
names_seen, names_missing = check_names(documents())
check(not names_missing, "paths and names the documents cite that the tree does not hold "
      "(renamed or removed? fix the document):\n  " + "\n  ".join(names_missing))
# ---- the other way: the documents and sections the code cites exist ----
citations, named_docs = code_citations()
stale = [f"{where}: docs/{doc} (no such document)" for where, doc in named_docs
         if not os.path.exists(os.path.join(ROOT, "docs", doc))]
for where, doc, section in citations:
    path = os.path.join(ROOT, "docs", doc)
    if os.path.exists(path) and section.lower() not in heading_texts(path):
        stale.append(f'{where}: docs/{doc}, "{section}" (no such heading)')
check(not stale, "documents and sections the code cites that do not exist:\n  " + "\n  ".join(stale))
check(len(citations) >= 5, f"the code's citations of documents were read: {len(citations)}")
for path in documents():
    doc = Doc(path)
    where = rel(path)

    # ---- commands and options in code blocks ----
    for first, lines in (doc.blocks if CLI else []):
        k = 0
        while k < len(lines):
            line = lines[k]
            n = first + k
            if line.startswith("$ "):
                command = line[2:].strip()
                shown = []
                k += 1
                while k < len(lines) and not lines[k].startswith("$ "):
                    shown.append(lines[k])
                    k += 1
                while shown and not shown[-1].strip():
                    shown.pop()
                if not PROGRAM.match(command):
                    continue
                error = bool(shown) and shown[0].startswith("poslab: ")
                if not error:  # an error example may show a wrong option on purpose
                    for name in options_of(command.split("|")[0]):
                        options_seen += 1
                        check(name in OFFERED, f"{where}:{n}: --{name} is not in poslab --help")
                if not self_contained(command):
                    continue
                out = run(command)
                commands_run += 1
                want = 2 if error else 0
                check(out.returncode == want,
                      f"{where}:{n}: `{command}` exits {out.returncode}, expected {want}: {out.stderr.strip()[:200]}")
                missing = shown_in_order(shown, out.stdout + out.stderr)
                check(missing is None, f"{where}:{n}: `{command}` does not print the line shown:\n  {missing}\n"
                                       f"  it printed:\n{(out.stdout + out.stderr)[:1500]}")
                continue
            # a synopsis: poslab [--a TEXT] ... and its continuation lines
            if PROGRAM.match(line.strip()) or re.match(r"^\s+\[--", line):
                for name in options_of(line):
                    options_seen += 1
                    check(name in OFFERED, f"{where}:{n}: --{name} is not in poslab --help")
            k += 1

    # ---- inline code: options and command lines ----
    for n, span in (doc.inline_code() if CLI else []):
        span = span.strip()
        if span.startswith("--"):
            for name in options_of(span.split()[0]):
                options_seen += 1
                check(name in OFFERED, f"{where}:{n}: `{span}`: --{name} is not in poslab --help")
        elif PROGRAM.match(span):
            for name in options_of(span):
                options_seen += 1
                check(name in OFFERED, f"{where}:{n}: `{span}`: --{name} is not in poslab --help")
            if self_contained(span):
                out = run(span)
                commands_run += 1
                check(out.returncode == 0, f"{where}:{n}: `{span}` exits {out.returncode}: {out.stderr.strip()[:200]}")

    # ---- relative links and images, outside code ----
    prose = "\n".join(re.sub(r"`[^`]*`", "", line) for _, line in doc.prose)
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose)
    targets += re.findall(r"<(?:img|a)\b[^>]*\b(?:src|href)=\"([^\"]+)\"", prose)
    for target in targets:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        links_seen += 1
        file, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        inside = os.path.relpath(resolved, ROOT)
        built = inside.split(os.sep)[0] in ("build", "dist", "node_modules") or inside.startswith("tests/artifacts")
        ok = not inside.startswith("..") and not built and os.path.exists(resolved)
        check(ok, f"{where}: link {target} does not lead to a file of the repository")
        if ok and anchor and resolved.endswith(".md"):
            check(anchor in headings(resolved), f"{where}: link {target}: no heading #{anchor} in {inside}")

    # ---- user documents say what a target is, not which issue asked for it ----
    labels = [f"{where}:{n}: {line.strip()[:100]}" for n, line in enumerate(doc.lines, 1)
              if re.search(r"\bissues?\s+#?\d+|(?<![\w&/])#\d+\b", line, re.I)]
    check(not labels, "issue labels (a clone cannot look them up):\n  " + "\n  ".join(labels))

check((commands_run >= 10 and options_seen >= 40 or not CLI) and links_seen >= 20 and names_seen >= 100,
      f"the documents were read: {commands_run} commands run, {options_seen} options, {links_seen} links, "
      f"{names_seen} paths and names")
print(f"{commands_run} commands run, {options_seen} options, {links_seen} links and {names_seen} paths and names checked")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
