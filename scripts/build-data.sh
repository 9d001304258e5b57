#!/usr/bin/env bash
# Rebuilds the shipped data snapshot from the raw inputs (a folder laid out as the raw data
# described in data/SOURCE.md): scripts/build-data.sh RAW_DIR [SNAPSHOT_DATE]
set -euo pipefail
cd "$(dirname "$0")/.."
raw="$1"
date="${2:-2026-05-20}"
python3 scripts/build-gpu-table.py "$raw" > data/gpus.csv.tmp && mv data/gpus.csv.tmp data/gpus.csv
frugal=build/release/apps/frugal/frugal
[[ -x $frugal ]] || frugal=build/dev/apps/frugal/frugal
"$frugal" catalog import --replace --snapshot-date "$date" --output data/catalog \
  --skypilot "$raw"/catalog/{aws,gcp,azure,lambda,vast}_vms.csv \
  "$raw"/catalog/cpu/{aws,gcp,azure}_cpu_vms.csv
