#!/usr/bin/env python3
"""A fleet of N varied run files for bench/batch.sh (issue 22, item 6), the same folder for the same N and seed.

usage: bench/fleet.py N DIR [SEED]        (run from the project folder; SEED defaults to 22)

What a fleet of past runs looks like, and so what this draws:
- Layouts recur. A team trains a few model sizes on a few clusters in a few layouts and launches each many times
  (restarts, sweeps of the learning rate or the data, nightly jobs): the runs of one layout differ in what they
  measured, not in how they were laid out. The layouts here are the run files of the project that carry measurements:
  examples/, src/test/resources/runs (those with metrics) and the published runs of knowledge-base/reference-runs (each
  a cluster x model x parallel x training as its source ran it): about 300 distinct layouts. Their popularity follows
  Zipf's law (weight 1/rank, ranks shuffled by the seed): a few layouts run hundreds of times, most a handful.
- A share of runs is one of a kind (UNIQUE, 15%): a layout drawn as above with its number of micro-batches (the global
  batch) set to a value no other run has, so nothing is shared with any other run.
- The measurements vary from run to run: every time a run file gives (step_time_s, fwd_bwd_time_s, ...) is scaled by a
  factor drawn log-normally (sigma 0.12, clipped to 0.6-1.8; a slower node, a busier network) and every rate
  (tflops_per_gpu, tokens_per_gpu_per_s, mfu) by its inverse; a run reports one of its rates alone a quarter of the time
  (what a log that prints only TFLOPS gives), and its peak memory a third of the time.
- A share of runs (LOGS, 5%) has a training log in place of the metrics: a Megatron-LM log of 20 to 60 iterations,
  written here, whose step times jitter by 3% around the run's measured step scaled as above (of the layouts that give
  a step time).
The run files are JSON (a run file's other format), named run-00001.json ...; a log is run-00001.log beside its file.
Prints one line: the runs, the distinct layouts, the unique ones and those with a log.
"""
import copy
import glob
import json
import math
import os
import random
import sys

try:
    import yaml
except ImportError:  # the YAML run files are then left out; the published runs (JSON) are enough
    yaml = None

UNIQUE = 0.15
LOGS = 0.05
TIMES = ("step_time_s", "fwd_bwd_time_s", "forward_time_s", "backward_time_s", "optimizer_time_s")
RATES = ("tflops_per_gpu", "tokens_per_gpu_per_s", "mfu")


def bases():
    out = []
    for f in sorted(glob.glob("knowledge-base/reference-runs/*.json")):
        for r in json.load(open(f))["runs"]:
            run = r.get("run")
            if isinstance(run, dict) and run.get("metrics"):
                out.append(run)
    if yaml is not None:
        files = sorted(glob.glob("examples/*.yaml") + glob.glob("src/test/resources/runs/**/*.yaml", recursive=True))
        for f in files:
            run = yaml.safe_load(open(f))
            if isinstance(run, dict) and run.get("metrics") and "log" not in run and "config" not in run:
                out.append(run)
    return out


def layout_key(run):
    return json.dumps({k: run.get(k) for k in ("cluster", "model", "parallel", "training")}, sort_keys=True)


def measured(run, rnd, factor):
    m = run["metrics"]
    out = {}
    for k, v in m.items():
        if k in TIMES:
            out[k] = float("%.4g" % (v * factor))
        elif k in RATES:
            out[k] = float("%.4g" % (v / factor))
        else:
            out[k] = v
    if "mfu" in out:
        out["mfu"] = min(out["mfu"], 0.95)
    rates = [k for k in RATES if k in out]
    if len(rates) > 1 and rnd.random() < 0.25:
        keep = rnd.choice(rates)
        for k in rates:
            if k != keep:
                del out[k]
        if "tflops_per_gpu" not in out:
            out.pop("tflops_convention", None)
    if rnd.random() < 0.33:
        out["peak_memory_gb"] = round(rnd.uniform(12, 76), 1)
    return out


def megatron_log(step_s, rnd, gbs):
    lines = []
    iters = rnd.randint(20, 60)
    t = 0.0
    for i in range(1, iters + 1):
        ms = step_s * 1000 * rnd.uniform(0.97, 1.03) * (1.6 if i == 1 else 1.0)
        t += ms / 1000
        hh, rem = divmod(int(t), 3600)
        mm, ss = divmod(rem, 60)
        lines.append(" [2025-01-06 %02d:%02d:%02d] iteration %8d/ %7d | consumed samples: %12d | elapsed time per "
                     "iteration (ms): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: "
                     "1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |"
                     % (8 + hh, mm, ss, i, iters, i * gbs, ms, 3e-4 * min(1, i / 10), gbs,
                        max(1.5, 10.5 * 0.995 ** i), rnd.uniform(0.8, 1.6)))
    return "\n".join(lines) + "\n"


def main():
    n, folder = int(sys.argv[1]), sys.argv[2]
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 22)
    pool = {}
    for run in bases():
        pool.setdefault(layout_key(run), run)
    layouts = list(pool.values())
    rnd.shuffle(layouts)
    weights = [1.0 / (i + 1) for i in range(len(layouts))]
    timed = [i for i, r in enumerate(layouts) if "step_time_s" in r["metrics"]]
    os.makedirs(folder, exist_ok=True)
    seen, unique, logged = set(), 0, 0
    fresh = {}  # layout index -> micro-batch counts already used by a one-of-a-kind run
    for k in range(1, n + 1):
        name = "run-%05d" % k
        with_log = timed and rnd.random() < LOGS
        i = rnd.choice(timed) if with_log else rnd.choices(range(len(layouts)), weights)[0]
        run = copy.deepcopy(layouts[i])
        run["name"] = name
        factor = min(1.8, max(0.6, math.exp(rnd.gauss(0, 0.12))))
        if rnd.random() < UNIQUE:
            t = run.setdefault("training", {})
            used = fresh.setdefault(i, {t.get("micro_batches", 1)})
            mb = max(used) + 1
            used.add(mb)
            t["micro_batches"] = mb
            unique += 1
        if with_log:
            t = run.get("training", {})
            p = run.get("parallel", {})
            gbs = t.get("micro_batch_size", 1) * t.get("micro_batches", 1) * p.get("dp", 1)
            step = run["metrics"]["step_time_s"] * factor
            with open(os.path.join(folder, name + ".log"), "w") as f:
                f.write(megatron_log(step, rnd, gbs))
            del run["metrics"]
            run["log"] = name + ".log"
            logged += 1
        else:
            run["metrics"] = measured(run, rnd, factor)
        seen.add(layout_key(run))
        with open(os.path.join(folder, name + ".json"), "w") as f:
            json.dump(run, f, indent=1)
    print("%d runs, %d distinct layouts (of %d drawn from), %d one of a kind, %d with a log"
          % (n, len(seen), len(layouts), unique, logged))


if __name__ == "__main__":
    main()
