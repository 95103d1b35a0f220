#!/usr/bin/env bash
# Two vLLM pods on one node, as Kubernetes runs them: each its own pid namespace (both serving processes are pid 1)
# and its own host name, both writing NCCL_ROCE_METRICS into node-exporter's one textfile directory through the
# built plugin (tests/abi/nccl_lifecycle.c serve: the profiler and tuner libraries as NCCL opens them, three
# live communicators per pod). Debian's node-exporter and Prometheus scrape the directory, and every communicator
# must appear exactly once, with its pod's namespace, pod and node labels: pod A from the downward-API variables,
# pod B from its host name alone. A stale textfile left by a killed process is removed by the live writers, a
# foreign one is kept, and each pod's file is gone once its process exits.
# Where the machine does not allow new pid and UTS namespaces (unshare needs root or user namespaces), both pods
# run in this namespace with their real pids, told apart by POD_NAME alone, and the test says so.
# The Grafana dashboard, looked at after both pods have exited, still shows them over its time range. Pod B's
# statistics directory cannot be made (a file is in its way): its writes fail, its textfile counts them, and the
# shipped alerting rules (share/nccl-roce/prometheus/nccl-roce-alerts.yml), loaded into the same Prometheus, fire
# NcclRoceWriteFailures for pod B and nothing for pod A.
# Usage: pods_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
SECONDS=0
build=$1
dashboard=$2/share/nccl-roce/grafana/nccl-roce-collectives.json
alerts=$2/share/nccl-roce/prometheus/nccl-roce-alerts.yml
lifecycle=$build/tests/abi/abi_nccl_lifecycle
plugins=$build/plugin

source "$(dirname "$0")/services.sh"

textfiles=$work/textfiles
mkdir -p "$textfiles"
echo '# EOF' >"$textfiles/nccl-roce.serving.vllm-9.1.777.prom"  # a killed process's, 20 minutes old
echo '# EOF' >"$textfiles/gpu-health.prom"                       # another collector's, as old
touch -d '20 minutes ago' "$textfiles/nccl-roce.serving.vllm-9.1.777.prom" "$textfiles/gpu-health.prom"

namespaces=yes
if ! unshare --pid --uts --fork --mount-proc true 2>/dev/null; then
  namespaces=no
  echo "note: unshare is not permitted here: both pods run in this pid namespace, told apart by POD_NAME alone"
fi

# Runs a pod's serving process in the background: POD HOSTNAME FIRST_COMM_ID, then downward-API variables.
pod() {
  local name=$1 host=$2 first=$3
  shift 3
  local serve=(env NCCL_ROCE_STATS="$work/stats-$name" NCCL_ROCE_METRICS="$textfiles" "$@"
    "$lifecycle" "$plugins" serve "$first" 3 "$work/stop")
  if [ "$namespaces" = yes ]; then
    unshare --pid --uts --fork --mount-proc --kill-child sh -c 'hostname "$0" && exec "$@"' "$host" "${serve[@]}" &
  else
    env POD_NAME="$host" "${serve[@]}" &
  fi
  pids+=("$!")
  served+=("$!")
}
served=()
pod a vllm-0 0xa1 POD_NAMESPACE=serving POD_NAME=vllm-0 NODE_NAME=gpu-node-1
echo 'a file where the statistics directory goes' >"$work/blocked"
pod b vllm-1 0xb1 NCCL_ROCE_STATS="$work/blocked/stats" NCCL_ROCE_STATS_INTERVAL=1

# The writers write every 10 s while a communicator is live (30 s at most).
for _ in $(seq 1 300); do
  [ "$(ls "$textfiles" | grep -c '^nccl-roce\.vllm-1\.\|^nccl-roce\.serving\.vllm-0\.')" -eq 2 ] && break
  sleep 0.1
done
ls "$textfiles"
[ "$(ls "$textfiles" | grep -c '^nccl-roce\.serving\.vllm-0\..*\.prom$')" -eq 1 ] || fail "no textfile of pod A"
[ "$(ls "$textfiles" | grep -c '^nccl-roce\.vllm-1\..*\.prom$')" -eq 1 ] || fail "no textfile of pod B"
[ ! -e "$textfiles/nccl-roce.serving.vllm-9.1.777.prom" ] || fail "the killed process's stale textfile is still there"
[ -e "$textfiles/gpu-health.prom" ] || fail "a live writer removed another collector's textfile"
for f in "$textfiles"/nccl-roce.*.prom; do
  promtool check metrics <"$f" >"$work/promtool.out" 2>&1 || { cat "$work/promtool.out" >&2; fail "promtool: $f"; }
done
echo "ok: one textfile per pod, the stale one removed (${SECONDS} s)"

start_node_exporter_and_prometheus "$textfiles" 1s "$alerts"
for _ in $(seq 1 240); do
  [ "$(query_value 'count(nccl_roce_ab_log_duration_count)')" = 6 ] && break
  sleep 0.5
done
[ "$(query_value 'count(nccl_roce_ab_log_duration_count)')" = 6 ] ||
  fail "Prometheus holds $(query_value 'count(nccl_roce_ab_log_duration_count)') count series, expected 6"

# Every communicator once, with its own pod's labels (pid 1 in both pods where namespaces are allowed).
curl -sf "$url/api/v1/query" --data-urlencode 'query=nccl_roce_ab_log_duration_count' >"$work/series.json"
python3 - "$work/series.json" "$namespaces" <<'PY'
import json, sys
series = [s["metric"] for s in json.load(open(sys.argv[1]))["data"]["result"]]
namespaces = sys.argv[2] == "yes"
expected = {}
for i in range(3):
    expected["0x%016x" % (0xa1 + i)] = ("serving", "vllm-0", "gpu-node-1")
    expected["0x%016x" % (0xb1 + i)] = ("", "vllm-1", "vllm-1" if namespaces else None)
seen = {}
for s in series:
    seen.setdefault(s["comm_id"], []).append(s)
if sorted(seen) != sorted(expected):
    sys.exit("communicators seen: %s, expected %s" % (sorted(seen), sorted(expected)))
for comm, labels in seen.items():
    if len(labels) != 1:
        sys.exit("communicator %s appears %d times" % (comm, len(labels)))
    s = labels[0]
    namespace, pod, node = expected[comm]
    got = (s.get("namespace", ""), s["pod"], s["node"] if node is not None else None)
    if got != (namespace, pod, node):
        sys.exit("communicator %s labelled %s, expected %s" % (comm, got, (namespace, pod, node)))
    if namespaces and s["pid"] != "1":
        sys.exit("communicator %s: pid %s, expected 1 (each pod its own pid namespace)" % (comm, s["pid"]))
print("ok: 6 communicators, each once with its pod's labels%s" % (" (both pods' processes are pid 1)" if namespaces else ""))
PY

# Pod B's failed statistics writes, counted in its textfile (rewritten every 10 s), fire the alert once the count
# has risen between two scrapes; pod A, whose writes succeed, has none.
firing='count(ALERTS{alertname="NcclRoceWriteFailures",alertstate="firing",pod="vllm-1",file="statistics"})'
for _ in $(seq 1 120); do
  [ "$(query_value "$firing")" = 1 ] && break
  sleep 0.5
done
[ "$(query_value "$firing")" = 1 ] ||
  fail "NcclRoceWriteFailures did not fire for pod B: $(query_value 'max(nccl_roce_write_failures_total{pod="vllm-1"})') failures exported"
[ -z "$(query_value 'count(ALERTS{pod="vllm-0"})')" ] || fail "an alert fired for pod A, whose writes succeed"
echo "ok: pod B's failed statistics writes fire NcclRoceWriteFailures, pod A none (${SECONDS} s)"

touch "$work/stop"
for pid in "${served[@]}"; do
  status=0
  wait "$pid" || status=$?
  [ "$status" -eq 0 ] || fail "a pod's serving process exited $status"
done
left=$(ls "$textfiles")
[ "$left" = gpu-health.prom ] || fail "left in the textfile directory after both pods exited: $left"
echo "ok: each pod's textfile removed at its exit (${SECONDS} s)"

# The job has finished: once Prometheus has scraped the emptied directory, the dashboard's rate panels go blank
# and its panels over the time range still show both pods' communicators.
sleep 3
python3 "$(dirname "$0")/dashboard_queries.py" "$url" "$dashboard" finished 5m || fail "the dashboard lost the job"
echo "ok: the dashboard shows the finished job over its time range (${SECONDS} s)"
echo "pods_test: all passed"
