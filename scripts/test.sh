#!/usr/bin/env bash
# Sets up, builds the dev preset (Debug, warnings as errors) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
ctest --preset dev -j "$(nproc)" --timeout 600 -E Slurm "$@"
# The tests that start a Slurm cluster run alone (RUN_SERIAL), after the rest.
ctest --preset dev --timeout 600 -R Slurm "$@"
