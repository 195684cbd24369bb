#!/usr/bin/env python3
"""Symlinks planted where specprobe writes: at the lock file's name, at staging-like names beside
the destination, inside the folder being replaced, and at the names older versions used for
temporary and probe files. A planted link must never be followed: its target keeps its content.

    scripts/faults/symlinks.py [SPECPROBE]     (default: target/release/specprobe)
"""
import os, subprocess, sys, tempfile

B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/specprobe")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENARIO = os.path.join(ROOT, "scenarios", "paper-fig1a.ron")


def run(out, *extra):
    r = subprocess.run([B, "run", SCENARIO, "--out", out, "--runs", "2", "--horizon", "500", *extra],
                       capture_output=True, text=True)
    if "--force" in extra and "unexpected argument '--force'" in r.stderr:
        # Binaries before --force existed replaced any folder.
        return run(out, *[e for e in extra if e != "--force"])
    return r


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        victim = os.path.join(tmp, "victim.txt")
        victim_dir = os.path.join(tmp, "victim-dir")
        os.mkdir(victim_dir)
        open(os.path.join(victim_dir, "keep.txt"), "w").write("precious")
        parent = os.path.join(tmp, "results")
        os.mkdir(parent)
        out = os.path.join(parent, "fig")
        pid_guess = range(os.getpid(), os.getpid() + 400)
        plants = {
            "lock file": [os.path.join(parent, ".fig.lock")],
            "staging-like names (files)": [os.path.join(parent, f".fig.staging-{s}") for s in ("AAAAAA", "abc123", "zzzzzz")],
            "old-set-like names": [os.path.join(parent, f".fig.old-{s}") for s in ("AAAAAA", "abc123")],
            "older versions' temp names": [os.path.join(out, f".summary.json.tmp-{p}") for p in pid_guess]
            + [os.path.join(out, f".specprobe-write-test-{p}") for p in pid_guess],
            "files inside the replaced folder": [os.path.join(out, n) for n in ("summary.json", "report.md", "regret.png")],
        }
        for what, links in plants.items():
            open(victim, "w").write("keep")
            # A complete earlier result, then the planted links.
            os.makedirs(out, exist_ok=True)
            r = run(out, "--force")
            if r.returncode != 0:
                print("setup failed:", r.stderr)
                sys.exit(2)
            for link in links:
                if os.path.lexists(link):
                    os.remove(link)
                target = victim_dir if "staging" in what or "old-set" in what else victim
                os.symlink(target, link)
            r = run(out)
            intact = open(victim).read() == "keep" and open(os.path.join(victim_dir, "keep.txt")).read() == "precious"
            ok = intact
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {what:34} {len(links):4} link(s)  exit {r.returncode}  targets {'intact' if intact else 'CHANGED'}  {(r.stderr.strip().splitlines() or [''])[-1][:110]}")
            for link in links:
                if os.path.lexists(link) and os.path.islink(link):
                    os.remove(link)
        # plot over a folder whose summary.json is a link the user made: read through, stored as a file.
        open(victim, "w").write("keep")
        r = run(out, "--force")
        real = os.path.join(tmp, "elsewhere-summary.json")
        os.replace(os.path.join(out, "summary.json"), real)
        os.symlink(real, os.path.join(out, "summary.json"))
        before = open(real).read()
        r = subprocess.run([B, "plot", out, "--format", "svg"], capture_output=True, text=True)
        ok = r.returncode == 0 and open(real).read() == before and open(os.path.join(out, "summary.json")).read() == before
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {'plot over a linked summary.json':34}         exit {r.returncode}  link target {'intact' if open(real).read() == before else 'CHANGED'}, data kept")
    print(f"\n{bad} planted links followed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
