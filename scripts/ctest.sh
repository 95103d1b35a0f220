#!/usr/bin/env bash
# ctest, then what did not run and why. ctest counts skipped tests among the passed ones ("100% tests passed") and
# names them without the reason; this prints the counts, then each skipped test with the lines that say why (a
# GTEST_SKIP message, or what a test script printed before exiting 77). Exits with ctest's status.
# Usage: scripts/ctest.sh BUILD_DIR [ctest arguments...]
set -uo pipefail
build=$1
shift
junit="$(cd "$build" && pwd)/ctest-junit.xml"
rm -f "$junit"
ctest --test-dir "$build" --output-junit "$junit" "$@"
status=$?
[ -f "$junit" ] || exit "$status"
report_skips() {
  python3 - "$junit" <<'EOF'
import sys
import xml.etree.ElementTree as ET

cases = ET.parse(sys.argv[1]).getroot().findall("testcase")
skipped = [c for c in cases if c.find("skipped") is not None]
failed = [c for c in cases if c.get("status") == "fail"]
disabled = [c for c in cases if c.get("status") == "disabled"]
passed = len(cases) - len(skipped) - len(failed) - len(disabled)
print(f"\n{len(cases)} tests: {passed} passed, {len(skipped)} skipped, {len(failed)} failed"
      + (f", {len(disabled)} disabled" if disabled else ""))


def why(output):
    """GoogleTest's skip message (between "[ RUN ... ]" and "[  SKIPPED ]"), else the end of the output."""
    lines = [line for line in output.splitlines() if line.strip()]
    run = [i for i, line in enumerate(lines) if line.startswith("[ RUN      ]")]
    end = [i for i, line in enumerate(lines) if line.startswith("[  SKIPPED ]")]
    if run and end and run[0] < end[0]:
        return lines[run[0] + 1:end[0]]
    return lines[-5:]


for case in skipped:
    message = case.find("skipped").get("message", "")
    kind = "" if message in ("SKIP_REGULAR_EXPRESSION_MATCHED", "SKIP_RETURN_CODE=77") else f" ({message})"
    print(f"skipped: {case.get('name')}{kind}")
    for line in why(case.findtext("system-out") or "") or ["(no output)"]:
        print(f"    {line}")
EOF
}
if ! report_skips; then
  echo "ctest.sh: could not read $junit" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
