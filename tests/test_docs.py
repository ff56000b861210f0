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

usage: python3 tests/test_docs.py ROOT PATH_TO_POSLAB
Needs only the standard library.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1])
CLI = os.path.abspath(sys.argv[2])
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


commands_run = options_seen = links_seen = 0
for path in documents():
    doc = Doc(path)
    where = rel(path)

    # ---- commands and options in code blocks ----
    for first, lines in doc.blocks:
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
    for n, span in doc.inline_code():
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

check(commands_run >= 10 and options_seen >= 40 and links_seen >= 20,
      f"the documents were read: {commands_run} commands run, {options_seen} options, {links_seen} links")
print(f"{commands_run} commands run, {options_seen} options and {links_seen} links checked")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
