#!/usr/bin/env python3
"""Kill campaign: seeded SIGKILLs of `frugal run`'s supervisor and of its training command,
with the ledger on a disk that fills up mid-run where a tmpfs can be mounted (root).

Each iteration trains examples/pytorch/train.py (real PyTorch on CPU) under one run id, killing
the supervisor, the command or both at seeded random moments, sweeping some killed runs before
restarting them, until an attempt finishes. Then it checks what frugal promises:

- the ledger's total for the run equals its journal's (the sum of segment_closed.cost_micros)
  to the cent (and reports the largest difference in micro-dollars);
- no spend is lost beyond the stated bound: for every killed supervisor, the time between the
  kill and the journal's last record before it (where the lost attempt is costed to) is at most
  one journal record interval (--sample-interval) plus scheduling slack;
- the final weights equal an uninterrupted run's (SHA-256 of the state dict).

With --tuners N it also SIGKILLs the tuner of the shipped PyTorch study
(examples/pytorch/study.yaml) N times at a seeded moment 1.5-6 s in, then runs `frugal tune
resume`, and checks that every trial's ledger run equals its journal (the sum of its
segment_closed.cost_micros) to the micro-dollar, and that the study's spend is the sum of its
trials' to the micro-dollar.

With --journal-disks N it runs N times a run whose whole FRUGAL_HOME is a 2 MiB tmpfs filled up
mid-run (root only): no torn journal line, the run still `succeeded`, and the ledger equal to the
journal to the micro-dollar once the disk is freed.

usage: kill_campaign.py FRUGAL [--iterations 10] [--seed 1] [--full-disk auto|on|off]
                               [--epochs 2] [--step-delay 0.02] [--tuners 0]
                               [--journal-disks 0] [--json]
Exit status 0 when every check held, 1 otherwise; 125 when PyTorch is missing.
"""
import argparse
import datetime
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PYTHON = "/usr/bin/python3"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAIN = os.path.join(ROOT, "examples", "pytorch", "train.py")
PRICE = "36/h"  # a cent a second
SAMPLE_INTERVAL_S = 0.5  # the journal's record interval in this campaign
SLACK_S = 0.5  # scheduling on a loaded machine, the record's own write


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def journal_records(home, run_id):
    path = os.path.join(home, "data", "runs", run_id, "journal.jsonl")
    records = []
    with open(path, "rb") as f:
        for line in f:
            try:
                records.append(json.loads(line))
            except ValueError:
                pass  # a torn last line
    return records


def frugal_json(frugal, home, args, env):
    out = subprocess.run([frugal, "--json"] + args, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"frugal {' '.join(args)}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def child_of(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except OSError:
        return None


class Disk:
    """A tmpfs for the ledger that the campaign fills up and frees again."""

    def __init__(self, where, size="4m"):
        self.where = where
        os.makedirs(where, exist_ok=True)
        self.mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", where],
                                      capture_output=True).returncode == 0

    def fill(self):
        fd = os.open(os.path.join(self.where, "fill"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            for size in (65536, 4096, 512, 1):
                try:
                    while os.write(fd, b"x" * size) == size:
                        pass
                except OSError:
                    pass
        finally:
            os.close(fd)

    def free(self):
        try:
            os.remove(os.path.join(self.where, "fill"))
        except OSError:
            pass

    def close(self):
        if self.mounted:
            subprocess.run(["umount", "-l", self.where], capture_output=True)


def baseline_digest(args, work):
    out = os.path.join(work, "baseline.sha")
    subprocess.run([PYTHON, TRAIN, "--epochs", str(args.epochs), "--checkpoint-every", "20",
                    "--out", out], check=True, capture_output=True)
    return open(out).read().strip()


def one_iteration(args, rng, index, work, digest, disk):
    home = os.path.join(work, f"home{index}")
    os.makedirs(home)
    env = dict(os.environ, FRUGAL_HOME=home)
    db = []
    if disk and disk.mounted:
        db = ["--db", os.path.join(disk.where, f"ledger{index}.sqlite")]
    run_id = f"kc{index}"
    out = os.path.join(home, "weights.sha")
    command = [PYTHON, TRAIN, "--epochs", str(args.epochs), "--checkpoint-every", "20",
               "--step-delay", str(args.step_delay), "--out", out]
    base = [args.frugal, "-q"] + db + ["run", "--price", PRICE, "--run-id", run_id,
                                        "--sample-interval", f"{int(SAMPLE_INTERVAL_S * 1000)}ms",
                                        "--heartbeat-interval", "3s", "--restart-backoff", "100ms",
                                        "--stop-grace", "2s", "--"]
    kills = rng.randint(1, 3)
    events = []
    for attempt in range(kills + 6):
        proc = subprocess.Popen(base + command, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        if len(events) < kills:
            time.sleep(rng.uniform(1.0, 6.0))
            filled = False
            if disk and disk.mounted and rng.random() < 0.5:
                disk.fill()  # the ledger's disk fills while the run goes on
                filled = True
                time.sleep(rng.uniform(0.3, 1.5))
            target = rng.choice(["supervisor", "command", "both"])
            if proc.poll() is not None:  # finished before the kill came
                if filled:
                    disk.free()
                if proc.returncode == 0:
                    break
                continue
            killed_at = time.time()
            if target in ("command", "both"):
                kid = child_of(proc.pid)
                if kid:
                    os.kill(kid, signal.SIGKILL)
            if target in ("supervisor", "both"):
                os.kill(proc.pid, signal.SIGKILL)
            events.append({"target": target, "at": killed_at, "disk_full": filled})
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            if filled:
                disk.free()
            if events and events[-1]["target"] != "command" and rng.random() < 0.5:
                time.sleep(1.2)
                frugal_json(args.frugal, home, db + ["ledger", "sweep", "--stale", "1s"], env)
                events[-1]["swept"] = True
            continue
        code = proc.wait(timeout=600)
        if code == 0:
            break
    show = frugal_json(args.frugal, home, db + ["runs", "show", run_id], env)
    records = journal_records(home, run_id)
    journal_micros = sum(r.get("cost_micros", 0) for r in records if r["record"] == "segment_closed")
    # Each killed supervisor's attempt is costed to the journal's last record before the kill.
    lost_ends = [parse_time(r["at"]) for r in records
                 if r["record"] == "segment_closed" and r.get("end") == "lost"]
    gaps = []
    previous = 0.0
    for e in events:
        if e["target"] != "command":
            # The attempt this kill ended: its lost segment ends after the previous kill.
            ends = [t for t in lost_ends if previous < t <= e["at"] + 0.01]
            if ends:
                gaps.append(e["at"] - max(ends))
        previous = e["at"]
    weights = open(out).read().strip() if os.path.exists(out) else ""
    return {
        "iteration": index,
        "kills": events,
        "ledger_micros": show["cost_micros"],
        "journal_micros": journal_micros,
        "status": show["status"],
        "unrecorded_s": gaps,
        "weights_equal": weights == digest,
    }


def journal_disk_iteration(args, rng, index, work):
    """A run whose whole FRUGAL_HOME (journal and ledger) is a 2 MiB tmpfs that fills up
    mid-run: every journal line must be whole, the run must end as it did (not `lost`), and
    once the disk is freed the ledger must come up to the journal to the micro-dollar."""
    disk = Disk(os.path.join(work, f"jdisk{index}"), size="2m")
    if not disk.mounted:
        return None
    try:
        home = disk.where
        env = dict(os.environ, FRUGAL_HOME=home)
        run_id = f"jd{index}"
        proc = subprocess.Popen([args.frugal, "-q", "run", "--price", "3600/h", "--run-id", run_id,
                                 "--sample-interval", "200ms", "--", "sleep", "3"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        path = os.path.join(home, "data", "runs", run_id, "journal.jsonl")
        # The disk fills once the run is under way (its first segment journaled).
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None:
            if os.path.exists(path) and b"segment_opened" in open(path, "rb").read():
                break
            time.sleep(0.05)
        time.sleep(rng.uniform(0.3, 1.5))
        disk.fill()
        _, err = proc.communicate(timeout=60)
        raw = open(path, "rb").read()
        lines = raw.split(b"\n")
        torn = (len(raw) > 0 and not raw.endswith(b"\n")) or any(
            not line.strip().startswith(b"{") for line in lines[:-1])
        finished = False
        for line in lines[:-1]:
            try:
                finished = finished or json.loads(line).get("record") == "run_finished"
            except ValueError:
                torn = True
        disk.free()
        # The next command brings the ledger up to the journal.
        frugal_json(args.frugal, home, ["ledger", "sweep", "--stale", "1s"], env)
        show = frugal_json(args.frugal, home, ["runs", "show", run_id], env)
        journal = sum(r.get("cost_micros", 0) for r in journal_records(home, run_id)
                      if r["record"] == "segment_closed")
        warning = err.strip().splitlines()[-1] if err.strip() else ""
        # What the exit warning says is kept must be kept: "the journal ... has them" only when
        # the journal holds the run's end.
        claims_journal = "could not be written to the ledger" in warning
        warning_true = finished or not claims_journal
        return {"exit": proc.returncode, "torn": torn, "finished_in_journal": finished,
                "warning_true": warning_true,
                "status": show["status"], "ledger_minus_journal_micros": show["cost_micros"] - journal,
                "warning": warning}
    finally:
        disk.close()


def trial_journal_micros(path):
    micros = 0
    with open(path, "rb") as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a torn last line
            if r.get("record") == "segment_closed":
                micros += r.get("cost_micros", 0)
    return micros


def tuner_iteration(args, rng, index, work):
    """SIGKILLs the tuner of the shipped study, resumes it, compares ledger and journals."""
    home = os.path.join(work, f"tuner{index}")
    study_dir = os.path.join(home, "study")
    shutil.copytree(os.path.join(ROOT, "examples", "pytorch"), study_dir)
    # The trials run under the Python that has PyTorch.
    spec = os.path.join(study_dir, "study.yaml")
    with open(spec) as f:
        text = f.read().replace("command: [python3,", f"command: [{PYTHON},")
    with open(spec, "w") as f:
        f.write(text)
    # The copy finds frugal's Python helper where the shipped one does (../../python).
    env = dict(os.environ, FRUGAL_HOME=home,
               PYTHONPATH=os.path.join(ROOT, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([args.frugal, "-q", "tune", os.path.join(study_dir, "study.yaml")],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    kill_after = rng.uniform(1.5, 6.0)
    time.sleep(kill_after)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    # The trials' commands see their supervisors die and exit; what is left goes too.
    time.sleep(0.5)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    resumed = subprocess.run([args.frugal, "--json", "tune", "resume", "pytorch-mlp"], env=env,
                             capture_output=True, text=True)
    try:
        doc = json.loads(resumed.stdout)
    except ValueError:
        doc = {}
    runs = frugal_json(args.frugal, home,
                       ["runs", "list", "--tag", "study=pytorch-mlp", "--limit", "100"], env)
    diffs = []
    ledger_total = 0
    for run in runs["runs"]:
        journal = os.path.join(home, "data", "studies", "pytorch-mlp", "trials",
                               run["tags"]["trial"], "journal.jsonl")
        ledger_total += run["cost_micros"]
        diffs.append(run["cost_micros"] - trial_journal_micros(journal))
    status = frugal_json(args.frugal, home, ["tune", "status", "pytorch-mlp"], env)
    per_trial = sum(round(t["spend_usd"] * 1e6) for t in status.get("per_trial", []))
    return {
        "iteration": index,
        "killed_at_s": round(kill_after, 2),
        "killed": killed,
        "resume_exit": resumed.returncode,
        "resume_error": resumed.stderr.strip().splitlines()[-1] if resumed.stderr.strip() else "",
        "trials": len(runs["runs"]),
        "running_after": sum(r["status"] == "running" for r in runs["runs"]),
        "ledger_minus_journal_micros": diffs,
        "study_minus_trials_micros": round(doc.get("spend_usd", 0) * 1e6) - per_trial,
        "study_minus_ledger_micros": round(doc.get("spend_usd", 0) * 1e6) - ledger_total,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("frugal")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--full-disk", choices=["auto", "on", "off"], default="auto")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--step-delay", type=float, default=0.02)
    p.add_argument("--tuners", type=int, default=0, help="killed tuners of the shipped study")
    p.add_argument("--journal-disks", type=int, default=0,
                   help="runs whose journal's disk (a 2 MiB tmpfs) fills up mid-run")
    p.add_argument("--json", action="store_true", help="print the results as one JSON document")
    args = p.parse_args()
    if subprocess.run([PYTHON, "-c", "import torch"], capture_output=True).returncode != 0:
        print("kill_campaign: PyTorch is not importable by /usr/bin/python3", file=sys.stderr)
        return 125
    args.frugal = os.path.abspath(args.frugal)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="frugal-kill-campaign-")
    disk = None
    if args.full_disk != "off":
        disk = Disk(os.path.join(work, "disk"))
        if not disk.mounted and args.full_disk == "on":
            print("kill_campaign: cannot mount a tmpfs for the full-disk runs", file=sys.stderr)
            return 125
    started = time.time()
    tuners = []
    jdisks = []
    try:
        digest = baseline_digest(args, work)
        results = [one_iteration(args, rng, i, work, digest, disk) for i in range(args.iterations)]
        tuners = [tuner_iteration(args, rng, i, work) for i in range(args.tuners)]
        jdisks = [journal_disk_iteration(args, rng, i, work) for i in range(args.journal_disks)]
        jdisks = [j for j in jdisks if j is not None]
    finally:
        if disk:
            disk.close()
        shutil.rmtree(work, ignore_errors=True)
    kills = [k for r in results for k in r["kills"]]
    gaps = [g for r in results for g in r["unrecorded_s"]]
    worst_diff = max((abs(r["ledger_micros"] - r["journal_micros"]) for r in results), default=0)
    summary = {
        "iterations": len(results),
        "seed": args.seed,
        "kills": len(kills),
        "supervisor_kills": sum(k["target"] != "command" for k in kills),
        "command_kills": sum(k["target"] != "supervisor" for k in kills),
        "kills_with_full_ledger_disk": sum(k["disk_full"] for k in kills),
        "swept_before_restart": sum(bool(k.get("swept")) for k in kills),
        "ledger_vs_journal_max_diff_micros": worst_diff,
        "unrecorded_max_s": max(gaps) if gaps else 0.0,
        "unrecorded_mean_s": sum(gaps) / len(gaps) if gaps else 0.0,
        "bound_s": SAMPLE_INTERVAL_S,
        "weights_equal": sum(r["weights_equal"] for r in results),
        "not_succeeded": sum(r["status"] != "succeeded" for r in results),
        "wall_s": round(time.time() - started, 1),
    }
    ok = (worst_diff < 10_000 and all(g <= SAMPLE_INTERVAL_S + SLACK_S for g in gaps)
          and summary["weights_equal"] == len(results) and summary["not_succeeded"] == 0)
    if tuners:
        tuner_diffs = [d for t in tuners for d in t["ledger_minus_journal_micros"]]
        summary["tuners_killed"] = sum(t["killed"] for t in tuners)
        summary["tuner_trials"] = sum(t["trials"] for t in tuners)
        summary["tuner_resumes_failed"] = sum(t["resume_exit"] != 0 for t in tuners)
        summary["tuner_runs_left_running"] = sum(t["running_after"] for t in tuners)
        summary["tuner_ledger_vs_journal_max_diff_micros"] = max(map(abs, tuner_diffs), default=0)
        summary["tuner_study_vs_trials_max_diff_micros"] = max(
            abs(t["study_minus_trials_micros"]) for t in tuners)
        summary["tuner_study_vs_ledger_max_diff_micros"] = max(
            abs(t["study_minus_ledger_micros"]) for t in tuners)
        ok = ok and (summary["tuner_resumes_failed"] == 0
                     and summary["tuner_runs_left_running"] == 0
                     and summary["tuner_ledger_vs_journal_max_diff_micros"] == 0
                     and summary["tuner_study_vs_trials_max_diff_micros"] == 0
                     and summary["tuner_study_vs_ledger_max_diff_micros"] == 0)
    if jdisks:
        summary["journal_disk_runs"] = len(jdisks)
        summary["journal_disk_torn"] = sum(j["torn"] for j in jdisks)
        summary["journal_disk_not_succeeded"] = sum(j["status"] != "succeeded" for j in jdisks)
        summary["journal_disk_ledger_vs_journal_max_diff_micros"] = max(
            abs(j["ledger_minus_journal_micros"]) for j in jdisks)
        summary["journal_disk_false_warnings"] = sum(not j["warning_true"] for j in jdisks)
        summary["journal_disk_exit_not_zero"] = sum(j["exit"] != 0 for j in jdisks)
        ok = ok and (summary["journal_disk_torn"] == 0
                     and summary["journal_disk_false_warnings"] == 0
                     and summary["journal_disk_exit_not_zero"] == 0
                     and summary["journal_disk_not_succeeded"] == 0
                     and summary["journal_disk_ledger_vs_journal_max_diff_micros"] == 0)
    summary["ok"] = ok
    if args.json:
        print(json.dumps({"summary": summary, "iterations": results, "tuners": tuners,
                          "journal_disks": jdisks}, indent=1))
    else:
        for key, value in summary.items():
            print(f"{key:36} {value}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
