#!/usr/bin/env python3
"""Runs the BEACON repository's own code (ShenGroup/MPMAB_BEACON: `strategy_banditsBEACON.py`,
`strategy_BEACON.py`, `strategy_CUCB.py`; MIT, © 2021 Cong Shen Research Group) on one of its
instances and prints what the cross-check compares with specprobe: per strategy, the mean,
standard deviation and run count of its regret (t times the benchmark's expected system
reward, less the system rewards collected) at the checkpoints, and the CPU time per
user-slot.

    python3 scripts/reference/beacon_reference.py --repo PATH/TO/MPMAB_BEACON
        [--instance m5k6|m6k8] [--reward linear|max_min|proportional] [--runs 20]
        [--horizon 1000000] [--strategies BEACON,CUCB] [--json out.json]

`m5k6` is exp_M5K6_setting.py's matrix (in the repository's history), `m6k8` exp_minimal.py's.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

INSTANCES = {
    "m5k6": [[0.5, 0.49, 0.39, 0.29, 0.5, 0.39],
             [0.5, 0.49, 0.39, 0.29, 0.1, 0.39],
             [0.29, 0.19, 0.5, 0.499, 0.3, 0.39],
             [0.29, 0.49, 0.5, 0.5, 0.3, 0.39],
             [0.49, 0.49, 0.49, 0.49, 0.5, 0.49]],
    "m6k8": [[0.45, 0.49, 0.59, 0.17, 0.37, 0.86, 0.94, 0.98],
             [0.39, 0.25, 0.4, 0.6, 0.24, 0.54, 0.43, 0.67],
             [0.39, 0.33, 0.8, 0.01, 0.12, 0.2, 0.61, 0.77],
             [0.95, 0.22, 0.24, 0.88, 0.2, 0.12, 0.29, 0.3],
             [0.69, 0.89, 0.25, 0.59, 0.43, 0.18, 0.01, 0.84],
             [0.97, 0.15, 0.89, 0.16, 0.09, 0.57, 0.61, 0.19]],
}
REWARDS = {"linear": "linear", "max_min": "max_min fairness",
           "proportional": "proportional fairness"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--instance", default="m5k6", choices=sorted(INSTANCES))
    ap.add_argument("--reward", default="linear", choices=sorted(REWARDS))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--horizon", type=int, default=1_000_000)
    ap.add_argument("--checkpoints", default="10000,100000,300000,1000000")
    ap.add_argument("--strategies", default="BEACON,CUCB")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json")
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.repo))
    from strategy_and_environment.strategy_banditsBEACON import BEACON_FullSensingMultiPlayerMAB
    from strategy_and_environment.strategy_BEACON import BEACON
    from strategy_and_environment.strategy_CUCB import CUCB
    import builtins
    print_ = builtins.print
    mean = np.array(INSTANCES[a.instance])
    m, k = mean.shape
    reward = REWARDS[a.reward]
    checkpoints = [c for c in (int(x) for x in a.checkpoints.split(",")) if c <= a.horizon]
    np.random.seed(a.seed)
    out = {"instance": a.instance, "reward": a.reward, "horizon": a.horizon, "means": mean.tolist(),
           "checkpoints": checkpoints, "strategies": {}}
    for name in a.strategies.split(","):
        if name == "BEACON":
            agent = BEACON_FullSensingMultiPlayerMAB(mean, m, k, a.horizon, BEACON, reward_func=reward)
        else:
            agent = CUCB(mean, m, k, a.horizon, reward_func=reward)
        finals = []
        start = time.process_time()
        builtins.print = lambda *args, **kw: None  # CUCB prints its progress
        try:
            for _ in range(a.runs):
                agent.simulate()
                regret = agent.get_results()
                finals.append([float(regret[c - 1]) for c in checkpoints])
                agent.reset()
        finally:
            builtins.print = print_
        cpu = time.process_time() - start
        f = np.array(finals)
        per = cpu / (a.runs * a.horizon * m)
        row = {"mean": list(f.mean(axis=0)), "std": list(f.std(axis=0, ddof=1)) if a.runs > 1 else [0.0] * len(checkpoints),
               "n": a.runs, "cpu_s": cpu, "us_per_user_slot": per * 1e6}
        out["strategies"][name] = row
        cells = ", ".join(f"t={c}: {mu:.1f} ± {s / np.sqrt(a.runs):.1f} (sd {s:.1f})"
                          for c, mu, s in zip(checkpoints, row["mean"], row["std"]))
        print(f"RESULT {name} ({a.instance}, {a.reward}): {cells}; {a.runs} runs, "
              f"{per * 1e6:.2f} µs per user-slot", flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
