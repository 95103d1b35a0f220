#!/usr/bin/env bash
# Runs all_reduce_perf (nccl-tests, or our driver) under tuner policies and under forced NCCL_ALGO /
# NCCL_PROTO / channel / chunk size settings, with replicates, through mpirun, srun, a local multi-process launcher, or
# directly. Each replicate's log starts with the variables it ran with and its exact command line, so
# `nccl-roce sweep parse|compare|fit` can read the configuration back from the log itself.
# docs/sweep.md has the full usage; --help prints a summary.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: run-sweep.sh --binary PATH --out DIR [configurations] [options] [-- extra binary arguments]

Configurations (each one is run --replicates times; at least one is needed):
  --policy NAME|FILE     tuner policy: NCCL_TUNER_PLUGIN=roce NCCL_ROCE_POLICY=NAME|FILE (label policy-NAME)
  --default              NCCL's own choices: NCCL_ROCE_POLICY=nccl, nothing forced (label default)
  --forced ALGO/PROTO[/CHANNELS[/CHUNK]]
                         force NCCL_ALGO and NCCL_PROTO ('any' leaves one free), with CHANNELS
                         NCCL_MIN_NCHANNELS=NCCL_MAX_NCHANNELS=CHANNELS (may be empty), and with CHUNK
                         (256K, or x2 / x0.5 of NCCL's own) the chunk size through our tuner:
                         NCCL_TUNER_PLUGIN=roce NCCL_ROCE_CHUNK_SIZE=CHUNK (label e.g. ring-ll128-ch16-chunk240k)
  --algos A,B --protos P,Q [--channels C,D] [--chunk-sizes S,T]
                         every combination of the lists, as --forced
  --chunk-sizes S,T      alone: each chunk size with NCCL's own algorithm and protocol (label chunk-256k)
Sweep:
  --replicates N         runs per configuration (default 3)
  --min-bytes S --max-bytes S --step-factor F   sizes (default 8, 64M, 2)
  --iters N --warmup N --check 0|1              nccl-tests -n, -w, -c (default 20, 5, 1)
  --order interleaved|grouped
                         interleaved (default): replicate 1 of every configuration, then replicate 2, ...
                         so drift over time hits every configuration alike
Launcher:
  --launcher direct|mpirun|srun|local           (default direct: the binary runs once per replicate)
  --np N                 processes for mpirun, srun and local
  --hosts H1,H2          mpirun --host / srun --nodelist
  --launcher-args "..."  more arguments for mpirun or srun (split on spaces)
  --distinct-hostid      local: NCCL_HOSTID=<host>-rank<R> per process, so NCCL treats each as a node
  --plugin-dir DIR       prepended to LD_LIBRARY_PATH (where libnccl-roce.so and its symlinks are)
  --env NAME=VALUE       set for every run (repeatable)
Other:
  --dry-run              print exactly what would run; run nothing, write nothing
  -h, --help

Output: DIR/<label>/rep-<i>.log for every configuration and replicate (with --launcher local, ranks other
than 0 write DIR/<label>/rep-<i>.rank<R>.out), and DIR/manifest.tsv (label, replicate, exit status, log).
The local launcher is for the nccl-roce driver: it passes --rank R --nranks N --rendezvous FILE.
USAGE
}

die() {
  echo "run-sweep.sh: $*" >&2
  exit 2
}

binary="" out="" replicates=3 min_bytes=8 max_bytes=64M step_factor=2 iters=20 warmup=5 check=1
order=interleaved launcher=direct np="" hosts="" launcher_args="" distinct_hostid=0 plugin_dir="" dry_run=0
algos="" protos="" channels="" chunk_sizes=""
configs=()     # "label|NAME=VALUE NAME=VALUE ..."
extra_env=()
extra_args=()

forced_config() {  # ALGO PROTO [CHANNELS [CHUNK]]
  local algo=$1 proto=$2 ch=${3:-} chunk=${4:-} label vars="NCCL_ROCE_POLICY=nccl"
  [[ -n $algo && -n $proto ]] || die "--forced needs ALGO/PROTO (use 'any' to leave one to NCCL)"
  label="$(tr '[:upper:]' '[:lower:]' <<<"$algo-$proto")"
  [[ $algo == any ]] || vars+=" NCCL_ALGO=$algo"
  [[ $proto == any ]] || vars+=" NCCL_PROTO=$proto"
  if [[ -n $ch ]]; then
    [[ $ch =~ ^[1-9][0-9]*$ ]] || die "channel count '$ch' is not a positive number"
    label+="-ch$ch"
    vars+=" NCCL_MIN_NCHANNELS=$ch NCCL_MAX_NCHANNELS=$ch"
  fi
  if [[ -n $chunk ]]; then
    # NCCL has no variable for a collective's chunk size: our tuner serves it through getChunkSize (2.30.2+).
    [[ $chunk =~ ^[1-9][0-9]*[KMkm]?$ || $chunk =~ ^x(2|4|8|0\.5|0\.25|0\.125)$ ]] ||
      die "chunk size '$chunk' is neither bytes (256K) nor a factor of NCCL's own (x0.125 .. x8)"
    label="$([[ $algo == any && $proto == any && -z $ch ]] && echo chunk- || echo "$label-chunk")"
    label+="$(tr '[:upper:]' '[:lower:]' <<<"$chunk")"
    vars="NCCL_TUNER_PLUGIN=roce $vars NCCL_ROCE_CHUNK_SIZE=$chunk"
  fi
  [[ $algo != any || $proto != any || -n $ch || -n $chunk ]] || die "--forced any/any forces nothing; use --default"
  configs+=("$label|$vars")
}

while (($#)); do
  case $1 in
    --binary) binary=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --policy)
      p=${2:?}; shift 2
      [[ $p != *[[:space:]]* ]] || die "policy path '$p' contains white space"
      name=$(basename -- "$p"); name=${name%.*}
      configs+=("policy-$name|NCCL_TUNER_PLUGIN=roce NCCL_ROCE_POLICY=$p") ;;
    --default) configs+=("default|NCCL_ROCE_POLICY=nccl"); shift ;;
    --forced)
      IFS=/ read -r a p c k <<<"${2:?}"; shift 2
      forced_config "$a" "$p" "$c" "$k" ;;
    --algos) algos=${2:?}; shift 2 ;;
    --protos) protos=${2:?}; shift 2 ;;
    --channels) channels=${2:?}; shift 2 ;;
    --chunk-sizes) chunk_sizes=${2:?}; shift 2 ;;
    --replicates) replicates=${2:?}; shift 2 ;;
    --min-bytes) min_bytes=${2:?}; shift 2 ;;
    --max-bytes) max_bytes=${2:?}; shift 2 ;;
    --step-factor) step_factor=${2:?}; shift 2 ;;
    --iters) iters=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --check) check=${2:?}; shift 2 ;;
    --order) order=${2:?}; shift 2 ;;
    --launcher) launcher=${2:?}; shift 2 ;;
    --np) np=${2:?}; shift 2 ;;
    --hosts) hosts=${2:?}; shift 2 ;;
    --launcher-args) launcher_args=${2?}; shift 2 ;;
    --distinct-hostid) distinct_hostid=1; shift ;;
    --plugin-dir) plugin_dir=${2:?}; shift 2 ;;
    --env)
      [[ ${2:?} == *=* && ${2%%=*} =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "--env needs NAME=VALUE, got '$2'"
      extra_env+=("$2"); shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra_args=("$@"); break ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

IFS=, read -r -a chunk_list <<<"${chunk_sizes:-}"
((${#chunk_list[@]})) || chunk_list=("")
if [[ -n $algos || -n $protos || -n $channels ]]; then
  [[ -n $algos && -n $protos ]] || die "--algos and --protos go together"
  IFS=, read -r -a algo_list <<<"$algos"
  IFS=, read -r -a proto_list <<<"$protos"
  IFS=, read -r -a channel_list <<<"${channels:-}"
  ((${#channel_list[@]})) || channel_list=("")
  for a in "${algo_list[@]}"; do
    for p in "${proto_list[@]}"; do
      for c in "${channel_list[@]}"; do
        for k in "${chunk_list[@]}"; do forced_config "$a" "$p" "$c" "$k"; done
      done
    done
  done
elif [[ -n $chunk_sizes ]]; then
  for k in "${chunk_list[@]}"; do forced_config any any "" "$k"; done
fi

[[ -n $binary ]] || die "--binary PATH is required (all_reduce_perf, or nccl-roce-allreduce-driver)"
[[ -n $out ]] || die "--out DIR is required"
((${#configs[@]})) || die "nothing to run: give --policy, --default, --forced or --algos/--protos"
[[ $replicates =~ ^[1-9][0-9]*$ ]] || die "--replicates must be a positive number"
[[ $order == interleaved || $order == grouped ]] || die "--order is interleaved or grouped"
case $launcher in
  direct) ;;
  mpirun|srun|local) [[ $np =~ ^[1-9][0-9]*$ ]] || die "--launcher $launcher needs --np N" ;;
  *) die "--launcher is direct, mpirun, srun or local" ;;
esac
((distinct_hostid == 0)) || [[ $launcher == local ]] || die "--distinct-hostid needs --launcher local"
if ((!dry_run)); then
  [[ -x $binary ]] || die "$binary is not an executable file"
fi
labels=$(printf '%s\n' "${configs[@]}" | cut -d'|' -f1 | sort | uniq -d)
[[ -z $labels ]] || die "configuration given twice: $labels"

bench_args=(-b "$min_bytes" -e "$max_bytes" -f "$step_factor" -n "$iters" -w "$warmup" -c "$check" "${extra_args[@]}")
if [[ -n $plugin_dir ]]; then
  extra_env+=("LD_LIBRARY_PATH=$plugin_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
fi

# Shell words, quoted only where needed, so a printed command is both readable and exact.
quote() {
  local word sep="" out=""
  for word in "$@"; do
    if [[ $word =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]]; then
      out+="$sep$word"
    else
      local escaped=${word//\'/\'\\\'\'}  # ' becomes '\''
      out+="$sep'$escaped'"
    fi
    sep=" "
  done
  printf '%s' "$out"
}

# The command line(s) of one run, one per process, each as a quoted string; $1 = vars, $2 = log base.
commands_for() {
  local -a vars names
  read -r -a vars <<<"$1"
  vars+=("${extra_env[@]}")
  local v
  names=()
  for v in "${vars[@]}"; do names+=("${v%%=*}"); done
  case $launcher in
    direct) quote env "${vars[@]}" "$binary" "${bench_args[@]}"; echo ;;
    mpirun)
      local -a m=(mpirun -np "$np")
      [[ -z $hosts ]] || m+=(--host "$hosts")
      for v in "${names[@]}"; do m+=(-x "$v"); done
      # shellcheck disable=SC2206  # split on purpose
      [[ -z $launcher_args ]] || m+=($launcher_args)
      quote env "${vars[@]}" "${m[@]}" "$binary" "${bench_args[@]}"; echo ;;
    srun)
      local -a s=(srun -n "$np")
      [[ -z $hosts ]] || s+=(--nodelist "$hosts")
      # shellcheck disable=SC2206
      [[ -z $launcher_args ]] || s+=($launcher_args)
      quote env "${vars[@]}" "${s[@]}" "$binary" "${bench_args[@]}"; echo ;;
    local)
      local r host
      host=$(hostname -s 2>/dev/null || echo host)
      for ((r = 0; r < np; r++)); do
        local -a rv=("${vars[@]}")
        ((distinct_hostid == 0)) || rv+=("NCCL_HOSTID=$host-rank$r")
        quote env "${rv[@]}" "$binary" "${bench_args[@]}" --rank "$r" --nranks "$np" --rendezvous "$2.uid"; echo
      done ;;
  esac
}

run_one() {  # label settings replicate
  local label=$1 settings=$2 rep=$3 dir="$out/$1" log="$out/$1/rep-$3.log"
  local -a cmds
  mapfile -t cmds < <(commands_for "$settings" "$dir/rep-$rep")
  if ((dry_run)); then
    echo "# $label, replicate $rep of $replicates -> $log"
    printf '%s\n' "${cmds[@]}"
    return
  fi
  mkdir -p "$dir"
  rm -f "$dir/rep-$rep.uid"
  {
    local -a all
    read -r -a all <<<"$settings"
    all+=("${extra_env[@]}")
    for v in "${all[@]}"; do echo "# nccl-roce-env: $v"; done
    for c in "${cmds[@]}"; do echo "# nccl-roce-cmd: $c"; done
  } >"$log"
  local status=0
  if ((${#cmds[@]} == 1)); then
    bash -c "${cmds[0]}" >>"$log" 2>&1 || status=$?
  else
    local -a pids=()
    local r
    for ((r = 1; r < ${#cmds[@]}; r++)); do
      bash -c "${cmds[$r]}" >"$dir/rep-$rep.rank$r.out" 2>&1 &
      pids+=($!)
    done
    bash -c "${cmds[0]}" >>"$log" 2>&1 || status=$?
    for pid in "${pids[@]}"; do wait "$pid" || ((status != 0)) || status=$?; done
  fi
  printf '%s\t%s\t%s\t%s\n' "$label" "$rep" "$status" "$log" >>"$out/manifest.tsv"
  ((status == 0)) || echo "run-sweep.sh: $label replicate $rep exited with status $status (log kept: $log)" >&2
}

if ((!dry_run)); then
  mkdir -p "$out"
  printf 'label\treplicate\tstatus\tlog\n' >"$out/manifest.tsv"
fi
failures=0
if [[ $order == interleaved ]]; then
  for ((rep = 1; rep <= replicates; rep++)); do
    for c in "${configs[@]}"; do run_one "${c%%|*}" "${c#*|}" "$rep"; done
  done
else
  for c in "${configs[@]}"; do
    for ((rep = 1; rep <= replicates; rep++)); do run_one "${c%%|*}" "${c#*|}" "$rep"; done
  done
fi
if ((!dry_run)); then
  failures=$(awk -F'\t' 'NR > 1 && $3 != 0' "$out/manifest.tsv" | wc -l)
  echo "run-sweep.sh: $((${#configs[@]} * replicates)) runs, $failures failed; logs in $out" >&2
fi
((failures == 0)) || exit 1
