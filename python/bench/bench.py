#!/usr/bin/env python3
"""Speed of the Python front, measured interleaved in one sitting (see the README's "From Python").

    python python/bench/bench.py [--specprobe target/release/specprobe] [--repeat 5] [--readme guide/src]

With --readme, item 1's table replaces the guide's `<!-- bench:python-cli -->` block (in the
page, or the one page of the folder, that holds it).

1. Figure 1(a) (20 runs × 2·10⁵ slots × 4 policies): `specprobe.run` against the CLI, the
   same threads, no charts; medians and their ratio, in wall time and in CPU time (the CLI's
   from the children's resource usage, Python's from the process's).
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
import resource
import subprocess
import sys
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
    ap.add_argument("--readme", help="write item 1's table into the bench:python-cli block of this page, or of the one page of this folder that holds it (guide/src)")
    a = ap.parse_args()

    print("1. Figure 1(a), 20 runs x 200000 slots x 4 policies, threads", a.threads)
    cli, py, cli_cpu, py_cpu = [], [], [], []

    def children_cpu():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.repeat):
            out = os.path.join(tmp, f"cli{i}")
            before = children_cpu()
            cli.append(timed(lambda: subprocess.run(
                [a.specprobe, "run", FIG1A, "--threads", str(a.threads), "--no-charts", "--out", out],
                check=True, capture_output=True)))
            cli_cpu.append(children_cpu() - before)
            before = time.process_time()
            py.append(timed(lambda: specprobe.run(FIG1A, threads=a.threads)))
            py_cpu.append(time.process_time() - before)
    med = statistics.median
    wall_ratio, cpu_ratio = med(py) / med(cli), med(py_cpu) / med(cli_cpu)
    print(f"   CLI {med(cli):.3f} s, Python {med(py):.3f} s of wall time (medians of {a.repeat}), "
          f"ratio {wall_ratio:.3f}; CPU {med(cli_cpu):.3f} s against {med(py_cpu):.3f} s, ratio {cpu_ratio:.3f}")
    if a.readme:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from readme_table import splice
        splice(a.readme, "python-cli", f"""
| Figure 1(a), 20 runs × 2·10⁵ slots × 4 policies, {a.threads} threads | CLI (`specprobe run --no-charts`) | `specprobe.run` | Python / CLI |
|---|---:|---:|---:|
| wall time (the CLI's includes starting its process and writing its folder) | {med(cli):.3f} s | {med(py):.3f} s | {wall_ratio:.2f} |
| CPU time (the same engine: the same work) | {med(cli_cpu):.3f} s | {med(py_cpu):.3f} s | {cpu_ratio:.2f} |

(`python python/bench/bench.py --repeat {a.repeat} --readme guide/src`, {time.strftime("%Y-%m-%d")}: medians of
{a.repeat}, interleaved.)
""")

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
