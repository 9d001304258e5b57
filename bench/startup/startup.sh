#!/usr/bin/env bash
# Start-up and whole-process CPU of commands that need neither PostgreSQL nor HTTP, beside the
# peers the design budget names (sqlite3 opening an in-memory database, git --version), and
# the shared objects and relocations the dynamic loader processes for each.
#
#   bench/startup/startup.sh [FRUGAL_BINARY]     (default: build/release/apps/frugal/frugal)
#
# hyperfine runs each command (warm-up $WARMUP or 5, at least $RUNS or 50 runs) and prints mean wall, user and
# system time; CPU = user + system. Needs hyperfine (Debian package).
set -euo pipefail
cd "$(dirname "$0")/../.."
frugal=${1:-build/release/apps/frugal/frugal}
[[ -x $frugal ]] || { echo "startup.sh: no $frugal (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export FRUGAL_HOME=$home

echo "## shared objects and relocations (LD_DEBUG=statistics)"
for cmd in "$frugal --version" "sqlite3 :memory: .quit" "git --version"; do
  objects=$(LD_TRACE_LOADED_OBJECTS=1 ${cmd%% *} 2>/dev/null | grep -c '=>\|ld-linux' || true)
  relocs=$(LD_DEBUG=statistics $cmd 2>&1 >/dev/null | sed -n 's/.*number of relocations: *\([0-9]*\).*/\1/p' | head -1)
  printf '%-40s %3s objects  %6s relocations\n' "$cmd" "$objects" "$relocs"
done

commands=("$frugal --version" "sqlite3 :memory: .quit" "git --version" "$frugal catalog gpus")
# Every shipped example that `frugal plan` takes: job specs and inference specs (several with
# a `catalog:` of their own offers).
for spec in examples/plan/*.yaml examples/seed/job*.yaml examples/seed-xgboost/job*.yaml \
            examples/measured/*.yaml examples/serving/[!o]*.yaml; do
  "$frugal" plan "$spec" >/dev/null 2>&1 && commands+=("$frugal plan $spec")
done
echo
echo "## CPU per process (hyperfine: mean user + system)"
json=$home/hyperfine.json
hyperfine --warmup "${WARMUP:-5}" --min-runs "${RUNS:-50}" -N --ignore-failure --export-json "$json" "${commands[@]}" >/dev/null
python3 - "$json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    cpu = (r["user"] + r["system"]) * 1000
    print(f'{r["command"]:<70} wall {r["median"]*1000:7.2f} ms  cpu {cpu:7.2f} ms')
PY
