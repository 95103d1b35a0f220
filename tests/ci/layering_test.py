#!/usr/bin/env python3
"""Every folder includes only from the layers below it (docs/architecture.md, "Layers"): a file that includes
upward, or from a layer this table does not list for it, fails the test with its name and line.
Usage: layering_test.py SOURCE_DIR"""
import pathlib
import re
import sys

# What each layer may include besides itself; top-level folders not listed (tests/) may include anything.
ALLOWED = {
    "common": set(),
    "telemetry": {"common"},
    "gid": {"common"},
    "verdicts": {"common"},
    "policy": {"common", "telemetry"},
    "tuner": {"common", "telemetry", "policy"},
    "inspect": {"common", "telemetry", "policy", "tuner"},
    "profiler": {"common", "telemetry"},
    "plugin": {"common", "telemetry", "gid", "policy", "tuner", "profiler"},
    "fleet": {"common", "telemetry", "verdicts", "policy"},
    "nccl-tests-integration": {"common", "telemetry", "verdicts", "policy", "inspect"},
    "cli": {"common", "telemetry", "gid", "verdicts", "policy", "tuner", "inspect", "profiler", "plugin", "fleet",
            "nccl-tests-integration"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z-]+)/')


def main(source):
    problems = []
    for layer, allowed in ALLOWED.items():
        for path in sorted((source / layer).rglob("*")):
            if path.suffix not in (".h", ".cc", ".c", ".in"):
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if match and match.group(1) != layer and match.group(1) not in allowed:
                    problems.append(f"{path.relative_to(source)}:{number}: {layer}/ includes {match.group(1)}/, "
                                    f"which is not below it")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} include(s) against the layers" if problems else "every include runs down the layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
