#!/usr/bin/python3
"""Runs the commands a markdown file shows and compares their output with what it shows.

    tests/docs/doc_commands.py --source . --build build docs/doctor.md [more.md ...]
    tests/docs/doc_commands.py --source . --build build --show docs/doctor.md   # print what the commands print

What runs (markdown_blocks.py says how blocks are tagged):
- ```console blocks: each `$ ` line is a command (a line ending in `\\` continues it); the lines up to the next
  `$ ` line are its output, stdout and stderr as a terminal shows them, compared line by line.
- ```sh blocks: each line that is not a comment is a command; its output is not compared.
- Blocks whose first line is `# needs: TAG (why)` do not run; everything else in README.md and docs/ that is a
  console or sh block does.
A command must exit 0, or N when its line ends in `# exit N`. All commands of a file run in order in one bash,
so variables, `cd` and files written carry from one block to the next.

Where they run: a fresh directory holding links to the source tree's top-level entries, with `build` linking to
the build tree; PATH starts with build/cli (so `nccl-roce` is the build's), build/tests/calibration and
nccl-tests-integration/scripts; no NCCL_*, NVSHMEM_* or UCX_* variable is set; LC_ALL=C.UTF-8, TZ=UTC.

Normalisation, applied to what commands print before comparing (nothing else is fuzzy):
1. `/tmp/...` in a command is a private directory of this run; its real path in the output reads `/tmp` again.
   The run directory's path reads `.`, the build tree's `build`, the source tree's `.`.
2. Trailing spaces of each line and blank lines at the end are ignored.
3. In the shown output, and only where written:
   - a line `...` stands for any number of lines (none included);
   - a line ending in ` ...` stands for that line with anything after the text before ` ...`;
   - `<pid>` stands for a process id (digits).
"""

import argparse
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import markdown_blocks  # noqa: E402

EXIT_COMMENT = re.compile(r"\s#\s*exits?\s+(\d+)\s*$")
TMP_IN_COMMAND = re.compile(r"(?<![\w.~/-])/tmp(?=/|\s|$|['\"])")
PLACEHOLDERS = {"<pid>": "[0-9]+"}
TIMEOUT_SECONDS = 300


class Command:
    def __init__(self, block, offset, text, expected):
        self.block, self.offset, self.text, self.expected = block, offset, text, expected
        m = EXIT_COMMENT.search(text.split("\n")[-1])
        self.exit_code = int(m.group(1)) if m else 0
        self.output, self.status = None, None

    def where(self):
        return self.block.where(self.offset)


def logical_lines(lines):
    """(offset, text) of each line, with lines ending in a backslash joined to the next."""
    i = 0
    while i < len(lines):
        start, parts = i, [lines[i]]
        while parts[-1].endswith("\\") and i + 1 < len(lines):
            i += 1
            parts.append(lines[i])
        yield start, "\n".join(parts)
        i += 1


def commands_of(block, problems):
    if block.needs or block.language not in markdown_blocks.RUN_LANGUAGES:
        return []
    out = []
    if block.language == "sh":
        for offset, text in logical_lines(block.lines):
            if text.strip() and not text.lstrip().startswith("#"):
                out.append(Command(block, offset, text, None))
        return out
    current, i, lines = None, 0, block.lines
    while i < len(lines):
        offset, text = i, lines[i]
        if text.startswith("$ "):  # a command, continued by a trailing backslash; output lines are taken as they are
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text += "\n" + lines[i]
            current = Command(block, offset, text[2:], [])
            out.append(current)
        elif current is None:
            if text.strip():
                problems.append(f"{block.where(offset)}: text before the first '$ ' command of a console block")
        else:
            current.expected.append(text)
        i += 1
    if not out:
        problems.append(f"{block.where()}: a console block without a '$ ' command")
    return out


def run_all(commands, source, build):
    """Runs the commands in one bash; fills each command's output and status."""
    scratch = tempfile.mkdtemp(prefix="nccl-roce-doc-")
    try:
        work, tmp, results = (os.path.join(scratch, d) for d in ("work", "tmp", "results"))
        for d in (work, tmp, results, os.path.join(scratch, "home")):
            os.mkdir(d)
        for entry in os.listdir(source):
            if entry not in (".git", "build") and not os.path.exists(os.path.join(work, entry)):
                os.symlink(os.path.join(source, entry), os.path.join(work, entry))
        # `build` holds links to the build tree's entries but not its CMake state, so a command that would
        # reconfigure or rebuild (one that should have been marked) cannot touch the real build tree.
        os.mkdir(os.path.join(work, "build"))
        for entry in os.listdir(build):
            if entry not in ("CMakeCache.txt", "CMakeFiles", "Makefile", "build.ninja", "cmake_install.cmake"):
                os.symlink(os.path.join(build, entry), os.path.join(work, "build", entry))
        script = ["exec </dev/null", f"cd '{work}'"]
        for i, c in enumerate(commands):
            text = TMP_IN_COMMAND.sub(tmp, c.text)
            script += ["{ " + text, f"}} >'{results}/{i}.out' 2>&1; echo $? >'{results}/{i}.rc'"]
        env = {
            "PATH": ":".join([os.path.join(build, "cli"), os.path.join(build, "tests", "calibration"),
                              os.path.join(source, "nccl-tests-integration", "scripts"),
                              "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]),
            "HOME": os.path.join(scratch, "home"), "LC_ALL": "C.UTF-8", "TZ": "UTC", "TMPDIR": tmp,
        }
        # Line-buffered stdio in every program, so stdout and stderr interleave as on a terminal. Its own
        # session, so that a timeout ends every process it started.
        shell = subprocess.Popen(["stdbuf", "-oL", "-eL", "bash", "-c", "\n".join(script)], env=env, cwd=work,
                                 start_new_session=True)
        try:
            shell.wait(timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(shell.pid, signal.SIGKILL)
            shell.wait()
        rewrites = [(tmp, "/tmp"), (work + "/", ""), (work, "."), (build, "build"), (source + "/", ""), (source, ".")]
        for i, c in enumerate(commands):
            try:
                c.status = int(open(f"{results}/{i}.rc").read())
                text = open(f"{results}/{i}.out", encoding="utf-8", errors="replace").read()
            except (OSError, ValueError):
                continue  # did not run: the shell exited or timed out before it
            for real, shown in rewrites:
                text = text.replace(real, shown)
            c.output = [line.rstrip() for line in text.rstrip("\n").split("\n")] if text.strip() else []
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def expected_pattern(expected):
    """The regular expression the shown output stands for (normalisation rule 3)."""
    lines = list(expected)
    while lines and not lines[-1].strip():
        lines.pop()
    parts = []
    for line in lines:
        line = line.rstrip()
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        rest = ""
        if line.endswith(" ..."):
            line, rest = line[:-4], r"[^\n]*"
        pieces = re.split("(" + "|".join(re.escape(p) for p in PLACEHOLDERS) + ")", line)
        parts.append("".join(PLACEHOLDERS.get(p, re.escape(p)) for p in pieces) + rest + r"\n")
    return re.compile("".join(parts), re.DOTALL)


def failures_of(c):
    if c.status is None:
        return [f"{c.where()}: did not run (the shell exited or the file's commands took over "
                f"{TIMEOUT_SECONDS} s): {c.text}"]
    out = []
    if c.status != c.exit_code:
        out.append(f"{c.where()}: exit status {c.status}, the doc says {c.exit_code}: {c.text}")
    actual = "".join(line + "\n" for line in c.output)
    if c.expected is not None and not expected_pattern(c.expected).fullmatch(actual):
        diff = difflib.unified_diff([l.rstrip() for l in c.expected], c.output, "shown in the doc", "printed",
                                    lineterm="", n=2)
        out.append(f"{c.where()}: output differs from the doc: {c.text}\n" + "\n".join(diff))
    elif c.status != c.exit_code and c.output:
        out.append("  it printed:\n" + "\n".join("    " + l for l in c.output[-20:]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", required=True, help="source tree (holds README.md and docs/)")
    parser.add_argument("--build", required=True, help="build tree (holds cli/nccl-roce)")
    parser.add_argument("--show", action="store_true", help="print what each command printed, normalised")
    parser.add_argument("files", nargs="*", help="markdown files, relative to the source tree (default: all)")
    args = parser.parse_args()
    source, build = os.path.abspath(args.source), os.path.abspath(args.build)
    status = 0
    for path in args.files or markdown_blocks.markdown_files(source):
        blocks, problems = markdown_blocks.read_blocks(source, path)
        commands = [c for b in blocks for c in commands_of(b, problems)]
        if commands:
            run_all(commands, source, build)
        failures = list(problems)
        for c in commands:
            if args.show:
                print(f"{c.where()}: $ {c.text}   # exit {c.status}")
                print("\n".join(c.output or []))
            failures += failures_of(c)
        marked = [b for b in blocks if b.needs]
        print(f"{path}: {len(commands)} command(s) run, {sum(c.expected is not None for c in commands)} with "
              f"their output compared; {len(marked)} block(s) marked '# needs:' not run"
              + (f"; {len(failures)} problem(s):" if failures else ""))
        for f in failures:
            print(f)
        status |= 1 if failures else 0
    return status


if __name__ == "__main__":
    sys.exit(main())
