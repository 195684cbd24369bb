#!/usr/bin/env python3
"""Damaged results through `specprobe plot` and `compare`: every class the reliability issue
lists (truncated files, empty experiments, out-of-range channel indices, short arrays, NaN and
infinite values, unsorted rows, nulls), applied to fresh regret, identification and sweep
results. Counts how each ended: a clear error (exit 1), success, or a panic/crash.

    scripts/faults/damage.py [SPECPROBE]     (default: target/release/specprobe)
"""
import json, os, shutil, subprocess, sys, tempfile

B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/specprobe")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*args, **kw):
    return subprocess.run([B, *args], capture_output=True, text=True, timeout=120, **kw)


def fresh(tmp, scenario, name, extra=()):
    out = os.path.join(tmp, name)
    r = run("run", os.path.join(ROOT, "scenarios", scenario), "--out", out, "--no-charts", *extra)
    if r.returncode != 0:
        print(f"skipping {name}: this binary cannot run {scenario}: {r.stderr.strip()[:120]}")
        return None
    return out


def truncate(path, n):
    text = open(path).read()
    open(path, "w").write(text[:n])


def edit_json(path, fn):
    d = json.load(open(path))
    fn(d)
    open(path, "w").write(json.dumps(d))


def set_raw(path, old, new):
    t = open(path).read()
    assert old in t, (path, old)
    open(path, "w").write(t.replace(old, new, 1))


def regret_cases():
    def first_policy(d):
        return (d.get("experiments") or [d])[0]["policies"][0]
    cases = {
        "summary truncated": lambda o: truncate(f"{o}/summary.json", 300),
        "summary empty file": lambda o: open(f"{o}/summary.json", "w").write(""),
        "summary not json": lambda o: open(f"{o}/summary.json", "w").write("garbage"),
        "curves truncated": lambda o: truncate(f"{o}/curves.csv", 500),
        "curves empty": lambda o: open(f"{o}/curves.csv", "w").write(""),
        "curves header only": lambda o: truncate(f"{o}/curves.csv", len(open(f"{o}/curves.csv").readline())),
        "empty policies": lambda o: edit_json(f"{o}/summary.json", lambda d: d.__setitem__("policies", [])),
        "empty channels": lambda o: edit_json(f"{o}/summary.json", lambda d: d.__setitem__("channels", [])),
        "optimum index out of range": lambda o: edit_json(f"{o}/summary.json", lambda d: d["optimum"].__setitem__("list", [0, 99])),
        "short channel_probes": lambda o: edit_json(f"{o}/summary.json", lambda d: first_policy(d).__setitem__("channel_probes", [1.0])),
        "probe_distribution out of range": lambda o: edit_json(f"{o}/summary.json", lambda d: first_policy(d).__setitem__("probe_distribution", [[999, 5]])),
        "probe_distribution short pair": lambda o: edit_json(f"{o}/summary.json", lambda d: first_policy(d).__setitem__("probe_distribution", [[1]])),
        "null mean": lambda o: set_raw(f"{o}/summary.json", '"mean":', '"mean":null,"x":'),
        "huge number": lambda o: set_raw(f"{o}/summary.json", '"expected_reward":', '"expected_reward":1e999,"y":'),
        "NaN in curves": lambda o: curves_cell(o, "NaN"),
        "inf in curves": lambda o: curves_cell(o, "inf"),
        "unsorted curves": lambda o: unsort(o),
        "unknown policy in curves": lambda o: rename_policy(o),
        "t beyond horizon in curves": lambda o: curves_t(o, "99999999999"),
        "zero horizon": lambda o: edit_json(f"{o}/summary.json", lambda d: d.__setitem__("horizon", 0)),
        "theta NaN-like": lambda o: edit_json(f"{o}/summary.json", lambda d: d["channels"][0].__setitem__("theta", 7.0)),
        "negative runs": lambda o: set_raw(f"{o}/summary.json", '"runs":', '"runs":-3,"z":'),
    }
    return cases


def curves_cell(o, value):
    lines = open(f"{o}/curves.csv").read().splitlines()
    cells = lines[5].split(",")
    cells[2] = value
    lines[5] = ",".join(cells)
    open(f"{o}/curves.csv", "w").write("\n".join(lines) + "\n")


def curves_t(o, value):
    lines = open(f"{o}/curves.csv").read().splitlines()
    cells = lines[5].split(",")
    cells[1] = value
    lines[5] = ",".join(cells)
    open(f"{o}/curves.csv", "w").write("\n".join(lines) + "\n")


def unsort(o):
    lines = open(f"{o}/curves.csv").read().splitlines()
    head, body = lines[0], lines[1:]
    body[3], body[10] = body[10], body[3]
    open(f"{o}/curves.csv", "w").write("\n".join([head] + body) + "\n")


def rename_policy(o):
    lines = open(f"{o}/curves.csv").read().splitlines()
    lines[3] = "nobody" + lines[3][lines[3].index(","):]
    open(f"{o}/curves.csv", "w").write("\n".join(lines) + "\n")


def identification_cases():
    return {
        "id summary truncated": lambda o: truncate(f"{o}/summary.json", 200),
        "id empty results": lambda o: edit_json(f"{o}/summary.json", lambda d: d.__setitem__("results", [])),
        "id k above n": lambda o: edit_json(f"{o}/summary.json", lambda d: d["results"][0].__setitem__("k", 10**6)),
        "id huge samples": lambda o: set_raw(f"{o}/summary.json", '"mean":', '"mean":1e999,"q":'),
        "id negative samples": lambda o: edit_json(f"{o}/summary.json", lambda d: d["results"][0]["samples"].__setitem__("mean", -5.0)),
    }


def sweep_cases():
    return {
        "sweep empty values": lambda o: edit_json(f"{o}/summary.json", lambda d: d.__setitem__("values", [])),
        "sweep empty cells": lambda o: edit_json(f"{o}/summary.json", lambda d: d.__setitem__("cells", [])),
        "sweep table unknown value": lambda o: edit_json(f"{o}/summary.json", lambda d: d["table"][0].__setitem__("value", 123.0)),
        "sweep table empty": lambda o: edit_json(f"{o}/summary.json", lambda d: d.__setitem__("table", [])),
        "sweep truncated": lambda o: truncate(f"{o}/summary.json", 400),
    }


def main():
    tally = {"error": 0, "ok": 0, "panic or crash": 0}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        bases = {
            "regret": fresh(tmp, "paper-fig1a.ron", "base-regret", ("--runs", "3", "--horizon", "2000")),
            "grid": fresh(tmp, "paper-table1.ron", "base-grid", ("--runs", "2", "--horizon", "300")),
            "identification": fresh(tmp, "spectrum-8ch-top3.ron", "base-id", ("--runs", "2")),
            "sweep": fresh(tmp, "sweep-alpha.ron", "base-sweep", ("--runs", "2", "--horizon", "300")),
        }
        plan = [("regret", n, f) for n, f in regret_cases().items()]
        plan += [("grid", "grid: " + n, f) for n, f in regret_cases().items() if "optimum" not in n and "channels" not in n and "theta" not in n]
        plan += [("identification", n, f) for n, f in identification_cases().items()]
        plan += [("sweep", n, f) for n, f in sweep_cases().items()]
        for i, (base, name, damage) in enumerate(plan):
            for command in ("plot", "compare"):
                if bases[base] is None:
                    continue
                if command == "compare" and base not in ("regret", "grid"):
                    continue
                d = os.path.join(tmp, f"case{i}-{command}")
                shutil.copytree(bases[base], d)
                try:
                    damage(d)
                except (KeyError, IndexError, AssertionError, TypeError):
                    continue
                args = ("plot", d) if command == "plot" else ("compare", d, "--out", d + "-cmp", "--no-charts")
                r = run(*args)
                if r.returncode == 1:
                    kind = "error"
                elif r.returncode == 0:
                    kind = "ok"
                else:
                    kind = "panic or crash"
                tally[kind] += 1
                first = (r.stderr.strip().splitlines() or [""])[0][:150]
                rows.append((command, name, kind, first))
    for command, name, kind, first in rows:
        print(f"{command:8} {name:40} {kind:15} {first}")
    total = sum(tally.values())
    print(f"\n{total} damaged inputs: " + ", ".join(f"{v} {k}" for k, v in tally.items()))
    sys.exit(1 if tally["panic or crash"] else 0)


if __name__ == "__main__":
    main()
