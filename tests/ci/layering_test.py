#!/usr/bin/env python3
"""Every folder includes only from the layers below it (docs/architecture.md, "Layers"): a file that includes
upward, or from a layer this table does not list for it, fails the test with its name and line. A folder with
rooms of its own (nccl-tests-integration/: the sweep library and the CUDA driver) is checked room by room, so
neither of its rooms reaches into the other.
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
    "nccl-tests-integration/sweep": {"common", "telemetry", "verdicts", "policy", "inspect"},
    "nccl-tests-integration/driver": {"common", "telemetry"},
    "cli": {"common", "telemetry", "gid", "verdicts", "policy", "tuner", "inspect", "profiler", "plugin", "fleet",
            "nccl-tests-integration/sweep", "nccl-tests-integration/driver"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z-]+/[^"]*)"')
SOURCES = (".h", ".cc", ".c", ".in")


def layer_of(path):
    """The layer a path ("a/b/c.h", relative to the source root) belongs to: the longest folder of ALLOWED that
    holds it, else its top-level folder."""
    parts = path.split("/")
    for n in range(len(parts) - 1, 0, -1):
        if "/".join(parts[:n]) in ALLOWED:
            return "/".join(parts[:n])
    return parts[0]


def main(source):
    problems = []
    folders = sorted({layer.split("/")[0] for layer in ALLOWED})
    for folder in folders:
        for path in sorted((source / folder).rglob("*")):
            if path.suffix not in SOURCES:
                continue
            name = path.relative_to(source).as_posix()
            layer = layer_of(name)
            if layer not in ALLOWED:
                problems.append(f"{name}: in no layer of the table (a room of {folder}/ it does not list)")
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = layer_of(match.group(1))
                if target != layer and target not in ALLOWED[layer]:
                    problems.append(f"{name}:{number}: {layer}/ includes {target}/, which is not below it")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} include(s) against the layers" if problems else "every include runs down the layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1])))
