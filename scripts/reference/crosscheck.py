#!/usr/bin/env python3
"""Compares specprobe's realised regret with a reference code's own runs, checkpoint by
checkpoint: z = (specprobe's mean − the reference's mean) / the combined standard error.

    python3 scripts/reference/crosscheck.py --reference REF.json --map LABEL=NAME[,LABEL=NAME]
        (--results DIR | --scenario FILE [--runs N] [--horizon T] [--specprobe BIN])

REF.json is what dpe_reference.py, beacon_reference.py or got_reference.py wrote with
--json; LABEL is a policy label of the scenario, NAME the reference strategy it reproduces.
Prints a markdown table; exits 1 when some |z| exceeds --max-z (default 3).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile


def curves(folder):
    """(label, t) → (mean, se, n) of the realised regret."""
    out = {}
    with open(os.path.join(folder, "curves.csv")) as fh:
        for row in csv.DictReader(fh):
            out[(row["policy"], int(row["t"]))] = (
                float(row["realized_regret_mean"]), float(row["realized_regret_se"]), int(row["n"]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", required=True)
    ap.add_argument("--map", required=True)
    ap.add_argument("--results")
    ap.add_argument("--scenario")
    ap.add_argument("--runs", type=int)
    ap.add_argument("--horizon", type=int)
    ap.add_argument("--specprobe", default="target/release/specprobe")
    ap.add_argument("--max-z", type=float, default=3.0)
    a = ap.parse_args()
    ref = json.load(open(a.reference))
    strategies = ref.get("strategies") or {"GoT": ref}
    folder = a.results
    if folder is None:
        folder = tempfile.mkdtemp(prefix="crosscheck-")
        cmd = [a.specprobe, "run", a.scenario, "--out", folder, "--force", "--no-charts"]
        if a.runs:
            cmd += ["--runs", str(a.runs)]
        if a.horizon:
            cmd += ["--horizon", str(a.horizon)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    ours = curves(folder)
    worst = 0.0
    print("| specprobe policy | reference | t | specprobe (runs) | reference (runs) | z |")
    print("|---|---|---:|---:|---:|---:|")
    for pair in a.map.split(","):
        label, name = pair.split("=")
        r = strategies[name]
        n_ref = r.get("n", ref.get("runs"))
        for t, mean, sd in zip(ref["checkpoints"], r["mean"], r["std"]):
            if (label, t) not in ours:
                continue
            m, se, n = ours[(label, t)]
            se_ref = sd / math.sqrt(n_ref)
            z = (m - mean) / math.hypot(se, se_ref)
            worst = max(worst, abs(z))
            print(f"| {label} | {name} | {t} | {m:.1f} ± {se:.1f} ({n}) | {mean:.1f} ± {se_ref:.1f} ({n_ref}) | {z:+.2f} |")
    print(f"\nlargest |z|: {worst:.2f}")
    sys.exit(1 if worst > a.max_z else 0)


if __name__ == "__main__":
    main()
