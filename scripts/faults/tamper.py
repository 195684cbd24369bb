#!/usr/bin/env python3
"""Tampered and damaged shards through `specprobe merge`: every class the reliability issue
lists, and more, on regret, grid, sweep and identification scenarios. A case passes when merge
refuses with an error naming the shard file (and, for content damage, the field); it fails when
merge exits 0 (wrong results written) or panics.

    scripts/faults/tamper.py [SPECPROBE]     (default: target/release/specprobe)
"""
import hashlib, json, os, shutil, subprocess, sys, tempfile

B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/specprobe")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*args):
    return subprocess.run([B, *args], capture_output=True, text=True, timeout=300)


def load(path):
    return json.load(open(path))


def save(path, d, fix_checksum):
    if fix_checksum and "checksum" in d:
        # A forger who recomputes the checksum: only the consistency checks stand.
        d["checksum"] = ""
        blank = json.dumps(d, separators=(",", ":"), ensure_ascii=False)
        d["checksum"] = hashlib.sha256(blank.encode()).hexdigest()
    open(path, "w").write(json.dumps(d, separators=(",", ":"), ensure_ascii=False))


def regret_stats(d):
    b = d["body"]
    if "Regret" in b:
        return b["Regret"]["stats"]
    if "Sweep" in b:
        return b["Sweep"]["cells"][0]["Regret"]["stats"]
    return None


def cases():
    def stats_edit(fn):
        def f(d):
            s = regret_stats(d)
            if s is None:
                raise KeyError("not regret")
            fn(s)
        return f

    def id_edit(fn):
        def f(d):
            b = d["body"].get("Identification")
            if b is None:
                raise KeyError("not identification")
            fn(b["cells"])
        return f

    def bump_moment(s):
        m = s[0][0]["curves"][-1][0]
        m["sum"][-1] += 1.0

    return {
        "empty stats": stats_edit(lambda s: s.clear()),
        "missing policy": stats_edit(lambda s: s[0].pop()),
        "truncated curves": stats_edit(lambda s: s[0][0]["curves"].pop()),
        "edited final value": stats_edit(lambda s: s[0][0]["finals"][0][1].__setitem__(0, s[0][0]["finals"][0][1][0] + 1)),
        "edited curve sum": stats_edit(bump_moment),
        "inflated n": stats_edit(lambda s: s[0][0]["curves"][0][0].__setitem__("n", s[0][0]["curves"][0][0]["n"] + 5)),
        "inflated runs": stats_edit(lambda s: s[0][0].__setitem__("runs", s[0][0]["runs"] + 1)),
        "dropped final row": stats_edit(lambda s: s[0][0]["finals"].pop()),
        "short channel_probes": stats_edit(lambda s: s[0][0]["channel_probes"].pop()),
        "probe histogram out of range": stats_edit(lambda s: s[0][0]["probes"].append([10**6, 1])),
        "many expansion components": stats_edit(lambda s: s[0][0]["curves"][0][0].__setitem__("sum", [1e-300] * 200000)),
        "relabelled shard": lambda d: d["shard"].__setitem__("index", (d["shard"]["index"] + 1) % d["shard"]["count"]),
        "shard index >= count": lambda d: d["shard"].__setitem__("index", d["shard"]["count"] + 3),
        "shard count 2^64-1": lambda d: d["shard"].__setitem__("count", 18446744073709551615),
        "shard count 2^40": lambda d: d["shard"].__setitem__("count", 1099511627776),
        "shard count 10^7": lambda d: d["shard"].__setitem__("count", 10000000),
        "total runs edited": lambda d: d.__setitem__("total_runs", d.get("total_runs", 0) + 1),
        "shard runs edited": lambda d: d.__setitem__("runs", d.get("runs", 0) + 1),
        "version edited": lambda d: d.__setitem__("version", "9.9.9"),
        "fingerprint edited": lambda d: d.__setitem__("fingerprint", "0000000000000000"),
        "source text edited": lambda d: d.__setitem__("source_text", d["source_text"].replace("seed", "seed: 1, //", 1)),
        "overrides edited": lambda d: d["overrides"].__setitem__("seed", 12345),
        "id outcomes relabelled": id_edit(lambda c: c[0]["outcomes"][0].__setitem__(0, c[0]["outcomes"][0][0] + 1)),
        "id errors edited": id_edit(lambda c: c[0].__setitem__("errors", c[0]["errors"] + 1)),
        "id samples edited": id_edit(lambda c: c[0]["outcomes"][0][1].__setitem__("samples", c[0]["outcomes"][0][1]["samples"] + 7)),
        "id missing cell": id_edit(lambda c: c.pop()),
        "id cell reordered": id_edit(lambda c: c.reverse()),
    }


def raw_cases():
    return {
        "truncated file": lambda t: t[: len(t) // 2],
        "empty file": lambda t: "",
        "flipped digit": lambda t: flip_digit(t),
        "not json": lambda t: "this is not json",
    }


def flip_digit(t):
    i = t.index('"finals"') if '"finals"' in t else t.index('"outcomes"')
    i = t.index("]", i) - 1
    while not t[i].isdigit():
        i -= 1
    while not t[i].isdigit():
        i += 1
    d = "1" if t[i] != "1" else "2"
    return t[:i] + d + t[i + 1:]


def main():
    scenarios = [
        ("regret", "paper-fig1a.ron", ["--runs", "6", "--horizon", "500"]),
        ("grid", "paper-table1.ron", ["--runs", "4", "--horizon", "200"]),
        ("sweep", "sweep-alpha.ron", ["--runs", "4", "--horizon", "200"]),
        ("identification", "spectrum-8ch-top3.ron", ["--runs", "4"]),
    ]
    tally = {"refused": 0, "merged (wrong)": 0, "panic or crash": 0}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, scenario, extra in scenarios:
            shards = []
            for i in range(2):
                d = os.path.join(tmp, f"{kind}-shard{i}")
                r = run("run", os.path.join(ROOT, "scenarios", scenario), "--shard", f"{i}/2", "--out", d, *extra)
                if r.returncode != 0:
                    print(f"skipping {kind}: {r.stderr.strip()[:120]}")
                    break
                shards.append(d)
            else:
                ok = run("merge", *shards, "--out", os.path.join(tmp, f"{kind}-merged"), "--no-charts")
                assert ok.returncode == 0, ok.stderr
                plan = [(n, f, fix) for n, f in cases().items() for fix in (False, True)]
                plan += [(n, f, None) for n, f in raw_cases().items()]
                for n, (name, damage, fix) in enumerate(plan):
                    d = os.path.join(tmp, f"{kind}-case{n}")
                    shutil.copytree(shards[1], d)
                    p = os.path.join(d, "partial.json")
                    try:
                        if fix is None:
                            text = open(p).read()
                            open(p, "w").write(damage(text))
                        else:
                            doc = load(p)
                            damage(doc)
                            save(p, doc, fix)
                    except (KeyError, IndexError, ValueError, TypeError) as e:
                        if fix is None:
                            print(f"{kind}: {name}: not applicable ({e!r})")
                        continue
                    r = run("merge", shards[0], d, "--out", os.path.join(tmp, f"{kind}-out{n}"), "--no-charts")
                    label = f"{kind}: {name}" + ("" if fix is None else (" (checksum recomputed)" if fix else ""))
                    if r.returncode == 1:
                        outcome = "refused"
                    elif r.returncode == 0:
                        outcome = "merged (wrong)"
                    else:
                        outcome = "panic or crash"
                    tally[outcome] += 1
                    rows.append((label, outcome, (r.stderr.strip().splitlines() or [""])[-1][:170]))
    for label, outcome, msg in rows:
        print(f"{label:62} {outcome:15} {msg}")
    print(f"\n{sum(tally.values())} tampered partials: " + ", ".join(f"{v} {k}" for k, v in tally.items()))
    sys.exit(0 if tally["refused"] == sum(tally.values()) else 1)


if __name__ == "__main__":
    main()
