#!/usr/bin/env bash
# frugal's main job on the embedded default (SQLite ledger in the user's data directory, shipped
# catalog): predict → act → account.
#   1. the cheapest way to rent 8 × A100-80GB, on spot and on demand;
#   2. plan a Llama-2-7B fine-tune over the whole catalog, spot risk and deadline priced in;
#   3. replay a real spot trace: deadline policies against the offline optimum;
#   4. train a real PyTorch model under a dollar cap with injected spot preemptions: it resumes
#      from verified checkpoints and ends with the same weights as an uninterrupted run;
#   5. tune its hyperparameters under a hard dollar cap with ASHA, trials preempted and resumed;
#   5b. what serving a model costs a month and over its life;
#   5c. a measured profile of the model on this machine, and whether a commitment would pay;
#   5d. small jobs right-sized: seed example 1 on CPU instances, a measurement carried across GPUs,
#       a small model planned where its 800 GB of data lives; a small model's run measures it and
#       its next plan is made from that run;
#   6. queue: a research team's week replayed against its capacity, and a job through the
#      local queue;
#   7. what was spent.
set -euo pipefail
cd "$(dirname "$0")/.."
frugal=${FRUGAL_BIN:-build/release/apps/frugal/frugal}
python=/usr/bin/python3

echo "== 1. Cheapest 8 x A100-80GB on spot, and on demand"
$frugal catalog offers --gpu A100-80GB --min-gpus 8 --tier spot --sort price --limit 3
$frugal catalog offers --gpu A100-80GB --min-gpus 8 --tier on_demand --sort price --limit 3

echo
echo "== 2. Plan: fine-tune a 7B model on 2B tokens within 48 h and \$2,000"
$frugal plan examples/plan/llama-7b-finetune.yaml --top 5

echo
echo "== 3. A 24 h job with a 36 h deadline on a real AWS V100 spot trace (50 start times)"
$frugal simulate --trace data/spot_traces/us-west-2a_v100_1.json --policy all --compute 24h \
  --deadline 36h --changeover 12m --optimum --starts 50 --seed 1

echo
echo "== 4. Real PyTorch training on the cheapest T4 spot offer, budget \$1, preempted at random"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$python examples/pytorch/train.py --epochs 3 --out "$work/uninterrupted.sha" >/dev/null
$frugal run --gpu T4 --gpus 1 --tier spot --budget 1 --tag team=ml --tag project=demo --tag owner="${USER:-me}" \
  --restart local --max-restarts 5 --chaos-preempt-every 3s --chaos-max 2 --seed 7 \
  --run-dir "$work/run" -- $python examples/pytorch/train.py --epochs 3 --step-delay 0.05 \
  --out "$work/preempted.sha"
if cmp -s "$work/uninterrupted.sha" "$work/preempted.sha"; then
  echo "Final weights identical to the uninterrupted run: $(cut -c1-16 "$work/preempted.sha")…"
else
  echo "Final weights DIFFER from the uninterrupted run" >&2
  exit 1
fi

echo
echo "== 5. Tune a real PyTorch model under a \$0.06 cap (ASHA, preemptions injected)"
PATH=/usr/bin:$PATH $frugal tune examples/pytorch/study.yaml

echo
echo "== 5b. What serving a model costs, and over its life (four T4 at \$0.50/h, 24/7)"
$frugal plan examples/serving/t4-classifier.yaml --top 3
$frugal tco examples/serving/lifetime.yaml

echo
echo "== 5c. Measure the model's throughput here; would a 1-year 8 x A100 commitment pay at 60%?"
$frugal profile --steps 40 --name mnist-mlp -- $python examples/pytorch/train.py --epochs 1
$frugal commit --gpu A100-80GB --gpus 8 --cloud aws --utilization 60%

echo
echo "== 5d. Right-size small jobs: XGBoost on two CPU instances (seed example 1); a throughput"
echo "       measured on an A100 carried to a T4"
$frugal plan examples/seed-xgboost/job.yaml
$frugal estimate --measured A100-80GB=1450 --gpu T4 --dtype fp16 --family cnn --params 25m \
  --samples 1.28m --epochs 1 --tier spot
echo "       a 350M encoder whose 800 GB of data is in aws ap-south-1: egress priced per option"
$frugal plan examples/plan/data-in-mumbai.yaml --top 3
echo "       a small model's own run measures it; its next plan is made from that run"
$frugal run --spec examples/measured/mlp.yaml --price 0.10/h -- $python examples/pytorch/train.py --epochs 1
$frugal plan examples/measured/mlp.yaml --top 3

echo
echo "== 6. Queue: a week of jobs against owned, spot and on-demand capacity; one job run locally"
$frugal queue simulate --workload examples/queue/week.yaml --capacity examples/queue/capacity.yaml --seed 1
id=$($frugal --json queue submit examples/queue/demo-job.yaml --capacity examples/queue/local.yaml \
  -- $python examples/pytorch/train.py --epochs 1 --out "$work/queued.sha" | $python -c 'import json,sys; print(json.load(sys.stdin)["id"])')
for _ in $(seq 1 60); do
  $frugal queue run --once --capacity examples/queue/local.yaml
  state=$($frugal --json queue show "$id" | $python -c 'import json,sys; print(json.load(sys.stdin)["state"])')
  [ "$state" = succeeded ] || [ "$state" = failed ] && break
  sleep 1
done
$frugal queue show "$id"

echo
echo "== 7. Spend in the ledger, by team"
$frugal report --since 30d --by team
$frugal runs list --since 1d
