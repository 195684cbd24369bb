#!/usr/bin/env python3
"""CPU per user-slot of each post-2018 policy in its reference code and in specprobe, paired on
this machine (A B A B, medians), and their ratio.

    python3 scripts/reference/speed.py --dpe PATH/TO/DPE --beacon PATH/TO/MPMAB_BEACON
        --got PATH/TO/MP-MAB [--python PYTHON] [--specprobe target/release/specprobe]
        [--rounds 2]

Each reference runs a short workload of its own experiment through the runner scripts beside
this one (their CPU time per user-slot, `time.process_time`); specprobe runs the shipped
scenario with that policy alone, one thread, enough runs to amortise its start-up (its
children's CPU time, `getrusage`). Prints a markdown table.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (name, reference runner, its arguments, repository key, scenario, policy spec, specprobe
#  runs, horizon, users)
CASES = [
    ("DPE", "dpe_reference.py", ["--strategies", "DPE", "--runs", "3", "--horizon", "20000"], "dpe",
     "multi-dpe-k9-reference.ron", "Dpe(convention: Reference)", 200, 20000, 6),
    ("SIC-MMAB (SynchComm)", "dpe_reference.py", ["--strategies", "SynchComm", "--runs", "3", "--horizon", "20000"], "dpe",
     "multi-dpe-k9-reference.ron", "SicMmab(t0: ReferenceCode, fixation: Stay)", 200, 20000, 6),
    ("MCTopM (UCB-H)", "dpe_reference.py", ["--strategies", "MCTopM", "--runs", "3", "--horizon", "20000"], "dpe",
     "multi-dpe-k9-reference.ron", "McTopM(index: UcbH, time: Horizon)", 200, 20000, 6),
    ("BEACON", "beacon_reference.py", ["--strategies", "BEACON", "--runs", "2", "--horizon", "30000", "--checkpoints", "30000"], "beacon",
     "multi-beacon-m5k6.ron", "Beacon(convention: Reference)", 200, 30000, 5),
    ("CUCB", "beacon_reference.py", ["--strategies", "CUCB", "--runs", "2", "--horizon", "30000", "--checkpoints", "30000"], "beacon",
     "multi-beacon-m5k6.ron", "Cucb(convention: Reference)", 100, 30000, 5),
    ("Game of Thrones", "got_reference.py", ["--runs", "3", "--horizon", "30000", "--checkpoints", "30000"], "got",
     "multi-got-3x4.ron", "GameOfThrones(c: 1.2)", 400, 30000, 3),
]


def reference(python, runner, args, repo):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([python, os.path.join(HERE, runner), "--repo", repo, *args, "--json", out.name],
                       cwd=repo, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        data = json.load(open(out.name))
    rows = data.get("strategies")
    row = next(iter(rows.values())) if rows else data
    return row["us_per_user_slot"]


def specprobe(binary, scenario, spec, runs, horizon, users):
    text = open(os.path.join(ROOT, "scenarios", scenario)).read()
    start = text.index("    policies: [")
    end = text.index("\n    ],", start) + len("\n    ],")
    text = text[:start] + f"    policies: [(label: \"p\", policy: {spec})]," + text[end:]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "one.ron")
        with open(path, "w") as fh:
            fh.write(text)
        return run_cpu(binary, path, os.path.join(tmp, "out"), runs, horizon, users)


def run_cpu(binary, path, out, runs, horizon, users):
    """Microseconds of CPU per user-slot of `specprobe run path` (`runs` runs of `horizon` slots,
    one thread, no charts, into `out`): its children's CPU time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, "run", path, "--out", out, "--runs", str(runs), "--horizon", str(horizon),
                    "--threads", "1", "--no-charts", "--force", "--max-time", "none"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu / (runs * horizon * users) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dpe", required=True)
    ap.add_argument("--beacon", required=True)
    ap.add_argument("--got", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--specprobe", default=os.path.join(ROOT, "target/release/specprobe"))
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    repos = {"dpe": os.path.abspath(a.dpe), "beacon": os.path.abspath(a.beacon), "got": os.path.abspath(a.got)}
    print("| policy | reference µs per user-slot | specprobe µs per user-slot | ratio |")
    print("|---|---:|---:|---:|")
    for name, runner, args, repo, scenario, spec, runs, horizon, users in CASES:
        ref, ours = [], []
        for _ in range(a.rounds):
            ref.append(reference(a.python, runner, args, repos[repo]))
            ours.append(specprobe(a.specprobe, scenario, spec, runs, horizon, users))
        r, o = statistics.median(ref), statistics.median(ours)
        print(f"| {name} | {r:.2f} | {o:.4f} | {r / o:.0f}× |", flush=True)


if __name__ == "__main__":
    main()
