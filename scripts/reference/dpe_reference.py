#!/usr/bin/env python3
"""Runs the DPE repository's own code (rssalessio/DPE: `bandits.py`, `strategies.py`) on its
notebook's experiment and prints what the cross-check compares with specprobe: per strategy,
the mean, standard deviation and run count of its realised regret (t·Σ top-M μ less the
rewards collected) at the checkpoints, and the process CPU time per user-slot.

    python3 scripts/reference/dpe_reference.py --repo PATH/TO/DPE [--runs 50] [--horizon 50000]
        [--strategies DPE,SynchComm,MCTopM] [--seed 1] [--json out.json]

The repository is not part of specprobe (MIT, © 2019 Alessio Russo): clone it anywhere and
pass its folder. Its Cython kl-UCB needs `pip install numpy cython`.
"""
import argparse
import json
import os
import sys
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--horizon", type=int, default=50_000)
    ap.add_argument("--k", type=int, default=9)
    ap.add_argument("--users", type=int, default=6)
    ap.add_argument("--means", default="linspace(0.9,0.89)")
    ap.add_argument("--checkpoints", default="10000,25000,50000")
    ap.add_argument("--strategies", default="DPE,SynchComm,MCTopM")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json")
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.repo))
    cwd = os.getcwd()
    os.chdir(a.repo)  # pyximport builds the Cython module beside it
    from bandits import FullSensingMultiPlayerMAB
    from strategies import DPE, MCTopM, SynchComm
    os.chdir(cwd)
    if a.means.startswith("linspace"):
        lo_hi = a.means[len("linspace("):-1].split(",")
        means = np.linspace(float(lo_hi[0]), float(lo_hi[1]), a.k)
    else:
        means = np.array([float(x) for x in a.means.split(",")])
    checkpoints = [c for c in (int(x) for x in a.checkpoints.split(",")) if c <= a.horizon]
    table = {"DPE": (DPE, {}), "SynchComm": (SynchComm, {}), "MCTopM": (MCTopM, {"M": a.users})}
    np.random.seed(a.seed)
    out = {"horizon": a.horizon, "k": len(means), "users": a.users, "runs": a.runs,
           "means": list(means), "checkpoints": checkpoints, "strategies": {}}
    for name in a.strategies.split(","):
        strat, args = table[name]
        finals = []
        start = time.process_time()
        for _ in range(a.runs):
            # The notebook's call; the environment shuffles the means in place at every run.
            mab = FullSensingMultiPlayerMAB(means, nplayers=a.users, strategy=strat,
                                            T=a.horizon, **args)
            r, _ = mab.simulate(a.horizon)
            finals.append([float(r[c - 1]) for c in checkpoints])
        cpu = time.process_time() - start
        f = np.array(finals)
        per = cpu / (a.runs * a.horizon * a.users)
        row = {"mean": list(f.mean(axis=0)),
               "std": list(f.std(axis=0, ddof=1)) if a.runs > 1 else [0.0] * len(checkpoints),
               "n": a.runs, "cpu_s": cpu, "us_per_user_slot": per * 1e6}
        out["strategies"][name] = row
        cells = ", ".join(f"t={c}: {m:.1f} ± {s / np.sqrt(a.runs):.1f} (sd {s:.1f})"
                          for c, m, s in zip(checkpoints, row["mean"], row["std"]))
        print(f"RESULT {name}: {cells}; {a.runs} runs, {per * 1e6:.2f} µs per user-slot",
              flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
