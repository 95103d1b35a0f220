"""The `nccl-roce` script pip puts on PATH: runs the wheel's command (nccl_roce/bin/nccl-roce), which finds the
wheel's share/nccl-roce from its own location, as it does in the .deb and the tarball."""

import os
import sys

import nccl_roce


def main() -> int:
    path = nccl_roce.command_path()
    try:
        os.execv(path, ["nccl-roce"] + sys.argv[1:])
    except OSError as error:
        print(f"nccl-roce: cannot run {path}: {error.strerror} (a broken install of the nccl-roce wheel)",
              file=sys.stderr)
    return 127
