#!/usr/bin/env bash
# Sets up, builds the dev preset (Debug, warnings as errors) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
ctest --preset dev -j "$(nproc)" --timeout 600 "$@"
