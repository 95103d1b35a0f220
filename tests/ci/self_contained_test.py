#!/usr/bin/env python3
"""The repository is all a reader gets: no file refers to documents or paths outside it. The contracts and the
facts about NCCL live in docs/ (docs/contracts.md, docs/nccl-facts.md), and test data says in words where it came
from. A line that names the work area's shared folder, its design document, or a path of one machine fails the
test with its file and line.
Usage: self_contained_test.py SOURCE_DIR"""
import pathlib
import re
import sys

# Spelled in pieces so that this file does not match itself (nor a grep for the same words).
SHARED = "sha" + "red"
OUTSIDE = [
    (re.compile(r"\.\./" + SHARED + r"\b"), "a path into the work area outside the repository"),
    (re.compile(r"\b" + SHARED + r"/(DES" r"IGN|research|nccl-data|gpu-runs)\b"), "the work area's shared folder"),
    (re.compile(r"\bDES" + r"IGN\b"), "the design document outside the repository (see docs/contracts.md)"),
    (re.compile(r"(?<![\w./-])/wo" + r"rk/"), "a path of one machine"),
]
# Build trees and version control are not the project's files.
SKIPPED_TOP = re.compile(r"^(\.git|build([-_].*)?|dist)$")


def files(source):
    for top in sorted(source.iterdir()):
        if SKIPPED_TOP.match(top.name):
            continue
        if top.is_file():
            yield top
        elif top.is_dir():
            yield from (path for path in sorted(top.rglob("*")) if path.is_file())


def main(source):
    problems = []
    for path in files(source):
        data = path.read_bytes()
        if b"\0" in data:
            continue  # binary
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            for pattern, what in OUTSIDE:
                if pattern.search(line):
                    problems.append(f"{path.relative_to(source)}:{number}: names {what}: {line.strip()[:100]}")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} reference(s) outside the repository" if problems
          else "no file refers to anything outside the repository")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
