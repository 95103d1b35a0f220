#!/usr/bin/env bash
# The operator's journey, end to end (docs/kubernetes.md, docs/ab-testing.md, docs/rollout.md), as one test:
# pods whose environment is the documented manifest's (rendered by manifest_env.py with real namespace, pod and
# node names, the hostPath volumes under a directory of the test), the built plugin in each pod's serving process
# (tests/abi/nccl_lifecycle.c serve stands in for NCCL: the tuner's choice decides what each all-reduce costs),
# Debian's node-exporter and Prometheus scraping them, every dashboard query for every fleet, and the documented
# gates with the exits of the exit table (docs/ab-testing.md, "Exit status").
#
#   1. Experiments, with an experiment file from a ConfigMap and checkpoints every second:
#      namespace decode:  two pods, a switchback (share/nccl-roce/examples/switchback-decode.toml: nccl and
#                         inference in turns inside every communicator), 4 communicators each;
#      namespace canary:  two pods, a per-communicator experiment (control: nccl, candidate: inference), 16
#                         communicators each;
#      namespace warmup:  one pod of a switchback that has closed no window yet.
#      Gates on the collected directories while the pods serve: the switchback and the candidate are faster (0),
#      the nccl arm is slower than inference (1), the switchback with no window compares nothing (3); `ab fit`
#      writes the policy the fleet chose.
#   2. Rollout: namespace serving, two pods of the fitted policy, pinned by its digest (NCCL_ROCE_POLICY_DIGEST):
#      a plain-policy fleet, whose decisions come from the fitted rule; its gate on the final statistics exits 3
#      (no experiment).
#   3. The Grafana dashboard, every query as Grafana interpolates it (dashboard_queries.py), for each fleet its
#      experiment variable offers: the three experiments and the plain-policy fleet, each switchback arm visible.
#   4. Every pod stopped: `ab --prometheus` gives the report `ab` gives from the pods' final statistics files, to the
#      byte, for the switchback and the per-communicator experiment; the dashboard keeps every fleet over its range.
# Usage: journey_test.sh BUILD_DIR SOURCE_DIR (absolute paths)
set -euo pipefail
SECONDS=0
build=$1
source_dir=$2
cli=$build/cli/nccl-roce
dashboard=$source_dir/share/nccl-roce/grafana/nccl-roce-collectives.json
lifecycle=$build/tests/abi/abi_nccl_lifecycle
plugins=$build/plugin
here=$(cd "$(dirname "$0")" && pwd)

source "$here/services.sh"

node=$work/node  # the node's file system: the manifest's hostPath volumes lie under it
textfiles=$node/var/lib/node-exporter/textfile
mkdir -p "$textfiles" "$node/var/lib/nccl-roce" "$work/configmaps" "$work/collected"

# The ConfigMaps, one per policy generation, as docs/rollout.md ships them.
configmap() {  # NAME FILE CONTENT_ON_STDIN
  mkdir -p "$work/configmaps/$1"
  cat >"$work/configmaps/$1/$2"
  echo "$work/configmaps/$1/$2"
}
decode=$(configmap decode-v1 experiment.toml <"$source_dir/share/nccl-roce/examples/switchback-decode.toml")
warmup=$(sed 's/^name = "inference-vs-nccl"/name = "decode-warmup"/' \
  "$source_dir/share/nccl-roce/examples/switchback-decode.toml" | configmap warmup-v1 experiment.toml)
canary=$(configmap canary-v1 experiment.toml <<'TOML'
[experiment]
name = "nccl-vs-inference"
[[experiment.arm]]
name = "control"
policy = "nccl"
weight = 50
[[experiment.arm]]
name = "candidate"
policy = "inference"
weight = 50
TOML
)
for f in "$decode" "$warmup" "$canary"; do "$cli" policy lint "$f" >/dev/null || fail "policy lint $f"; done

# A pod's serving process, in the background: NAMESPACE POD FIRST_COMM_ID COMMS CALLS STOP_FILE, then the variables
# the pod template adds to the manifest's (the policy, a pin).
pods=()
pod() {
  local namespace=$1 name=$2 first=$3 comms=$4 calls=$5 stop=$6
  shift 6
  local manifest
  mapfile -t manifest < <(/usr/bin/python3 "$here/manifest_env.py" "$source_dir" "$node" "$namespace" "$name" gpu-node-1)
  [ "${#manifest[@]}" -ge 5 ] || fail "the manifest's environment did not render: ${manifest[*]}"
  env "${manifest[@]}" "$@" "$lifecycle" "$plugins" serve "$first" "$comms" "$stop" "$calls" \
    >"$work/$name.log" 2>&1 &
  pids+=("$!")
  pods+=("$name:$!")
}

# Until every listed pod has a textfile, and with `checkpoints` a checkpoint in its statistics (30 s at most).
wait_for_pods() {  # checkpoints|textfiles POD...
  local what=$1 name ready
  shift
  for _ in $(seq 1 300); do
    ready=0
    for name in "$@"; do
      ls "$textfiles" | grep -q "^nccl-roce\.[a-z]*\.$name\." || continue
      [ "$what" = textfiles ] || ls "$node/var/lib/nccl-roce/$name/"stats.*.json >/dev/null 2>&1 || continue
      ready=$((ready + 1))
    done
    [ "$ready" -eq "$#" ] && return 0
    sleep 0.1
  done
  ls -R "$textfiles" "$node/var/lib/nccl-roce" >&2
  fail "not every pod of $* wrote its $what within 30 s"
}

# `kubectl cp` of the pods' statistics directories, as docs/ab-testing.md collects them.
collect() {  # DIR POD...
  local into=$work/collected/$1
  shift
  rm -rf "$into"
  mkdir -p "$into"
  for name in "$@"; do cp -r "$node/var/lib/nccl-roce/$name" "$into/"; done
  echo "$into"
}

# Runs a gate: EXPECTED_EXIT WHAT COMMAND...; its stdout in $work/gate.out, stderr in $work/gate.err.
gate() {
  local expected=$1 what=$2 status=0
  shift 2
  "$@" >"$work/gate.out" 2>"$work/gate.err" || status=$?
  if [ "$status" -ne "$expected" ]; then
    cat "$work/gate.out" "$work/gate.err" >&2
    fail "$what: '$*' exited $status, the exit table says $expected"
  fi
  echo "ok: $what exits $expected (${SECONDS} s)"
}

start_node_exporter_and_prometheus "$textfiles" 1s

# 1. The experiments. Checkpoints every second (NCCL_ROCE_STATS_INTERVAL): gates read the pods while they serve.
checkpoints=NCCL_ROCE_STATS_INTERVAL=1
pod decode decode-0 0xd0 4 640 "$work/stop" NCCL_ROCE_POLICY="$decode" $checkpoints
pod decode decode-1 0xe0 4 640 "$work/stop" NCCL_ROCE_POLICY="$decode" $checkpoints
pod canary canary-0 0xc00 16 200 "$work/stop" NCCL_ROCE_POLICY="$canary" $checkpoints
pod canary canary-1 0xc80 16 200 "$work/stop" NCCL_ROCE_POLICY="$canary" $checkpoints
pod warmup warmup-0 0xa0 1 40 "$work/stop" NCCL_ROCE_POLICY="$warmup" $checkpoints
wait_for_pods checkpoints decode-0 decode-1 canary-0 canary-1 warmup-0
sleep 1.5  # a checkpoint after every communicator's last call
echo "ok: 5 experiment pods serve, each with its textfile and its statistics where the manifest puts them (${SECONDS} s)"

decode_dir=$(collect decode decode-0 decode-1)
canary_dir=$(collect canary canary-0 canary-1)
warmup_dir=$(collect warmup warmup-0)
gate 0 "the switchback's gate" "$cli" ab "$decode_dir" --fail-on-slower
grep -q '^## inference vs control: AllReduce, eager' "$work/gate.out" || fail "no verdict of the switchback's arms"
grep -q '| 16K-32K | .* | faster |' "$work/gate.out" || { cat "$work/gate.out" >&2; fail "inference (LL) is not faster"; }
gate 0 "the per-communicator experiment's gate" "$cli" ab "$canary_dir" --fail-on-slower
grep -q '| 16K-32K | .* | faster |' "$work/gate.out" || { cat "$work/gate.out" >&2; fail "the candidate is not faster"; }
gate 1 "the gate on an arm slower than its control" "$cli" ab "$canary_dir" --control candidate --fail-on-slower
gate 3 "the gate on a switchback with no window closed" "$cli" ab "$warmup_dir" --fail-on-slower
grep -q "nothing to compare" "$work/gate.err" || { cat "$work/gate.err" >&2; fail "the warm-up gate did not say why"; }
gate 0 "ab fit on the per-communicator experiment" "$cli" ab fit "$canary_dir" -q -o "$work/fitted.toml"
grep -q '^protocol = "ll"' "$work/fitted.toml" || { cat "$work/fitted.toml" >&2; fail "the fit did not choose LL"; }
"$cli" policy lint "$work/fitted.toml" >/dev/null || fail "policy lint of the fitted policy"

# 2. The rollout: the fitted policy in a ConfigMap of its own generation, pinned in the pod template.
fitted=$(configmap policy-v2 policy.toml <"$work/fitted.toml")
digest=$("$cli" policy digest "$fitted")
pod serving vllm-0 0x100 3 200 "$work/stop" NCCL_ROCE_POLICY="$fitted" NCCL_ROCE_POLICY_DIGEST="$digest"
pod serving vllm-1 0x180 3 200 "$work/stop" NCCL_ROCE_POLICY="$fitted" NCCL_ROCE_POLICY_DIGEST="$digest"
wait_for_pods textfiles vllm-0 vllm-1

# Prometheus has every pod's series, twice at least (the dashboard's rates need two samples).
for _ in $(seq 1 240); do
  [ "$(query_value 'count(count by (pod) (nccl_roce_ab_log_duration_count))')" = 7 ] &&
    [ "$(query_value 'min(count_over_time(nccl_roce_ab_log_duration_count[1m]))')" -ge 2 ] 2>/dev/null && break
  sleep 0.25
done
[ "$(query_value 'count(count by (pod) (nccl_roce_ab_log_duration_count))')" = 7 ] ||
  fail "Prometheus holds the series of $(query_value 'count(count by (pod) (nccl_roce_ab_log_duration_count))') pods, not 7"
rule=$(query_value "count(nccl_roce_tuner_decisions_total{namespace=\"serving\",source=\"rule\",policy_hash=\"$digest\"})")
[ "${rule:-0}" -ge 1 ] || fail "the rolled-out pods' decisions are not the fitted rule's (policy_hash $digest)"
echo "ok: the rollout's pods decide by the fitted rule, pinned by $digest (${SECONDS} s)"

# 3. Every fleet on the dashboard while the pods serve, the switchback's arms visible.
fleets=(--fleet "inference-vs-nccl=control,inference" --fleet "decode-warmup=control,inference"
  --fleet "nccl-vs-inference=candidate,control" --fleet "plain policy (no experiment)=")
python3 "$here/dashboard_queries.py" "$url" "$dashboard" live 5m "${fleets[@]}" >"$work/dashboard.out" ||
  { cat "$work/dashboard.out" >&2; fail "the dashboard does not show every fleet"; }
echo "ok: the dashboard shows 4 fleets, each switchback's arms apart (${SECONDS} s)"

# 4. The job ends: every pod's communicators are destroyed and their final states written.
touch "$work/stop"
for p in "${pods[@]}"; do
  status=0
  wait "${p#*:}" || status=$?
  [ "$status" -eq 0 ] || { cat "$work/${p%%:*}.log" >&2; fail "pod ${p%%:*} exited $status"; }
done
decode_dir=$(collect decode decode-0 decode-1)
canary_dir=$(collect canary canary-0 canary-1)
serving_dir=$(collect serving vllm-0 vllm-1)
gate 3 "the gate on the rolled-out fleet (a plain policy)" "$cli" ab "$serving_dir" --fail-on-slower
grep -q "names a policy, not an experiment" "$work/gate.err" || { cat "$work/gate.err" >&2; fail "no reason given"; }
for experiment in inference-vs-nccl:$decode_dir nccl-vs-inference:$canary_dir; do
  name=${experiment%%:*}
  gate 0 "ab on $name's final statistics" "$cli" ab "${experiment#*:}" --fail-on-slower
  cp "$work/gate.out" "$work/files.md"
  gate 0 "ab --prometheus on $name" "$cli" ab --prometheus "$url" --experiment "$name" --window 5m --fail-on-slower
  diff -u "$work/files.md" "$work/gate.out" >&2 || fail "$name: ab --prometheus and ab on the files disagree"
  echo "ok: $name: the same report from Prometheus as from the files"
done
sleep 2  # Prometheus scrapes the emptied directory
python3 "$here/dashboard_queries.py" "$url" "$dashboard" finished 5m "${fleets[@]}" >"$work/dashboard.out" ||
  { cat "$work/dashboard.out" >&2; fail "the dashboard lost a finished fleet"; }
echo "ok: the dashboard keeps every finished fleet over its range (${SECONDS} s)"
echo "journey_test: all passed in ${SECONDS} s"
