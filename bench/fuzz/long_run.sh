#!/usr/bin/env bash
# The long fuzz campaign: frugal_fuzz over every parser of outside input, CASES cases per target
# (default 300), seed SEED (default 1). Needs the dev build of frugal and frugal_fuzz:
#   cmake --build --preset dev --target frugal frugal_fuzz
# Prints the table recorded in bench/RESULTS.md (cases, crashes, hangs, wrong exit codes, bad
# reports, slowest case per target); failing cases are kept under the work dir it names.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build/dev}
cases=${CASES:-300}
seed=${SEED:-1}
work=${WORK:-$(mktemp -d)}
exec "$build/tests/fuzz/frugal_fuzz" --frugal "$build/apps/frugal/frugal" \
  --seeds "$root/tests/fuzz/seeds" --cases "$cases" --seed "$seed" --timeout-ms 10000 \
  --work "$work"
