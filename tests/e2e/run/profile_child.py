"""A protocol-following child for `frugal profile` tests: steps at a fixed pace, reporting
cumulative tokens and samples, holding a known amount of memory, checkpointing when asked.

usage: profile_child.py STEPS STEP_SECONDS TOKENS_PER_STEP SAMPLES_PER_STEP HOLD_MIB [SILENT]
With SILENT set to 1 it never reports progress (a command that ignores the protocol)."""
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

step = 0
while step < steps:
    time.sleep(step_seconds)
    step += 1
    if not silent:
        frugal.report(step, tokens=step * tokens_per_step, samples=step * samples_per_step, loss=1.0 / step)
    if frugal.checkpoint_requested() or frugal.should_stop():
        with frugal.checkpoint(step) as d:
            with open(os.path.join(d, "state.txt"), "w") as f:
                f.write(str(step))
    if frugal.should_stop():
        sys.exit(0)
