#!/usr/bin/python3
"""Trains a random search of small convolutional networks on CPU with PyTorch and writes their
learning curves in the replay format (configs.csv, curves.csv): a third model family (image
classification with convolutions, accuracy to maximize) beside the character language model
and the MLP tables.

Every configuration is really trained. The task is fixed by a seed: 12×12 grey images of ten
procedurally drawn shapes (filled and hollow squares, discs, rings, crosses, plus signs,
horizontal and vertical bars, two diagonals), each at a random position and size, with
Gaussian pixel noise and random contrast; 3,000 training and 1,000 validation images. Each
configuration trains `depth` blocks of (3×3 conv, ReLU, 2×2 max-pool) with `channels` filters
doubling per block, global average pooling, dropout and a linear layer, for EPOCHS epochs with
a cosine learning-rate decay to zero; it is evaluated on the validation set after every epoch
(val_acc: share correct; val_loss: cross-entropy in nats). elapsed_s is measured wall-clock,
cumulative, validation included. A run whose training loss becomes NaN or infinite stops there
(status "diverged").

The search space was fixed before any curve was seen: optimizer {sgd, adam}, lr log-uniform
[1e-4, 1], weight_decay log-uniform [1e-6, 1e-2], batch_size {32, 64, 128}, channels
{4, 8, 16}, depth {1, 2, 3}, dropout U[0, 0.5].

Usage: make_cnn_curves.py DIR [--configs 60] [--seed 20261126]
"""
import argparse
import csv
import math
import os
import random
import time

import torch

EPOCHS = 10
SIZE = 12
CLASSES = 10


def draw_shape(kind, size, cx, cy, r):
    y, x = torch.meshgrid(torch.arange(size, dtype=torch.float32),
                          torch.arange(size, dtype=torch.float32), indexing="ij")
    dx, dy = x - cx, y - cy
    d = torch.sqrt(dx * dx + dy * dy)
    box = torch.maximum(dx.abs(), dy.abs())
    if kind == 0:
        m = box <= r
    elif kind == 1:
        m = (box <= r) & (box >= r - 1.2)
    elif kind == 2:
        m = d <= r
    elif kind == 3:
        m = (d <= r) & (d >= r - 1.3)
    elif kind == 4:
        m = ((dx - dy).abs() <= 0.8) | ((dx + dy).abs() <= 0.8)
        m = m & (box <= r)
    elif kind == 5:
        m = ((dx.abs() <= 0.8) | (dy.abs() <= 0.8)) & (box <= r)
    elif kind == 6:
        m = (dy.abs() <= 1.0) & (dx.abs() <= r)
    elif kind == 7:
        m = (dx.abs() <= 1.0) & (dy.abs() <= r)
    elif kind == 8:
        m = ((dx - dy).abs() <= 0.8) & (box <= r)
    else:
        m = ((dx + dy).abs() <= 0.8) & (box <= r)
    return m.float()


def make_task(seed):
    g = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)

    def draw(n):
        xs = torch.empty(n, 1, SIZE, SIZE)
        ys = torch.empty(n, dtype=torch.long)
        for i in range(n):
            kind = g.randrange(CLASSES)
            r = g.uniform(2.0, 4.5)
            cx, cy = g.uniform(r, SIZE - 1 - r), g.uniform(r, SIZE - 1 - r)
            img = draw_shape(kind, SIZE, cx, cy, r) * g.uniform(0.4, 1.0)
            xs[i, 0] = img
            ys[i] = kind
        xs += torch.randn(xs.shape, generator=gen) * 0.35
        return xs, ys

    return draw(3000), draw(1000)


def sample_config(rng):
    return {
        "optimizer": rng.choice(["sgd", "adam"]),
        "lr": 10 ** rng.uniform(-4, 0),
        "weight_decay": 10 ** rng.uniform(-6, -2),
        "batch_size": rng.choice([32, 64, 128]),
        "channels": rng.choice([4, 8, 16]),
        "depth": rng.choice([1, 2, 3]),
        "dropout": round(rng.uniform(0, 0.5), 4),
    }


def model_for(cfg):
    nn = torch.nn
    layers, c_in, c = [], 1, cfg["channels"]
    for _ in range(cfg["depth"]):
        layers += [nn.Conv2d(c_in, c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
        c_in, c = c, c * 2
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(cfg["dropout"]),
               nn.Linear(c_in, CLASSES)]
    return nn.Sequential(*layers)


def train(cfg, task, seed):
    (xt, yt), (xv, yv) = task
    torch.manual_seed(seed)
    model = model_for(cfg)
    if cfg["optimizer"] == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9,
                              weight_decay=cfg["weight_decay"])
    else:
        opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"],
                               weight_decay=cfg["weight_decay"])
    batches = math.ceil(xt.shape[0] / cfg["batch_size"])
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, EPOCHS * batches) /
                                           (EPOCHS * batches))))
    loss_fn = torch.nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(seed)
    rows, start, status = [], time.perf_counter(), "OK"
    for epoch in range(1, EPOCHS + 1):
        model.train()
        order = torch.randperm(xt.shape[0], generator=g)
        for b in range(batches):
            idx = order[b * cfg["batch_size"]:(b + 1) * cfg["batch_size"]]
            loss = loss_fn(model(xt[idx]), yt[idx])
            if not torch.isfinite(loss):
                status = "diverged"
                break
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        if status != "OK":
            break
        model.eval()
        with torch.no_grad():
            out = model(xv)
            val_loss = loss_fn(out, yv).item()
            val_acc = (out.argmax(1) == yv).float().mean().item()
        rows.append((epoch, time.perf_counter() - start, float(loss.item()), val_loss, val_acc))
    return rows, status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--configs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=20261126)
    a = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(a.dir, exist_ok=True)
    task = make_task(a.seed)
    rng = random.Random(a.seed)
    configs = [sample_config(rng) for _ in range(a.configs)]
    names = ["optimizer", "lr", "weight_decay", "batch_size", "channels", "depth", "dropout"]
    with open(os.path.join(a.dir, "configs.csv"), "w", newline="") as fc, \
            open(os.path.join(a.dir, "curves.csv"), "w", newline="") as fv:
        wc, wv = csv.writer(fc), csv.writer(fv)
        wc.writerow(["config_id"] + names + ["status"])
        wv.writerow(["config_id", "epoch", "elapsed_s", "train_loss", "val_loss", "val_acc"])
        for i, c in enumerate(configs):
            rows, status = train(c, task, a.seed + i)
            shown = dict(c, lr=f"{c['lr']:.6g}", weight_decay=f"{c['weight_decay']:.6g}")
            wc.writerow([i] + [shown[n] for n in names] + [status])
            for epoch, elapsed, tl, vl, va in rows:
                wv.writerow([i, epoch, f"{elapsed:.4f}", f"{tl:.6f}", f"{vl:.6f}", f"{va:.6f}"])
            fc.flush()
            fv.flush()


if __name__ == "__main__":
    main()
