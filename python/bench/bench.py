#!/usr/bin/env python3
"""Speed of the Python front, measured interleaved in one sitting (see the README's "From Python").

    python python/bench/bench.py [--specprobe target/release/specprobe] [--repeat 5]

1. Figure 1(a) (20 runs × 2·10⁵ slots × 4 policies): `specprobe.run` against the CLI, the
   same threads, no charts; medians and their ratio.
2. A trivial Python policy (plan returns [0], observe does nothing): engine time with it minus
   without it, minus the same calls made from a plain Python loop = the overhead per slot.
3. Python UCB1 (classic, on the idle indicator, one channel per slot) on the plain 6-arm
   Bernoulli bandit θ = 0.8 … 0.3, T = 10⁵, on the engine, against SMPyBandits' UCB driven by
   its minimal loop (choice, draw, getReward) when SMPyBandits is installed.
"""
import argparse
import math
import os
import random
import statistics
import subprocess
import tempfile
import time

import specprobe

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIG1A = os.path.join(ROOT, "scenarios", "paper-fig1a.ron")
THETA = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3]


class Trivial:
    def __init__(self, channels, mean_costs=None):
        pass

    def plan(self, t):
        return [0]

    def observe(self, channel, idle, cost):
        pass


class PyUcb1:
    """Classic UCB1 (Auer et al. 2002) on the idle indicator, one channel per slot."""

    def __init__(self, channels, mean_costs=None):
        self.k = channels
        self.n = [0] * channels
        self.s = [0.0] * channels
        self.t = 0

    def plan(self, t):
        self.t += 1
        if self.t <= self.k:
            return [self.t - 1]
        log_t = math.log(self.t)
        best = max(range(self.k), key=lambda i: self.s[i] / self.n[i] + math.sqrt(2 * log_t / self.n[i]))
        return [best]

    def observe(self, channel, idle, cost):
        self.n[channel] += 1
        self.s[channel] += idle


def plain_bandit(horizon):
    return {"Regret": {
        "name": "plain-6-arm", "seed": 1, "horizon": horizon, "runs": 1,
        "channels": [{"theta": t, "cost": {"Constant": 0.0}} for t in THETA],
        "policies": [{"policy": "Oracle"}],
    }}


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--specprobe", default=os.path.join(ROOT, "target", "release", "specprobe"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()

    print("1. Figure 1(a), 20 runs x 200000 slots x 4 policies, threads", a.threads)
    cli, py = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.repeat):
            out = os.path.join(tmp, f"cli{i}")
            cli.append(timed(lambda: subprocess.run(
                [a.specprobe, "run", FIG1A, "--threads", str(a.threads), "--no-charts", "--out", out],
                check=True, capture_output=True)))
            py.append(timed(lambda: specprobe.run(FIG1A, threads=a.threads)))
    print(f"   CLI {statistics.median(cli):.3f} s, Python {statistics.median(py):.3f} s (medians of {a.repeat}), "
          f"ratio {statistics.median(py) / statistics.median(cli):.3f}")

    horizon = 200_000
    print(f"2. Trivial Python policy, Figure 1(a), 1 run x {horizon} slots, one thread")
    without, with_py = [], []
    for _ in range(a.repeat):
        without.append(timed(lambda: specprobe.run(FIG1A, runs=1, horizon=horizon, threads=1)))
        with_py.append(timed(lambda: specprobe.run(FIG1A, runs=1, horizon=horizon, threads=1,
                                                   policies={"trivial": Trivial})))
    p = Trivial(6)

    def loop():
        for t in range(horizon):
            p.plan(t)
            p.observe(0, True, 0.5)

    own = statistics.median(timed(loop) for _ in range(a.repeat))
    added = statistics.median(with_py) - statistics.median(without)
    print(f"   engine with it {added / horizon * 1e9:.0f} ns/slot more than without; the same calls in a Python loop "
          f"{own / horizon * 1e9:.0f} ns/slot; overhead {(added - own) / horizon * 1e9:.0f} ns/slot")

    horizon = 100_000
    print(f"3. UCB1 on the plain 6-arm Bernoulli bandit, T = {horizon}")
    ours = []
    for _ in range(a.repeat):
        ours.append(timed(lambda: specprobe.run(plain_bandit(horizon), threads=1, policies={"py-ucb1": PyUcb1})))
    print(f"   Python UCB1 on specprobe: {statistics.median(ours):.3f} s")
    try:
        from SMPyBandits.Arms import Bernoulli
        from SMPyBandits.Policies import UCB
    except ImportError:
        print("   SMPyBandits is not installed: pip install SMPyBandits to compare")
        return
    theirs = []
    for r in range(a.repeat):
        random.seed(r)
        arms = [Bernoulli(t) for t in THETA]
        policy = UCB(len(THETA))

        def game():
            policy.startGame()
            for t in range(horizon):
                arm = policy.choice()
                policy.getReward(arm, arms[arm].draw(t))

        theirs.append(timed(game))
    print(f"   SMPyBandits UCB (minimal loop): {statistics.median(theirs):.3f} s; "
          f"ratio SMPyBandits / specprobe {statistics.median(theirs) / statistics.median(ours):.2f}")


if __name__ == "__main__":
    main()
