#!/usr/bin/env bash
# The long version of the server's seeded attack suite (tests/e2e/server/attack_test.cc): each
# attack repeated ROUNDS times with fresh draws (4,000 idle connections at ROUNDS=4 when the
# descriptor limit allows), then the reported Range request against the real binary, with the
# server's resident memory before and after four of them at once.
#   bench/server/attack.sh [BUILD_DIR]     (default build/dev; ROUNDS=10, SEED=20261201)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/dev}"
rounds="${ROUNDS:-10}"
seed="${SEED:-20261201}"
ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null || true

echo "attack suite: FRUGAL_ATTACK_ROUNDS=$rounds FRUGAL_ATTACK_SEED=$seed"
FRUGAL_ATTACK_ROUNDS="$rounds" FRUGAL_ATTACK_SEED="$seed" \
  FRUGAL_HOME="$(mktemp -d)" "$build/tests/e2e/server/server_attack_test" 2>&1 |
  grep -E '^\[ +(OK|FAILED) +\]|^\[  PASSED|^\[  FAILED|tests ran'

frugal="$build/apps/frugal/frugal"
fixture="$build/tests/e2e/server/server_fixture"
tmp=$(mktemp -d)
server=""
cleanup() { [[ -n "$server" ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export FRUGAL_HOME="$tmp/home"
mkdir -p "$tmp/web/assets"
echo '<!doctype html>' >"$tmp/web/index.html"
head -c 84000 /dev/urandom | base64 -w 100 >"$tmp/web/assets/index-0000.js"
size=$(stat -c %s "$tmp/web/assets/index-0000.js")
"$fixture" seed "$tmp/ledger.sqlite" >/dev/null
FRUGAL_WEB_DIR="$tmp/web" "$frugal" serve --listen 127.0.0.1:0 --db "$tmp/ledger.sqlite" 2>"$tmp/serve.log" &
server=$!
for _ in $(seq 100); do grep -q 'frugal serve: http' "$tmp/serve.log" && break; sleep 0.1; done
url=$(sed -n 's/^frugal serve: \(http:[^ ]*\).*/\1/p' "$tmp/serve.log")
[[ -n "$url" ]] || { cat "$tmp/serve.log"; exit 1; }
rss() { awk '/VmRSS/ {print $2 / 1024 " MiB"}' "/proc/$server/status"; }
ranges="bytes=0-$(printf ',0-%.0s' $(seq 2599))"
echo
echo "Range: 2,600 × '0-' on a $size-byte asset (${#ranges}-byte header)"
echo "resident before: $(rss)"
pids=()
for i in 1 2 3 4; do
  curl -s -o "$tmp/out.$i" -w '%{http_code} %{size_download} bytes\n' -H "Range: $ranges" \
    "$url/assets/index-0000.js" &
  pids+=($!)
done
wait "${pids[@]}"
echo "resident after four at once: $(rss)"
