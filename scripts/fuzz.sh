#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS (default 60), starting from
# the seed corpora in tests/fuzz/corpus. Fails on any crash, leak or undefined behaviour; the input is left in
# build-fuzz/artifacts/<target>/ (add it to tests/fuzz/corpus/<target>/ once fixed, as a regression input).
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -DNCCL_ROCE_FUZZ=ON -DNCCL_ROCE_SANITIZE=address,undefined \
  -DNCCL_ROCE_BUILD_TESTS=OFF -DNCCL_ROCE_BUILD_BENCHMARKS=OFF -DNCCL_ROCE_WERROR=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" >/dev/null
targets=$(ls tests/fuzz/corpus)
cmake --build "$build" -j"$(nproc)" --target $targets
status=0
for target in $targets; do
  work="$build/corpus/$target"
  artifacts="$build/artifacts/$target/"
  mkdir -p "$work" "$artifacts"
  log="$build/$target.log"
  if "$build/tests/fuzz/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$artifacts" "$work" "tests/fuzz/corpus/$target" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz $target: ${runs} executions in ${seconds}s, no findings"
  else
    echo "fuzz $target: FAILED (see $log; input in $artifacts)" >&2
    tail -30 "$log" >&2
    status=1
  fi
done
exit $status
