#!/usr/bin/env bash
# Runs the Slurm tests that requeue a job N times in a row under load (two busy loops, one per
# core of a 2-core machine) and prints each iteration's result: the check that a requeued job
# comes back rather than ending FAILED (bench/RESULTS.md, "Slurm requeue race").
#   bench/queue/slurm_requeue_repeat.sh [N] [BUILD_DIR]     (default 10, build/dev)
# Needs root, slurm-wlm and munge (the tests start their own cluster).
set -u
n=${1:-10}
build=${2:-build/dev}
cd "$(dirname "$0")/../.."
busy=()
for _ in 1 2; do
  (while :; do :; done) &
  busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null' EXIT
passed=0
for i in $(seq 1 "$n"); do
  start=$(date +%s)
  "$build/tests/e2e/run/run_slurm_test" > /dev/null 2>&1; run=$?
  "$build/tests/e2e/queue/queue_slurm_e2e_test" \
    --gtest_filter='*PreemptionOnly*:*RequeueOnSpot*:*CheckpointNotice*' > /dev/null 2>&1; queue=$?
  [ "$run" -eq 0 ] && [ "$queue" -eq 0 ] && passed=$((passed + 1))
  echo "iteration $i: run_slurm_test rc=$run queue_slurm_e2e_test rc=$queue ($(( $(date +%s) - start )) s)"
done
echo "$passed of $n iterations passed"
[ "$passed" -eq "$n" ]
