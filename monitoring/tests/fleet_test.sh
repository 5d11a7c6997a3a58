#!/usr/bin/env bash
# The fleet test (ctest fleet, label sim): the tools' --metrics against the real Debian packages.
# It starts prometheus-node-exporter (the textfile collector only), prometheus-pushgateway and
# prometheus on free loopback ports with temporary data directories, 1 s scrape and evaluation
# intervals and monitoring/pdt_alerts.yml; checks the configuration and the rules with promtool;
# runs TOOL twice on a simulated design at once, one run writing a .prom file for the collector
# and one pushing to the gateway with a data error injected (PDT_SIM_FAULT=data_bit_flip); then
# asks Prometheus's HTTP API, with bounded waits, for the series of both paths and for the
# alerts: PdtDataErrors and PdtRunFailed firing for the faulted run only. `promtool check
# metrics` lints the text the tool wrote. Everything started is stopped on exit, checked with
# pgrep. Installs nothing (scripts/install_deps.sh does).
#
#   monitoring/tests/fleet_test.sh TOOL
#
# TOOL takes --sim_design NAME --duration SECONDS --metrics FILE|URL. Environment: FLEET_DESIGN
# (TEF1001_dma_stream_loopback), FLEET_SECONDS (5, each run), FLEET_KEEP=1 keeps the temporary
# directory and its logs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
rules=$(dirname "$here")/pdt_alerts.yml
tool=${1:?usage: fleet_test.sh TOOL}
design=${FLEET_DESIGN:-TEF1001_dma_stream_loopback}
seconds=${FLEET_SECONDS:-5}
started=$SECONDS

for program in prometheus promtool prometheus-node-exporter prometheus-pushgateway curl python3 pgrep; do
  command -v "$program" >/dev/null || { echo "fleet_test: $program not found (scripts/install_deps.sh)"; exit 2; }
done

tmp=$(mktemp -d /tmp/pdt-fleet.XXXXXX)
pids=()
cleanup() {
  local rc=$?
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  # Every process started here has the temporary directory on its command line.
  if pgrep -f -- "$tmp" >/dev/null; then
    echo "FAIL: processes left running: $(pgrep -a -f -- "$tmp")"
    rc=1
  fi
  if [ "${FLEET_KEEP:-0}" = 1 ]; then echo "fleet_test: kept $tmp"; else rm -rf "$tmp"; fi
  if [ "$rc" -eq 0 ]; then echo "fleet_test: PASS in $((SECONDS - started)) s"; else echo "fleet_test: FAIL in $((SECONDS - started)) s"; fi
  exit "$rc"
}
trap cleanup EXIT

show_logs() {
  local log
  for log in "$tmp"/*.log; do
    echo "--- $(basename "$log") (last lines)"
    tail -n 15 "$log"
  done
}
fail() {
  echo "FAIL: $*"
  show_logs
  exit 1
}

# wait_until SECONDS WHAT COMMAND...: COMMAND every half second until it succeeds, at most SECONDS.
wait_until() {
  local limit=$1 what=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "$what: not within $limit s"
    sleep 0.5
  done
}

# Three distinct free ports on 127.0.0.1, held together while chosen.
read -r node_port gateway_port prometheus_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(3)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

# The runs of the two paths are told apart by a target label, `via` (honor_labels keeps the
# pushed job and instance, so the scrape job cannot).
mkdir -p "$tmp/textfile" "$tmp/prometheus"
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $rules
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$node_port']
        labels: {via: textfile}
  - job_name: pushgateway
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$gateway_port']
        labels: {via: pushgateway}
EOF
promtool check config "$tmp/prometheus.yml" >"$tmp/promtool_config.log" 2>&1 || fail "promtool check config"
promtool check rules "$rules" >"$tmp/promtool_rules.log" 2>&1 || fail "promtool check rules"

prometheus-node-exporter --web.listen-address="127.0.0.1:$node_port" --collector.disable-defaults \
  --collector.textfile --collector.textfile.directory="$tmp/textfile" >"$tmp/node_exporter.log" 2>&1 &
pids+=("$!")
prometheus-pushgateway --web.listen-address="127.0.0.1:$gateway_port" \
  --persistence.file="$tmp/pushgateway.data" >"$tmp/pushgateway.log" 2>&1 &
pids+=("$!")
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prometheus" \
  --web.listen-address="127.0.0.1:$prometheus_port" >"$tmp/prometheus.log" 2>&1 &
pids+=("$!")

ready() { curl -sf --max-time 2 -o /dev/null "$1"; }
wait_until 30 "node_exporter answering" ready "http://127.0.0.1:$node_port/metrics"
wait_until 30 "pushgateway ready" ready "http://127.0.0.1:$gateway_port/-/ready"
wait_until 60 "prometheus ready" ready "http://127.0.0.1:$prometheus_port/-/ready"

# query EXPR: the instant vector's samples, one a line: "label=value,... value".
query() {
  curl -sfG --max-time 5 "http://127.0.0.1:$prometheus_port/api/v1/query" --data-urlencode "query=$1" |
    python3 -c '
import json, sys
answer = json.load(sys.stdin)
if answer["status"] != "success":
    sys.exit("query failed: %s" % answer)
for sample in answer["data"]["result"]:
    labels = sample["metric"]
    print(",".join("%s=%s" % (k, labels[k]) for k in sorted(labels)), sample["value"][1])'
}
has_series() { [ -n "$(query "$1")" ]; }
expect_none() {
  local found
  found=$(query "$1")
  [ -z "$found" ] || fail "expected no result for $1, got: $found"
}

# The two runs, at once: one for the textfile collector, one pushing with a data error.
# Small buffers (the two runs share the machine with the rest of the suite) and a report, so a
# metrics write, every second.
tool_args=(--stream_mapping_size 0x1000000 --stream_num_descriptors 16 --report_interval 1)
"$tool" --sim_design "$design" --duration "$seconds" "${tool_args[@]}" --metrics "$tmp/textfile/pdt.prom" \
  >"$tmp/run_textfile.log" 2>&1 &
textfile_run=$!
pids+=("$textfile_run")
PDT_SIM_FAULT=data_bit_flip "$tool" --sim_design "$design" --duration "$seconds" "${tool_args[@]}" \
  --metrics "http://127.0.0.1:$gateway_port" >"$tmp/run_pushgateway.log" 2>&1 &
pushed_run=$!
pids+=("$pushed_run")

# The clean run verifies bytes at a rate; the faulted one may fail on its first transfer, before
# any byte is verified: its series must be there, with whatever value.
wait_until 30 "pdt_verified_bytes_total via textfile" has_series 'pdt_verified_bytes_total{via="textfile"} > 0'
wait_until 30 "pdt_transfer_rate_bytes_per_second via textfile" \
  has_series 'pdt_transfer_rate_bytes_per_second{via="textfile"} > 0'
wait_until 30 "pdt_verified_bytes_total via pushgateway" has_series 'pdt_verified_bytes_total{via="pushgateway"}'
for via in textfile pushgateway; do
  # The design's sensors (TEF1001's XADC), on both paths.
  wait_until 30 "pdt_sensor_celsius via $via" has_series "pdt_sensor_celsius{via=\"$via\"} > 0"
  # Real unix seconds, not milliseconds or a monotonic clock: within a minute of Prometheus's.
  wait_until 10 "pdt_last_report_timestamp_seconds via $via within a minute of now" \
    has_series "abs(time() - pdt_last_report_timestamp_seconds{via=\"$via\"}) < 60"
done

set +e
wait "$textfile_run"
textfile_rc=$?
wait "$pushed_run"
pushed_rc=$?
set -e
[ "$textfile_rc" -eq 0 ] || fail "the textfile run failed (exit $textfile_rc)"
[ "$pushed_rc" -ne 0 ] || fail "the run with PDT_SIM_FAULT=data_bit_flip passed (exit 0)"

wait_until 30 "pdt_errors_total via pushgateway > 0" has_series 'pdt_errors_total{via="pushgateway"} > 0'
wait_until 30 "PdtDataErrors firing for the faulted run" \
  has_series 'ALERTS{alertname="PdtDataErrors",alertstate="firing",via="pushgateway"}'
wait_until 30 "PdtRunFailed firing for the faulted run" \
  has_series 'ALERTS{alertname="PdtRunFailed",alertstate="firing",via="pushgateway"}'
wait_until 10 "pdt_verdict_pass 1 via textfile" has_series 'pdt_verdict_pass{via="textfile"} == 1'
wait_until 10 "pdt_run_finished 1 via both paths" has_series 'count(pdt_run_finished == 1) == 2'
expect_none 'pdt_errors_total{via="textfile"} > 0'
expect_none 'ALERTS{alertname=~"PdtDataErrors|PdtRunFailed",via="textfile"}'
# The collector read the file (a malformed one sets node_textfile_scrape_error to 1).
wait_until 10 "node_textfile_scrape_error 0" has_series 'node_textfile_scrape_error{via="textfile"} == 0'
promtool check metrics <"$tmp/textfile/pdt.prom" >"$tmp/promtool_metrics.log" 2>&1 ||
  fail "promtool check metrics on the tool's .prom file: $(cat "$tmp/promtool_metrics.log")"

echo "fleet_test: series of both paths:"
query 'count by (via, __name__) ({__name__=~"pdt_.+"})' | sed 's/^/  /'
echo "fleet_test: alerts:"
query 'ALERTS' | sed 's/^/  /'
