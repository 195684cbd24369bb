#!/usr/bin/env python3
"""Runs Selfish KL-UCB and its randomized form as `ctrnh/multi_player_multi_armed_bandit_algorithms`
implements them (`algorithms/selfishucb.py`, `environment/environment.py`; the repository has
no licence: run for comparison only, nothing of it is part of specprobe) on M users and Bernoulli
channels of the given means (default M = K = 2, means 0.1 and 0.9: its `paper_2_2_rndsucb_sucb.py`
setting; `paper_3_1_linearly_spaced_mu.py` lists the others), and prints each run's final regret
and the CPU time.

    python3 scripts/reference/ctrnh_selfish.py --repo PATH/TO/repo [--runs 200] [--horizon 10000]
        [--randomized] [--seed 11] [--users 2] [--mu 0.1,0.9]

Its Selfish KL-UCB: c = 3 in ln t + c ln ln t, t counted from 0, ties at random, Gaussian
noise of s.d. 1/(t + 1) on every index when randomized; without Cython its KL-UCB bisection
stops at a precision of 1e-2 (1e-3 in its Cython module). It needs numpy, matplotlib and tqdm.
specprobe's equivalent: `Selfish(policy: KlUcb(reward: Idle, c: 3.0, time: Samples,
ties: Random, noise: true))` under `feedback: NoSensing`
(`scenarios/multi-nosensing-selfish-reference.ron`).
"""
import argparse
import json
import sys
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--horizon", type=int, default=10000)
    ap.add_argument("--randomized", action="store_true")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--users", type=int, default=2)
    ap.add_argument("--mu", default="0.1,0.9", help="the channels' means, comma-separated")
    args = ap.parse_args()
    mu = [float(x) for x in args.mu.split(",")]
    sys.path.insert(0, args.repo)
    # Their Cython KL-UCB (precision 1e-3), where built in place
    # (`python setup.py build_ext --inplace` in algorithms/cklucb); else their Python one (1e-2).
    sys.path.insert(0, f"{args.repo}/algorithms/cklucb")
    from environment.environment import Environment
    from algorithms.selfishucb import Selfishucb, cythonized_KLUCB

    np.random.seed(args.seed)
    env = Environment({"horizon": args.horizon, "M": args.users, "mu": mu})
    regrets = []
    t0 = time.process_time()
    for _ in range(args.runs):
        alg = Selfishucb(env, randomized=args.randomized)
        alg.run()
        regrets.append(float(np.sum(alg.regret)))
    cpu = time.process_time() - t0
    print(json.dumps({
        "randomized": args.randomized, "runs": args.runs, "horizon": args.horizon,
        "users": args.users, "mu": mu, "cython_klucb": cythonized_KLUCB,
        "regrets": regrets, "cpu_s": cpu,
        "us_per_user_slot": cpu / (args.runs * args.horizon * args.users) * 1e6,
    }))


if __name__ == "__main__":
    main()
