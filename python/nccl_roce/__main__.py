"""python -m nccl_roce env: the NCCL variables that select the wheel's library, as `export` lines for a shell.

The same forms as `nccl-roce env`: a variable the user already set is kept and shown as a comment with what
would have been set. Exit status 0; 1 when the wheel's library cannot be used (reason on stderr); 2 on a usage
error.
"""

import argparse
import sys

import nccl_roce


def _shell_quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def env_lines(environ=None) -> str:
    settings = nccl_roce.plugin_settings(environ)
    out = [f"# nccl-roce env: NCCL plugin variables for the nccl-roce {nccl_roce.__version__} wheel"]
    for s in settings:
        if s.kept:
            out.append(f"# {s.name} kept: set by the user; the wheel would set {s.value}")
        else:
            out.append(f"export {s.name}={_shell_quote(s.value)}")
    if "NCCL_PROFILER_PLUGIN" not in [s.name for s in settings]:
        out.append("# NCCL_PROFILER_PLUGIN left unset: NCCL_ROCE_STATS is unset, so nothing is timed")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nccl_roce", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("env", help="print export lines of the NCCL plugin variables, for eval in a shell")
    args = parser.parse_args(argv)
    if args.command != "env":
        parser.print_usage(sys.stderr)
        print("python -m nccl_roce: a command is required (env)", file=sys.stderr)
        return 2
    reason = nccl_roce._unusable_reason()
    if reason is not None:
        print(f"python -m nccl_roce env: {reason}", file=sys.stderr)
        return 1
    sys.stdout.write(env_lines())
    return 0


if __name__ == "__main__":
    sys.exit(main())
