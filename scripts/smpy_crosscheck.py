#!/usr/bin/env python3
"""specprobe's multi-player learners against SMPyBandits' own code, cell by cell.

For every cell (an instance: K Bernoulli channels with means μ, M users, horizon T; and a
policy both simulators have) it runs SMPyBandits 0.9.7's `EvaluatorMultiPlayers` and specprobe
with the reference's definitions selected (`feedback: SensingAndCollision`, `collision:
AllLost`, and each policy's `convention: SMPyBandits`), at least 200 runs a side by default,
and prints the mean pseudo-regret ± its standard error on each side and
z = (specprobe − SMPyBandits) / sqrt(se₁² + se₂²).

    python3 scripts/smpy_crosscheck.py --smpy smpy/bin/python [--runs 200] [--jobs 2]
        [--instances bk2018-k9,k5-m2,k8-m4] [--policies mctopm-klucb,...] [--specprobe BIN]
        [--cache target/crosscheck] [--markdown] [--smpy-only] [--max-z 3]
    python3 scripts/smpy_crosscheck.py --smpy smpy/bin/python --reduced --runs 500 \
        --write-fixture tests/data/smpy-reference.json

`smpy/` is a virtual environment with SMPyBandits (`python3 -m venv smpy && smpy/bin/pip
install SMPyBandits "scipy<1.14"`). SMPyBandits is slow (up to ~250 µs of CPU per user-slot
for MCTopM with kl-UCB, so the whole grid at 200 runs is hours of CPU): its per-run results are
kept under `--cache` in chunks of `--chunk` runs, each with its own seed, and a later call
reuses them and runs only what is missing (`--smpy-only` fills the cache and stops). specprobe's
side takes seconds. Exit status 1 when a cell's |z| exceeds `--max-z` (default 3).

The SMPyBandits worker (`scripts/smpy_cell.py`) runs SMPyBandits' code faster without
changing a value: it keeps the last index vector of each index policy for an unchanged state
(`computeAllIndex` is a pure function of `t`, `pulls` and `rewards`; MCTopM asks for it three
or four times a decision), and lets SMPyBandits use its own numba-jitted kl-UCB (written for
`numba.decorators.jit`, a name numba 0.49 removed, so that SMPyBandits silently runs it in pure
Python; install numba in the virtual environment to use it). `--check-memo` runs short chunks
both ways and checks that every per-run value is the same.

SMPyBandits takes its policies' M best as the last M of `np.argsort(index)`, whose order among
equal values numpy leaves unspecified: its baseline sort keeps them in index order (as every
numpy did when SMPyBandits' figures were made), its SIMD sorts (AVX2 and AVX-512 machines,
numpy >= 1.25) do not, and data-dependently. The worker runs numpy with its SIMD dispatch
disabled (`NPY_DISABLE_CPU_FEATURES`) and checks that it gets the baseline sort, so that
SMPyBandits' numbers do not depend on the machine; `--simd` runs it as the machine's numpy
does instead (cached apart), to measure what that changes.

`--reduced` runs instead the short cells CI checks (T = 1000, one cell per definition that
differs between the two simulators: the start of MCTopM, the coordinator's clock, random
ties, MEGA's and Musical Chairs' rules); `--write-fixture FILE` stores SMPyBandits' side of them
(mean, sd, runs) for `tests/it/smpy_reference.rs`, which runs specprobe's side at every
`cargo test` and fails when a cell leaves 4 combined standard errors.
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

#: The instances: name -> (means, users, horizon). Besson & Kaufmann's K = 9 experiment at
#: three numbers of users, and two of our own: five spread channels and two users, and eight
#: channels close to each other around the M-th best (where MCTopM's chairs matter most).
INSTANCES = {
    "bk2018-k9": ([round(0.1 * i, 1) for i in range(1, 10)], [3, 6, 9], 10_000),
    "k5-m2": ([0.1, 0.3, 0.5, 0.7, 0.9], [2], 5_000),
    "k8-m4": ([0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8], [4], 5_000),
}

#: Every policy both simulators have, as specprobe writes it with the reference's definitions.
POLICIES = {
    "centralized-klucb": "CentralizedMultiplePlay(index: KlUcb, convention: SMPyBandits)",
    "centralized-ucb": "CentralizedMultiplePlay(index: Ucb, convention: SMPyBandits)",
    "mctopm-klucb": "McTopM(index: KlUcb, convention: SMPyBandits)",
    "mctopm-ucb": "McTopM(index: Ucb, convention: SMPyBandits)",
    "randtopm-klucb": "RandTopM(index: KlUcb, convention: SMPyBandits)",
    "randtopm-ucb": "RandTopM(index: Ucb, convention: SMPyBandits)",
    "rhorand-klucb": "RhoRand(index: KlUcb, convention: SMPyBandits)",
    "rhorand-ucb": "RhoRand(index: Ucb, convention: SMPyBandits)",
    "selfish-klucb": "Selfish(policy: KlUcb(reward: Idle, convention: SMPyBandits))",
    "selfish-ucb": "Selfish(policy: Ucb1(reward: Idle, convention: SMPyBandits))",
    "mega": "Mega(p0: 0.5, alpha: 0.5, beta: 0.5, c: 0.1, d: 0.01, convention: SMPyBandits)",
    "musical-chairs": "MusicalChairs(t0: Fraction(0.25), convention: SMPyBandits)",
    "sic-mmab": "SicMmab(t0: ReferenceCode)",
}

#: The reduced cells CI checks (`--reduced`): (instance, users, policy, horizon), one per
#: definition in which the two simulators' own conventions differ.
REDUCED = [
    ("bk2018-k9", 9, "mctopm-klucb", 1000),  # the start: K slots of the index's own choice
    ("bk2018-k9", 6, "mctopm-klucb", 1000),  # the move after a collision, random ties
    ("bk2018-k9", 6, "centralized-klucb", 1000),  # the coordinator's clock, M(t - 1)
    ("bk2018-k9", 6, "centralized-ucb", 1000),
    ("bk2018-k9", 6, "randtopm-ucb", 1000),
    ("bk2018-k9", 6, "rhorand-ucb", 1000),
    ("k5-m2", 2, "selfish-ucb", 1000),  # random ties: no two users locked on one channel
    ("k5-m2", 2, "selfish-klucb", 1000),
    ("bk2018-k9", 6, "mega", 1000),  # exploitation over every channel, untried last
    ("bk2018-k9", 6, "musical-chairs", 1000),  # phase 1's end, M-hat, (1 + S)/(1 + N)
]

#: The cells of the issue that found the differences come first, so that a partial cache
#: answers them first.
FIRST = [
    ("bk2018-k9", 3, "mctopm-klucb"),
    ("bk2018-k9", 6, "mctopm-klucb"),
    ("bk2018-k9", 9, "mctopm-klucb"),
    ("bk2018-k9", 3, "centralized-klucb"),
    ("bk2018-k9", 6, "centralized-klucb"),
    ("bk2018-k9", 3, "mctopm-ucb"),
    ("k5-m2", 2, "selfish-ucb"),
]


def cells(instances, policies):
    """Every (instance, users, policy, horizon) asked for, the issue's first."""
    out = [c + (INSTANCES[c[0]][2],) for c in FIRST if c[0] in instances and c[2] in policies]
    for name in instances:
        _, users, horizon = INSTANCES[name]
        for m in users:
            for p in policies:
                if (name, m, p, horizon) not in out:
                    out.append((name, m, p, horizon))
    return out


def key(cell):
    """The cache's name of a cell (the horizon only when it is not the instance's)."""
    name, m, policy, horizon = cell
    t = "" if horizon == INSTANCES[name][2] else f"-t{horizon}"
    return f"{name}-m{m}{t}-{policy}"


def chunk_path(cache, cell, i, simd=False):
    folder = "smpy-simd" if simd else "smpy"
    return os.path.join(cache, folder, key(cell), f"chunk-{i:03}.json")


def smpy_chunk(args, cell, i):
    """Runs chunk `i` of `cell` in SMPyBandits (unless cached) and returns its runs."""
    path = chunk_path(args.cache, cell, i, args.simd)
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    name, m, policy, horizon = cell
    means = INSTANCES[name][0]
    seed = (zlib.crc32(key(cell).encode()) + 7919 * i) % (2**32)
    spec = {
        "means": means,
        "users": m,
        "horizon": horizon,
        "policy": policy,
        "runs": args.chunk,
        "seed": seed,
        "simd": args.simd,
    }
    out = subprocess.run(
        ["nice", "-n", "10", args.smpy, os.path.join(HERE, "smpy_cell.py"), json.dumps(spec)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result["seed"] = seed
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".part", "w") as f:
        json.dump(result, f)
    os.replace(path + ".part", path)
    print(f"  SMPyBandits {key(cell)} chunk {i}: done", file=sys.stderr, flush=True)
    return result


def smpy_side(args, todo):
    """Every cell's SMPyBandits runs (at least --runs), from the cache or run now."""
    chunks = -(-args.runs // args.chunk)
    jobs = [(cell, i) for cell in todo for i in range(chunks)]
    missing = sum(not os.path.exists(chunk_path(args.cache, c, i, args.simd)) for c, i in jobs)
    if missing:
        print(f"SMPyBandits: {missing} chunks of {args.chunk} runs to run", file=sys.stderr)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(smpy_chunk, args, c, i): (c, i) for c, i in jobs}
        for f in concurrent.futures.as_completed(futures):
            c, i = futures[f]
            results.setdefault(c, {})[i] = f.result()
    return {c: [r for i in sorted(rs) for r in rs[i]["regret"]] for c, rs in results.items()}


def scenario(name, m, horizon, policies, runs):
    """A specprobe scenario of one instance with every policy, the reference's world."""
    means = INSTANCES[name][0]
    chans = ", ".join(f"(theta: {x}, cost: Constant(0.0))" for x in means)
    pols = ",\n        ".join(f'(label: "{p}", policy: {POLICIES[p]})' for p in policies)
    return f"""MultiUser(
    name: "crosscheck-{name}-m{m}-t{horizon}",
    seed: {zlib.crc32(f'{name}-{m}-{horizon}'.encode())},
    horizon: {horizon},
    runs: {runs},
    users: {m},
    timing: Synchronous,
    collision: AllLost,
    feedback: SensingAndCollision,
    channels: [{chans}],
    policies: [
        {pols}
    ],
)
"""


def specprobe_side(args, todo):
    """Every cell's specprobe runs: one run of the binary per (instance, users)."""
    groups = {}
    for name, m, policy, horizon in todo:
        groups.setdefault((name, m, horizon), []).append(policy)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for (name, m, horizon), policies in groups.items():
            stem = f"{name}-m{m}-t{horizon}"
            path = os.path.join(tmp, stem + ".ron")
            with open(path, "w") as f:
                f.write(scenario(name, m, horizon, policies, args.runs))
            out = os.path.join(tmp, stem)
            subprocess.run(
                [args.specprobe, "run", path, "--out", out, "--no-charts"],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            with open(os.path.join(out, "runs.csv")) as f:
                header = f.readline().strip().split(",")
                col = header.index("pseudo_regret")
                for line in f:
                    row = line.strip().split(",")
                    cell = (name, m, row[0], horizon)
                    results.setdefault(cell, []).append(float(row[col]))
    return results


def check_memo(args):
    """Runs one short chunk of each index family as the worker runs it (memoised
    `computeAllIndex`, SMPyBandits' numba-jitted kl-UCB) and as SMPyBandits runs by default
    (neither), and fails unless every per-run value is the same."""
    means = INSTANCES["bk2018-k9"][0]
    for policy in ["mctopm-klucb", "rhorand-ucb", "centralized-klucb", "selfish-klucb"]:
        outs = []
        for fast in (True, False):
            spec = {"means": means, "users": 6, "horizon": 500, "policy": policy,
                    "runs": 2, "seed": 34, "memo": fast, "numba": fast}
            out = subprocess.run(
                [args.smpy, os.path.join(HERE, "smpy_cell.py"), json.dumps(spec)],
                check=True, capture_output=True, text=True,
            ).stdout
            outs.append(json.loads(out.strip().splitlines()[-1]))
        same = outs[0] == outs[1]
        print(f"{policy}: {'identical' if same else 'DIFFERENT'} per-run results, fast and plain")
        if not same:
            return 1
    return 0


def write_fixture(args, todo, smpy):
    """SMPyBandits' side of `todo` for tests/it/smpy_reference.rs."""
    out = {
        "about": "SMPyBandits 0.9.7's EvaluatorMultiPlayers (onlyUniqUserGetsReward) on the "
        "reduced cross-check cells: per cell the mean and sd of the final pseudo-regret over "
        "`runs` repetitions (numpy's baseline sort, NPY_DISABLE_CPU_FEATURES; memoised "
        "indices and SMPyBandits' numba kl-UCB, the same values). Written by `python3 "
        f"scripts/smpy_crosscheck.py --reduced --runs {args.runs} --write-fixture FILE`; "
        "read by tests/it/smpy_reference.rs.",
        "cells": [],
    }
    for cell in todo:
        name, m, policy, horizon = cell
        n, mean, sd, _ = stats(smpy[cell])
        out["cells"].append(
            {
                "instance": name,
                "means": INSTANCES[name][0],
                "users": m,
                "horizon": horizon,
                "policy": policy,
                "specprobe": POLICIES[policy],
                "runs": n,
                "mean": mean,
                "sd": sd,
            }
        )
    with open(args.write_fixture, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


def stats(xs):
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return n, mean, math.sqrt(var), math.sqrt(var / n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smpy", default=os.environ.get("SPECPROBE_SMPY", "smpy/bin/python"))
    ap.add_argument("--specprobe", default=os.path.join(ROOT, "target/release/specprobe"))
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--chunk", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cache", default=os.path.join(ROOT, "target/crosscheck"))
    ap.add_argument("--instances", default=",".join(INSTANCES))
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--smpy-only", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--max-z", type=float, default=3.0)
    ap.add_argument("--reduced", action="store_true")
    ap.add_argument("--write-fixture", metavar="FILE")
    ap.add_argument("--check-memo", action="store_true")
    ap.add_argument("--simd", action="store_true")
    args = ap.parse_args()
    if args.check_memo:
        return check_memo(args)
    instances = args.instances.split(",")
    policies = args.policies.split(",")
    for n in instances:
        if n not in INSTANCES:
            ap.error(f"--instances: unknown instance {n!r} (known: {', '.join(INSTANCES)})")
    for p in policies:
        if p not in POLICIES:
            ap.error(f"--policies: unknown policy {p!r} (known: {', '.join(POLICIES)})")
    if args.reduced:
        todo = [c for c in REDUCED if c[0] in instances and c[2] in policies]
    else:
        todo = cells(instances, policies)
    smpy = smpy_side(args, todo)
    if args.write_fixture:
        write_fixture(args, todo, smpy)
    if args.smpy_only:
        return 0
    ours = specprobe_side(args, todo)
    worst = 0.0
    if args.markdown:
        print("| instance | M | policy | specprobe: mean ± se (runs) | SMPyBandits: mean ± se (runs) | z |")
        print("|---|---:|---|---:|---:|---:|")
    for cell in todo:
        name, m, policy, horizon = cell
        n1, m1, _, s1 = stats(ours[cell])
        n2, m2, _, s2 = stats(smpy[cell])
        se = math.hypot(s1, s2)
        z = (m1 - m2) / se if se > 0 else (0.0 if m1 == m2 else math.inf)
        worst = max(worst, abs(z))
        if args.markdown:
            print(
                f"| {name}, T = {horizon} | {m} | {policy} | {m1:.1f} ± {s1:.1f} ({n1}) |"
                f" {m2:.1f} ± {s2:.1f} ({n2}) | {z:+.2f} |"
            )
        else:
            print(
                f"{name:10} T={horizon:<6} M={m:<2} {policy:18} specprobe {m1:9.1f} ± {s1:6.1f}"
                f" ({n1})   SMPyBandits {m2:9.1f} ± {s2:6.1f} ({n2})   z = {z:+.2f}"
            )
    print(f"largest |z|: {worst:.2f} (limit {args.max_z})", file=sys.stderr)
    return 1 if worst > args.max_z else 0


if __name__ == "__main__":
    sys.exit(main())
