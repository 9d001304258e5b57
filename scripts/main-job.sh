#!/usr/bin/env bash
# frugal's main job on the embedded default (SQLite ledger, shipped catalog): answers "what is
# the cheapest way to get 8 × A100-80GB, on spot and on demand?"
set -euo pipefail
cd "$(dirname "$0")/.."
frugal=build/release/apps/frugal/frugal
$frugal catalog info
echo
echo "== Cheapest 8 x A100-80GB on spot"
$frugal catalog offers --gpu A100-80GB --min-gpus 8 --tier spot --sort price --limit 5
echo
echo "== Cheapest 8 x A100-80GB on demand"
$frugal catalog offers --gpu A100-80GB --min-gpus 8 --tier on_demand --sort price --limit 5
