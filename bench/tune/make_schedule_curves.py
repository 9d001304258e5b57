#!/usr/bin/python3
"""Trains a random search of small MLP classifiers on CPU with PyTorch, each over its own
number of steps, and writes their learning curves in the replay format (configs.csv,
curves.csv): a table whose fidelity is the step and whose configurations end at different
steps, the case where rungs at absolute steps compare trials at different points of their
learning-rate schedules.

Every configuration is really trained. The task is fixed by a seed: 16-dimensional inputs from
a mixture of 24 Gaussian clusters, each cluster labelled with one of 8 classes, 10% of training
labels flipped; 24,000 training and 4,000 validation points. Each configuration trains a
two-hidden-layer GELU MLP with AdamW, linear warm-up over 5% of its steps, then cosine decay to
zero at its own last step (`steps`), and is evaluated on the validation set every 50 steps
(val_loss: cross-entropy, nats). elapsed_s is measured wall-clock, cumulative, validation
included. A run whose training loss becomes NaN or infinite stops there (status "diverged").

The search space was fixed before any curve was seen: lr log-uniform [1e-4, 3e-1], width
{32, 64, 128, 256}, batch_size {32, 64, 128, 256}, steps U{4..48}·50 (200 to 2,400),
weight_decay log-uniform [1e-5, 1e-1].

Usage: make_schedule_curves.py DIR [--configs 100] [--seed 20261126]
"""
import argparse
import csv
import math
import os
import random
import time

import torch

EVAL_EVERY = 50
DIM, CLUSTERS, CLASSES = 16, 24, 8


def make_task(seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(CLUSTERS, DIM, generator=g) * 2.0
    labels = torch.randint(0, CLASSES, (CLUSTERS,), generator=g)

    def draw(n, flip):
        k = torch.randint(0, CLUSTERS, (n,), generator=g)
        x = centers[k] + torch.randn(n, DIM, generator=g)
        y = labels[k].clone()
        noisy = torch.rand(n, generator=g) < flip
        y[noisy] = torch.randint(0, CLASSES, (int(noisy.sum()),), generator=g)
        return x, y

    return draw(24000, 0.1), draw(4000, 0.0)


def sample_config(rng):
    return {
        "lr": 10 ** rng.uniform(-4, math.log10(0.3)),
        "width": rng.choice([32, 64, 128, 256]),
        "batch_size": rng.choice([32, 64, 128, 256]),
        "steps": rng.randint(4, 48) * EVAL_EVERY,
        "weight_decay": 10 ** rng.uniform(-5, -1),
    }


def train(config, task, seed):
    (xt, yt), (xv, yv) = task
    torch.manual_seed(seed)
    w = config["width"]
    model = torch.nn.Sequential(torch.nn.Linear(DIM, w), torch.nn.GELU(), torch.nn.Linear(w, w),
                                torch.nn.GELU(), torch.nn.Linear(w, CLASSES))
    opt = torch.optim.AdamW(model.parameters(), lr=config["lr"],
                            weight_decay=config["weight_decay"])
    steps = config["steps"]
    warm = max(1, steps // 20)

    def lr_at(step):
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, steps - warm)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    g = torch.Generator().manual_seed(seed)
    loss_fn = torch.nn.CrossEntropyLoss()
    rows, start, status = [], time.perf_counter(), "OK"
    for step in range(1, steps + 1):
        idx = torch.randint(0, xt.shape[0], (config["batch_size"],), generator=g)
        loss = loss_fn(model(xt[idx]), yt[idx])
        if not torch.isfinite(loss):
            status = "diverged"
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % EVAL_EVERY == 0:
            with torch.no_grad():
                val = loss_fn(model(xv), yv).item()
            rows.append((step, time.perf_counter() - start, float(loss.item()), val))
    return rows, status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--configs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=20261126)
    a = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(a.dir, exist_ok=True)
    task = make_task(a.seed)
    rng = random.Random(a.seed)
    configs = [sample_config(rng) for _ in range(a.configs)]
    with open(os.path.join(a.dir, "configs.csv"), "w", newline="") as fc, \
            open(os.path.join(a.dir, "curves.csv"), "w", newline="") as fv:
        wc, wv = csv.writer(fc), csv.writer(fv)
        wc.writerow(["config_id", "lr", "width", "batch_size", "steps", "weight_decay", "status"])
        wv.writerow(["config_id", "step", "elapsed_s", "train_loss", "val_loss"])
        for i, c in enumerate(configs):
            rows, status = train(c, task, a.seed + i)
            wc.writerow([i, f"{c['lr']:.6g}", c["width"], c["batch_size"], c["steps"],
                         f"{c['weight_decay']:.6g}", status])
            for step, elapsed, tl, vl in rows:
                wv.writerow([i, step, f"{elapsed:.4f}", f"{tl:.6f}", f"{vl:.6f}"])
            fc.flush()
            fv.flush()


if __name__ == "__main__":
    main()
