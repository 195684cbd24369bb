#!/usr/bin/env python3
"""Runs the Game of Thrones implementation of `wbwang2020/MP-MAB` (`MABAlgorithms.py`,
`Players.py`; GPLv2, run for comparison only, nothing of it is part of specprobe) on Bernoulli
channels seen differently by each user, and prints what the cross-check compares with
specprobe: the mean, standard deviation and run count of the realised regret (t times the
max-weight matching's expected reward, less the rewards collected) at the checkpoints, the
fraction of runs whose last exploited assignment is the max-weight matching, and the CPU time
per user-slot.

    python3 scripts/reference/got_reference.py --repo PATH/TO/MP-MAB [--runs 50]
        [--horizon 100000] [--means "0.25,0.65,0.45,0.4;0.455,0.78,0.36,0.72;0.525,0.445,0.485,0.57"]

The default means are the reference's 3-player, 4-arm configuration (ENV_SCENARIO_7 of its
simu_config.py: the midpoints of its uniform arms in context 1), its GoT parameters
c1 = 100, c2 = 200, c3 = 100, ε = 0.01, δ = 2 (its players' exponent c = 1.2).
"""
import argparse
import json
import os
import sys
import time

import numpy as np
from scipy.optimize import linear_sum_assignment


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--means", default="0.25,0.65,0.45,0.4;0.455,0.78,0.36,0.72;0.525,0.445,0.485,0.57")
    ap.add_argument("--checkpoints", default="10000,50000,100000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json")
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.repo))
    from MABAlgorithms import GameofThrone
    means = np.array([[float(x) for x in row.split(",")] for row in a.means.split(";")])
    m, k = means.shape
    rows, cols = linear_sum_assignment(-means)
    best = means[rows, cols].sum()
    matching = list(cols)
    checkpoints = [c for c in (int(x) for x in a.checkpoints.split(",")) if c <= a.horizon]
    np.random.seed(a.seed)
    finals, optimal = [], 0
    start = time.process_time()
    for _ in range(a.runs):
        alg = GameofThrone({"nbPlayer": m, "nbArm": k, "context_set": {"c"}, "horizon": a.horizon,
                            "c1": 100, "c2": 200, "c3": 100, "epsilon": 0.01, "delta": 2})
        total, at = 0.0, []
        for t in range(1, a.horizon + 1):
            env = (np.random.random((m, k)) < means).astype(float)
            _, reward, _ = alg.learn_policy(env, context=None, time=t)
            total += reward
            if t in checkpoints:
                at.append(t * best - total)
        finals.append(at)
        optimal += int([ag.best_policy for ag in alg.agents] == matching)
    cpu = time.process_time() - start
    f = np.array(finals)
    per = cpu / (a.runs * a.horizon * m)
    out = {"horizon": a.horizon, "means": means.tolist(), "matching": [int(c) for c in matching],
           "benchmark": best, "checkpoints": checkpoints, "runs": a.runs,
           "mean": list(f.mean(axis=0)),
           "std": list(f.std(axis=0, ddof=1)) if a.runs > 1 else [0.0] * len(checkpoints),
           "optimal_runs": optimal, "us_per_user_slot": per * 1e6}
    cells = ", ".join(f"t={c}: {mu:.1f} ± {s / np.sqrt(a.runs):.1f} (sd {s:.1f})"
                      for c, mu, s in zip(checkpoints, out["mean"], out["std"]))
    print(f"RESULT GoT: {cells}; exploited the matching in {optimal}/{a.runs} runs; "
          f"{per * 1e6:.2f} µs per user-slot", flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
