#!/usr/bin/env python3
"""A small, real PyTorch training run that survives preemptions under `frugal run`.

A two-layer MLP with dropout learns a fixed random teacher network's labels on CPU. Everything
that decides the result is checkpointed: model and optimizer state, the torch and Python RNG
states, and the position in the data (epoch and batch). So a run preempted any number of times
ends with bit-identical weights to an uninterrupted one.

    frugal run --price 0.50/h --restart local -- python3 examples/pytorch/train.py --epochs 3

Arguments: --epochs, --seed, --checkpoint-every (steps), --out FILE (the final weights' SHA-256).
Runs unchanged outside frugal (the helper's calls are no-ops there).
"""
import argparse
import hashlib
import os
import random
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import frugal  # noqa: E402

SAMPLES, FEATURES, CLASSES, BATCH = 4096, 32, 4, 64


def make_data(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(SAMPLES, FEATURES, generator=g)
    teacher = torch.randn(FEATURES, CLASSES, generator=g)
    y = (x @ teacher + 0.1 * torch.randn(SAMPLES, CLASSES, generator=g)).argmax(dim=1)
    return x, y


def make_model():
    return torch.nn.Sequential(
        torch.nn.Linear(FEATURES, 128), torch.nn.ReLU(), torch.nn.Dropout(0.1), torch.nn.Linear(128, CLASSES))


def weights_sha256(model):
    h = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        h.update(name.encode())
        h.update(tensor.detach().contiguous().numpy().tobytes())
    return h.hexdigest()


def save_state(model, optimizer, epoch, batch, step):
    """Writes everything an exact resume needs (weights, optimizer, RNG states, data position) as
    a checkpoint through the helper, which reports it only once it is complete."""
    with frugal.checkpoint(step) as directory:
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "torch_rng": torch.get_rng_state(), "python_rng": random.getstate(),
                    "epoch": epoch, "batch": batch, "step": step}, os.path.join(directory, "state.pt"))


def load_state(model, optimizer):
    """Restores the checkpoint frugal hands over; returns (epoch, batch, step), zeros on a fresh start."""
    if not frugal.resume_from():
        return 0, 0, 0
    state = torch.load(os.path.join(frugal.resume_from(), "state.pt"))
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["torch_rng"])
    random.setstate(state["python_rng"])
    return state["epoch"], state["batch"], state["step"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--checkpoint-every", type=int, default=50)
    parser.add_argument("--step-delay", type=float, default=0.0, help="seconds of sleep per step (tests)")
    parser.add_argument("--out", default="")
    args = parser.parse_args()

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    x, y = make_data(args.seed)
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    steps_per_epoch = SAMPLES // BATCH
    epoch, batch, step = load_state(model, optimizer)
    if frugal.resume_from():
        print(f"resumed at step {step} (epoch {epoch}, batch {batch})", flush=True)

    def save():
        save_state(model, optimizer, epoch, batch, step)

    saved_at = step
    loss = torch.tensor(0.0)
    while epoch < args.epochs:
        # The epoch's order depends only on the seed and the epoch: the data position is (epoch, batch).
        order = torch.randperm(SAMPLES, generator=torch.Generator().manual_seed(args.seed * 1000 + epoch))
        while batch < steps_per_epoch:
            index = order[batch * BATCH:(batch + 1) * BATCH]
            model.train()
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            batch += 1
            step += 1
            if args.step_delay:
                time.sleep(args.step_delay)
            # Cumulative samples seen, so `frugal profile` can measure samples per second.
            seen = epoch * len(order) + min(batch * BATCH, len(order))
            frugal.report(step, samples=seen, loss=loss.item(), epoch=epoch)
            wanted = frugal.checkpoint_requested() or frugal.should_stop() or step % args.checkpoint_every == 0
            if wanted and step != saved_at:
                save()
                saved_at = step
            if frugal.should_stop():
                print(f"stopping at step {step}", flush=True)
                return
        epoch, batch = epoch + 1, 0

    model.eval()
    with torch.no_grad():
        accuracy = (model(x).argmax(dim=1) == y).float().mean().item()
    digest = weights_sha256(model)
    frugal.result(loss=loss.item(), accuracy=accuracy, steps=step)
    print(f"done: {step} steps, accuracy {accuracy:.4f}, weights sha256 {digest}", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write(digest + "\n")


if __name__ == "__main__":
    main()
