#!/usr/bin/env python3
"""A trial of `frugal tune`: the small PyTorch model of train.py, trained with the
hyperparameters the tuner chose, to the fidelity (epochs) it asked for, reporting the objective.

The tuner runs it under the run supervisor with, besides the protocol environment:
  FRUGAL_TRIAL_CONFIG  the configuration as JSON: lr, optimizer, momentum (sgd only),
                       hidden, dropout, weight_decay, batch (any of them may be absent)
  FRUGAL_TRIAL_TARGET  the epoch to reach in this segment: checkpoint there and exit (the
                       tuner decides the rungs on the way and may ask it to stop sooner)
  FRUGAL_TRIAL_MAX     full fidelity (the last rung)
A paused trial is promoted by running it again with a higher target: it resumes from its
newest checkpoint (FRUGAL_RESUME_FROM), which holds everything that decides the result, so a
trial paused, preempted and resumed any number of times ends with the same weights.

Each epoch ends with a checkpoint and then a progress report carrying `epoch` (epochs done),
`val_loss`, `val_accuracy` and `train_loss`. Outside frugal it runs one configuration:
    python3 examples/pytorch/tune_train.py --epochs 5 --config '{"lr": 0.1}'
"""
import argparse
import json
import math
import os
import random
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import frugal  # noqa: E402
from train import CLASSES, FEATURES, load_state, make_data, save_state  # noqa: E402

TRAIN = 3072  # the rest of train.py's samples are the validation set
DEFAULTS = {"lr": 0.05, "optimizer": "sgd", "momentum": 0.9, "hidden": 128, "dropout": 0.1,
            "weight_decay": 0.0, "batch": 64}


def trial_config(text):
    config = dict(DEFAULTS)
    config.update(json.loads(text) if text else {})
    return config


def make_model(config):
    hidden = int(config["hidden"])
    return torch.nn.Sequential(
        torch.nn.Linear(FEATURES, hidden), torch.nn.ReLU(), torch.nn.Dropout(float(config["dropout"])),
        torch.nn.Linear(hidden, CLASSES))


def make_optimizer(config, model):
    lr, decay = float(config["lr"]), float(config["weight_decay"])
    if config["optimizer"] == "adam":
        return torch.optim.Adam(model.parameters(), lr=lr, weight_decay=decay)
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=float(config["momentum"]), weight_decay=decay)


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits, y).item()
        accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    if not math.isfinite(loss):
        loss = 1e9  # diverged: the worst value, still a number the tuner can rank
    return loss, accuracy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=0, help="target epoch outside the tuner")
    parser.add_argument("--config", default="", help="JSON configuration outside the tuner")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()

    config = trial_config(os.environ.get("FRUGAL_TRIAL_CONFIG") or args.config)
    target = int(float(os.environ.get("FRUGAL_TRIAL_TARGET") or args.epochs or 3))
    full = int(float(os.environ.get("FRUGAL_TRIAL_MAX") or target))
    batch_size = int(config["batch"])

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    x, y = make_data(args.seed)
    x_train, y_train, x_val, y_val = x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]
    model = make_model(config)
    optimizer = make_optimizer(config, model)
    steps_per_epoch = TRAIN // batch_size
    epoch, batch, step = load_state(model, optimizer)
    if frugal.resume_from():
        print(f"trial resumed at epoch {epoch}, batch {batch}", file=sys.stderr, flush=True)

    def save():
        save_state(model, optimizer, epoch, batch, step)

    saved_at = step
    train_loss = float("nan")
    while epoch < target:
        order = torch.randperm(TRAIN, generator=torch.Generator().manual_seed(args.seed * 1000 + epoch))
        while batch < steps_per_epoch:
            index = order[batch * batch_size:(batch + 1) * batch_size]
            model.train()
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            batch += 1
            step += 1
            train_loss = loss.item()
            frugal.report(step, train_loss=train_loss)
            if (frugal.checkpoint_requested() or frugal.should_stop()) and step != saved_at:
                save()
                saved_at = step
            if frugal.should_stop():
                return
        epoch, batch = epoch + 1, 0
        val_loss, val_accuracy = evaluate(model, x_val, y_val)
        if step != saved_at:
            save()  # before the report: a reported epoch is always resumable
            saved_at = step
        frugal.report(step, epoch=epoch, val_loss=val_loss, val_accuracy=val_accuracy, train_loss=train_loss)
        if frugal.should_stop():
            return
    if epoch >= full:
        val_loss, val_accuracy = evaluate(model, x_val, y_val)
        frugal.result(val_loss=val_loss, val_accuracy=val_accuracy, epochs=epoch)
    print(f"trial at epoch {epoch}: config {json.dumps(config, sort_keys=True)}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
