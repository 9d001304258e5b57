#!/usr/bin/env bash
# frugal serve over a 100,000-run ledger: the time of GET /api/v1/runs (a page of 100, and
# 1,000), GET /metrics and a report (median of 20 requests each, one keep-alive client, with the
# server's CPU time per request), the first /metrics, and the first after the history changed
# (the running run finishes); a live fleet's scrapes (SCRAPES of them, default 20, each after
# one checkpoint is committed and one segment ends preempted); then 1,000 concurrent
# keep-alive connections on loopback for 10 s with wrk, counting errors and the cores the
# server kept busy.
#   bench/server/server_bench.sh [BUILD_DIR]     (default build/dev; needs frugal and
#                                                 server_fixture built, and curl, wrk, sqlite3)
# FIXTURE=path: server_fixture from another build (the release preset builds no tests).
# BEFORE=path: another frugal binary (an older build) measured the same way in the same run,
# on a copy of the same ledger marked schema version BEFORE_SCHEMA (default 9). At 9 the
# change log of version 10 is left in place: its triggers keep history_version as version 9's
# did, and a version-9 binary reads nothing else of it. At 8, history_version, its triggers and
# index are dropped too.
# LIVE_ONLY=1: only the first /metrics and the live fleet's scrapes (no other requests, no wrk).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/dev}"
frugal="$build/apps/frugal/frugal"
fixture="${FIXTURE:-$build/tests/e2e/server/server_fixture}"
runs="${RUNS:-100000}"
for tool in curl wrk sqlite3; do
  command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 2; }
done
ulimit -n 65536 2>/dev/null || ulimit -n 4096

tmp=$(mktemp -d)
server=""
cleanup() { [[ -n "$server" ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export FRUGAL_HOME="$tmp/home"

start=$(date +%s.%N)
"$fixture" seed "$tmp/ledger.sqlite" >/dev/null
"$fixture" many "$tmp/ledger.sqlite" "$runs"
echo "ledger: $(sqlite3 "$tmp/ledger.sqlite" 'SELECT COUNT(*) FROM runs') runs, $(sqlite3 "$tmp/ledger.sqlite" 'SELECT COUNT(*) FROM segments') segments, written in $(echo "$(date +%s.%N) - $start" | bc) s"

cpu_ms() {  # CPU time (user + system) the server has used so far, in ms
  awk -v hz="$(getconf CLK_TCK)" '{printf "%d", ($14 + $15) * 1000 / hz}' "/proc/$server/stat"
}
median_ms() {  # median wall time of 20 GETs of $1 over one keep-alive connection, in ms
  local args=()
  for _ in $(seq 20); do args+=("$1" -o /dev/null); done
  curl -s -w '%{time_total}\n' "${args[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", 1000*(a[10]+a[11])/2}'
}
once_ms() { curl -s -w '%{time_total}' "$1" -o /dev/null | awk '{printf "%.1f", 1000*$1}'; }

stop() {
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=""
}

stats() {  # median, min and max of the numbers in file $1, in ms
  sort -n "$1" | awk '{a[NR]=$1} END {m = NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "median %.1f ms, min %.1f, max %.1f", m, a[1], a[NR]}'
}

live() {  # live LEDGER URL: scrapes of a fleet where the history changes between every two
  local db="$1" url="$2" n="${SCRAPES:-20}" run now_ms cpu=0 before ms
  run=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
  : >"$tmp/live.txt"
  : >"$tmp/live_read.txt"
  for _ in $(seq "$n"); do
    # One checkpoint committed on a segment of the last 10 minutes, which then ends preempted:
    # an event and a segment end, written by the sqlite3 shell (any writer's change counts).
    now_ms=$(($(date +%s%N) / 1000000))
    sqlite3 "$db" "INSERT INTO segments (run_id, cloud, instance_type, region, gpu, gpu_count, tier, price_micros_per_hour, start_ms) VALUES ($run, 'aws', 'p4d.24xlarge', 'us-east-1', 'A100', 8, 'spot', 12000000, $((now_ms - 600000))); INSERT INTO events (run_id, segment_id, time_ms, type, payload) VALUES ($run, (SELECT MAX(id) FROM segments), $((now_ms - 60000)), 'checkpoint_committed', '{\"write_seconds\": 2.5}'); UPDATE segments SET end_ms = $now_ms, end_reason = 'preempted' WHERE id = (SELECT MAX(id) FROM segments);"
    before=$(cpu_ms)
    curl -s -w '%{time_total}\n' "$url/metrics" -o "$tmp/live.prom" | awk '{printf "%.1f\n", 1000*$1}' >>"$tmp/live.txt"
    cpu=$((cpu + $(cpu_ms) - before))
    # The server's own figure: the time the scrape spent reading the ledger.
    awk '/^frugal_ledger_scrape_duration_seconds / {printf "%.2f\n", 1000*$2}' "$tmp/live.prom" >>"$tmp/live_read.txt"
  done
  echo "/metrics of a live fleet ($n scrapes, each after a checkpoint and a preempted segment's end): $(stats "$tmp/live.txt"), server CPU $(echo "scale=1; $cpu / $n" | bc) ms per scrape; of which reading the ledger (frugal_ledger_scrape_duration_seconds): $(stats "$tmp/live_read.txt")"
  curl -s "$url/metrics" | grep -E '^frugal_(preemptions_total|checkpoint_commit_duration_seconds_count)' | tr '\n' ' '
  echo
}

measure() {  # measure BINARY LEDGER LABEL
  local bin="$1" db="$2" label="$3"
  echo
  echo "== $label"
  "$bin" serve --listen 127.0.0.1:0 --db "$db" --threads "${THREADS:-64}" 2>"$tmp/serve.log" &
  server=$!
  for _ in $(seq 100); do grep -q 'frugal serve: http' "$tmp/serve.log" && break; sleep 0.1; done
  local url
  url=$(sed -n 's/^frugal serve: \(http:[^ ]*\).*/\1/p' "$tmp/serve.log")
  [[ -n "$url" ]] || { cat "$tmp/serve.log"; exit 1; }
  echo "first /metrics (sums the whole history): $(once_ms "$url/metrics") ms"
  [[ -n "${LIVE_ONLY:-}" ]] && { live "$db" "$url"; stop; return; }
  curl -sf "$url/api/v1/runs" -o /dev/null  # warm the connection pool
  printf '%-40s %10s %14s %10s\n' "request" "median ms" "server CPU ms" "bytes"
  local path bytes before ms
  for path in "/api/v1/runs" "/api/v1/runs?limit=1000" "/metrics" "/api/v1/report?by=team,tier"; do
    bytes=$(curl -s "$url$path" | wc -c)
    before=$(cpu_ms)
    ms=$(median_ms "$url$path")
    printf '%-40s %10s %14s %10s\n' "$path" "$ms" "$(echo "scale=1; ($(cpu_ms) - $before) / 20" | bc)" "$bytes"
  done
  # Any writer's change counts (here the sqlite3 shell's, as an older frugal could not take a
  # change through a newer fixture): the running run ends now.
  local now_ms=$(($(date +%s%N) / 1000000))
  sqlite3 "$db" "UPDATE runs SET status = 'succeeded', end_ms = $now_ms WHERE status = 'running'; UPDATE segments SET end_ms = $now_ms, end_reason = 'finished' WHERE end_ms IS NULL;"
  echo "first /metrics after a run finished (the history changed): $(once_ms "$url/metrics") ms; the next: $(once_ms "$url/metrics") ms"
  live "$db" "$url"
  [[ -n "${LIVE_ONLY:-}" ]] && { stop; return; }
  echo "wrk: 1,000 keep-alive connections, 4 threads, 10 s, GET /api/v1/runs?limit=10"
  before=$(cpu_ms)
  wrk -t4 -c1000 -d10s --timeout 10s --latency "$url/api/v1/runs?limit=10" | sed -n '1,40p'
  echo "server CPU during wrk: $(echo "scale=2; ($(cpu_ms) - $before) / 10000" | bc) cores (of $(nproc))"
  stop
}

if [[ -n "${BEFORE:-}" ]]; then
  # The same ledger as an older frugal knows it.
  cp "$tmp/ledger.sqlite" "$tmp/before.sqlite"
  case "${BEFORE_SCHEMA:-9}" in
    9) sqlite3 "$tmp/before.sqlite" "UPDATE frugal_meta SET value = '9' WHERE key = 'schema_version';" ;;
    8) sqlite3 "$tmp/before.sqlite" "$(sqlite3 "$tmp/before.sqlite" "SELECT 'DROP TRIGGER ' || name || ';' FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'history_%'") DROP TABLE history_changes; DROP TABLE history_version; DROP INDEX segments_end; UPDATE frugal_meta SET value = '8' WHERE key = 'schema_version';" ;;
    *) echo "BEFORE_SCHEMA: 8 or 9" >&2; exit 2 ;;
  esac
  measure "$BEFORE" "$tmp/before.sqlite" "before: $BEFORE (schema ${BEFORE_SCHEMA:-9})"
fi
measure "$frugal" "$tmp/ledger.sqlite" "this build: $frugal"
