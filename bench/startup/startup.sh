#!/usr/bin/env bash
# Start-up and whole-process CPU of commands that need neither PostgreSQL nor HTTP, beside the
# peers the design budget names (sqlite3 opening an in-memory database, git --version), and
# the shared objects and relocations the dynamic loader processes for each.
#
#   bench/startup/startup.sh [FRUGAL_BINARY [BASELINE_BINARY]]
#       FRUGAL_BINARY default: build/release/apps/frugal/frugal
#       BASELINE_BINARY: another build of frugal (an older commit) measured in the same run
#
# hyperfine runs each command (warm-up $WARMUP or 5, at least $RUNS or 50 runs) and prints mean wall, user and
# system time; CPU = user + system. The start-up commands run twice: with lazy binding (the
# default) and with every symbol bound at load (LD_BIND_NOW=1, what `-z now` does).
# PLANS=0 leaves out the plans of the shipped examples. Needs hyperfine (Debian package).
set -euo pipefail
cd "$(dirname "$0")/../.."
frugal=${1:-build/release/apps/frugal/frugal}
baseline=${2:-}
[[ -x $frugal ]] || { echo "startup.sh: no $frugal (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
[[ -z $baseline || -x $baseline ]] || { echo "startup.sh: no baseline binary $baseline" >&2; exit 2; }
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export FRUGAL_HOME=$home

binaries=("$frugal")
[[ -n $baseline ]] && binaries+=("$baseline")
echo "## shared objects and relocations (LD_DEBUG=statistics; lazy, then LD_BIND_NOW=1)"
peers=("sqlite3 :memory: .quit" "git --version")
for cmd in "${binaries[@]/%/ --version}" "${peers[@]}"; do
  objects=$(LD_TRACE_LOADED_OBJECTS=1 ${cmd%% *} 2>/dev/null | grep -c '=>\|ld-linux' || true)
  relocs=$(LD_DEBUG=statistics $cmd 2>&1 >/dev/null | sed -n 's/.*number of relocations: *\([0-9]*\).*/\1/p' | head -1)
  now=$(LD_BIND_NOW=1 LD_DEBUG=statistics $cmd 2>&1 >/dev/null | sed -n 's/.*number of relocations: *\([0-9]*\).*/\1/p' | head -1)
  printf '%-50s %3s objects  %6s relocations  %6s bound at load\n' "$cmd" "$objects" "$relocs" "$now"
done

startup=()
for b in "${binaries[@]}"; do startup+=("$b --version" "$b catalog gpus"); done
commands=("${startup[@]}" "${peers[@]}")
# Every shipped example that `frugal plan` takes: job specs and inference specs (several with
# a `catalog:` of their own offers).
if [[ ${PLANS:-1} != 0 ]]; then
  for spec in examples/plan/*.yaml examples/seed/job*.yaml examples/seed-xgboost/job*.yaml \
              examples/measured/*.yaml examples/serving/[!o]*.yaml; do
    "$frugal" plan "$spec" >/dev/null 2>&1 && commands+=("$frugal plan $spec")
  done
fi
report() {
  python3 - "$1" "$2" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    cpu = (r["user"] + r["system"]) * 1000
    print(f'{r["command"] + sys.argv[2]:<76} wall {r["median"]*1000:7.2f} ms  cpu {cpu:7.2f} ms')
PY
}
echo
echo "## CPU per process (hyperfine: mean user + system)"
json=$home/hyperfine.json
hyperfine --warmup "${WARMUP:-5}" --min-runs "${RUNS:-50}" -N --ignore-failure --export-json "$json" "${commands[@]}" >/dev/null
report "$json" ""
LD_BIND_NOW=1 hyperfine --warmup "${WARMUP:-5}" --min-runs "${RUNS:-50}" -N --ignore-failure --export-json "$json" "${startup[@]}" "${peers[@]}" >/dev/null
report "$json" "  (LD_BIND_NOW=1)"
