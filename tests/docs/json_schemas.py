#!/usr/bin/python3
"""Every JSON output of nccl-roce, made by the build from real inputs, validates against its schema in
share/nccl-roce/schemas/ (python3-jsonschema, Draft 2020-12), and every schema is named in the docs.

    tests/docs/json_schemas.py --source . --build build

A format that gains a field gains it in its schema too (the schemas refuse fields they do not describe).
"""

import argparse
import ctypes
import glob
import json
import os
import subprocess
import sys
import tempfile

import jsonschema


def run(argv, **kwargs):
    """stdout of a command that must not crash (exit 0, 1 or 3: a report, not a usage error; cli/exit_status.h)."""
    done = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)
    if done.returncode not in (0, 1, 3):
        raise RuntimeError(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr}")
    return done.stdout


def plugin_statistics(build, scratch):
    """A statistics file written by the built library itself, driven as NCCL drives its tuner (ncclTunerPlugin_v7:
    init, getCollInfo over a cost table, getChunkSize, finalize), in a child process so the file is complete at its
    exit. Its policy sets chunk sizes, so what the tuner writes of them is checked too."""
    script = f"""
import ctypes, os
lib = ctypes.CDLL({os.path.join(build, "plugin", "libnccl-roce.so")!r})
Logger = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p)
log = Logger(lambda *args: None)  # NCCL's logger is variadic; the extra arguments are ignored
class Tuner(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("init", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64, ctypes.c_size_t,
                                          ctypes.c_size_t, Logger, ctypes.c_void_p, ctypes.c_void_p)),
                ("getCollInfo", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_int,
                                                 ctypes.POINTER(ctypes.POINTER(ctypes.c_float)), ctypes.c_int, ctypes.c_int,
                                                 ctypes.c_int, ctypes.POINTER(ctypes.c_int))),
                ("finalize", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)),
                ("getChunkSize", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_int,
                                                  ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)))]
tuner = Tuner.in_dll(lib, "ncclTunerPlugin_v7")
ctx = ctypes.c_void_p()
assert tuner.init(ctypes.byref(ctx), 0x5f3c9a0e7d21b4c8, 16, 2, log, None, None) == 0
table = (ctypes.c_float * 21)(*([1.0] * 21))  # 7 algorithms x 3 protocols, all offered
contiguous = ctypes.cast(table, ctypes.POINTER(ctypes.POINTER(ctypes.c_float)))  # float[7][3] as float**, as NCCL
channels = ctypes.c_int(0)
for size in (4096, 65536, 1 << 20, 1 << 26):
    assert tuner.getCollInfo(ctx, 4, size, 1, contiguous, 7, 3, 0, ctypes.byref(channels)) == 0
    chunk = ctypes.c_size_t(1 << 19)  # NCCL's own for Ring/Simple (algorithm 1, protocol 2)
    assert tuner.getChunkSize(ctx, 4, size // 8, 1, 2, 1, ctypes.byref(chunk)) == 0
assert tuner.finalize(ctx) == 0
"""
    prefix = os.path.join(scratch, "plugin-stats")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCL_", "NVSHMEM_", "UCX_"))}
    env.update({"NCCL_ROCE_STATS": prefix, "NCCL_ROCE_PROFILE": "0",
                "NCCL_ROCE_POLICY_INLINE": '[policy]\nname = "chunks"\n[[rule]]\nsize = "..1M"\nprotocol = "ll"\n'
                                           '[[rule]]\nsize = "1M.."\nalgorithm = "ring"\nprotocol = "simple"\n'
                                           'chunk_size = "x2"\n'})
    subprocess.run([sys.executable, "-c", script], env=env, check=True)
    files = glob.glob(prefix + ".*.json")
    if len(files) != 1:
        raise RuntimeError(f"the plugin wrote {len(files)} statistics files, not 1")
    return json.load(open(files[0]))


def documents(source, build, scratch):
    """(schema name, what made it, the document) for every output this checks."""
    cli = os.path.join(build, "cli", "nccl-roce")
    fleet_tool = os.path.join(build, "tests", "calibration", "synthetic_fleet")
    example = os.path.join(source, "share", "nccl-roce", "examples", "sriov-pod-8rail.json")
    logs = sorted(glob.glob(os.path.join(source, "tests", "data", "nccl-tests", "*.txt")))
    empty = os.path.join(scratch, "empty-sysfs")
    os.mkdir(empty)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCL_", "NVSHMEM_", "UCX_"))}

    def out(name, argv):
        return name, " ".join(os.path.relpath(a, source) if a.startswith(source) else a for a in argv), \
            json.loads(run(argv, env=env))

    yield out("detect", [cli, "detect", "--snapshot", example, "--format", "json"])
    yield out("detect", [cli, "detect", "--sysfs-root", empty, "--format", "json"])
    yield out("snapshot", [cli, "snapshot", "--sysfs-root", empty])
    yield "snapshot", os.path.relpath(example, source), json.load(open(example))
    yield out("doctor", [cli, "doctor", "--snapshot", example, "--format", "json"])
    yield out("doctor", [cli, "doctor", "--sysfs-root", empty, "--format", "json"])
    yield out("sweep-parse", [cli, "sweep", "parse", *logs])
    run_a, run_b, tuner = (os.path.join(source, "tests", "data", "nccl-tests", f"aws-p5_2node_h100x16_efa_allreduce_{n}.txt")
                           for n in ("default-run-a", "default-run-b", "ofi-tuner"))
    yield out("sweep-compare", [cli, "sweep", "compare", f"{run_a},{run_b}", tuner, "--format", "json"])
    yield out("sweep-compare", [cli, "sweep", "compare", run_a, run_b, "--format", "json", "--range", "8K-256K"])
    gpu_run = os.path.join(source, "tests", "data", "gpu-runs", "h200-nccl-2.28.9")
    divergent = os.path.join(source, "share", "nccl-roce", "examples", "gpu-proof-divergent.toml")
    yield out("policy-verify", [cli, "policy", "verify", "--policy", "inference",
                                os.path.join(gpu_run, "sweep", "policy-inference"), "--format", "json"])
    yield out("policy-verify", [cli, "policy", "verify", "--policy", divergent, os.path.join(gpu_run, "sweep", "default"),
                                "--format", "json"])
    yield out("gpu-proof", [cli, "proof", gpu_run, "--format", "json"])
    fleet, explore, switchback = (os.path.join(scratch, d) for d in ("fleet", "explore", "switchback"))
    run([fleet_tool, fleet])
    run([fleet_tool, "--exploration", explore])
    run([fleet_tool, "--switchback", switchback])
    decode = os.path.join(scratch, "decode")
    run([fleet_tool, "--decode", decode])
    yield out("ab", [cli, "ab", decode, "--format", "json"])
    yield out("ab", [cli, "ab", fleet, "--format", "json"])
    yield out("ab", [cli, "ab", explore, "--format", "json"])
    yield out("ab", [cli, "ab", switchback, "--format", "json"])
    fit = os.path.join(scratch, "fit.json")
    run([cli, "ab", "fit", explore, "-q", "-o", os.path.join(scratch, "fit.toml"), "--json", fit])
    yield "ab-fit", "nccl-roce ab fit --exploration-fleet --json", json.load(open(fit))
    yield "stats", "libnccl-roce.so's tuner with NCCL_ROCE_STATS set", plugin_statistics(build, scratch)
    for path in sorted(glob.glob(os.path.join(fleet, "*.json")) + glob.glob(os.path.join(explore, "*.json")) +
                       glob.glob(os.path.join(switchback, "*.json")) + glob.glob(os.path.join(decode, "*.json"))):
        yield "stats", "synthetic_fleet " + os.path.basename(path), json.load(open(path))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    source, build = os.path.abspath(args.source), os.path.abspath(args.build)
    schema_dir = os.path.join(source, "share", "nccl-roce", "schemas")
    schemas = {}
    problems = []
    for path in sorted(glob.glob(os.path.join(schema_dir, "*.schema.json"))):
        name = os.path.basename(path)[:-len(".schema.json")]
        schemas[name] = json.load(open(path))
        try:
            jsonschema.Draft202012Validator.check_schema(schemas[name])
        except jsonschema.SchemaError as e:
            problems.append(f"{path}: not a valid JSON Schema: {e.message}")
    docs = "".join(open(p, encoding="utf-8").read() for p in glob.glob(os.path.join(source, "docs", "*.md")))
    for name in schemas:
        if f"schemas/{name}.schema.json" not in docs:
            problems.append(f"share/nccl-roce/schemas/{name}.schema.json is named in no doc under docs/")
    used, checked = set(), 0
    with tempfile.TemporaryDirectory(prefix="nccl-roce-schemas-") as scratch:
        for name, made_by, document in documents(source, build, scratch):
            used.add(name)
            checked += 1
            validator = jsonschema.Draft202012Validator(schemas[name])
            for error in sorted(validator.iter_errors(document), key=lambda e: list(e.path))[:5]:
                where = "/".join(str(p) for p in error.path) or "(top)"
                problems.append(f"{made_by}: does not match {name}.schema.json at {where}: {error.message}")
    problems += [f"{name}.schema.json: no output of the build is checked against it" for name in schemas if name not in used]
    print(f"{checked} JSON documents checked against {len(schemas)} schemas"
          + (f"; {len(problems)} problem(s):" if problems else ""))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
