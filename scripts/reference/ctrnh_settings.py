#!/usr/bin/env python3
"""Randomized Selfish KL-UCB on the settings of the authors' scripts
(`ctrnh/multi_player_multi_armed_bandit_algorithms`, `paper_3_1_linearly_spaced_mu.py`: M = 2 with
K = 3, 5 and 20, M = 5 with K = 10), specprobe against the authors' code, at a horizon reduced the
same way on both sides (theirs is 5·10⁵ to 2·10⁶ slots; their pure-Python path takes ~66 µs a
user-slot). For each setting it writes the scenario of `scenarios/multi-nosensing-selfish-reference.ron`
with those users and means, runs it with specprobe, reads the reference's final regrets (JSON
written by `ctrnh_selfish.py --users M --mu ...`, one file per setting in --reference), and prints
each side's mean ± s.e. and the z of their difference.

    python3 scripts/reference/ctrnh_settings.py --reference DIR [--horizon 5000] [--runs 1000]
        [--specprobe target/release/specprobe]

with DIR/a.json … DIR/e.json from, for instance,
    python3 scripts/reference/ctrnh_selfish.py --repo REPO --runs 200 --horizon 5000 --randomized \\
        --users 2 --mu 0.9,0.85,0.8 > DIR/a.json
"""
import argparse
import csv
import json
import math
import os
import subprocess
import tempfile

SETTINGS = {
    "a": (2, [0.9, 0.85, 0.8]),
    "b": (2, [0.99, 0.5, 0.01]),
    "c": (2, [0.99, 0.745, 0.5, 0.255, 0.01]),
    "d": (2, [0.9, 0.895, 0.889, 0.884, 0.879, 0.874, 0.868, 0.863, 0.858, 0.853, 0.847, 0.842,
              0.837, 0.832, 0.826, 0.821, 0.816, 0.811, 0.805, 0.8]),
    "e": (5, [0.99, 0.881, 0.772, 0.663, 0.554, 0.446, 0.337, 0.228, 0.119, 0.01]),
}

SCENARIO = """MultiUser(name: "ctrnh-{key}", seed: 2021, horizon: {horizon}, runs: {runs}, users: {users},
    collision: AllLost, feedback: NoSensing,
    channels: [{channels}],
    policies: [(label: "rnd-selfish-klucb-ref", policy: Selfish(policy: KlUcb(reward: Idle, c: 3.0, time: Samples, ties: Random, noise: true)))])
"""


def mean_se(xs):
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var / n), n


def specprobe_regrets(binary, key, users, mu, horizon, runs):
    channels = ", ".join(f"(theta: {t}, cost: Constant(0.0))" for t in mu)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"ctrnh-{key}.ron")
        with open(path, "w") as f:
            f.write(SCENARIO.format(key=key, horizon=horizon, runs=runs, users=users,
                                    channels=channels))
        out = os.path.join(tmp, "out")
        subprocess.run([binary, "run", path, "--out", out, "--no-charts"], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "runs.csv")) as f:
            rows = list(csv.DictReader(f))
    return [float(r["pseudo_regret"]) for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", required=True)
    ap.add_argument("--horizon", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--specprobe", default="target/release/specprobe")
    args = ap.parse_args()
    print("| setting | M | K | specprobe | runs | authors' code | runs | z |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for key, (users, mu) in SETTINGS.items():
        path = os.path.join(args.reference, f"{key}.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            ref = json.load(f)
        assert ref["users"] == users and ref["mu"] == mu and ref["horizon"] == args.horizon, path
        ours = specprobe_regrets(args.specprobe, key, users, mu, args.horizon, args.runs)
        (m1, s1, n1), (m2, s2, n2) = mean_se(ours), mean_se(ref["regrets"])
        z = (m1 - m2) / math.sqrt(s1 * s1 + s2 * s2)
        print(f"| {key}: μ = {mu[0]} … {mu[-1]} | {users} | {len(mu)} | {m1:.1f} ± {s1:.1f} | {n1} "
              f"| {m2:.1f} ± {s2:.1f} | {n2} | {z:+.2f} |")


if __name__ == "__main__":
    main()
