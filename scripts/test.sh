#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: packages, the format ratchet (format-check.sh),
# build, clang-tidy on the lines a change touches (tidy-check.sh), every test, then the reliability suites (ASan+UBSan over everything, TSan over the concurrency tests,
# valgrind over the ABI harness, a short libFuzzer run of each target). CI runs exactly this.
# NCCL_ROCE_FUZZ_SECONDS sets the run per fuzz target (default 30: seven targets); NCCL_ROCE_QUICK=1 stops after
# the plain suite, for iterating locally.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
stage() { echo "== $1 ($(date +%T))"; }
stage "format"
./scripts/format-check.sh
stage "build"
./scripts/build.sh
stage "static analysis"
./scripts/tidy-check.sh
stage "test suite"
./scripts/ctest.sh "${BUILD_DIR:-build}" --output-on-failure -j"$(nproc)"  # then lists skipped tests and why
[ "${NCCL_ROCE_QUICK:-0}" = 1 ] && exit 0
stage "sanitizers"
./scripts/sanitizers.sh
stage "fuzzing"
./scripts/fuzz.sh "${NCCL_ROCE_FUZZ_SECONDS:-30}"
stage "all passed"
