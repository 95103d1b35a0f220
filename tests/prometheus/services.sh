# Sourced by the tests in this folder: a scratch directory, Debian's services started on loopback and free ports,
# every wait bounded, and everything stopped and removed on any exit. A missing service is a failure, not a skip
# (scripts/install-deps.sh installs them).

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
for tool in prometheus prometheus-node-exporter promtool curl python3; do
  command -v "$tool" >/dev/null || fail "no $tool here (scripts/install-deps.sh installs it)"
done

work=$(mktemp -d)
pids=()
stop_services() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop_services EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Starts a service (its command line after the port placeholder @PORT@ is filled in) and waits for URL_PATH to
# answer: up to 3 free ports, 20 s each. Sets $port.
start() {
  local name=$1 path=$2 try
  shift 2
  for try in 1 2 3; do
    port=$(free_port)
    "${@//@PORT@/$port}" >"$work/$name.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 1 200); do
      curl -sf "http://127.0.0.1:$port$path" >/dev/null 2>&1 && return 0
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill "$pid" 2>/dev/null || true
  done
  cat "$work/$name.log" >&2
  fail "$name did not start"
}

# node-exporter serving the textfiles of DIR, and a Prometheus scraping it every INTERVAL, evaluating the alerting
# rules of RULES (optional) as often. Sets $url.
start_node_exporter_and_prometheus() {  # DIR INTERVAL [RULES]
  start node-exporter /metrics prometheus-node-exporter --web.listen-address=127.0.0.1:@PORT@ \
    --collector.disable-defaults --collector.textfile --collector.textfile.directory="$1"
  local exporter=$port
  cat >"$work/prometheus.yml" <<YAML
global:
  scrape_interval: $2
  scrape_timeout: $2
  evaluation_interval: $2
rule_files: [${3:-}]
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$exporter']
YAML
  start prometheus /-/ready prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address=127.0.0.1:@PORT@ --log.level=warn
  url=http://127.0.0.1:$port
}

# The value of a PromQL query that answers one number ("" while it answers none).
query_value() {
  curl -sf "$url/api/v1/query" --data-urlencode "query=$1" |
    sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p' || true
}
