#!/usr/bin/python3
"""The docs name everything a user can set.

    tests/docs/doc_coverage.py --source . --build build flags        # every option of every command
    tests/docs/doc_coverage.py --source . --build build environment  # every NCCL_ROCE_* variable

flags: each option `nccl-roce CMD --help` lists appears (one of its spellings, as a whole word) in the docs about
that command (HOME_DOCS); a command without home docs is a failure too.
environment: each NCCL_ROCE_* variable that the code or the scripts read (a C/C++ or Python string literal, or
$NAME / ${NAME in a shell script; unit and ABI tests' made-up names aside) has a heading of its own in
docs/environment.md, and each such heading names a variable something reads.
"""

import argparse
import glob
import os
import re
import subprocess
import sys

# The docs that describe each command; its options must appear in one of them.
HOME_DOCS = {
    "detect": ["docs/resolver.md"],
    "env": ["docs/resolver.md"],
    "snapshot": ["docs/resolver.md"],
    "doctor": ["docs/doctor.md"],
    "policy lint": ["docs/policy-format.md", "docs/tuner.md"],
    "policy digest": ["docs/rollout.md"],
    "policy explain": ["docs/tuner.md", "docs/policy-format.md"],
    "policy verify": ["docs/tuner.md", "docs/gpu-proof.md"],
    "sweep parse": ["docs/sweep.md"],
    "sweep compare": ["docs/sweep.md"],
    "sweep fit": ["docs/sweep.md"],
    "ab": ["docs/ab-testing.md"],
    "ab fit": ["docs/ab-testing.md"],
    "ab plan": ["docs/ab-testing.md"],
    "proof": ["docs/gpu-proof.md"],
    "layout": ["docs/quickstart.md"],
}
GROUPS = ["policy", "sweep"]  # commands that only hold subcommands


def help_text(cli, command):
    return subprocess.run([cli, *command.split(), "--help"], capture_output=True, text=True, check=True).stdout


def options_of(text):
    """Each option's spellings, from CLI11's help (the lines under 'Options:'), --help itself left out."""
    options, section = [], None
    for line in text.split("\n"):
        if re.match(r"^\S.*:$", line):
            section = line.strip()
            continue
        m = re.match(r"^  (-[\w-]+(?:,-[\w-]+)*)", line)
        if section == "Options:" and m:
            names = m.group(1).split(",")
            if "--help" not in names:
                options.append(names)
    return options


def subcommands_of(text):
    out, section = [], None
    for line in text.split("\n"):
        if re.match(r"^\S.*:$", line):
            section = line.strip()
            continue
        m = re.match(r"^  ([a-z][\w-]*)\s", line)
        if section == "Subcommands:" and m:
            out.append(m.group(1))
    return out


def commands(cli):
    """Every leaf command, found from the help itself so a new command cannot be missed."""
    found = []
    for top in subcommands_of(help_text(cli, "")):
        subs = subcommands_of(help_text(cli, top))
        if top not in GROUPS:
            found.append(top)
        found += [f"{top} {s}" for s in subs]
    return found


def check_flags(source, build):
    cli = os.path.join(build, "cli", "nccl-roce")
    problems, count = [], 0
    for command in commands(cli):
        homes = HOME_DOCS.get(command)
        if not homes:
            problems.append(f"nccl-roce {command}: no docs listed for it in tests/docs/doc_coverage.py HOME_DOCS")
            continue
        text = "".join(open(os.path.join(source, h), encoding="utf-8").read() for h in homes)
        for names in options_of(help_text(cli, command)):
            count += 1
            if not any(re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", text) for n in names):
                problems.append(f"nccl-roce {command} {','.join(names)}: in --help but in none of {', '.join(homes)}")
    return count, problems


READ_IN_CODE = re.compile(r"\"(NCCL_ROCE_[A-Z0-9_]+)\"")
READ_IN_SHELL = re.compile(r"\$\{?(NCCL_ROCE_[A-Z0-9_]+)")


def variables_read(source):
    """NCCL_ROCE_* names the code and the scripts read, with one place each is read."""
    found = {}
    code = [p for ext in ("cc", "h", "c", "py") for p in glob.glob(os.path.join(source, "**", f"*.{ext}"), recursive=True)]
    shell = glob.glob(os.path.join(source, "**", "*.sh"), recursive=True) + \
        [p for p in glob.glob(os.path.join(source, "scripts", "*")) + [os.path.join(source, ".ci", "run")]
         if os.path.isfile(p)]
    for paths, pattern in ((code, READ_IN_CODE), (shell, READ_IN_SHELL)):
        for path in paths:
            rel = os.path.relpath(path, source)
            # Unit and ABI tests read made-up names to test the environment seam: test data, not settings.
            if rel.startswith(("build", "tests/docs/", "tests/unit/", "tests/abi/")):
                continue
            for name in pattern.findall(open(path, encoding="utf-8", errors="replace").read()):
                found.setdefault(name, rel)
    return found


def check_environment(source):
    read = variables_read(source)
    doc = open(os.path.join(source, "docs", "environment.md"), encoding="utf-8").read()
    documented = set(re.findall(r"^#+\s+`?(NCCL_ROCE_[A-Z0-9_]+)`?\s*$", doc, re.MULTILINE))
    problems = [f"{name} (read in {where}): no heading of its own in docs/environment.md"
                for name, where in sorted(read.items()) if name not in documented]
    problems += [f"docs/environment.md documents {name}, which nothing reads" for name in sorted(documented - set(read))]
    return len(read), problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("what", choices=["flags", "environment"])
    args = parser.parse_args()
    source, build = os.path.abspath(args.source), os.path.abspath(args.build)
    if args.what == "flags":
        count, problems = check_flags(source, build)
        print(f"{count} options of nccl-roce checked against the docs" + (f"; {len(problems)} missing:" if problems else ""))
    else:
        count, problems = check_environment(source)
        print(f"{count} NCCL_ROCE_* variables read by the code and scripts" +
              (f"; {len(problems)} problem(s):" if problems else ""))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
