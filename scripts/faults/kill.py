#!/usr/bin/env python3
"""Kills, interrupts, a full disk and concurrent runs against a folder holding complete earlier
results. After each fault the folder must be byte-identical to the complete old set or the
complete new set (never mixed), and the next run must leave no staging folder behind.

    scripts/faults/kill.py [SPECPROBE] [--trials N]   (default: target/release/specprobe, 72)

Faults: SIGKILL at random instants over the whole run; SIGKILL at every file boundary of the
write phase and around the swap (SPECPROBE_FAULT=pause-...); SIGINT and SIGTERM mid-simulation
(exit status, time to exit); a full disk (a small tmpfs when this user may mount one, and the
injected ENOSPC of SPECPROBE_FAULT=fail-file:N otherwise); two runs started together.
"""
import hashlib, os, random, shutil, signal, subprocess, sys, tempfile, time

args = [a for a in sys.argv[1:] if not a.startswith("--")]
B = os.path.abspath(args[0] if args else "target/release/specprobe")
TRIALS = int(sys.argv[sys.argv.index("--trials") + 1]) if "--trials" in sys.argv else 72
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = os.path.join(ROOT, "scenarios", "paper-fig1a.ron")
BASE = ["--runs", "4", "--horizon", "20000"]


def snapshot(d):
    """Regular files and their hashes (the marker included)."""
    if not os.path.isdir(d):
        return None
    out = {}
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            out[name] = hashlib.sha256(open(p, "rb").read()).hexdigest()
        else:
            out[name] = "<not a file>"
    return out


def leftovers(parent, name):
    return [n for n in os.listdir(parent) if n.startswith(f".{name}.") and not n.endswith(".lock")]


def cmd(out, seed, extra=()):
    return [B, "run", SCENARIO, "--out", out, "--seed", str(seed), *BASE, *extra]


def classify(state, old, new):
    if state == old:
        return "old"
    if state == new:
        return "new"
    return "MIXED"


def main():
    tally = {}
    def count(what, outcome):
        tally.setdefault(what, {}).setdefault(outcome, 0)
        tally[what][outcome] += 1
    tmp = tempfile.mkdtemp()
    try:
        ref_old, ref_new = os.path.join(tmp, "ref-old"), os.path.join(tmp, "ref-new")
        subprocess.run(cmd(ref_old, 1), check=True, capture_output=True)
        subprocess.run(cmd(ref_new, 2), check=True, capture_output=True)
        old, new = snapshot(ref_old), snapshot(ref_new)
        t0 = time.monotonic()
        subprocess.run(cmd(os.path.join(tmp, "timing"), 2), check=True, capture_output=True)
        duration = time.monotonic() - t0
        files = len([n for n in new if not n.startswith(".")])

        def fresh(name):
            d = os.path.join(tmp, name)
            shutil.copytree(ref_old, d)
            return d

        def after(what, d):
            state = classify(snapshot(d), old, new)
            count(what, state)
            left = leftovers(tmp, os.path.basename(d))
            if left:
                count(what, "staging left after the fault (cleaned by the next run)")
            r = subprocess.run(cmd(d, 2), capture_output=True)
            if r.returncode != 0 or leftovers(tmp, os.path.basename(d)) or snapshot(d) != new:
                count(what, "NEXT RUN FAILED OR LEFT TEMP FILES")

        # 1. SIGKILL at random instants over the whole run.
        rng = random.Random(7)
        for i in range(TRIALS):
            d = fresh(f"random{i}")
            p = subprocess.Popen(cmd(d, 2), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0, duration * 1.2))
            p.send_signal(signal.SIGKILL)
            p.wait()
            after("SIGKILL at a random instant", d)

        # 2. SIGKILL at every file boundary of the write phase and around the swap.
        points = [f"pause-after-file:{n}" for n in range(1, files + 2)] + ["pause-before-swap", "pause-after-swap"]
        for i, point in enumerate(points):
            d = fresh(f"boundary{i}")
            env = dict(os.environ, SPECPROBE_FAULT=point)
            p = subprocess.Popen(cmd(d, 2), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
            line = p.stderr.readline()
            if "paused" not in line:
                p.wait()
                count("SIGKILL at a file boundary", "run ended without pausing: " + point)
                continue
            p.send_signal(signal.SIGKILL)
            p.wait()
            after("SIGKILL at a file boundary", d)

        # 3. SIGINT and SIGTERM mid-simulation (a long run), then exit status and delay.
        for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            for i in range(5):
                d = fresh(f"sig{sig}-{i}")
                p = subprocess.Popen([B, "run", SCENARIO, "--out", d, "--seed", "2", "--runs", "8", "--horizon", "100000000"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(1.0 + 0.2 * i)
                t = time.monotonic()
                p.send_signal(sig)
                rc = p.wait()
                waited = time.monotonic() - t
                what = f"{signal.Signals(sig).name} mid-simulation"
                count(what, f"exit {rc}" + ("" if rc == code else " (WRONG)"))
                count(what, "stopped within 1 s" if waited < 1.0 else f"SLOW: {waited:.2f} s")
                count(what, classify(snapshot(d), old, new))
                if leftovers(tmp, os.path.basename(d)):
                    count(what, "STAGING LEFT")

        # 4. A full disk: injected at every file, and a real small tmpfs when possible.
        for n in range(1, files + 2):
            d = fresh(f"enospc{n}")
            env = dict(os.environ, SPECPROBE_FAULT=f"fail-file:{n}")
            r = subprocess.run(cmd(d, 2), capture_output=True, env=env)
            count("disk full (injected ENOSPC)", "error" if r.returncode == 1 else f"exit {r.returncode}")
            count("disk full (injected ENOSPC)", classify(snapshot(d), old, new))
            if leftovers(tmp, os.path.basename(d)):
                count("disk full (injected ENOSPC)", "STAGING LEFT")
        mnt = os.path.join(tmp, "tiny")
        os.mkdir(mnt)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mnt], capture_output=True).returncode == 0:
            try:
                size = sum(os.path.getsize(os.path.join(ref_new, n)) for n in new)
                for i, spare in enumerate(range(size // 20, size + size // 2, size // 20)):
                    for n in os.listdir(mnt):
                        shutil.rmtree(os.path.join(mnt, n), ignore_errors=True) if os.path.isdir(os.path.join(mnt, n)) else os.remove(os.path.join(mnt, n))
                    d = os.path.join(mnt, "out")
                    shutil.copytree(ref_old, d)
                    st = os.statvfs(mnt)
                    free = st.f_bavail * st.f_frsize
                    fill = max(0, free - spare)
                    with open(os.path.join(mnt, "filler"), "wb") as f:
                        f.write(b"\0" * fill)
                    r = subprocess.run(cmd(d, 2), capture_output=True)
                    what = "disk full (real tmpfs)"
                    count(what, "error" if r.returncode == 1 else ("completed" if r.returncode == 0 else f"exit {r.returncode}"))
                    count(what, classify(snapshot(d), old, new))
                    if [n for n in os.listdir(mnt) if n.startswith(".out.") and not n.endswith(".lock")]:
                        count(what, "STAGING LEFT")
            finally:
                subprocess.run(["umount", mnt], capture_output=True)

        # 5. Two runs started together into one folder.
        for i in range(20):
            d = fresh(f"concurrent{i}")
            a = subprocess.Popen(cmd(d, 2), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            b = subprocess.Popen(cmd(d, 3), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            ra, rb = a.wait(), b.wait()
            ea, eb = a.stderr.read(), b.stderr.read()
            locked = sum("being written by another specprobe" in e for e in (ea, eb))
            what = "two runs into one folder"
            count(what, f"exits {sorted([ra, rb])}, {locked} lock message(s)")
            state = snapshot(d)
            subprocess.run(cmd(os.path.join(tmp, f"ref3-{i}"), 3), capture_output=True)
            new3 = snapshot(os.path.join(tmp, f"ref3-{i}"))
            count(what, "seed 2 complete" if state == new else "seed 3 complete" if state == new3 else "old" if state == old else "MIXED")
    finally:
        subprocess.run(["umount", os.path.join(tmp, "tiny")], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    bad = 0
    for what, outcomes in tally.items():
        print(what)
        for outcome, n in sorted(outcomes.items()):
            print(f"    {n:4}  {outcome}")
            if any(w in outcome for w in ("MIXED", "WRONG", "SLOW", "FAILED", "STAGING LEFT")):
                bad += n
    print(f"\n{bad} bad outcomes")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
