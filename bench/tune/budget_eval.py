#!/usr/bin/python3
"""Tuners at fixed budgets: frugal's flag-form default against random search, Optuna's pruners
and a "screen everything a little, finish the best" baseline, on replayed learning curves.

For each table the budgets are fractions (default 2%, 6%, 15%, 40%) of what training every
configuration to the end of its curve would cost. Every method runs 8 workers in simulated
time, at the same price per GPU-hour, over the same seeds:

  frugal              `frugal tune --replay DIR --metric M ... --json`, flags only (its defaults)
  random              `frugal tune --replay ... --scheduler none --sampler random`
  random-plain        random search as most tools run it (simulated): configurations in random
                      order, each trained to the end, until an epoch no longer fits the budget
  optuna-tpe-sha      Optuna TPESampler + SuccessiveHalvingPruner(min_resource=1, η=3)
  optuna-tpe-hb       Optuna TPESampler + HyperbandPruner(min_resource=1, max=longest, η=3)
  optuna-random-med   Optuna RandomSampler + MedianPruner(5 startup trials, 1 warm-up step)
  screen-finish       train configurations in random order to 1/27 of their own schedule with
                      half the budget, then finish them best first until the budget runs out
  one-epoch-topk      the same with each configuration trained to its first report (one
                      epoch, or the first evaluation of a step table): "train everything one
                      epoch, keep the top k, finish them", k set by what the budget pays

The Optuna and screen-finish baselines are simulated here with 8 workers: a worker starts an
epoch only when the money for it (beside the epochs other workers are running) is left, and
stops its trial otherwise. Optuna's samplers pick a point of the table's search space (from
the configs' columns) and the nearest untried row is trained; an opaque table (no space) gives
the sampler one coordinate that picks among the untried rows in a seeded shuffled order, as
frugal does.

Per table × budget × method it prints: the median best full-fidelity value over seeds (a seed
with no completed trial counts as the worst), the share of seeds within ε of the table's best,
the seeds that ended with no completed trial, the largest overshoot past the budget, and the
median spend at which the best completed value first came within ε (a seed that never does
counts as never). Every seed's outcome is appended to --rows (JSON lines) as it finishes, the
smallest budgets and cheapest tables first, so a run cut short still reports what it did;
--summarize prints the table from such a file without running anything. --json writes every
seed's outcome as one document.

Usage: budget_eval.py --frugal PATH [--seeds 30] [--fractions 0.02,0.06,0.15,0.4]
                      [--tables name,...] [--methods name,...] [--jobs 2] [--json OUT]
                      [--rows OUT.jsonl]
       budget_eval.py --summarize ROWS.jsonl [--tables ...] [--fractions ...] [--methods ...]
"""
import argparse
import bisect
import csv
import heapq
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data", "hpo_curves")
PRICE = 2.5
WORKERS = 8

# name → (dir, metric, maximize, epsilon, space: column → kind, role)
# role "chosen": the defaults were chosen on it; "held out": never used to choose them.
TABLES = {
    "nasbench_nlp_wikitext2": (os.path.join(SHARED, "nasbench_nlp_wikitext2"), "val_loss",
                               False, 0.01, {}, "chosen"),
    "opda_alexnet_imagenet": (os.path.join(SHARED, "opda_alexnet_imagenet"), "val_top1", True,
                              0.01, {"batch_size": "cat", "lr": "log", "lr_peak_epoch": "lin",
                                     "momentum": "lin", "weight_decay": "log",
                                     "label_smoothing": "lin", "epochs": "lin"}, "chosen"),
    "charlm_cpython": (os.path.join(ROOT, "data", "hpo_curves", "charlm_cpython"), "val_loss",
                       False, 0.01, {"optimizer": "cat", "lr": "log", "weight_decay": "log",
                                     "batch_size": "cat", "width": "cat", "layers": "cat",
                                     "embed": "cat", "context": "cat", "dropout": "lin",
                                     "warmup_epochs": "lin"}, "held out"),
    "mlp_schedules": (os.path.join(ROOT, "data", "hpo_curves", "mlp_schedules"), "val_loss",
                      False, 0.01, {"lr": "log", "width": "cat", "batch_size": "cat",
                                    "steps": "lin", "weight_decay": "log"}, "held out"),
    "cnn_shapes": (os.path.join(ROOT, "data", "hpo_curves", "cnn_shapes"), "val_acc", True, 0.01,
                   {"optimizer": "cat", "lr": "log", "weight_decay": "log", "batch_size": "cat",
                    "channels": "cat", "depth": "cat", "dropout": "lin"}, "held out"),
}

# The fidelity column, where it is not `epoch`.
FIDELITY = {"mlp_schedules": "step"}


def fidelity_of(directory):
    return FIDELITY.get(os.path.basename(os.path.normpath(directory)), "epoch")


def load(directory, metric):
    configs = {}
    with open(os.path.join(directory, "configs.csv")) as f:
        for row in csv.DictReader(f):
            fails = row.get("status", "OK").strip().lower() not in ("ok", "") or \
                row.get("nan_train_loss", "0").strip() == "1"
            configs[row["config_id"]] = {"row": row, "fails": fails, "curve": []}
    with open(os.path.join(directory, "curves.csv")) as f:
        for row in csv.DictReader(f):
            c = configs[row["config_id"]]
            if c["curve"] and math.isnan(c["curve"][-1][2]):
                continue
            v = row[metric].strip().lower()
            value = float("nan") if v in ("", "nan", "inf", "-inf") else float(v)
            c["curve"].append((float(row[fidelity_of(directory)]), float(row["elapsed_s"]),
                               value))
    for c in configs.values():
        c["complete"] = bool(c["curve"]) and not c["fails"] and not math.isnan(c["curve"][-1][2])
    return configs


def table_facts(configs, maximize):
    finals = [c["curve"][-1][2] for c in configs.values() if c["complete"]]
    best = max(finals) if maximize else min(finals)
    total = sum(c["curve"][-1][1] for c in configs.values() if c["curve"])
    return best, total * PRICE / 3600.0


# ---------------------------------------------------------------- simulated 8-worker baselines

class Sim:
    """Workers advancing trials epoch by epoch in simulated time under a hard budget."""

    def __init__(self, budget, maximize, target, epsilon):
        self.budget, self.maximize = budget, maximize
        self.target, self.epsilon = target, epsilon
        self.spend = 0.0       # accrued
        self.reserved = 0.0    # epochs in flight
        self.best, self.reach, self.completed = None, None, 0
        self.now, self.seq, self.events = 0.0, 0, []

    def better(self, a, b):
        return b is None or (a > b if self.maximize else a < b)

    def try_epoch(self, job, prev_cost, point):
        """Schedules the next epoch of `job` if the money for it is left."""
        cost = (point[1] - prev_cost) * PRICE / 3600.0
        if self.spend + self.reserved + cost > self.budget + 1e-12:
            return False
        self.reserved += cost
        self.seq += 1
        heapq.heappush(self.events, (self.now + (point[1] - prev_cost), self.seq, job, cost))
        return True

    def complete(self, value):
        self.completed += 1
        if self.better(value, self.best):
            self.best = value
            if self.reach is None and abs(value - self.target) <= self.epsilon:
                self.reach = self.spend

    def pop(self):
        t, _, job, cost = heapq.heappop(self.events)
        self.now = t
        self.reserved -= cost
        self.spend += cost
        return job


class Picker:
    """Maps a sampler's point to the nearest untried row (unit cube), or for an opaque table,
    one coordinate to an untried row in a seeded shuffled order."""

    def __init__(self, configs, space, seed):
        self.ids = sorted(configs)
        random.Random(seed).shuffle(self.ids)
        self.space = space
        self.unit = {}
        self.used = set()
        self.bounds = {}
        for name, kind in space.items():
            values = [configs[i]["row"][name] for i in self.ids]
            if kind == "cat":
                self.bounds[name] = sorted(set(values), key=lambda v: (len(v), v))
            else:
                nums = [float(v) for v in values]
                lo, hi = min(nums), max(nums)
                if kind == "log":
                    lo, hi = math.log(max(lo, 1e-300)), math.log(max(hi, 1e-300))
                self.bounds[name] = (lo, hi)
        for i in self.ids:
            self.unit[i] = [self.to_unit(name, configs[i]["row"][name]) for name in space]

    def to_unit(self, name, value):
        kind = self.space[name]
        if kind == "cat":
            choices = self.bounds[name]
            return (choices.index(value) + 0.5) / len(choices)
        lo, hi = self.bounds[name]
        x = float(value)
        if kind == "log":
            x = math.log(max(x, 1e-300))
        return 0.5 if hi <= lo else (x - lo) / (hi - lo)

    def suggest(self, trial):
        if not self.space:
            u = trial.suggest_float("u", 0.0, 1.0)
            left = [i for i in self.ids if i not in self.used]
            return left[min(len(left) - 1, int(u * len(left)))] if left else None
        point = []
        for name, kind in self.space.items():
            if kind == "cat":
                choices = self.bounds[name]
                v = trial.suggest_categorical(name, choices)
                point.append((choices.index(v) + 0.5) / len(choices))
            else:
                point.append(trial.suggest_float(name, 0.0, 1.0))
        best, chosen = None, None
        for i in self.ids:
            if i in self.used:
                continue
            d = sum((a - b) ** 2 for a, b in zip(point, self.unit[i]))
            if best is None or d < best:
                best, chosen = d, i
        return chosen

    def take(self, cid):
        self.used.add(cid)


def run_optuna(configs, facts, budget, seed, method, space, maximize, epsilon):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    best_value, _ = facts
    longest = max(c["curve"][-1][0] for c in configs.values() if c["curve"])
    if method == "optuna-tpe-sha":
        sampler = optuna.samplers.TPESampler(seed=seed)
        pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)
    elif method == "optuna-tpe-hb":
        sampler = optuna.samplers.TPESampler(seed=seed)
        pruner = optuna.pruners.HyperbandPruner(min_resource=1, max_resource=int(longest),
                                                reduction_factor=3)
    else:
        sampler = optuna.samplers.RandomSampler(seed=seed)
        pruner = optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=1)
    study = optuna.create_study(direction="maximize" if maximize else "minimize",
                                sampler=sampler, pruner=pruner)
    sim = Sim(budget, maximize, best_value, epsilon)
    picker = Picker(configs, space, seed)
    starting = True

    def start():
        while True:
            trial = study.ask()
            cid = picker.suggest(trial)
            if cid is None:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                return False
            picker.take(cid)
            job = {"trial": trial, "c": configs[cid], "k": 0, "prev": 0.0, "last": None}
            if not job["c"]["curve"]:  # failed before its first evaluation: costs nothing
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                continue
            if not sim.try_epoch(job, 0.0, job["c"]["curve"][0]):
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                return False
            return True

    for _ in range(WORKERS):
        if not start():
            starting = False
            break
    while sim.events:
        job = sim.pop()
        c, trial = job["c"], job["trial"]
        epoch, cost, value = c["curve"][job["k"]]
        job["prev"] = cost
        done = False
        if math.isnan(value):
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            done = True
        else:
            trial.report(value, int(epoch))
            job["last"] = value
            if job["k"] + 1 >= len(c["curve"]):
                if c["complete"]:
                    study.tell(trial, value)
                    sim.complete(value)
                else:
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                done = True
            elif trial.should_prune():
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                done = True
            else:
                job["k"] += 1
                if not sim.try_epoch(job, cost, c["curve"][job["k"]]):
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                    done = True
                    starting = False
        if done and starting:
            starting = start()
    return {"best": sim.best, "spend": sim.spend, "reach": sim.reach,
            "completed": sim.completed}


def run_screen_finish(configs, facts, budget, seed, maximize, epsilon, first_report=False):
    """Screen in random order to 1/27 of each schedule (or to its first report) with half the
    budget, then finish the screened configurations best first with the rest (8 workers)."""
    best_value, _ = facts
    ids = sorted(configs)
    random.Random(seed).shuffle(ids)
    sim = Sim(budget, maximize, best_value, epsilon)
    screen_budget = budget / 2
    screened = []  # (key, id, index of the screening point)
    queue = list(ids)
    phase = "screen"

    def screen_point(c):
        if first_report:
            return 0
        last = c["curve"][-1][0]
        k = 0
        while k + 1 < len(c["curve"]) and c["curve"][k][0] < last / 27.0 - 1e-9:
            k += 1
        return k

    def start_screen():
        while queue:
            cid = queue.pop(0)
            c = configs[cid]
            if not c["curve"]:
                continue
            if sim.spend + sim.reserved >= screen_budget:
                queue.insert(0, cid)
                return False
            job = {"id": cid, "c": c, "k": 0, "stop": screen_point(c), "phase": "screen"}
            if sim.try_epoch(job, 0.0, c["curve"][0]):
                return True
            queue.insert(0, cid)
            return False
        return False

    finishing = []

    def start_finish():
        while finishing:
            key, cid, k = finishing.pop(0)
            c = configs[cid]
            job = {"id": cid, "c": c, "k": k + 1, "stop": len(c["curve"]) - 1, "phase": "finish"}
            if sim.try_epoch(job, c["curve"][k][1], c["curve"][k + 1]):
                return True
        return False

    for _ in range(WORKERS):
        if not start_screen():
            break
    while True:
        if not sim.events:
            if phase == "screen":
                phase = "finish"
                screened.sort()
                finishing.extend(screened)
                for _ in range(WORKERS):
                    if not start_finish():
                        break
                if not sim.events:
                    break
                continue
            break
        job = sim.pop()
        c, k = job["c"], job["k"]
        value = c["curve"][k][2]
        if math.isnan(value):
            pass
        elif k >= len(c["curve"]) - 1:
            if c["complete"]:
                sim.complete(value)
        elif k >= job["stop"]:
            screened.append(((-value if maximize else value), job["id"], k))
        else:
            job["k"] += 1
            if sim.try_epoch(job, c["curve"][k][1], c["curve"][k + 1]):
                continue
        if phase == "screen":
            start_screen()
        else:
            start_finish()
    return {"best": sim.best, "spend": sim.spend, "reach": sim.reach,
            "completed": sim.completed}


def run_plain_random(configs, facts, budget, seed, maximize, epsilon):
    """Random search as most tools run it: configurations in random order, each trained to the
    end, 8 at a time; an epoch starts only when the money for it is left."""
    best_value, _ = facts
    ids = [i for i in sorted(configs) if configs[i]["curve"]]
    random.Random(seed).shuffle(ids)
    sim = Sim(budget, maximize, best_value, epsilon)

    def start():
        while ids:
            c = configs[ids.pop(0)]
            if sim.try_epoch({"c": c, "k": 0}, 0.0, c["curve"][0]):
                return True
            return False
        return False

    for _ in range(WORKERS):
        if not start():
            break
    while sim.events:
        job = sim.pop()
        c, k = job["c"], job["k"]
        if math.isnan(c["curve"][k][2]):
            start()
        elif k >= len(c["curve"]) - 1:
            if c["complete"]:
                sim.complete(c["curve"][k][2])
            start()
        else:
            job["k"] += 1
            sim.try_epoch(job, c["curve"][k][1], c["curve"][k + 1])
    return {"best": sim.best, "spend": sim.spend, "reach": sim.reach,
            "completed": sim.completed}


# ---------------------------------------------------------------- frugal through its CLI

def run_frugal(frugal, directory, metric, maximize, budget, seed, extra, facts, epsilon):
    best_value, _ = facts
    with tempfile.TemporaryDirectory() as home:
        cmd = [frugal, "--json", "tune", "--replay", directory, "--metric", metric,
               "--maximize" if maximize else "--minimize", "--fidelity", fidelity_of(directory),
               "--price-per-hour", str(PRICE),
               "--budget", f"{budget:.2f}", "--workers", str(WORKERS), "--seed", str(seed),
               "--name", "eval"] + extra
        env = dict(os.environ, FRUGAL_HOME=home, NO_COLOR="1")
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=home)
        if out.returncode not in (0, 3):
            raise RuntimeError(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr}")
        doc = json.loads(out.stdout)
    reach = None
    for p in doc.get("best_so_far", []):
        if abs(p["best_value"] - best_value) <= epsilon:
            reach = p["spend_usd"]
            break
    return {"best": doc["best_value"], "spend": doc["spend_usd"], "reach": reach,
            "completed": doc["trials"]["completed"], "overshoot": doc["overshoot_usd"],
            "scheduler": doc.get("scheduler"),
            "partial": doc.get("best_partial")}


def one(args):
    (method, table, fraction, seed, frugal) = args
    directory, metric, maximize, epsilon, space, _ = TABLES[table]
    configs = load(directory, metric)
    facts = table_facts(configs, maximize)
    budget = round(fraction * facts[1], 2)
    if method == "frugal":
        r = run_frugal(frugal, directory, metric, maximize, budget, seed, [], facts, epsilon)
    elif method == "random":
        r = run_frugal(frugal, directory, metric, maximize, budget, seed,
                       ["--scheduler", "none", "--sampler", "random"], facts, epsilon)
    elif method == "random-plain":
        r = run_plain_random(configs, facts, budget, seed, maximize, epsilon)
    elif method == "screen-finish":
        r = run_screen_finish(configs, facts, budget, seed, maximize, epsilon)
    elif method == "one-epoch-topk":
        r = run_screen_finish(configs, facts, budget, seed, maximize, epsilon, first_report=True)
    else:
        r = run_optuna(configs, facts, budget, seed, method, space, maximize, epsilon)
    r.update({"method": method, "table": table, "fraction": fraction, "seed": seed,
              "budget": budget})
    return r


def summarize(rows, tables, fractions, methods):
    out = []
    verdicts = []
    for table in tables:
        directory, metric, maximize, epsilon, _, role = TABLES[table]
        best_value, total = table_facts(load(directory, metric), maximize)
        out.append(f"\n### {table} ({role}; {metric}, {'max' if maximize else 'min'}; table best "
                   f"{best_value:.4f}; whole table ${total:,.2f} at ${PRICE}/GPU-h)\n")
        out.append("| budget | method | seeds | median best | within ε | no completed trial | "
                   "max overshoot | median cost to ε | vs random |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for fraction in fractions:
            cell = {m: [r for r in rows if r["table"] == table and r["fraction"] == fraction
                        and r["method"] == m] for m in methods}
            worst = -math.inf if maximize else math.inf

            def med_best(rs):
                vals = [r["best"] if r["best"] is not None else worst for r in rs]
                return statistics.median(vals) if vals else None

            def med_reach(rs):
                vals = sorted(r["reach"] if r["reach"] is not None else math.inf for r in rs)
                return statistics.median(vals) if vals else None

            random_reach = med_reach(cell.get("random", []))
            stats = {}
            for m in methods:
                rs = cell[m]
                if not rs:
                    continue
                mb = med_best(rs)
                within = sum(1 for r in rs if r["best"] is not None
                             and abs(r["best"] - best_value) <= epsilon)
                empty = sum(1 for r in rs if r["completed"] == 0)
                over = max(r.get("overshoot") if r.get("overshoot") is not None
                           else max(0.0, r["spend"] - r["budget"]) for r in rs)
                mr = med_reach(rs)
                ratio = "-"
                if mr is not None and random_reach not in (None, math.inf) and mr != math.inf:
                    ratio = f"{mr / random_reach:.2f}×"
                stats[m] = (mb, within, empty, mr)
                out.append(
                    f"| {fraction:.0%} (${rs[0]['budget']:,.2f}) | {m} | {len(rs)} | "
                    f"{'-' if mb in (None, math.inf, -math.inf) else f'{mb:.4f}'} | "
                    f"{within}/{len(rs)} | {empty} | ${over:,.4f} | "
                    f"{'-' if mr in (None, math.inf) else f'${mr:,.4f}'} | {ratio} |")
            if "frugal" in stats:
                verdicts.append(verdict(table, fraction, stats, maximize, random_reach))
    out.append("\n### Against the targets (frugal's default)\n")
    out.extend(f"- {v}" for v in verdicts)
    return "\n".join(out)


def verdict(table, fraction, stats, maximize, random_reach):
    """One line: where frugal's cell meets or misses each target."""
    mb, within, empty, mr = stats["frugal"]
    others = [v[0] for m, v in stats.items() if m != "frugal" and v[0] is not None]
    best_other = (max if maximize else min)(others) if others else None
    misses = []
    if best_other is not None and mb is not None and \
            (mb < best_other - 1e-12 if maximize else mb > best_other + 1e-12):
        best_name = [m for m, v in stats.items() if m != "frugal" and v[0] == best_other][0]
        misses.append(f"median best below {best_name}'s")
    randoms = [stats[m] for m in ("random", "random-plain") if m in stats]
    if randoms and within < max(r[1] for r in randoms):
        misses.append("fewer seeds within ε than random search")
    # Cost to ε against the cheaper of the two random searches that reach it.
    reaches = [r[3] for r in randoms if r[3] not in (None, math.inf)]
    random_reach = min(reaches) if reaches else None
    if empty:
        misses.append(f"{empty} seed(s) with no completed trial")
    if random_reach not in (None, math.inf) and (mr is None or mr == math.inf or
                                                 mr > 0.5 * random_reach):
        misses.append("cost to ε above 0.5× random's")
    return f"{table} at {fraction:.0%}: " + ("all met" if not misses else "; ".join(misses))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frugal")
    ap.add_argument("--summarize", metavar="ROWS.jsonl")
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--fractions", default="0.02,0.06,0.15,0.4")
    ap.add_argument("--tables", default=",".join(TABLES))
    ap.add_argument("--methods", default="frugal,random,random-plain,optuna-tpe-sha,"
                                         "optuna-tpe-hb,optuna-random-med,screen-finish,"
                                         "one-epoch-topk")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--rows", help="append each seed's outcome here (JSON lines) as it finishes")
    a = ap.parse_args()
    fractions = [float(x) for x in a.fractions.split(",")]
    tables = [t for t in a.tables.split(",") if os.path.isdir(TABLES[t][0])]
    methods = a.methods.split(",")
    if a.summarize:
        with open(a.summarize) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        print(summarize(rows, tables, fractions, methods))
        return 0
    if not a.frugal:
        ap.error("--frugal is needed unless --summarize is given")
    cost = {t: table_facts(load(TABLES[t][0], TABLES[t][1]), TABLES[t][2])[1] for t in tables}
    # The smallest budgets and the cheapest tables first, and Optuna's TPE on the large tables
    # (seconds a run: its sampler's cost grows with the trials) last: a run cut short has the
    # rest complete.
    size = {t: len(load(TABLES[t][0], TABLES[t][1])) for t in tables}

    def slow(m, t):
        return m.startswith("optuna-tpe") and size[t] > 250

    work = sorted(((m, t, f, s, a.frugal) for f in fractions for t in tables for m in methods
                   for s in range(1, a.seeds + 1)),
                  key=lambda w: (slow(w[0], w[1]), w[2], cost[w[1]], methods.index(w[0]), w[3]))
    rows = []
    sink = open(a.rows, "a") if a.rows else None
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        for r in pool.map(one, work, chunksize=1):
            rows.append(r)
            if sink:
                sink.write(json.dumps(r) + "\n")
                sink.flush()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f)
    print(summarize(rows, tables, fractions, methods))
    return 0


if __name__ == "__main__":
    sys.exit(main())
