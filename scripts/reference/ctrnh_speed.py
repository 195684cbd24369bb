#!/usr/bin/env python3
"""CPU per user-slot of randomized Selfish KL-UCB on the authors' five settings
(`ctrnh_settings.py`'s a–e), specprobe against the authors' code, paired on this machine (A B A B,
medians of --rounds), with their ratio: the guide's table (guide/src/many-users.md).

    python3 scripts/reference/ctrnh_speed.py --repo PATH/TO/repo [--python PYTHON]
        [--specprobe target/release/specprobe] [--before OTHER_BINARY] [--rounds 2]

The reference runs `ctrnh_selfish.py --randomized` (2 runs, T = 5000; its CPU time,
`time.process_time`); specprobe runs the same setting, 200 runs, T = 5000, one thread (its
children's CPU time, `getrusage`). `--before` adds a column for another specprobe binary (an
earlier build), run in the same rounds.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ctrnh_settings import SCENARIO, SETTINGS  # noqa: E402
from speed import run_cpu  # noqa: E402

HORIZON, RUNS = 5000, 200


def reference(python, repo, users, mu):
    out = subprocess.run([python, os.path.join(HERE, "ctrnh_selfish.py"), "--repo", repo, "--runs", "2",
                          "--horizon", str(HORIZON), "--randomized", "--users", str(users),
                          "--mu", ",".join(map(str, mu))],
                         cwd=repo, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["us_per_user_slot"]


def specprobe(binary, path, users, tmp):
    return run_cpu(binary, path, os.path.join(tmp, "out"), RUNS, HORIZON, users)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--specprobe", default=os.path.join(HERE, "..", "..", "target", "release", "specprobe"))
    ap.add_argument("--before")
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    binaries = [b for b in [a.before, a.specprobe] if b]
    head = " | ".join(["before"] * bool(a.before) + ["specprobe"])
    print(f"| setting | {head} | their pure Python | " + " | ".join(f"× {h}" for h in head.split(" | ")) + " |")
    print("|---|" + "---:|" * (2 * len(binaries) + 1))
    with tempfile.TemporaryDirectory() as tmp:
        for key, (users, mu) in SETTINGS.items():
            path = os.path.join(tmp, f"{key}.ron")
            channels = ", ".join(f"(theta: {t}, cost: Constant(0.0))" for t in mu)
            with open(path, "w") as f:
                f.write(SCENARIO.format(key=key, horizon=HORIZON, runs=RUNS, users=users, channels=channels))
            ref, ours = [], [[] for _ in binaries]
            for _ in range(a.rounds):
                ref.append(reference(a.python, a.repo, users, mu))
                for b, xs in zip(binaries, ours):
                    xs.append(specprobe(b, path, users, tmp))
            r = statistics.median(ref)
            cells = [statistics.median(xs) for xs in ours]
            print(f"| {key} (M = {users}, K = {len(mu)}) | " + " | ".join(f"{c:.2f} µs" for c in cells)
                  + f" | {r:.1f} µs | " + " | ".join(f"{r / c:.0f}×" for c in cells) + " |", flush=True)


if __name__ == "__main__":
    main()
