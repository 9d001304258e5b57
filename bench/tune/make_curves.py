#!/usr/bin/python3
"""Trains a random search of small character-level language models on CPU with PyTorch and
writes their learning curves in the replay format (configs.csv, curves.csv), so that the
tuner's defaults can be checked on a table that played no part in choosing them.

Every configuration is really trained: each epoch draws EPOCH_SAMPLES (context, next byte)
pairs from the training text, then the model is scored on a fixed validation set. elapsed_s is
the measured wall-clock, cumulative, including validation. A run whose training loss becomes
NaN or infinite stops there (status "diverged"), as the shared tables' diverged runs do.

The search space was fixed before any curve was seen and is what a practitioner would write
for such a model: optimizer, learning rate over four decades, weight decay, batch size, width,
depth, embedding, context, dropout, warm-up; a cosine schedule to a fixed 30 epochs.

Runs are independent and each writes its own file under DIR/runs/, so the script can be
stopped and restarted (finished runs are kept), and several copies can share the work
(--jobs N --job K). --merge joins the runs into configs.csv and curves.csv.

Usage: make_curves.py DIR --corpus FILE... [--configs 160] [--jobs 1 --job 0]
       make_curves.py DIR --merge
"""
import argparse
import csv
import glob
import json
import math
import os
import random
import time

EPOCHS = 30
EPOCH_SAMPLES = 16384
VAL_SAMPLES = 8192
TRAIN_BYTES = 1 << 20
VAL_BYTES = 1 << 17
SPACE_SEED = 20261121

PARAMS = ["optimizer", "lr", "momentum", "weight_decay", "batch_size", "width", "layers",
          "embed", "context", "dropout", "warmup_epochs"]


def sample_config(rng):
    optimizer = rng.choice(["adamw", "sgd"])
    return {
        "optimizer": optimizer,
        "lr": 10 ** rng.uniform(-4, 0),
        # Conditional: momentum only matters for SGD; AdamW's betas are fixed.
        "momentum": round(rng.uniform(0.8, 0.99), 4) if optimizer == "sgd" else "",
        "weight_decay": 10 ** rng.uniform(-6, -2),
        "batch_size": rng.choice([32, 64, 128, 256]),
        "width": rng.choice([64, 128, 256]),
        "layers": rng.choice([1, 2]),
        "embed": rng.choice([8, 16, 32]),
        "context": rng.choice([4, 8, 16]),
        "dropout": round(rng.uniform(0, 0.5), 4),
        "warmup_epochs": rng.randint(0, 3),
    }


def configs(n):
    rng = random.Random(SPACE_SEED)
    return [sample_config(rng) for _ in range(n)]


def load_corpus(files):
    text = b"".join(open(f, "rb").read() for f in sorted(files))
    if len(text) < TRAIN_BYTES + VAL_BYTES:
        raise SystemExit(f"corpus has {len(text)} bytes; needs {TRAIN_BYTES + VAL_BYTES}")
    # Validation text is the corpus's tail: other files than the training text.
    return text[:TRAIN_BYTES], text[-VAL_BYTES:]


def windows(torch, data, context, positions):
    idx = positions.unsqueeze(1) + torch.arange(context + 1)
    chunk = data[idx]
    return chunk[:, :-1], chunk[:, -1]


def train(torch, cid, cfg, train_bytes, val_bytes):
    nn = torch.nn
    torch.manual_seed(1000 + cid)
    gen = torch.Generator().manual_seed(2000 + cid)
    train_data = torch.tensor(list(train_bytes), dtype=torch.long)
    val_data = torch.tensor(list(val_bytes), dtype=torch.long)
    ctx = cfg["context"]
    val_pos = torch.randperm(len(val_data) - ctx - 1,
                             generator=torch.Generator().manual_seed(7))[:VAL_SAMPLES]
    val_x, val_y = windows(torch, val_data, ctx, val_pos)

    layers = [nn.Embedding(256, cfg["embed"]), nn.Flatten()]
    width_in = cfg["embed"] * ctx
    for _ in range(cfg["layers"]):
        layers += [nn.Linear(width_in, cfg["width"]), nn.GELU(), nn.Dropout(cfg["dropout"])]
        width_in = cfg["width"]
    layers.append(nn.Linear(width_in, 256))
    model = nn.Sequential(*layers)
    if cfg["optimizer"] == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    else:
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"],
                              weight_decay=cfg["weight_decay"])
    steps_per_epoch = EPOCH_SAMPLES // cfg["batch_size"]
    total = steps_per_epoch * EPOCHS
    warm = steps_per_epoch * cfg["warmup_epochs"]

    def factor(step):
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    loss_fn = nn.CrossEntropyLoss()
    rows, elapsed, status = [], 0.0, "OK"
    for epoch in range(1, EPOCHS + 1):
        start = time.perf_counter()
        model.train()
        pos = torch.randint(0, len(train_data) - ctx - 1, (EPOCH_SAMPLES,), generator=gen)
        run_loss, diverged = 0.0, False
        for b in range(steps_per_epoch):
            x, y = windows(torch, train_data, ctx, pos[b * cfg["batch_size"]:(b + 1) * cfg["batch_size"]])
            loss = loss_fn(model(x), y)
            if not torch.isfinite(loss):
                diverged = True
                break
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            run_loss += loss.item()
        if diverged:
            elapsed += time.perf_counter() - start
            status = "diverged"
            break
        model.eval()
        with torch.no_grad():
            logits = model(val_x)
            val_loss = loss_fn(logits, val_y).item()
            val_acc = (logits.argmax(1) == val_y).float().mean().item()
        elapsed += time.perf_counter() - start
        if not math.isfinite(val_loss):
            status = "diverged"
            break
        rows.append({"epoch": epoch, "elapsed_s": round(elapsed, 4),
                     "train_loss": round(run_loss / steps_per_epoch, 5),
                     "val_loss": round(val_loss, 5), "val_acc": round(val_acc, 5)})
    return {"config_id": cid, "status": status, "elapsed_s": round(elapsed, 4), "curve": rows}


def merge(directory, n_expected):
    runs = {}
    for path in glob.glob(os.path.join(directory, "runs", "*.json")):
        with open(path) as f:
            run = json.load(f)
        runs[run["config_id"]] = run
    if n_expected and len(runs) != n_expected:
        raise SystemExit(f"{len(runs)} of {n_expected} runs are finished")
    space = configs(len(runs))
    with open(os.path.join(directory, "configs.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["config_id"] + PARAMS + ["status", "n_epochs_logged"])
        for cid in sorted(runs):
            cfg = space[cid]
            w.writerow([cid] + [fmt(cfg[p]) for p in PARAMS] +
                       [runs[cid]["status"], len(runs[cid]["curve"])])
    with open(os.path.join(directory, "curves.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["config_id", "epoch", "elapsed_s", "train_loss", "val_loss", "val_acc"])
        for cid in sorted(runs):
            for r in runs[cid]["curve"]:
                w.writerow([cid, r["epoch"], r["elapsed_s"], r["train_loss"], r["val_loss"],
                            r["val_acc"]])


def fmt(v):
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--corpus", nargs="*", default=[])
    ap.add_argument("--configs", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--job", type=int, default=0)
    ap.add_argument("--merge", action="store_true")
    args = ap.parse_args()
    if args.merge:
        merge(args.dir, args.configs)
        return
    # One thread per copy: the recorded wall-clock is one core's, whatever else runs.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch
    torch.set_num_threads(1)
    train_bytes, val_bytes = load_corpus(args.corpus)
    os.makedirs(os.path.join(args.dir, "runs"), exist_ok=True)
    for cid, cfg in enumerate(configs(args.configs)):
        out = os.path.join(args.dir, "runs", f"{cid:04d}.json")
        if cid % args.jobs != args.job or os.path.exists(out):
            continue
        run = train(torch, cid, cfg, train_bytes, val_bytes)
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(run, f)
        os.replace(tmp, out)
        last = run["curve"][-1]["val_loss"] if run["curve"] else float("nan")
        print(f"{cid} {run['status']} {len(run['curve'])} epochs {run['elapsed_s']:.1f}s "
              f"val_loss {last:.4f}", flush=True)


if __name__ == "__main__":
    main()
