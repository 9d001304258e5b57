#!/usr/bin/env python3
"""Runs `frugal queue simulate` for every shipped workload on every shipped spot trace and
several seeds, and prints per workload and policy: mean cost, the range of frugal's saving
against FIFO on on-demand, deadline misses, and how often frugal's idle owned GPU-hours were
at most EDF's. Usage: simulate_all.py FRUGAL_BINARY [SEEDS] [WORKLOAD...] (default: week nightly crunch)"""
import glob
import json
import os
import statistics
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
binary = sys.argv[1]
seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
capacity = os.path.join(root, "examples/queue/capacity.yaml")
traces = sorted(glob.glob(os.path.join(root, "data/spot_traces/*.json")))
policies = ["frugal", "fifo_on_demand", "edf_on_demand", "greedy_spot"]

for workload in sys.argv[3:] or ["week", "nightly", "crunch"]:
    runs = []
    for trace in traces:
        for seed in range(1, seeds + 1):
            out = subprocess.run([binary, "queue", "simulate", "--workload",
                                  os.path.join(root, f"examples/queue/{workload}.yaml"),
                                  "--capacity", capacity, "--trace", trace, "--seed", str(seed),
                                  "--json"], check=True, capture_output=True, text=True).stdout
            runs.append((os.path.basename(trace), seed, json.loads(out)["policies"]))
    print(f"### {workload}: {len(runs)} runs ({len(traces)} traces x {seeds} seeds)")
    print("| policy | mean cost | deadline misses (runs with any) | jobs completed | "
          "mean idle owned GPU-h |")
    print("|---|---|---|---|---|")
    for p in policies:
        costs = [r[2][p]["cost_usd"] for r in runs]
        misses = [r[2][p]["deadline_misses"] for r in runs]
        done = [r[2][p]["jobs_completed"] for r in runs]
        idle = [r[2][p]["idle_owned_gpu_hours"] for r in runs]
        print(f"| {p} | ${statistics.mean(costs):,.2f} | {sum(misses)} ({sum(m > 0 for m in misses)}) "
              f"| {min(done)}-{max(done)} | {statistics.mean(idle):.1f} |")
    savings = [1 - r[2]["frugal"]["cost_usd"] / r[2]["fifo_on_demand"]["cost_usd"] for r in runs]
    clean_any = [r for r in runs if any(r[2][p]["deadline_misses"] == 0 for p in policies)]
    frugal_missed = [r for r in clean_any if r[2]["frugal"]["deadline_misses"] > 0]
    idle_ok = sum(r[2]["frugal"]["idle_owned_gpu_hours"] <= r[2]["edf_on_demand"]["idle_owned_gpu_hours"] + 1e-9
                  for r in runs)
    print(f"\nfrugal's saving vs FIFO on-demand: min {100 * min(savings):.1f}%, "
          f"mean {100 * statistics.mean(savings):.1f}%, max {100 * max(savings):.1f}%; "
          f"frugal missed a deadline in {len(frugal_missed)} of the {len(clean_any)} runs where "
          f"some policy met them all; idle owned GPU-h <= EDF's in {idle_ok} of {len(runs)} runs.")
    for trace, seed, _ in frugal_missed:
        print(f"  frugal missed on {trace} seed {seed}")
    print()
