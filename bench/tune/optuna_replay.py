#!/usr/bin/python3
"""Drives Optuna's SuccessiveHalvingPruner and HyperbandPruner over tabulated learning curves,
under the same dollar accounting as `frugal tune --replay`: cost = cumulative seconds x price
per GPU-hour, one trial at a time (Optuna's pruners decide per reported step), stopping when
the next epoch would pass the budget. Prints one JSON line per (pruner, seed):
{"method", "seed", "best", "spend", "reach_cost"}; reach_cost is the spend at which the best
completed value first came within epsilon of `target`, or null.

Usage: optuna_replay.py DIR METRIC (maximize|minimize) MAX_FIDELITY PRICE BUDGET SEEDS TARGET
       EPSILON GRACE [pruners...]
"""
import csv
import json
import math
import os
import random
import sys

import optuna


def load(directory, metric):
    configs = {}
    with open(os.path.join(directory, "configs.csv")) as f:
        for row in csv.DictReader(f):
            fails = row.get("status", "OK").strip().lower() not in ("ok", "") or \
                row.get("nan_train_loss", "0").strip() == "1"
            configs[row["config_id"]] = {"fails": fails, "curve": []}
    with open(os.path.join(directory, "curves.csv")) as f:
        for row in csv.DictReader(f):
            configs[row["config_id"]]["curve"].append(
                (float(row["epoch"]), float(row["elapsed_s"]), float(row[metric])))
    return configs


def run(configs, maximize, max_fidelity, price, budget, seed, pruner, target, epsilon):
    ids = sorted(configs)
    random.Random(seed).shuffle(ids)
    study = optuna.create_study(study_name=f"replay-{seed}", direction="maximize" if maximize else "minimize",
                                sampler=optuna.samplers.RandomSampler(seed=seed), pruner=pruner)
    spend, best, reach = 0.0, None, None
    better = (lambda a, b: a > b) if maximize else (lambda a, b: a < b)
    for cid in ids:
        trial = study.ask()
        config = configs[cid]
        prev, state, last = 0.0, None, None
        for epoch, cost, value in config["curve"]:
            if epoch > max_fidelity + 1e-9:
                break
            epoch_cost = (cost - prev) * price / 3600.0
            if spend + epoch_cost > budget:
                state = "budget"
                break
            spend += epoch_cost
            prev = cost
            if math.isnan(value):
                state = "failed"
                break
            last = value
            trial.report(value, int(epoch))
            if trial.should_prune():
                state = "pruned"
                break
        if state == "budget":
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            break
        ended_early = config["curve"] and config["curve"][-1][0] <= max_fidelity + 1e-9
        if state is None and (last is None or (config["fails"] and ended_early)):
            state = "failed"
        if state == "pruned":
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        elif state == "failed":
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            study.tell(trial, last)
            if best is None or better(last, best):
                best = last
                if reach is None and abs(best - target) <= epsilon:
                    reach = spend
    return best, spend, reach


def main():
    (directory, metric, direction, max_fidelity, price, budget, seeds, target, epsilon,
     grace) = sys.argv[1:11]
    names = sys.argv[11:] or ["optuna-sha", "optuna-hyperband"]
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    configs = load(directory, metric)
    max_fidelity, grace = float(max_fidelity), int(float(grace))
    for name in names:
        for seed in range(1, int(seeds) + 1):
            if name == "optuna-sha":
                pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=grace, reduction_factor=3)
            else:
                pruner = optuna.pruners.HyperbandPruner(min_resource=grace,
                                                        max_resource=int(max_fidelity),
                                                        reduction_factor=3)
            best, spend, reach = run(configs, direction == "maximize", max_fidelity, float(price),
                                     float(budget), seed, pruner, float(target), float(epsilon))
            print(json.dumps({"method": name, "seed": seed, "best": best, "spend": spend,
                              "reach_cost": reach}), flush=True)


if __name__ == "__main__":
    main()
