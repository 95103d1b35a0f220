#!/usr/bin/env bash
# A run that skips says so: ctest reports a GTEST_SKIP of a test registered with nccl_roce_test, and a script's exit
# 77, as skipped (not passed), and scripts/ctest.sh prints the counts, each skipped test and its reason, and keeps
# ctest's exit status. Usage: skip_report_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
cmake -S "$source_dir/tests/ci/skip_report" -B "$work" -DNCCL_ROCE_SOURCE_DIR="$source_dir" >"$work/log" 2>&1 &&
  cmake --build "$work" >>"$work/log" 2>&1 || { cat "$work/log" >&2; fail "the example project does not build"; }

out=$("$source_dir/scripts/ctest.sh" "$work" -L example 2>&1) || fail "a run with skips but no failure failed:
$out"
expected="3 tests: 1 passed, 2 skipped, 0 failed
skipped: Example.SkipsWithItsReason
    example_test.cc:8: Skipped
    no widget on this machine (set WIDGET to point at one)
skipped: script.SkipsWithExit77
    SKIP: no widget here: checked on widget hosts only"
# From the counts on; the source path GoogleTest prints depends on the build (ccache may make it relative).
report=$(sed -n '/^[0-9]* tests: /,$p' <<<"$out" | sed 's|^    .*/example_test\.cc:|    example_test.cc:|')
[ "$report" = "$expected" ] || fail "the report of skipped tests differs:
$(diff <(echo "$expected") <(echo "$report"))"

if out=$("$source_dir/scripts/ctest.sh" "$work" -L failing 2>&1); then fail "a failing run exited 0:
$out"; fi
grep -qx "1 tests: 0 passed, 0 skipped, 1 failed" <<<"$out" || fail "a failing run reported:
$out"
echo "skips reported: $report"
