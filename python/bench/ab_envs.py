"""One SpectrumEnv.step and one SpectrumVectorEnv step, measured as envs_bench.py's items 3 and 1
set them up, printed on one line (CPU µs a SpectrumEnv.step, median of 5 × 20 000; CPU ns per
env of 50 vector steps of 4 096 envs), for A/B comparisons of two builds in one sitting: run it
alternately with the Python of two virtual environments, each with one build installed.

    for r in 1 2 3 4 5; do A/bin/python python/bench/ab_envs.py; B/bin/python python/bench/ab_envs.py; done
"""
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import envs_bench as B  # noqa: E402
from specprobe import envs  # noqa: E402


def main():
    rng = np.random.default_rng(0)
    n, k = 4096, B.K
    vec = envs.SpectrumVectorEnv(B.markov(), n, copy=False)
    vec.reset(seed=1)
    scores = rng.uniform(-1, 1, size=(n, k)).astype(np.float32)
    for _ in range(50):
        vec.step(scores)
    one = envs.SpectrumEnv(B.markov())
    one.reset(seed=1)
    action = scores[0]
    for _ in range(2000):
        one.step(action)
    d = []
    for _ in range(5):
        t = time.process_time()
        for _ in range(20000):
            one.step(action)
        d.append((time.process_time() - t) / 20000 * 1e6)
    t = time.process_time()
    for _ in range(50):
        vec.step(scores)
    v = (time.process_time() - t) / (50 * n) * 1e9
    print(f"SpectrumEnv.step {statistics.median(d):.3f} us, SpectrumVectorEnv {v:.1f} ns per env")


if __name__ == "__main__":
    main()
