#!/usr/bin/env bash
# Configures and builds into build/ (or $BUILD_DIR) with warnings as errors, then the wheel into build/dist (the
# quick start installs it from there). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DNCCL_ROCE_WERROR=ON "$@" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
cmake --build "$build_dir" --target wheel >/dev/null
