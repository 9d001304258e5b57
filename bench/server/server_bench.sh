#!/usr/bin/env bash
# frugal serve over a 100,000-run ledger: the time of GET /api/v1/runs (a page of 100, and
# 1,000) and GET /metrics (median of 20 requests each, one keep-alive client), then 1,000
# concurrent keep-alive connections on loopback for 10 s with wrk, counting errors.
#   bench/server/server_bench.sh [BUILD_DIR]     (default build/dev; needs frugal and
#                                                 server_fixture built, and curl, wrk)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/dev}"
frugal="$build/apps/frugal/frugal"
fixture="$build/tests/e2e/server/server_fixture"
runs="${RUNS:-100000}"
for tool in curl wrk; do command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 2; }; done
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

"$frugal" serve --listen 127.0.0.1:0 --db "$tmp/ledger.sqlite" --threads "${THREADS:-64}" 2>"$tmp/serve.log" &
server=$!
for _ in $(seq 100); do grep -q 'frugal serve: http' "$tmp/serve.log" && break; sleep 0.1; done
url=$(sed -n 's/^frugal serve: \(http:[^ ]*\).*/\1/p' "$tmp/serve.log")
[[ -n "$url" ]] || { cat "$tmp/serve.log"; exit 1; }

median_ms() {  # median wall time of 20 GETs of $1 over one keep-alive connection, in ms
  local args=()
  for _ in $(seq 20); do args+=("$1" -o /dev/null); done
  curl -s -w '%{time_total}\n' "${args[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", 1000*(a[10]+a[11])/2}'
}
first=$(curl -s -w '%{time_total}' "$url/metrics" -o /dev/null)
echo "first /metrics (sums the whole history): $(echo "$first * 1000" | bc) ms; later scrapes reuse those sums while the history is unchanged"
curl -sf "$url/api/v1/runs" -o /dev/null  # warm the connection pool
printf '%-40s %10s %10s\n' "request" "median ms" "bytes"
for path in "/api/v1/runs" "/api/v1/runs?limit=1000" "/metrics" "/api/v1/report?by=team,tier"; do
  bytes=$(curl -s "$url$path" | wc -c)
  printf '%-40s %10s %10s\n' "$path" "$(median_ms "$url$path")" "$bytes"
done

echo
echo "wrk: 1,000 keep-alive connections, 4 threads, 10 s, GET /api/v1/runs?limit=10"
wrk -t4 -c1000 -d10s --timeout 10s --latency "$url/api/v1/runs?limit=10" | sed -n '1,40p'
