#!/usr/bin/env python3
"""Checks that Cargo.toml's rust-version is at least every locked dependency's.

`cargo metadata --locked` lists each package's declared rust-version; the largest among the
dependencies (normal, dev and build) is the real minimum toolchain. Run by .ci/run; exits 1,
naming the offending crates, when Cargo.toml claims less.
"""
import json
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
declared = re.search(r'^rust-version\s*=\s*"([^"]+)"', (root / "Cargo.toml").read_text(), re.M)
if not declared:
    sys.exit("Cargo.toml declares no rust-version")
meta = json.loads(
    subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
)


def version(v):
    return tuple(int(x) for x in (v.split(".") + ["0", "0"])[:3])


ours = version(declared.group(1))
needs = sorted(
    ((version(p["rust_version"]), p["name"], p["version"])
     for p in meta["packages"]
     if p.get("rust_version") and p["name"] != "specprobe"),
    reverse=True,
)
too_new = [n for n in needs if n[0] > ours]
if too_new:
    sys.exit(
        f"Cargo.toml says rust-version = {declared.group(1)}, but the locked dependencies need more: "
        + ", ".join(f"{name} {ver} needs {'.'.join(map(str, v))}" for v, name, ver in too_new)
    )
print(f"rust-version {declared.group(1)}: covers every locked dependency (the highest, {needs[0][1]} {needs[0][2]}, needs {'.'.join(map(str, needs[0][0]))})")
