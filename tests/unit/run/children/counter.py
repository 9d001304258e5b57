"""A protocol-following test child: counts steps, carrying a deterministic running value
(so a resumed run can be compared with an uninterrupted one), checkpoints through the helper.

usage: counter.py STEPS STEP_SECONDS CHECKPOINT_EVERY [PAD_BYTES]
Writes its pid to $COUNTER_PIDFILE when set (tests kill it from outside)."""
import json
import os
import sys
import time

import frugal

steps, step_seconds, every = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
pad = int(sys.argv[4]) if len(sys.argv) > 4 else 0
if os.environ.get("COUNTER_PIDFILE"):
    with open(os.environ["COUNTER_PIDFILE"], "w") as f:
        f.write(f"{os.getpid()}\n")

step, value, saved = 0, 1, -1
if frugal.resume_from():
    with open(os.path.join(frugal.resume_from(), "state.json")) as f:
        state = json.load(f)
    step, value = state["step"], state["value"]
    saved = step
    if pad:
        assert os.path.getsize(os.path.join(frugal.resume_from(), "pad.bin")) == pad


def save():
    global saved
    saved = step
    with frugal.checkpoint(step) as d:
        with open(os.path.join(d, "state.json"), "w") as f:
            json.dump({"step": step, "value": value}, f)
        if pad:
            with open(os.path.join(d, "pad.bin"), "wb") as f:
                f.write(bytes((step + i) % 251 for i in range(pad)))


while step < steps:
    time.sleep(step_seconds)
    step += 1
    value = (value * 31 + step) % 1000000007
    frugal.report(step, value=value)
    if step != saved and (frugal.checkpoint_requested() or frugal.should_stop() or step % every == 0):
        save()
    if frugal.should_stop():
        sys.exit(0)
frugal.result(value=value)
print("final value", value)
