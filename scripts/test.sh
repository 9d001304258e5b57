#!/usr/bin/env bash
# Sets up, builds the dev preset (Debug, warnings as errors) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
ctest --preset dev -j "$(nproc)" --timeout 600 -E Slurm "$@"
# The tests that start a Slurm cluster run alone (RUN_SERIAL), after the rest. A job that
# requeues itself from its batch script (exit 75, then `scontrol requeue`) sometimes ends FAILED
# instead of requeued on a loaded machine, a race not yet understood: one that fails gets one more
# try, and one that fails twice fails the run.
ctest --preset dev --timeout 600 -R Slurm --repeat until-pass:2 "$@"
