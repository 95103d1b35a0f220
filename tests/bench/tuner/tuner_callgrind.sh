#!/usr/bin/env bash
# Instructions per getCollInfo call at 10, 100 and 1000 rules, counted by callgrind inside
# nccl_roce::plugin::tunerGetCollInfo only (setup and the driver loop are not counted); and with rules that set
# chunk sizes, per collective: getCollInfo and its three getChunkSize calls; and in a switchback experiment (half
# the calls decided by the rules, half by NCCL, statistics on).
# Usage: tests/bench/tuner/tuner_callgrind.sh [BUILD_DIR] [CALLS]
set -euo pipefail
build=${1:-build}
calls=${2:-20000}
driver="$build/tests/bench/tuner/tuner_call_driver"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| rules | statistics | calls | instructions per call |\n|---|---|---|---|\n'
for run in "10 off" "100 off" "1000 off" "1000 on" "1000 chunk" "1000 switchback"; do
  set -- $run
  rules=$1 stats=$2
  extra=()
  [ "$stats" = on ] && extra=(stats)
  label=$stats
  [ "$stats" = chunk ] && extra=(chunk) label="off, chunk sizes"
  [ "$stats" = switchback ] && extra=(switchback) label="on, switchback with NCCL's choices"
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" \
    --toggle-collect='nccl_roce::plugin::tunerGetCollInfo*' --toggle-collect='nccl_roce::plugin::tunerGetChunkSize*' \
    "$driver" "$rules" "$calls" "${extra[@]}" \
    >/dev/null 2>"$out/log" || { cat "$out/log" >&2; exit 1; }
  total=$(grep -E '^(summary|totals):' "$out/cg" | head -1 | awk '{print $2}')
  printf '| %s | %s | %s | %s |\n' "$rules" "$label" "$calls" \
    "$(awk -v t="$total" -v c="$calls" 'BEGIN{printf "%.1f", t/c}')"
done
