#!/usr/bin/env bash
# A stand-in for all_reduce_perf on machines without GPUs: prints nccl-tests output (2022+ layout) whose
# times follow a fixed model of NCCL_ALGO / NCCL_PROTO, so runner, parser and fit can be tested end to end.
#   LL 6 us + size / 4 GB/s, LL128 12 us + size / 16 GB/s, Simple 22 us + size / 40 GB/s;
#   Tree: latency x 0.7 and bandwidth term x 1.5 (Ring x 1);
#   unforced (NCCL's default in this model): Ring with LL128 everywhere;
#   a chunk size of 1M or more through our tuner (NCCL_TUNER_PLUGIN set, NCCL_ROCE_CHUNK_SIZE=1M, 2M or x2 of
#   NCCL's 512K) makes Simple's bandwidth x 1.25.
# Replicate noise: rep-N in the log's name (stdout) gives a factor 1 + 0.003 (N - 2).
# FAKE_FAIL=1 makes it exit 3 after the header. Only rank 0 prints (--rank R as the driver takes it).
set -euo pipefail
min=8 max=1048576 factor=2 rank=0
while (($#)); do
  case $1 in
    -b) min=$2; shift 2 ;;
    -e) max=$2; shift 2 ;;
    -f) factor=$2; shift 2 ;;
    --rank) rank=$2; shift 2 ;;
    --nranks|--rendezvous|-n|-w|-c|-g) shift 2 ;;
    *) shift ;;
  esac
done
bytes() {  # 64M -> 67108864
  local v=$1
  case $v in *K) echo $((${v%K} << 10)) ;; *M) echo $((${v%M} << 20)) ;; *G) echo $((${v%G} << 30)) ;; *) echo "$v" ;; esac
}
min=$(bytes "$min") max=$(bytes "$max")
((rank == 0)) || exit 0
target=$(readlink /proc/$$/fd/1 2>/dev/null || true)  # $$: inside $(...) fd 1 is the substitution's pipe
rep=1
[[ $target =~ rep-([0-9]+)\.log$ ]] && rep=${BASH_REMATCH[1]}
echo "# nThread 1 nGpus 1 minBytes $min maxBytes $max step: $factor(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
echo "#"
echo "# Using devices"
echo "#  Rank  0 Group  0 Pid  $$ on      nodeA device  0 [0000:19:00] NVIDIA H100 80GB HBM3"
echo "#  Rank  1 Group  0 Pid  $$ on      nodeB device  0 [0000:19:00] NVIDIA H100 80GB HBM3"
[[ -z ${NCCL_ALGO:-} ]] || echo "nodeA:$$:$$ [0] NCCL INFO NCCL_ALGO set by environment to $NCCL_ALGO"
if [[ ${FAKE_FAIL:-0} == 1 ]]; then echo "nodeA: Test NCCL failure common.cu:1005 'unhandled system error'"; exit 3; fi
echo "#"
echo "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
echo "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)"
chunk=0
if [[ -n ${NCCL_TUNER_PLUGIN:-} ]]; then
  case ${NCCL_ROCE_CHUNK_SIZE:-} in x*) chunk=$((512 << 10)) ;; 1M) chunk=$((1 << 20)) ;; 2M) chunk=$((2 << 20)) ;; esac
  [[ ${NCCL_ROCE_CHUNK_SIZE:-} != x2 ]] || chunk=$((1 << 20))
fi
awk -v min="$min" -v max="$max" -v f="$factor" -v algo="${NCCL_ALGO:-}" -v proto="${NCCL_PROTO:-}" -v rep="$rep" \
    -v chunk="$chunk" '
BEGIN {
  a = tolower(algo); p = tolower(proto);
  if (a == "") a = "ring"; if (p == "") p = "ll128";
  if (p == "ll") { lat = 6; bw = 4e3 } else if (p == "ll128") { lat = 12; bw = 16e3 } else { lat = 22; bw = 40e3 }
  if (a == "tree") { lat *= 0.7; bw /= 1.5 }
  if (p == "simple" && chunk >= 1048576) bw *= 1.25;
  noise = 1 + 0.003 * (rep - 2);
  for (s = min; s <= max; s *= f) {
    t = (lat + s / bw) * noise; alg = s / t / 1e3;
    printf "%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  %6.2f       0\n", s, s / 4, t, alg, alg, t, alg, alg
  }
}'
echo "# Out of bounds values : 0 OK"
echo "# Avg bus bandwidth    : 1 "
echo "#"
