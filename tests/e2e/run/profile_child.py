"""A protocol-following child for `frugal profile` tests: steps at a fixed pace, reporting
cumulative tokens and samples, holding a known amount of memory, checkpointing when asked.

usage: profile_child.py STEPS STEP_SECONDS TOKENS_PER_STEP SAMPLES_PER_STEP HOLD_MIB [MODE]
With MODE 1 it never reports progress (a command that ignores the protocol); with MODE 2 it
trains 30 more steps after it is asked to stop before it checkpoints and stops (a slow stopper)."""
import os
import sys
import time

import frugal

steps, step_seconds = int(sys.argv[1]), float(sys.argv[2])
tokens_per_step, samples_per_step = int(sys.argv[3]), int(sys.argv[4])
held = bytearray(int(sys.argv[5]) * 1024 * 1024)
for i in range(0, len(held), 4096):  # touch every page so it is resident
    held[i] = 1
silent = len(sys.argv) > 6 and sys.argv[6] == "1"
slow_stopper = len(sys.argv) > 6 and sys.argv[6] == "2"

step = 0
asked_at = None
while step < steps:
    time.sleep(step_seconds)
    step += 1
    if not silent:
        frugal.report(step, tokens=step * tokens_per_step, samples=step * samples_per_step, loss=1.0 / step)
    if slow_stopper and (frugal.checkpoint_requested() or frugal.should_stop()):
        asked_at = step if asked_at is None else asked_at
        if step < asked_at + 30:
            continue
    if frugal.checkpoint_requested() or frugal.should_stop():
        with frugal.checkpoint(step) as d:
            with open(os.path.join(d, "state.txt"), "w") as f:
                f.write(str(step))
    if frugal.should_stop():
        sys.exit(0)
