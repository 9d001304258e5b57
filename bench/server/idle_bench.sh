#!/usr/bin/env bash
# frugal serve with IDLE (default 1,000) TCP connections open that send nothing and SLOW (70)
# that trickle a header byte every second: the time of a normal GET /api/v1/runs?limit=1
# (median of 10), then the server's resident memory before, every 10 s during and after a long
# wrk run (WRK_SECONDS, default 60; 200 keep-alive connections).
#   bench/server/idle_bench.sh [BUILD_DIR]     (default build/dev; needs curl, wrk, python3)
# FIXTURE=path: server_fixture from another build (the release preset builds no tests).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/dev}"
frugal="$build/apps/frugal/frugal"
fixture="${FIXTURE:-$build/tests/e2e/server/server_fixture}"
idle="${IDLE:-1000}"
ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null || true
tmp=$(mktemp -d)
server=""
holder=""
cleanup() {
  [[ -n "$holder" ]] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
  [[ -n "$server" ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
export FRUGAL_HOME="$tmp/home"
"$fixture" seed "$tmp/ledger.sqlite" >/dev/null
"$frugal" serve --listen 127.0.0.1:0 --db "$tmp/ledger.sqlite" 2>"$tmp/serve.log" &
server=$!
for _ in $(seq 100); do grep -q 'frugal serve: http' "$tmp/serve.log" && break; sleep 0.1; done
url=$(sed -n 's/^frugal serve: \(http:[^ ]*\).*/\1/p' "$tmp/serve.log")
[[ -n "$url" ]] || { cat "$tmp/serve.log"; exit 1; }
port="${url##*:}"
# Holds the connections for at most 120 s, then exits by itself.
python3 - "$port" "$idle" >"$tmp/holder.log" 2>&1 <<'PY' &
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(70)]
req = b"GET /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"x" * 200
print("open", flush=True)
for i in range(120):
    for s in slow:
        try: s.send(req[i:i + 1])
        except OSError: pass
    time.sleep(1)
PY
holder=$!
for _ in $(seq 300); do grep -q open "$tmp/holder.log" && break; sleep 0.1; done
times=()
for _ in $(seq 10); do times+=("$(curl -s -m 60 -o /dev/null -w '%{time_total}' "$url/api/v1/runs?limit=1")"); done
printf '%s\n' "${times[@]}" | sort -n | awk -v n="$idle" '{a[NR]=$1} END {printf "GET /api/v1/runs?limit=1 with %d idle + 70 slow connections: median %.1f ms, max %.1f ms\n", n, 1000*(a[5]+a[6])/2, 1000*a[NR]}'
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null || true; holder=""
rss() { awk '/VmRSS/ {printf "%.1f MiB", $2 / 1024}' "/proc/$server/status"; }
echo "resident before wrk: $(rss)"
wrk -t2 -c200 -d"${WRK_SECONDS:-60}s" --latency "$url/api/v1/runs?limit=10" >"$tmp/wrk.log" &
wrk_pid=$!
samples=()
while kill -0 "$wrk_pid" 2>/dev/null; do
  sleep 10
  kill -0 "$wrk_pid" 2>/dev/null && samples+=("$(rss)")
done
wait "$wrk_pid"
sed -n '1,12p' "$tmp/wrk.log"
echo "resident every 10 s during wrk: $(IFS=,; echo "${samples[*]}" | sed 's/,/, /g')"
echo "resident after wrk: $(rss)"
