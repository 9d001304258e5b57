#!/usr/bin/env bash
# Sets up, builds the dev preset (Debug, warnings as errors) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
ctest --preset dev -j "$(nproc)" --timeout 600 -E Slurm "$@"
# The tests that start a Slurm cluster run alone (RUN_SERIAL), after the rest. The requeue race
# they once hit is understood and fixed (bench/queue/slurm_requeue_repeat.sh); a test that fails
# still gets one more try, because three daemons starting on a loaded CI machine is the least
# predictable part of the suite, and one that fails twice fails the run.
ctest --preset dev --timeout 600 -R Slurm --repeat until-pass:2 "$@"
