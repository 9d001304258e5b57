#!/usr/bin/env python3
"""How soon could any sampler find a winner on the AlexNet curves, if it knew each trial's
final result at once? A bound on the sampler's share of the cost to epsilon.

For each seed, trials are drawn one at a time from the table's untried rows, either uniformly
or by a Gaussian-process expected-improvement model fitted to the *final* values of the rows
tried so far (perfect information: no early-rank noise, no rungs). It reports the trial number
of the first configuration within epsilon of the best, and the cost of an ideal screen: every
trial before it trained to 1/27 of its own schedule, then the winner trained to its end.

Usage: sampler_limit.py DIR [SEEDS]   (DIR: the opda_alexnet_imagenet folder). Needs numpy.
"""
import csv
import math
import random
import sys

import numpy as np

EPS = 0.01
PRICE_PER_HOUR = 2.5
SHARE = 1.0 / 27


def unit_point(r):
    """The row in the unit cube of examples/alexnet-imagenet.yaml's space."""
    log01 = lambda x, lo, hi: (math.log(x) - math.log(lo)) / (math.log(hi) - math.log(lo))
    return [([128, 256, 512, 1024].index(int(r["batch_size"])) + 0.5) / 4,
            log01(float(r["lr"]), 5e-3, 50), int(r["lr_peak_epoch"]) / 81,
            (float(r["momentum"]) - 0.7) / 0.3, log01(float(r["weight_decay"]), 1e-6, 1e-3),
            float(r["label_smoothing"]) / 0.5, (int(r["epochs"]) - 20) / 81]


def load(folder):
    configs = {r["config_id"]: r for r in csv.DictReader(open(folder + "/configs.csv"))}
    curve = {}
    for r in csv.DictReader(open(folder + "/curves.csv")):
        try:
            v = float(r["val_top1"])
        except ValueError:
            continue
        if not math.isnan(v):
            curve.setdefault(r["config_id"], {})[int(r["epoch"])] = (v, float(r["elapsed_s"]))
    ids = list(configs)
    finals, costs = [], []
    for c in ids:
        points = curve.get(c, {})
        length = int(configs[c]["epochs"])
        ok = configs[c]["nan_train_loss"] == "0" and points and max(points) == length
        finals.append(points[length][0] if ok else 0.0)  # a failed run ranks last
        last = points[max(points)][1] if points else 0.0
        screen = points.get(min(max(points), max(1, math.ceil(SHARE * length))), (0, 0))[1] if points else 0.0
        costs.append((screen, last))
    x = np.array([unit_point(configs[c]) for c in ids])
    y = np.array(finals)
    return x, y, costs, y >= y.max() - EPS


def expected_improvement_pick(x, y, tried, untried, lengthscale=0.3, noise=1e-2):
    xo, yo = x[tried], y[tried]
    yn = (yo - yo.mean()) / (yo.std() + 1e-9)
    kernel = lambda a, b: np.exp(-0.5 * (((a[:, None, :] - b[None, :, :]) / lengthscale) ** 2).sum(-1))
    chol = np.linalg.cholesky(kernel(xo, xo) + noise * np.eye(len(tried)))
    alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, yn))
    ks = kernel(x[untried], xo)
    mean = ks @ alpha
    v = np.linalg.solve(chol, ks.T)
    sd = np.sqrt(np.maximum(1e-9, 1 - (v * v).sum(0)))
    z = (mean - yn.max()) / sd
    cdf = 0.5 * (1 + np.array([math.erf(t / math.sqrt(2)) for t in z]))
    ei = (mean - yn.max()) * cdf + sd * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    return untried[int(np.argmax(ei))]


def first_winner(x, y, costs, winners, seed, model):
    order = list(range(len(y)))
    random.Random(seed).shuffle(order)
    tried, spent = [], 0.0
    while True:
        untried = [i for i in order if i not in set(tried)]
        pick = untried[0] if not model or len(tried) < 10 else expected_improvement_pick(
            x, y, tried, untried)
        tried.append(pick)
        if winners[pick]:
            return len(tried), (spent + costs[pick][1]) * PRICE_PER_HOUR / 3600
        spent += costs[pick][0]


def main():
    folder = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    x, y, costs, winners = load(folder)
    print(f"{len(y)} configurations, {int(winners.sum())} within {EPS} of the best")
    print("| sampler | first within-ε trial # (median) | ideal screen's cost (median) |")
    print("|---|---|---|")
    for name, model in (("uniform", False), ("GP expected improvement on final values", True)):
        runs = [first_winner(x, y, costs, winners, s, model) for s in range(seeds)]
        print(f"| {name} | {np.median([r[0] for r in runs]):.1f} | "
              f"${np.median([r[1] for r in runs]):.0f} |")


if __name__ == "__main__":
    main()
