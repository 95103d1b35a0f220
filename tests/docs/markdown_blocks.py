"""The code blocks of the project's markdown (README.md, docs/*.md), as the doc tests read them.

Every code block is fenced and says what it is in its info string: `console` (a transcript: `$ ` lines are
commands, the lines after each are its output), `sh` (commands, output not shown), or anything else (`text`,
`toml`, `json`, `yaml`, `dockerfile`, ...: never run). A block whose commands cannot run on a build machine
starts with a visible marker line, `# needs: TAG[, TAG...] (why)`, TAG one of NEEDS below.
Parsed with markdown-it (CommonMark), so fences inside list items are found like any other.
"""

import dataclasses
import glob
import os
import re

from markdown_it import MarkdownIt

# What a marked block needs that a build machine (CI) lacks. Readers see the marker as the block's first line.
NEEDS = {
    "gpu": "a GPU with CUDA and NCCL",
    "cluster": "a Kubernetes cluster, a pod, or files collected from a fleet",
    "rdma": "a host with RDMA devices",
    "prometheus": "a live Prometheus server",
    "root": "root on the host (installs packages)",
    "minutes": "minutes of CPU: the marker says which test runs it instead",
}
RUN_LANGUAGES = {"console", "sh"}
NEEDS_LINE = re.compile(r"^#\s*needs:\s*(.*)$")


@dataclasses.dataclass
class Block:
    path: str        # relative to the source root
    line: int        # 1-based line of the opening fence (or first indented line)
    language: str    # first word of the info string; "" when none; "(indented)" for an indented code block
    lines: list      # the content, one string per line, without the fence
    needs: list      # tags of a `# needs:` marker on the first line; empty when unmarked

    def where(self, offset=0):
        return f"{self.path}:{self.line + 1 + offset}"


def markdown_files(source_root):
    """README.md and docs/*.md, relative to the source root, in a stable order."""
    files = ["README.md"] + sorted(os.path.relpath(p, source_root)
                                   for p in glob.glob(os.path.join(source_root, "docs", "*.md")))
    return [f for f in files if os.path.exists(os.path.join(source_root, f))]


def parse_needs(first_line):
    """The tags of a `# needs:` marker, or None when the line is not one; raises ValueError on an unknown tag."""
    m = NEEDS_LINE.match(first_line.strip())
    if not m:
        return None
    words = re.split(r"[,\s]+", m.group(1).split("(")[0].strip())
    tags = [w for w in words if w]
    unknown = [t for t in tags if t not in NEEDS]
    if not tags or unknown:
        raise ValueError(f"'# needs:' takes tags from {', '.join(sorted(NEEDS))}, then (why) in brackets; "
                         f"got {first_line.strip()!r}")
    return tags


def read_blocks(source_root, path):
    """Every code block of one markdown file, and the problems that make it unreadable for the doc tests."""
    text = open(os.path.join(source_root, path), encoding="utf-8").read()
    source_lines = text.split("\n")
    blocks, problems = [], []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type not in ("fence", "code_block"):
            continue
        line = token.map[0] + 1
        lines = token.content.rstrip("\n").split("\n")
        language = token.info.split()[0] if token.type == "fence" and token.info.strip() else ""
        if token.type == "code_block":
            language = "(indented)"
        needs = []
        try:
            needs = parse_needs(lines[0]) or []
        except ValueError as e:
            problems.append(f"{path}:{line + 1}: {e}")
        # Fences must pair up. CommonMark closes a fence only with a bare fence line, so a "```json" inside means
        # this block was never closed and swallowed the next one (which then neither runs nor renders); a block
        # whose last line is not a fence runs to the end of the file.
        if token.type == "fence":
            last = source_lines[token.map[1] - 1] if token.map[1] - 1 > token.map[0] else ""
            last = last.lstrip(" >").rstrip()  # in a list item or a block quote too
            closed = last.startswith(token.markup) and set(last) == {token.markup[0]}
            if any(l.lstrip().startswith(token.markup) for l in lines):
                problems.append(f"{path}:{line}: this {token.markup}{language} block holds a fence line: close it "
                                "before the next block opens (or fence it with more backticks)")
            elif not closed:
                problems.append(f"{path}:{line}: this {token.markup}{language} block is never closed: end it with "
                                f"a {token.markup} line")
        blocks.append(Block(path, line, language, lines, needs))
    for b in blocks:
        if b.language == "(indented)":
            problems.append(f"{b.path}:{b.line}: an indented code block: fence it (```console, ```sh, ```text, ...) "
                            "so the doc tests know whether it runs")
        elif b.language == "":
            problems.append(f"{b.path}:{b.line}: a code block without a language: say ```console (runs, output "
                            "compared), ```sh (runs) or what it holds (```text, ```toml, ...)")
        elif b.language in ("bash", "shell", "shell-session", "zsh"):
            problems.append(f"{b.path}:{b.line}: ```{b.language}: say ```sh (commands) or ```console (a transcript)")
        elif b.language not in RUN_LANGUAGES and any(l.startswith("$ ") for l in b.lines):
            problems.append(f"{b.path}:{b.line}: a ```{b.language} block with '$ ' command lines: a transcript "
                            "is ```console (add a '# needs:' line if it cannot run here)")
    return blocks, problems
