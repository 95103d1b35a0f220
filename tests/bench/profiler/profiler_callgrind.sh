#!/usr/bin/env bash
# Instructions per collective in the profiler's entry points (the exported table's startEvent, stopEvent and
# recordEventState and all they call; the driver loop is not counted), by callgrind:
#   on      per collective with timing on: GroupApi and CollApi start, Group start/stop, Coll start/stop,
#           KernelCh start, KernelChStop, stop (the 16 keys' new histograms are counted too)
#   off     the same with timing off (init sets NCCL's activation mask to 0, so NCCL makes no call)
#   replay  per replay of a graph-captured collective: Group and Coll start/stop again, and its channels
#   switchback  as on, in a switchback experiment: each collective's arm looked up and its time windowed
#   switchback-replay  per replay of a graph-captured collective in a switchback: its time to its capture's slot
# then the tracker's memory per communicator.
# Usage: tests/bench/profiler/profiler_callgrind.sh [BUILD_DIR] [COLLECTIVES]
set -euo pipefail
build=${1:-build}
collectives=${2:-20000}
driver="$build/tests/bench/profiler/profiler_call_driver"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| mode | collectives | instructions per collective |\n|---|---|---|\n'
for mode in on off replay switchback switchback-replay; do
  # Each entry point once: they never call one another, so the toggles never nest.
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" \
    --toggle-collect='*startEvent<*' --toggle-collect='nccl_roce::plugin::profilerStopEvent*' \
    --toggle-collect='*recordState<*' "$driver" "$collectives" "$mode" >/dev/null 2>"$out/log" ||
    { cat "$out/log" >&2; exit 1; }
  total=$(grep -E '^(summary|totals):' "$out/cg" | head -1 | awk '{print $2}')
  printf '| %s | %s | %s |\n' "$mode" "$collectives" \
    "$(awk -v t="$total" -v c="$collectives" 'BEGIN{printf "%.1f", t/c}')"
done
"$driver" memory
