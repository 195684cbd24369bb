#!/usr/bin/env python3
"""Measures each built-in policy's CPU time per slot at several K, the table behind the run-time
estimate (`src/engine/budget.rs`, `Builtin::ns_per_slot`).

    cargo build --release && python3 scripts/calibrate-costs.py [target/release/specprobe]

Each (policy, K) runs alone, one run on one thread with charts off, long enough for about a
second of CPU; the process's user+system time over the horizon is the cost per slot (set-up
and output included, realised regret's benchmark pass included). Median of three.
"""

import os
import resource
import subprocess
import sys
import tempfile

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/specprobe"
POLICIES = [
    "Oracle", "CcUcb", "CcUcbKnownCost", "CascadeUcb1(list_len: 3)", "CascadeKlUcb(list_len: 3)",
    "ThompsonSampling", "Ucb1", "RandomList(list_len: 3)", "SwCcUcb(window: 1000)", "DCcUcb(discount: 0.999)",
]
KS = [6, 64, 1024]


def scenario(k, policy, horizon):
    channels = ",\n".join(
        f"(theta: {0.9 - 0.8 * i / max(k - 1, 1):.4f}, cost: Bernoulli(0.3))" for i in range(k))
    return (f'Regret(name: "cal", seed: 1, horizon: {horizon}, runs: 1, channels: [{channels}], '
            f'policies: [(label: "p", policy: {policy})])')


def cpu(path, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([BIN, "run", path, "--threads", "1", "--no-charts", "--out", out, "--force"],
                   check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    print(f"{'policy':28} " + " ".join(f"{'K=' + str(k):>12}" for k in KS) + "   (ns per slot)")
    with tempfile.TemporaryDirectory() as tmp:
        for policy in POLICIES:
            row = []
            for k in KS:
                horizon = 20000
                path = os.path.join(tmp, "s.ron")
                while True:
                    with open(path, "w") as f:
                        f.write(scenario(k, policy, horizon))
                    t = cpu(path, os.path.join(tmp, "out"))
                    if t > 0.5 or horizon > 10 ** 8:
                        break
                    horizon *= 4
                times = sorted(cpu(path, os.path.join(tmp, "out")) for _ in range(3))
                row.append(times[1] / horizon * 1e9)
            print(f"{policy:28} " + " ".join(f"{ns:12.0f}" for ns in row))


if __name__ == "__main__":
    main()
