#!/bin/bash
# The GPU checks, on a machine with an NVIDIA GPU, from the repository root:
#   FRUGAL=build/release/apps/frugal/frugal bench/gpu/run_device.sh [OUTDIR] [SWEEP_FAMILIES...]
# 1. `frugal profile` of a real ResNet-50 training loop: NVML's device name and peak GPU memory.
# 2. A supervised `frugal run` of a GPT-125M loop with one injected preemption: the checkpoint
#    of GPU state, the resume, and the GPU telemetry in the ledger.
# 3. sweep.py: training throughput and peak memory per family, precision and batch; decode
#    throughput of two Llama-shaped models. JSON lines in sweep.jsonl.
# Each step is bounded and independent: one failing does not lose the others.
set -u
OUT=${1:-${OUT:-gpu-out}}
shift || true
mkdir -p "$OUT"
FRUGAL=${FRUGAL:-frugal}
PY=${PY:-python3}
export FRUGAL_DATA_DIR="$PWD/data" FRUGAL_HOME="${FRUGAL_HOME:-$(mktemp -d)}" PYTHONUNBUFFERED=1
step() { echo "== $1 $(date -u +%T)"; }

step nvidia-smi
nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv | tee "$OUT/nvidia-smi.csv"

step profile
timeout 120 "$FRUGAL" profile --for 40s --name gpu-resnet50 --json -- \
  "$PY" bench/gpu/train_probe.py --family cnn --size resnet50 --batch 128 --dtype bf16 \
  > "$OUT/profile.json" 2> "$OUT/profile.err"
echo "rc=$?"; cat "$OUT/profile.json"; tail -5 "$OUT/profile.err"

step run
timeout 180 "$FRUGAL" run --gpu H100-80GB-SXM --tier on_demand --sample-interval 1s --restart local \
  --chaos-preempt-every 25s --chaos-max 1 --tag check=gpu -- \
  "$PY" bench/gpu/train_probe.py --family transformer --size 125m --batch 8 --steps 800 --checkpoint-every 200 \
  > "$OUT/run.out" 2>&1
echo "rc=$?"; tail -15 "$OUT/run.out"
"$FRUGAL" runs list --json > "$OUT/runs.json" 2>&1
id=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))[\"runs\"][0][\"name\"])" "$OUT/runs.json" 2>/dev/null)
[ -n "$id" ] && "$FRUGAL" runs show "$id" --json > "$OUT/run-show.json" 2>&1 && head -c 4000 "$OUT/run-show.json"; echo
"$FRUGAL" report --format json > "$OUT/report.json" 2>&1
head -c 3000 "$OUT/runs.json"; echo
tar -C "$FRUGAL_HOME" --exclude='*/checkpoints/*' --exclude='*.pt' -czf "$OUT/frugal-home.tgz" . 2>/dev/null

step sweep
(cd bench/gpu && timeout "${SWEEP_SECONDS:-330}" "$PY" sweep.py "$@") > "$OUT/sweep.jsonl" 2> "$OUT/sweep.err"
echo "rc=$?"; cat "$OUT/sweep.jsonl"; tail -5 "$OUT/sweep.err"
step done
