#!/usr/bin/env python3
"""SMPyBandits' UCB on the plain 6-arm Bernoulli bandit (θ = 0.8 … 0.3), for the speed
comparison with specprobe's classic UCB1 (`cargo bench --bench speed`, part 7; the guide,
performance.md).

Its minimal loop (`choice`, `draw`, `getReward`), the fastest way SMPyBandits plays a bandit:
its `Evaluator` adds its own bookkeeping (20.7 µs a pull in one sitting, against 20.7 µs for this
loop in the same sitting). Prints the process CPU time per pull.

    python3 scripts/smpy_ucb1.py [repetitions] [horizon]

Needs `pip install SMPyBandits "scipy<1.14"`.
"""
import random
import sys
import time

from SMPyBandits.Arms import Bernoulli
from SMPyBandits.Policies import UCB

THETA = [0.8, 0.7, 0.6, 0.5, 0.4, 0.3]


def main():
    repetitions = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    horizon = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    start = time.process_time()
    for r in range(repetitions):
        random.seed(r)
        arms = [Bernoulli(t) for t in THETA]
        policy = UCB(len(THETA))
        policy.startGame()
        for t in range(horizon):
            arm = policy.choice()
            policy.getReward(arm, arms[arm].draw(t))
    cpu = time.process_time() - start
    print(f"RESULT UCB: {cpu / (repetitions * horizon) * 1e6:.3f} µs per pull")


if __name__ == "__main__":
    main()
