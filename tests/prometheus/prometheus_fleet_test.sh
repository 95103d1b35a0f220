#!/usr/bin/env bash
# `nccl-roce ab --prometheus` and `ab fit --prometheus` against the real services a serving cluster runs: Debian's
# prometheus-node-exporter serves, with its textfile collector, the NCCL_ROCE_METRICS textfiles that the plugin's
# own writers produce for three synthetic fleets (tests/calibration/synthetic_fleet --metrics; one a switchback,
# whose windows the textfile carries), Debian's Prometheus scrapes them every second, and the verdicts and the fitted policy read from Prometheus must equal, byte for byte,
# those read from the same fleets' statistics files. Every textfile passes `promtool check metrics`.
# Loopback and free ports only; every wait is bounded; both services are stopped on any exit. A missing service
# is a failure, not a skip (scripts/install-deps.sh installs them).
# The Grafana dashboard's queries run on the same Prometheus without error.
# Usage: prometheus_fleet_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
SECONDS=0
build=$1
dashboard=$2/share/nccl-roce/grafana/nccl-roce-collectives.json
cli=$build/cli/nccl-roce
synthetic_fleet=$build/tests/calibration/synthetic_fleet

source "$(dirname "$0")/services.sh"

# The fleets: decode-ll (48 communicators x 2 ranks) and explore-allreduce (120 x 2), statistics files and textfiles.
"$synthetic_fleet" --metrics "$work/textfiles" "$work/decode" 7 >/dev/null
# The exploration fleet's first communicator timed 6 collectives at zero: dropped and counted on both paths.
"$synthetic_fleet" --exploration --zeros --metrics "$work/textfiles" "$work/explore" 7 >/dev/null
checked=0
for f in "$work"/textfiles/*.prom; do
  promtool check metrics <"$f" >"$work/promtool.out" 2>&1 || { cat "$work/promtool.out" >&2; fail "promtool check metrics: $f"; }
  checked=$((checked + 1))
done
[ "$checked" -eq 14 ] || fail "expected 14 textfiles (24 communicator ranks each), found $checked"
series=$(cat "$work"/textfiles/*.prom | grep -c '^nccl_roce_ab_log_duration_count{')

start_node_exporter_and_prometheus "$work/textfiles" 5s

# Until Prometheus has scraped every count series (it starts scraping about 5 s after it is ready; 120 s at most,
# for a machine busy with other tests).
scraped=0
for _ in $(seq 1 240); do
  scraped=$(query_value 'count(nccl_roce_ab_log_duration_count)')
  [ "$scraped" = "$series" ] && break
  sleep 0.5
done
if [ "$scraped" != "$series" ]; then
  curl -sf "$url/api/v1/targets" >&2 || true
  fail "Prometheus holds ${scraped:-0} of the $series count series after 120 s"
fi

same() {  # DESCRIPTION FILE_A FILE_B
  diff -u "$2" "$3" >&2 || fail "$1: the files and Prometheus disagree"
  echo "ok: $1 (${SECONDS} s)"
}

# ab: the same report, in JSON and markdown, from the files and from Prometheus.
for format in json markdown; do
  "$cli" ab "$work/decode" --format "$format" >"$work/files.$format"
  "$cli" ab --prometheus "$url" --experiment decode-ll --window 5m --format "$format" >"$work/prometheus.$format"
  same "ab --format $format" "$work/files.$format" "$work/prometheus.$format"
done
grep -q '| 16K-32K | 24 / 24 | 2400 / 2400 | 0.930 \[0.900, 0.962\] | faster |' "$work/prometheus.markdown" ||
  fail "ab --prometheus: not the synthetic fleet's known 16K verdict"

# ab fit: the same policy and the same challenges.
"$cli" ab fit "$work/explore" -q -o "$work/files.toml" --json "$work/files.fit.json"
"$cli" ab fit --prometheus "$url" --experiment explore-allreduce -q -o "$work/prometheus.toml" \
  --json "$work/prometheus.fit.json"
same "ab fit policy" "$work/files.toml" "$work/prometheus.toml"
same "ab fit --json" "$work/files.fit.json" "$work/prometheus.fit.json"
grep -q 'ab-allreduce-2n-tree-ll-128K..512K' "$work/prometheus.toml" || fail "ab fit --prometheus: no tree/ll rule"
grep -q '# Note: 6 collective(s) timed at zero' "$work/prometheus.toml" || fail "ab fit --prometheus: no note of the zeros"

# The dashboard's rates need two samples of every series inside Grafana's 1m rate interval: on a fast machine
# the reports above finish before Prometheus's second scrape (60 s at most).
for _ in $(seq 1 120); do
  samples=$(query_value 'min(count_over_time(nccl_roce_ab_log_duration_count[1m]))')
  [ "${samples:-0}" -ge 2 ] && break
  sleep 0.5
done
[ "${samples:-0}" -ge 2 ] || fail "Prometheus holds ${samples:-0} samples of some series after 60 s more, the rates need 2"

# The dashboard's queries, its variables resolved from what Prometheus holds: valid PromQL that finds our series.
python3 "$(dirname "$0")/dashboard_queries.py" "$url" "$dashboard" live 1h || fail "the dashboard's queries"
echo "ok: the dashboard's queries (${SECONDS} s)"

# Refusals, each with the reason: exit 3 (input error) for two experiments in the window, an experiment with no
# series and nothing listening; exit 2 (usage error) for a bad window (docs/ab-testing.md, "Exit status").
expect_refusal() {  # DESCRIPTION EXIT_STATUS EXPECTED_TEXT COMMAND...
  local what=$1 expected=$2 text=$3 status=0
  shift 3
  "$@" >"$work/out" 2>"$work/err" || status=$?
  [ "$status" -eq "$expected" ] || { cat "$work/err" >&2; fail "$what: exit $status, expected $expected"; }
  grep -qF "$text" "$work/err" || { cat "$work/err" >&2; fail "$what: stderr lacks '$text'"; }
  echo "ok: $what (${SECONDS} s)"
}
expect_refusal "two experiments" 3 "(decode-ll, explore-allreduce): name one with --experiment" \
  "$cli" ab --prometheus "$url"
expect_refusal "a bad window" 2 "is not a Prometheus duration" "$cli" ab --prometheus "$url" --window 5minutes
expect_refusal "an experiment with no series" 3 "no nccl_roce_ab_log_duration_count series of experiment 'nope'" \
  "$cli" ab --prometheus "$url" --experiment nope
closed=$(free_port)
expect_refusal "nothing listening" 3 "Prometheus at http://127.0.0.1:$closed" "$cli" ab --prometheus "http://127.0.0.1:$closed"
# A switchback (experiment "sim", candidate 4% slower: 2 communicators of 8 ranks, both arms in each): its textfiles
# carry each arm's collectives and the windows its verdicts pair, and ab --prometheus reads them as ab reads the
# files. (Its simulated files time no choice, so it has no histograms for the dashboard: it comes after it.)
"$synthetic_fleet" --switchback --per-arm 2 --metrics "$work/textfiles" "$work/switchback" 7 >/dev/null
promtool check metrics <"$work/textfiles/sim-pod-0.prom" >"$work/promtool.out" 2>&1 ||
  { cat "$work/promtool.out" >&2; fail "promtool check metrics: the switchback's textfile"; }
for _ in $(seq 1 120); do
  [ "$(query_value 'count(nccl_roce_switchback_arm{experiment="sim"})')" = 32 ] && break
  sleep 0.5
done
[ "$(query_value 'count(nccl_roce_switchback_arm{experiment="sim"})')" = 32 ] ||
  fail "Prometheus holds $(query_value 'count(nccl_roce_switchback_arm{experiment="sim"})') of the 32 arm series"
for format in json markdown; do
  "$cli" ab "$work/switchback" --format "$format" >"$work/files.$format"
  "$cli" ab --prometheus "$url" --experiment sim --window 5m --format "$format" >"$work/prometheus.$format"
  same "ab of a switchback --format $format" "$work/files.$format" "$work/prometheus.$format"
done
grep -q '| slower |' "$work/prometheus.markdown" || fail "ab --prometheus: the switchback's candidate is not slower"
echo "prometheus_fleet_test: all passed"
