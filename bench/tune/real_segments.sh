#!/bin/bash
# Segments (process starts) and spend of the real PyTorch study (examples/pytorch) under
# asha-stop and under the default asha with its early rung: no chaos, one worker, grace as
# stated, a budget that does not bind, 9 trials. Each FRUGAL binary given is measured on the
# same two specs, so an older build can be compared with a newer one in one run.
#
# Usage: bench/tune/real_segments.sh FRUGAL_BINARY...
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir="$root/examples/pytorch"
specs=()
cleanup() { rm -f "${specs[@]}"; }
trap cleanup EXIT
variant() {  # name, sed program
  local file="$dir/.bench-$1.yaml"
  sed -e '/^  chaos:/d' -e 's/budget_usd: 0.06 .*/budget_usd: 1/' \
      -e 's/max_gpu_hours: 0.02 .*/max_gpu_hours: 1/' -e 's/workers: 2 .*/workers: 1/' \
      -e 's/max_trials: 8/max_trials: 9/' -e "$2" "$dir/study.yaml" > "$file"
  specs+=("$file")
}
variant asha-stop 's/^scheduler: asha$/scheduler: asha-stop/; s/grace: 3 .*/grace: 1/'
variant default '/^  grace: 3 /d'
printf '%-12s %-10s %8s %6s %10s %8s  %s\n' binary spec segments wall_s spend_usd best trials
for bin in "$@"; do
  for spec in "${specs[@]}"; do
    home=$(mktemp -d)
    start=$(date +%s.%N)
    out=$(PATH=/usr/bin:$PATH HOME="$home" XDG_DATA_HOME="$home" "$bin" --json tune "$spec" 2>/dev/null)
    end=$(date +%s.%N)
    rm -rf "$home"
    name=$(basename "$spec" .yaml)
    /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.argv[1])
t = " ".join(f"{k}={v}" for k, v in d["trials"].items() if v)
segments, spend, best = d["supervised"]["invocations"], d["spend_usd"], d["best_value"]
wall = float(sys.argv[5]) - float(sys.argv[4])
print(f"{sys.argv[2]:<12} {sys.argv[3]:<10} {segments:>8} {wall:>6.1f} {spend:>10.6f} {best:>8.4f}  {t}")
' "$out" "$(basename "$bin")" "${name#.bench-}" "$start" "$end"
  done
done
