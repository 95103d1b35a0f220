#!/usr/bin/env bash
# Instructions per getCollInfo call at 10, 100 and 1000 rules, counted by callgrind inside
# nccl_roce::plugin::tunerGetCollInfo only (setup and the driver loop are not counted).
# Usage: tests/bench/tuner_callgrind.sh [BUILD_DIR] [CALLS]
set -euo pipefail
build=${1:-build}
calls=${2:-20000}
driver="$build/tests/bench/tuner_call_driver"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| rules | calls | instructions per call |\n|---|---|---|\n'
for rules in 10 100 1000; do
  valgrind --tool=callgrind --callgrind-out-file="$out/cg.$rules" \
    --toggle-collect='nccl_roce::plugin::tunerGetCollInfo*' "$driver" "$rules" "$calls" >/dev/null 2>"$out/log.$rules"
  total=$(grep -E '^(summary|totals):' "$out/cg.$rules" | head -1 | awk '{print $2}')
  printf '| %s | %s | %s |\n' "$rules" "$calls" "$(awk -v t="$total" -v c="$calls" 'BEGIN{printf "%.1f", t/c}')"
done
