#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: packages, build, every test. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"
