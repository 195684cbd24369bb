#!/usr/bin/env python3
"""Speed and memory of specprobe.envs, measured interleaved in one sitting (README, "Training
environments").

    python python/bench/envs_bench.py [--envs 4096] [--steps 200] [--repeat 5] [--readme guide/src]

With --readme, the measured table replaces the guide's `<!-- bench:envs -->` block (in the
page, or the one page of the folder, that holds it): its
figures come from this script, never typed by hand.

1. SpectrumVectorEnv, slot-level, K = 9 cascade on Markov channels with Bernoulli(0.3) costs,
   N environments on one thread, the Python call included: env-steps per second of CPU,
   against a NumPy-batched implementation of the same model written here (each environment's
   Markov chains stepped every slot, the cascade probed in score order, Bernoulli costs), in
   A B A B order, medians.
2. MultiUserVectorEnv, M = 6 users with carrier sensing (Synchronous timing), K = 9 channels,
   one channel per user: agent-steps (user-slots) per second of CPU.
3. One SpectrumEnv.step: microseconds of CPU per call.
4. Memory: the process's peak resident size after building N environments and after 10× more
   steps, and with 4× more environments.
"""
import argparse
import os
import resource
import statistics
import time

# One thread, as the goals say: an idle BLAS thread pool would spin and count as CPU time of
# both sides (set before NumPy is imported).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import specprobe.envs as envs  # noqa: E402

K = 9


def markov(horizon=10**6, k=K):
    return {"Regret": {
        "name": "env-bench", "seed": 1, "horizon": horizon, "runs": 1,
        "channels": [{"occupancy": {"Markov": {"idle_to_busy": 0.1 + 0.02 * (i % 9), "busy_to_idle": 0.3}},
                      "cost": {"Bernoulli": 0.3}} for i in range(k)],
        "policies": [{"policy": "Oracle"}],
    }}


def iid(k=K):
    s = markov(k=k)
    for i, c in enumerate(s["Regret"]["channels"]):
        a = 0.1 + 0.02 * (i % 9)
        c.pop("occupancy")
        c["theta"] = 0.3 / (a + 0.3)
    return s


ROOT = os.path.join(os.path.dirname(__file__), "..", "..")

# The worlds the goal's "within 2x of the K = 9 Markov figure per channel probed" covers.
WORLDS = [
    ("Markov, K = 9 (the reference)", lambda: markov()),
    ("Markov, K = 4", lambda: markov(k=4)),
    ("Markov, K = 64", lambda: markov(k=64)),
    ("i.i.d., K = 9", lambda: iid()),
    ("on/off holding times (spectrum-onoff.ron)", lambda: os.path.join(ROOT, "scenarios", "spectrum-onoff.ron")),
    ("sensing errors (spectrum-sensing.ron)", lambda: os.path.join(ROOT, "scenarios", "spectrum-sensing.ron")),
    ("energy detectors (energy-detector.ron)", lambda: os.path.join(ROOT, "scenarios", "energy-detector.ron")),
    ("time-left reward (jiang-2009-adaptive.ron)", lambda: os.path.join(ROOT, "scenarios", "jiang-2009-adaptive.ron")),
]


def multi(users=6, horizon=10**6):
    return {"MultiUser": {
        "name": "env-bench-m", "seed": 1, "horizon": horizon, "runs": 1, "users": users,
        "timing": "Synchronous",
        "channels": [{"theta": 0.1 * (i + 1), "cost": {"Constant": 0.0}} for i in range(K)],
        "policies": [{"policy": {"McTopM": {"index": "KlUcb"}}}],
    }}


class NumpyCascade:
    """The same world in batched NumPy: per environment and channel a two-state Markov chain
    (idle → busy with probability a, busy → idle with b), stepped every slot; the cascade
    probes channels of positive score in decreasing score until an idle one; each probe costs
    Bernoulli(0.3); reward = 1{idle found} − costs."""

    def __init__(self, n, seed=1):
        self.rng = np.random.default_rng(seed)
        self.a = np.array([0.1 + 0.02 * i for i in range(K)])
        self.b = np.full(K, 0.3)
        pi = self.b / (self.a + self.b)
        self.idle = self.rng.random((n, K)) < pi
        self.n = n

    def step(self, scores):
        u = self.rng.random((self.n, K))
        self.idle = np.where(self.idle, u >= self.a, u < self.b)
        order = np.argsort(-scores, axis=1, kind="stable")
        positive = np.take_along_axis(scores, order, axis=1) > 0
        idle_sorted = np.take_along_axis(self.idle, order, axis=1) & positive
        first = np.where(idle_sorted.any(axis=1), idle_sorted.argmax(axis=1), positive.sum(axis=1) - 1)
        probes = np.minimum(first + 1, positive.sum(axis=1))
        costs = (self.rng.random((self.n, K)) < 0.3) & (np.arange(K) < probes[:, None])
        found = idle_sorted.any(axis=1)
        reward = found.astype(np.float64) - costs.sum(axis=1) * 1.0
        obs = np.zeros((self.n, 3 * K), np.float32)
        return obs, reward


def cpu(f):
    t = time.process_time()
    f()
    return time.process_time() - t


def times(step, count):
    """`step` called `count` times, each result dropped as an agent's loop drops it (a list of
    20 000 kept results cost a SpectrumEnv.step an extra microsecond in allocation and garbage
    collection, which the bench then reported as the step's)."""
    def run():
        for _ in range(count):
            step()
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", type=int, default=4096)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--readme", help="write the measured table into the bench:envs block of this page, or of the one page of this folder that holds it (guide/src)")
    args = ap.parse_args()
    n, steps = args.envs, args.steps
    rng = np.random.default_rng(0)
    scores = rng.uniform(-1, 1, size=(n, K)).astype(np.float32)

    ours = envs.SpectrumVectorEnv(markov(), n, copy=False)
    ours.reset(seed=1)
    numpy = NumpyCascade(n)
    a, b = [], []
    for _ in range(args.repeat):
        a.append(cpu(times(lambda: ours.step(scores), steps)))
        b.append(cpu(times(lambda: numpy.step(scores), steps)))
    rate = n * steps / statistics.median(a)
    rate_np = n * steps / statistics.median(b)
    ns_each = statistics.median(a) / (n * steps) * 1e9
    print(f"1. SpectrumVectorEnv, {n} envs, K = {K} Markov, one thread: {rate / 1e6:.2f} M env-steps/s "
          f"({statistics.median(a) / (n * steps) * 1e9:.0f} ns each); NumPy-batched: {rate_np / 1e6:.2f} M/s; "
          f"ratio {rate / rate_np:.2f}x")

    users = 6
    mu = envs.MultiUserVectorEnv(multi(users), n, copy=False)
    mu.reset(seed=1)
    channels = rng.integers(0, K, size=(n, users))
    c = [cpu(times(lambda: mu.step(channels), steps)) for _ in range(args.repeat)]
    rate_mu = n * users * steps / statistics.median(c)
    print(f"2. MultiUserVectorEnv, {n} envs x M = {users} users, carrier sensing, K = {K}: "
          f"{rate_mu / 1e6:.2f} M agent-steps/s")

    one = envs.SpectrumEnv(markov())
    one.reset(seed=1)
    action = scores[0]
    for _ in range(2000):
        one.step(action)
    d = [cpu(times(lambda: one.step(action), 20000)) / 20000 for _ in range(args.repeat)]
    step_us = statistics.median(d) * 1e6
    print(f"3. SpectrumEnv.step: {step_us:.2f} us of CPU a call")

    def rss():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    base = rss()
    big = envs.SpectrumVectorEnv(markov(), 4 * n, copy=False)
    big.reset(seed=2)
    built = rss()
    big_scores = rng.uniform(-1, 1, size=(4 * n, K)).astype(np.float32)
    for _ in range(steps):
        big.step(big_scores)
    after = rss()
    for _ in range(9 * steps):
        big.step(big_scores)
    later = rss()
    per_env_channel = (built - base) * 1024 * 1024 / (4 * n * K)
    print(f"4. peak RSS: {base:.0f} MB before, {built:.0f} MB with {4 * n} more envs, "
          f"{after:.0f} MB after {steps} steps, {later:.0f} MB after {10 * steps} "
          f"({per_env_channel:.0f} bytes per env-channel)")

    # 5. Two threads against one, wall time (CPU time counts both threads), interleaved.
    duo = {t: envs.SpectrumVectorEnv(markov(), n, copy=False, threads=t) for t in (1, 2)}
    for v in duo.values():
        v.reset(seed=1)
    walls = {1: [], 2: []}
    for _ in range(args.repeat):
        for t, v in duo.items():
            w = time.perf_counter()
            for _ in range(steps):
                v.step(scores)
            walls[t].append(time.perf_counter() - w)
    speedup = statistics.median(walls[1]) / statistics.median(walls[2])
    print(f"5. threads=2 against one (wall time, {os.cpu_count()} CPUs): {speedup:.2f}x")

    # 6. Other worlds, per channel probed (the `last` part's probed flags count the probes).
    print("6. ns of CPU per channel probed, against the K = 9 Markov world's:")
    per_probe = []
    for name, make in WORLDS:
        w = envs.SpectrumVectorEnv(make(), n, copy=False)
        k = w.channels
        acts = rng.uniform(-1, 1, size=(n, k)).astype(np.float32)
        w.reset(seed=1)
        probes = 0.0
        for _ in range(20):
            obs, *_ = w.step(acts)
            probes += float(obs[:, 0:3 * k:3].sum())
        per_step = probes / (20 * n)
        t = statistics.median(cpu(times(lambda: w.step(acts), steps)) for _ in range(args.repeat))
        ns = t / (n * steps) * 1e9
        per_probe.append((name, k, ns, per_step, ns / max(per_step, 1e-9)))
    ref = per_probe[0][4]
    for name, k, ns, per_step, each in per_probe:
        print(f"   {name}: {ns:.0f} ns an env-step, {per_step:.2f} probes a step, "
              f"{each:.0f} ns a probe ({each / ref:.2f}x)")

    if args.readme:
        from readme_table import splice

        def goal(met):
            return "met" if met else "**not met**"

        ratio = rate / rate_np
        flat = later - after <= 0.05 * after
        table = f"""
| workload | measured | the goal |
|---|---:|---:|
| `SpectrumVectorEnv`, K = {K} cascade on Markov channels with Bernoulli costs, {n} environments | {rate / 1e6:.2f} M env-steps/s ({ns_each:.0f} ns each) | ≥ 12.5 M/s: {goal(rate >= 12.5e6)} |
| the same, against a NumPy-batched implementation of the model written in the bench (Markov chains stepped every slot, the cascade in score order, Bernoulli costs; no benchmark, no expected reward) | {ratio:.2f}× | ≥ 5×: {goal(ratio >= 5)} |
| `MultiUserVectorEnv`, M = {users} users with carrier sensing, K = {K}, {n} environments | {rate_mu / 1e6:.2f} M agent-steps/s | ≥ 40 M/s: {goal(rate_mu >= 40e6)} |
| `threads=2` against one (wall time, {os.cpu_count()} CPUs) | {speedup:.2f}× | ≥ 1.7×: {goal(speedup >= 1.7)} |
| the worst other world per channel probed (K = 4 and 64, i.i.d., on/off, sensing errors, energy detectors, time-left reward) against K = 9 Markov | {max(p[4] for p in per_probe[1:]) / ref:.2f}× ({max(per_probe[1:], key=lambda p: p[4])[0]}) | ≤ 2×: {goal(max(p[4] for p in per_probe[1:]) <= 2 * ref)} |
| one `SpectrumEnv.step` | {step_us:.2f} µs | ≤ 2 µs: {goal(step_us <= 2.0)} |
| memory | {per_env_channel:.0f} bytes per environment and channel ({4 * n} environments at K = {K}: +{built - base:.0f} MB), {after:.0f} MB after {steps} steps and {later:.0f} MB after {10 * steps} | flat, ∝ N·K: {goal(flat)} |

(`python python/bench/envs_bench.py --repeat {args.repeat} --steps {steps} --readme guide/src`,
{time.strftime("%Y-%m-%d")}: medians of {args.repeat}, CPU time, interleaved.)
"""
        splice(args.readme, "envs", table)


if __name__ == "__main__":
    main()
