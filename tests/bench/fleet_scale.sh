#!/usr/bin/env bash
# Fleet scale, measured (a benchmark, not a test; docs/performance.md records its figures): `nccl-roce ab` over
# 10,000 statistics files (2,500 communicators x 4 ranks, 13 size buckets each) and over a Prometheus holding the
# same fleet (Debian's, on loopback). Prints wall time
# and peak memory (GNU time) of each, and checks the two reports are the same.
# Usage: tests/bench/fleet_scale.sh BUILD_DIR [WORK_DIR]   (WORK_DIR: default a temporary directory; 300 MB)
set -euo pipefail
build=$1
work=${2:-$(mktemp -d)}
cli=$build/cli/nccl-roce
pids=()
stop_services() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_services EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
measure() {  # LABEL OUTPUT COMMAND...: wall and CPU seconds and peak RSS of COMMAND
  local label=$1 output=$2 wall kib user sys
  shift 2
  /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" >"$output"
  read -r wall kib user sys <"$work/time"
  printf '%-32s %6.2f s wall  %6.2f s CPU  %7.1f MiB peak\n' "$label" "$wall" "$(echo "$user + $sys" | bc -l)" \
    "$(echo "$kib / 1024" | bc -l)"
}

if [ ! -d "$work/stats" ]; then
  "$build/tests/calibration/synthetic_fleet" --per-arm 1250 --ranks 4 --metrics "$work/textfiles" "$work/stats" 7
fi
echo "fleet: $(ls "$work/stats" | wc -l) statistics files ($(du -sh "$work/stats" | cut -f1)), $(ls "$work/textfiles" | wc -l) textfiles ($(du -sh "$work/textfiles" | cut -f1))"
cat "$work"/stats/* >/dev/null  # the files in the page cache, as on a second run
measure "ab over the statistics files" "$work/ab-files.md" "$cli" ab "$work/stats"

# The textfiles into Prometheus' storage as node-exporter would have delivered them, by backfill (`promtool tsdb
# create-blocks-from openmetrics`): one node-exporter serving 10,000 processes' files is no real node's load (a node
# runs about 8), and scraping 100 MB a minute on this machine only measures that. The histograms are for dashboards
# and are left out, as a large fleet drops them at scrape (docs/rollout.md, cardinality).
python3 - "$work/textfiles" "$work/fleet.om" <<'EOF'
import glob, sys, time
families = {}  # name -> (TYPE/HELP lines, samples)
now = int(time.time()) - 600
for path in sorted(glob.glob(sys.argv[1] + "/*.prom")):
    name = None
    for line in open(path):
        if line.startswith("# TYPE "):
            name = line.split()[2]
            kind = line.split()[3]
            # OpenMetrics names a counter's family without the _total its samples carry.
            family = name[:-len("_total")] if kind == "counter" and name.endswith("_total") else name
            families.setdefault(name, (["# TYPE %s %s\n" % (family, kind)], []))
        elif line.startswith("#") or name is None or name.startswith("nccl_roce_collective_duration_seconds"):
            continue
        else:
            families[name][1].append(line.rstrip("\n") + " %d\n" % now)
with open(sys.argv[2], "w") as out:
    for header, samples in families.values():
        out.writelines(header + samples)
    out.write("# EOF\n")
EOF
rm -rf "$work/tsdb"
started=$SECONDS
promtool tsdb create-blocks-from openmetrics "$work/fleet.om" "$work/tsdb" >"$work/backfill.log"
port=$(free_port)
echo "global: {scrape_interval: 1m}" >"$work/prometheus.yml"
prometheus --storage.tsdb.path="$work/tsdb" --config.file="$work/prometheus.yml" --web.listen-address="127.0.0.1:$port" \
  --log.level=warn >"$work/prometheus.log" 2>&1 &
pids+=($!)
series=$(grep -c '^nccl_roce_ab_log_duration_count{' "$work/fleet.om")
scraped=0
while [ $((SECONDS - started)) -lt 600 ]; do
  answer=$(curl -sf "http://127.0.0.1:$port/api/v1/query" --data-urlencode 'query=count(last_over_time(nccl_roce_ab_log_duration_count[1h]))' || true)
  scraped=$(echo "$answer" | sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
  [ "$scraped" = "$series" ] && break
  sleep 2
done
[ "$scraped" = "$series" ] || { echo "Prometheus holds ${scraped:-0} of $series count series after 600 s" >&2; exit 1; }
echo "Prometheus holds the fleet: $series count series, $(grep -vc '^#' "$work/fleet.om") in all (backfilled and loaded in $((SECONDS - started)) s)"
measure "ab --prometheus" "$work/ab-prometheus.md" "$cli" ab --prometheus "http://127.0.0.1:$port" --window 1h
diff -q "$work/ab-files.md" "$work/ab-prometheus.md" >/dev/null && echo "the two reports are the same" ||
  { echo "the reports differ" >&2; exit 1; }
