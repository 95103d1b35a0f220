#!/usr/bin/env bash
# The instruction-count guard: runs the tuner's, the profiler's and the CLI's callgrind measurements (the scripts
# beside this one, through the built .so and the built `nccl-roce`) and fails when any figure they print is above
# 1.1 times the figure docs/performance.md records for the same row, naming both, or above the row's budget (the
# ceilings the project promises: 300 instructions per tuner call at 1,000 rules, 1,000 per profiled collective,
# 1,200 per eager collective in a switchback, 1,000 per replay there, 10 M for the whole `nccl-roce detect` on a busy
# node). Callgrind counts instructions, not
# time, so the figures are the same run to run: 10% is a change in the code, not noise. A row the document does
# not record fails too, so the document keeps every figure the scripts measure. About 30 s on 2 cores (thirteen
# valgrind runs).
# Usage: tests/bench/perf_guard.sh BUILD_DIR DOCS_PERFORMANCE_MD
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
doc=$2
limit=1.1
# Budgets by row (the row's text before its figure).
declare -A budget=(["| 1000 | off | 20000"]=300 ["| on | 20000"]=1000 ["| switchback | 20000"]=1200
  ["| switchback-replay | 20000"]=1000
  ["| nccl-roce detect, busy node"]=10000000)
command -v valgrind >/dev/null || { echo "perf-guard: valgrind is not installed (scripts/install-deps.sh)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$here/tuner/tuner_callgrind.sh" "$build" >"$out/tuner"
"$here/profiler/profiler_callgrind.sh" "$build" >"$out/profiler"
"$here/cli/cli_callgrind.sh" "$build" >"$out/cli"
failed=0
# A measured row is "| a | b | ... | figure |": the document's line that starts as it does, less its figure,
# records it.
while IFS= read -r row; do
  case "$row" in
    '|'*[0-9]' |') ;;
    *) continue ;;
  esac
  what=${row% *|}
  what=${what% |*}
  measured=$(awk -F'|' '{print $(NF-1)}' <<<"$row" | tr -d ' ')
  recorded=$(awk -F'|' -v w="$what |" 'index($0, w) == 1 { print $(NF-1); exit }' "$doc" | tr -d ' ')
  if [ -z "$recorded" ]; then
    echo "FAIL $what |: measured $measured, but docs/performance.md records no such row"
    failed=1
  elif awk -v m="$measured" -v r="$recorded" -v l="$limit" 'BEGIN { exit !(m > r * l) }'; then
    echo "FAIL $what |: measured $measured instructions, above $limit x the $recorded that docs/performance.md records"
    failed=1
  elif [ -n "${budget[$what]:-}" ] && awk -v m="$measured" -v b="${budget[$what]}" 'BEGIN { exit !(m > b) }'; then
    echo "FAIL $what |: measured $measured instructions, above the budget of ${budget[$what]}"
    failed=1
  else
    echo "ok   $what |: measured $measured, docs/performance.md records $recorded${budget[$what]:+, budget ${budget[$what]}}"
  fi
done < <(cat "$out/tuner" "$out/profiler" "$out/cli")
exit "$failed"
