#!/usr/bin/env bash
# The GPU proof in one command (docs/gpu-proof.md): on one GPU machine, with N processes each posing as its own
# node (distinct NCCL_HOSTID, so NCCL takes its network path), runs nccl-roce inside real NCCL and then decides,
# with `nccl-roce proof OUT`, whether NCCL obeyed a policy that differs from its own choices, whether every
# collective was timed and decided exactly once (eager and CUDA-graph replays), whether the timings mean anything
# (MPS, or time slicing refused), and what an A/B and a switchback experiment say. About 2-4 minutes on one GPU.
#
#   gpu-proof.sh --driver build/nccl-tests-integration/driver/nccl-roce-allreduce-driver \
#                --plugin-dir build/plugin --cli build/cli/nccl-roce --out results/gpu-proof
#
# Options: --ranks N (processes, default 2), --replicates N (of the default and policy sweeps, default 3),
# --nccl-lib DIR (libnccl.so.2's directory; default the system's, else PyTorch's pip wheel, nvidia/nccl/lib, with
# nvidia/cu13/lib or cu12/lib for the CUDA runtime), --mps auto|off (auto: a private MPS daemon for the run when
# nvidia-cuda-mps-control exists), --examples DIR (where gpu-proof-divergent.toml and gpu-proof-switchback.toml
# are; default share/nccl-roce/examples beside this script's tree), --dry-run (print what would run; run nothing).
# Output: OUT/setup.txt, OUT/{sweep,graph,switchback}/<configuration>/rep-*.log (rank 0) and rep-*.rank<R>.out,
# OUT/<group>/stats.<pid>.json, OUT/summary.{md,json}. Exit status: `nccl-roce proof`'s (0 no check failed, 1 one
# failed); 2 on a usage error or a missing input.
set -euo pipefail

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "gpu-proof.sh: $*" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
driver="" plugin_dir="" cli="" out="" ranks=2 replicates=3 nccl_lib="" mps_mode=auto dry_run=0
examples="$here/../../share/nccl-roce/examples"
while (($#)); do
  case $1 in
    --driver) driver=${2:?}; shift 2 ;;
    --plugin-dir) plugin_dir=${2:?}; shift 2 ;;
    --cli) cli=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --ranks) ranks=${2:?}; shift 2 ;;
    --replicates) replicates=${2:?}; shift 2 ;;
    --nccl-lib) nccl_lib=${2:?}; shift 2 ;;
    --mps) mps_mode=${2:?}; shift 2 ;;
    --examples) examples=${2:?}; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -n $driver && -n $plugin_dir && -n $out ]] || die "--driver, --plugin-dir and --out are required"
[[ $ranks =~ ^[2-9]$|^[1-9][0-9]+$ ]] || die "--ranks takes a process count of 2 or more, got '$ranks'"
[[ $replicates =~ ^[1-9][0-9]*$ ]] || die "--replicates takes a positive number, got '$replicates'"
[[ $mps_mode == auto || $mps_mode == off ]] || die "--mps is auto or off"
for f in gpu-proof-divergent.toml gpu-proof-switchback.toml; do
  [[ -f $examples/$f ]] || die "$examples/$f not found (--examples DIR)"
done
if ((!dry_run)); then
  [[ -n $cli ]] || die "--cli PATH (the nccl-roce binary) is required to decide"
  [[ -e $plugin_dir/libnccl-env-roce.so ]] || die "$plugin_dir has no libnccl-env-roce.so"
  [[ -x $driver ]] || die "$driver is not an executable file"
fi

# NCCL and the CUDA runtime: --nccl-lib, else the system's (the driver's libnccl.so.2 resolves), else PyTorch's pip
# wheels, where vLLM images have them: nvidia/nccl/lib, and the runtime in nvidia/cu13/lib (or cu12/lib). `nvidia`
# is a namespace package spread over several wheels, so every directory of nvidia.__path__ is searched.
wheel_dirs() {
  python3 - <<'PYTHON' 2>/dev/null
import os
import nvidia
for base in nvidia.__path__:
    for sub in ("nccl/lib", "cu13/lib", "cu12/lib", "cuda_runtime/lib"):
        if os.path.isdir(os.path.join(base, sub)):
            print(os.path.join(base, sub))
PYTHON
}
nccl_from=""
if [[ -n $nccl_lib ]]; then
  export LD_LIBRARY_PATH="$nccl_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  nccl_from="--nccl-lib $nccl_lib"
elif [[ -x $driver ]] && ! ldd "$driver" 2>/dev/null | grep -q 'libnccl.so.2 => not found'; then
  nccl_from="the system's ($(ldd "$driver" | awk '/libnccl.so.2/ {print $3}'))"
elif dirs=$(wheel_dirs) && [[ -n $dirs ]]; then
  while read -r d; do export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; done <<<"$dirs"
  nccl_from="PyTorch's pip wheel (${dirs//$'\n'/, })"
else
  nccl_from="not found (no system NCCL, no nvidia-nccl wheel for python3; give --nccl-lib DIR)"
  ((dry_run)) || die "NCCL $nccl_from"
fi

# MPS: without it the GPU time-slices between the ranks' processes, every collective waits for the others' slices
# and takes one quantum whatever its size; with a private daemon (its own pipe and log directories, stopped on
# exit) their kernels run side by side.
mps="none: nvidia-cuda-mps-control not found, so the ranks' processes time-slice the GPU"
mps_pipe=""
stop_mps() { [[ -z $mps_pipe ]] || { echo quit | CUDA_MPS_PIPE_DIRECTORY=$mps_pipe nvidia-cuda-mps-control || true; rm -rf "$mps_pipe"; }; }
if [[ $mps_mode == off ]]; then
  mps="off (--mps off): the ranks' processes time-slice the GPU"
elif command -v nvidia-cuda-mps-control >/dev/null; then
  if ((dry_run)); then
    mps="a private daemon (nvidia-cuda-mps-control -d, its own pipe and log directories, stopped on exit)"
  else
    mps_pipe=$(mktemp -d /tmp/nccl-roce-mps.XXXXXX)  # a short path: the daemon's socket lives there
    mkdir -p "$out/mps-log"
    export CUDA_MPS_PIPE_DIRECTORY=$mps_pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
    trap stop_mps EXIT
    if nvidia-cuda-mps-control -d; then
      mps="private daemon (pipe $mps_pipe, log $out/mps-log)"
    else
      mps="failed to start (see $out/mps-log): the ranks' processes time-slice the GPU"
      unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
      rm -rf "$mps_pipe"; mps_pipe=""
    fi
  fi
fi

plugins=(--env NCCL_NET_PLUGIN=roce --env NCCL_TUNER_PLUGIN=roce --env NCCL_ENV_PLUGIN=roce
         --env NCCL_PROFILER_PLUGIN=roce --env NCCL_DEBUG=INFO --env NCCL_DEBUG_SUBSYS=INIT,ENV,NET,TUNING)
run() {  # GROUP run-sweep.sh arguments...
  local group=$1
  shift
  local args=(--binary "$driver" --out "$out/$group" --launcher local --np "$ranks" --distinct-hostid
              --plugin-dir "$plugin_dir" "${plugins[@]}" --env "NCCL_ROCE_STATS=$out/$group/stats")
  ((dry_run == 0)) || args+=(--dry-run)
  args+=("$@")
  local start=$SECONDS status=0
  "$here/run-sweep.sh" "${args[@]}" || status=$?
  ((dry_run)) || echo "gpu-proof.sh: $group: $((SECONDS - start)) s, run-sweep.sh exit status $status" >&2
}

echo "# NCCL: $nccl_from"
echo "# MPS: $mps"
if ((!dry_run)); then
  mkdir -p "$out"
  cp "$examples/gpu-proof-divergent.toml" "$examples/gpu-proof-switchback.toml" "$out/"
  {
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname)"
    echo "gpu: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1 || echo unknown)"
    echo "gpu_driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1 || echo unknown)"
    echo "nccl: $nccl_from"
    echo "mps: $mps"
    echo "ranks: $ranks processes on one GPU, each its own node (NCCL_HOSTID)"
  } >"$out/setup.txt"
fi
divergent="$out/gpu-proof-divergent.toml"
# 1. NCCL's own choices against the divergent policy, 8 B - 64 MiB: policy-obeyed, timed-collectives,
#    timing-quantum, divergent-vs-default.
run sweep --default --policy "$divergent" --replicates "$replicates" --min-bytes 8 --max-bytes 64M
# 2. The policy's calls captured in CUDA graphs, each launched 10 times: graph-replays (and policy-obeyed).
run graph --policy "$divergent" --replicates 1 --min-bytes 4K --max-bytes 16M --step-factor 16 --iters 5 \
  --warmup 1 -- -G 10
# 3. A switchback between NCCL's own choices and the policy inside one communicator, enough calls of few sizes
#    for turns of 16 calls to alternate within each size: switchback.
run switchback --policy "$out/gpu-proof-switchback.toml" --replicates 1 --min-bytes 4K --max-bytes 1M \
  --step-factor 16 --iters 200 --warmup 5

if ((dry_run)); then
  echo "${cli:-nccl-roce} proof $out -o $out/summary.md --json $out/summary.json"
  exit 0
fi
stop_mps
mps_pipe=""
status=0
"$cli" proof "$out" -o "$out/summary.md" --json "$out/summary.json" || status=$?
cat "$out/summary.md"
exit "$status"
