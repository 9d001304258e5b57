#!/usr/bin/env bash
# Sets up a Debian 12 machine for frugal and builds it.
#   scripts/setup.sh [PRESET]    PRESET: release (default), dev, asan, bench
# Installs only the Debian packages that are missing (as root, or through sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"

packages=(
  # build, and the style checks CI runs (scripts/lint.sh)
  g++ cmake ninja-build pkg-config ccache git clang-format clang-tidy
  # libraries
  libcli11-dev nlohmann-json3-dev libfmt-dev libyaml-cpp-dev libsqlite3-dev libpqxx-dev
  libcpp-httplib-dev libmicrohttpd-dev libssl-dev libexpected-dev libgtest-dev libgmock-dev
  libbenchmark-dev libxxhash-dev
  # real components used by examples and tests
  sqlite3 postgresql python3 python3-torch python3-optuna
  # a single-node Slurm cluster the tests start (batch jobs requeued as preemption)
  slurm-wlm munge
  # headless browser: renders the audit's HTML report in its end-to-end test
  chromium
  # frugal serve: the metrics' scraper and checker (prometheus, promtool) and the load
  # generator of its benchmark (wrk)
  prometheus wrk
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The dashboard's build needs node and npm: Debian's packages unless a Node.js is already there
# (a NodeSource nodejs bundles npm and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The dashboard frugal serve serves: npm packages pinned by web/package-lock.json, bundled into
# web/dist/ (no network at run time). The Node.js it needs is web/package.json's "engines"
# (Debian 12's own Node 18 is enough); an older one stops here with the version it needs rather
# than with a SyntaxError from inside the bundler.
node_needed=$(sed -n 's/.*"node": *">=\([0-9.]*\)".*/\1/p' web/package.json)
node_have=$(node --version 2>/dev/null | sed 's/^v//')
if [[ -z "$node_have" ]] || [[ "$(printf '%s\n%s\n' "$node_needed" "$node_have" | sort -V | head -1)" != "$node_needed" ]]; then
  echo "setup: the dashboard needs Node.js $node_needed or newer; this machine has ${node_have:-none} ($(command -v node || echo 'no node on PATH'))" >&2
  exit 1
fi
# It installs and bundles beside the C++ build (mostly waiting on the network and the disk).
web_log=$(mktemp)
(cd web && npm ci --no-audit --no-fund --loglevel=error --engine-strict && npm run build --silent) \
  >"$web_log" 2>&1 &
web_pid=$!
trap 'kill "$web_pid" 2>/dev/null || true; rm -f "$web_log"' EXIT

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
if ! wait "$web_pid"; then
  echo "setup: the dashboard's build (npm ci, npm run build in web/) failed:" >&2
  cat "$web_log" >&2
  exit 1
fi
