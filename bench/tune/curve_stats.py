#!/usr/bin/env python3
"""Why early stopping is hard on the shared HPO curves: for each table, how many
configurations end within epsilon of the best, and how well the rank at epoch k predicts the
final rank (Spearman), plus the top-k overlap at each candidate grace period. Stdlib only.

Usage: curve_stats.py DIR METRIC (max|min) MAX_EPOCH EPSILON [SCALE_BY]

It ends with the early-rung judgement (fidelity.early_rungs): how often 30 random trials'
ranks at epoch 1 and epoch 3 (or at 1% and 3% of each schedule, with SCALE_BY) agree with
Spearman >= 0.85, the rule under which a study lets its epoch-1 rung prune.

With SCALE_BY (a configs.csv column holding each configuration's own schedule length, as
`fidelity.scale_by` in a study), the same figures at shares of each configuration's schedule:
each is read at ceil(share x its length), the epoch a scale_by study would compare it at.
"""
import csv
import math
import random
import sys
from collections import defaultdict


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra))
    vb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    return cov / (va * vb) if va and vb else float("nan")


def main():
    folder, metric, direction, max_epoch, eps = sys.argv[1:6]
    max_epoch, eps = float(max_epoch), float(eps)
    sign = -1.0 if direction == "max" else 1.0  # loss: lower is better
    curves = defaultdict(dict)
    cost = defaultdict(dict)
    with open(folder + "/curves.csv") as f:
        for row in csv.DictReader(f):
            try:
                v = float(row[metric])
            except ValueError:
                continue
            if math.isnan(v):
                continue
            e = float(row["epoch"])
            curves[row["config_id"]][e] = sign * v
            cost[row["config_id"]][e] = float(row["elapsed_s"])
    # A configuration's final value is its last point up to MAX_EPOCH: some tables give each
    # configuration its own schedule length (a hyperparameter), which ends its curve early.
    failed = set()
    lengths = {}
    scale_by = sys.argv[6] if len(sys.argv) > 6 else None
    try:
        with open(folder + "/configs.csv") as f:
            for row in csv.DictReader(f):
                if row.get("nan_train_loss", "0") == "1" or row.get("status", "OK") != "OK":
                    failed.add(row["config_id"])
                if scale_by:
                    lengths[row["config_id"]] = min(float(row[scale_by]), max_epoch)
    except FileNotFoundError:
        pass
    final = {}
    for c, pts in curves.items():
        last = max(e for e in pts if e <= max_epoch)
        if c not in failed:
            final[c] = pts[last]
    best = min(final.values())
    within = [c for c, v in final.items() if v <= best + eps]
    full_cost = sum(cost[c][max(cost[c])] for c in final) / len(final)
    print(f"{folder.rstrip('/').split('/')[-1]}: {len(final)} configurations that do not fail; "
          f"{len(within)} end within eps={eps} of the best "
          f"({100.0 * len(within) / len(final):.1f}%); mean full-fidelity cost {full_cost:.0f} s")
    print("Among configurations still training at each epoch:")
    print("epoch  spearman(rank@epoch, final rank)  best-final kept in top 1/3  "
          "within-eps kept in top 1/3  cost share of full")
    for e in [1, 2, 3, 5, 9, 15, 27]:
        if e >= max_epoch:
            break
        ids = [c for c in final if e in curves[c] and max(curves[c]) > e]
        early = [curves[c][e] for c in ids]
        rho = spearman(early, [final[c] for c in ids])
        cut = sorted(early)[len(early) // 3]
        kept = {c for c in ids if curves[c][e] <= cut}
        winners = [c for c in within if c in kept]
        best_id = min(final, key=final.get)
        share = sum(cost[c][e] for c in ids) / sum(cost[c][max(cost[c])] for c in ids)
        print(f"{e:5g}  {rho:32.3f}  {str(best_id in kept):>26}  "
              f"{len(winners):>12}/{len(within):<13}  {share:.3f}")
    if scale_by:
        shares_report(curves, cost, final, within, lengths)
    early_rung_report(curves, lengths if scale_by else None, max_epoch)


def at_share(points, length, share):
    """The point a scale_by study reads: epoch ceil(share x length), or the last one before."""
    e = max(1, math.ceil(share * length - 1e-9))
    reached = [x for x in points if x <= e]
    return points[max(reached)] if reached else None


def shares_report(curves, cost, final, within, lengths):
    print("At shares of each configuration's own schedule (scale_by):")
    print("share   spearman(rank@share, final rank)  within-eps kept in top 1/3  "
          "their percentiles  cost share of full")
    ids = [c for c in final if c in lengths]
    for share in [1 / 27, 1 / 9, 1 / 3]:
        early = {c: at_share(curves[c], lengths[c], share) for c in ids}
        ids_ok = [c for c in ids if early[c] is not None]
        values = [early[c] for c in ids_ok]
        rho = spearman(values, [final[c] for c in ids_ok])
        pct = sorted(sum(1 for v in values if v < early[c]) / len(values)
                     for c in within if c in early)
        kept = sum(1 for p in pct if p < 1 / 3)
        spent = sum(at_share(cost[c], lengths[c], share) for c in ids_ok)
        full = sum(cost[c][max(cost[c])] for c in ids_ok)
        print(f"{share:5.3f}  {rho:33.3f}  {kept:>14}/{len(pct):<11}  "
              f"{pct[0]:.2f}-{pct[-1]:.2f}  {spent / full:18.3f}")


def early_rung_report(curves, lengths, max_epoch, low=1, high=3, draws=4000):
    """Resamples the early rung's judgement: n trials with results at both rungs, Spearman of
    their ranks there, against the 0.85 a study needs (kEarlyRungAgreement)."""
    def read(c, fidelity):
        if lengths is None:
            return curves[c].get(fidelity)
        return at_share(curves[c], lengths[c], fidelity / max_epoch)

    pairs = []
    for c in curves:
        if lengths is not None and c not in lengths:
            continue
        a, b = read(c, low), read(c, high)
        if a is not None and b is not None:
            pairs.append((a, b))
    where = "of each schedule" if lengths is not None else ""
    rho = spearman([a for a, _ in pairs], [b for _, b in pairs])
    print(f"Early rung at {low / max_epoch if lengths else low:g} {where or 'epoch'} against "
          f"the rung at {high / max_epoch if lengths else high:g}: Spearman {rho:.2f} over "
          f"{len(pairs)} configurations")
    print("trials judged  P(Spearman >= 0.85) over random draws")
    rng = random.Random(1)
    for n in (18, 24, 30, 36):
        passed = 0
        for _ in range(draws):
            sample = rng.sample(pairs, n)
            passed += spearman([a for a, _ in sample], [b for _, b in sample]) >= 0.85
        print(f"{n:13d}  {passed / draws:.3f}")


if __name__ == "__main__":
    main()
