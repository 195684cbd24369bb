#!/usr/bin/env python3
"""Steps a vector environment of the bench's models a given number of times and nothing else:
the workload to count instructions on (load-independent, unlike CPU time on a shared machine).

    valgrind --tool=callgrind --callgrind-out-file=OUT python python/bench/step_loop.py single 200
    callgrind_annotate --inclusive=yes OUT | grep 'VecWorld::step '

`single`: SpectrumVectorEnv, 512 environments, the bench's K = 9 Markov model (or `--k`), the
bench's fixed uniform scores; `multi`: MultiUserVectorEnv, 512 environments, M = 6 users with
carrier sensing, K = 9, fixed channels. Divide `VecWorld::step`'s inclusive count by
512 × steps for instructions per env-step (copy-step for `multi`).
"""
import argparse
import os
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import envs_bench as eb  # noqa: E402
import specprobe.envs as envs  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["single", "multi"])
    ap.add_argument("steps", type=int)
    ap.add_argument("--envs", type=int, default=512)
    ap.add_argument("--k", type=int, default=eb.K, help="channels of the single-user model")
    args = ap.parse_args()
    n, rng = args.envs, np.random.default_rng(0)
    if args.kind == "single":
        env = envs.SpectrumVectorEnv(eb.markov(k=args.k), n, copy=False)
        action = rng.uniform(-1, 1, size=(n, args.k)).astype(np.float32)
    else:
        env = envs.MultiUserVectorEnv(eb.multi(6), n, copy=False)
        action = rng.integers(0, eb.K, size=(n, 6))
    env.reset(seed=1)
    for _ in range(args.steps):
        env.step(action)


if __name__ == "__main__":
    main()
