#!/usr/bin/env python3
"""A real GPU training loop under the frugal protocol, for `frugal profile` and `frugal run` on a
GPU machine (bench/gpu/run_device.sh). Reports steps with cumulative samples (and tokens),
checkpoints model and optimizer state when asked or every --checkpoint-every steps, resumes from
frugal's checkpoint.

    frugal profile --for 40s -- python3 bench/gpu/train_probe.py --family cnn --size resnet50
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import frugal  # noqa: E402
import models  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--family", default="cnn")
    p.add_argument("--size", default="resnet50")
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--dtype", default="bf16", choices=["fp32", "bf16", "fp16"])
    p.add_argument("--steps", type=int, default=10**9)
    p.add_argument("--checkpoint-every", type=int, default=200)
    a = p.parse_args()
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    model, make_batch, loss_fn, tokens_per_sample = models.build(a.family, a.size, a.batch, dev)
    model = model.to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    step = 0
    if frugal.resume_from():
        state = torch.load(os.path.join(frugal.resume_from(), "state.pt"), map_location=dev)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        step = state["step"]
        print(f"resumed at step {step}", flush=True)
    amp = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(a.dtype)
    saved = step
    while step < a.steps:
        with torch.autocast(dev, dtype=amp, enabled=amp is not None):
            loss = loss_fn(model(*make_batch()))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        if step % 10 == 0 or frugal.checkpoint_requested() or frugal.should_stop():
            torch.cuda.synchronize() if dev == "cuda" else None
            samples = step * a.batch
            frugal.report(step, samples=samples, tokens=samples * tokens_per_sample if tokens_per_sample else None,
                          loss=float(loss.detach()))
        if (frugal.checkpoint_requested() or frugal.should_stop() or step % a.checkpoint_every == 0) and step != saved:
            with frugal.checkpoint(step) as d:
                torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step},
                           os.path.join(d, "state.pt"))
            saved = step
        if frugal.should_stop():
            return
    frugal.result(loss=float(loss.detach()))


if __name__ == "__main__":
    main()
