#!/usr/bin/env bash
# Proves the plugin inside real NCCL on one GPU machine: for each process count, runs an all-reduce sweep
# (8 B - 64 MiB) with every process posing as its own node (distinct NCCL_HOSTID), under NCCL's default and under
# the `inference` policy, with all three plugin variables set to roce; then checks rank 0's NCCL log for what
# must be there, writes decision statistics, and compares the two configurations.
#
#   gpu-proof.sh --driver build/nccl-tests-integration/driver/nccl-roce-allreduce-driver \
#                --plugin-dir build/plugin --cli build/cli/nccl-roce --out results/gpu-proof
#
# Checks, per process count, in the policy run's rank-0 log (exit status 1 when one is missing):
#   env plugin   NCCL's "ENV/Plugin" line naming nccl-roce
#   net plugin   our "net: ..." INFO line (stepping aside for the env plugin, or the settings it applied)
#   tuner        our "tuner: comm ... (R ranks, N nodes) uses policy 'inference'" line with N > 1
# Output: OUT/np<N>/{default,policy-inference}/rep-*.log (run-sweep.sh), OUT/np<N>/stats.*.json (decision
# statistics), OUT/np<N>/compare.{md,json}, OUT/summary.md. --dry-run prints the runs and checks nothing.
set -euo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "gpu-proof.sh: $*" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
driver="" plugin_dir="" cli="" out="" ranks="2 4" replicates=3 dry_run=0
while (($#)); do
  case $1 in
    --driver) driver=${2:?}; shift 2 ;;
    --plugin-dir) plugin_dir=${2:?}; shift 2 ;;
    --cli) cli=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --ranks) ranks=${2:?}; shift 2 ;;
    --replicates) replicates=${2:?}; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -n $driver && -n $plugin_dir && -n $out ]] || die "--driver, --plugin-dir and --out are required"
((dry_run)) || [[ -n $cli ]] || die "--cli PATH (the nccl-roce binary) is required to compare"
((dry_run)) || [[ -e $plugin_dir/libnccl-env-roce.so ]] || die "$plugin_dir has no libnccl-env-roce.so"

sweep() {  # N
  local n=$1 args
  args=(--binary "$driver" --out "$out/np$n" --launcher local --np "$n" --distinct-hostid
        --plugin-dir "$plugin_dir" --default --policy inference --replicates "$replicates"
        --min-bytes 8 --max-bytes 64M
        --env NCCL_NET_PLUGIN=roce --env NCCL_TUNER_PLUGIN=roce --env NCCL_ENV_PLUGIN=roce
        --env NCCL_DEBUG=INFO --env NCCL_DEBUG_SUBSYS=INIT,ENV,NET,TUNING
        --env "NCCL_ROCE_STATS=$out/np$n/stats")
  ((dry_run == 0)) || args+=(--dry-run)
  "$here/run-sweep.sh" "${args[@]}"
}

# One check: a line of rank 0's log matching an extended regex. Prints the line found, or what is missing.
check() {  # LOG WHAT REGEX
  local line
  if line=$(grep -m1 -E "$3" "$1"); then
    printf -- '- %s: found `%s`\n' "$2" "${line:0:200}"
  else
    printf -- '- %s: MISSING (no line matching `%s` in %s)\n' "$2" "$3" "$1"
    return 1
  fi
}

status=0
((dry_run)) || { mkdir -p "$out"; echo "# nccl-roce inside NCCL: $(date -u +%FT%TZ)" >"$out/summary.md"; }
for n in $ranks; do
  [[ $n =~ ^[2-9]$|^[1-9][0-9]+$ ]] || die "--ranks takes process counts of 2 or more, got '$n'"
  sweep "$n"
  ((dry_run == 0)) || continue
  log="$out/np$n/policy-inference/rep-1.log"
  section="$out/np$n/checks.md"
  {
    echo
    echo "## $n processes on one GPU, each its own node (NCCL_HOSTID)"
    check "$log" "env plugin loaded" 'ENV/Plugin.*nccl-roce' || status=1
    check "$log" "net plugin stepped aside" 'net: (the nccl-roce env plugin serves|applied)' || status=1
    check "$log" "tuner saw several nodes" "tuner: comm [0-9a-fx]+ \\($n ranks, ([2-9]|[1-9][0-9]+) nodes\\) uses policy 'inference'" || status=1
    if ls "$out/np$n"/stats.*.json >/dev/null 2>&1; then
      echo "- decision statistics: $(ls "$out/np$n"/stats.*.json | wc -l) file(s)"
    else
      echo "- decision statistics: MISSING"
      status=1
    fi
  } >"$section"
  cat "$section" | tee -a "$out/summary.md"
  "$cli" sweep compare "$out/np$n/default" "$out/np$n/policy-inference" --label-a nccl --label-b inference \
    -o "$out/np$n/compare.md" --json "$out/np$n/compare.json" || status=1
  grep -m1 '^\*\*Inference range' "$out/np$n/compare.md" | tee -a "$out/summary.md" || true
done
exit $status
