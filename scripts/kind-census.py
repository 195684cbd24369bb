#!/usr/bin/env python3
"""How far the experiment kinds are told apart by hand (issue 49): every place production code
names a variant of one of the five closed kind enums (`Scenario`, `Results`, `ResultKind`,
`PartialBody`, `Rows`), per file, and how many of those files are shared, i.e. not a kind's own
(a path with regret/, identification/, multi_user/, sweep/ or kind.rs in it).

    python3 scripts/kind-census.py [SRC]   (default: src)

Test modules (`#[cfg(test)] mod tests` and what follows) and comments are left out; `Enum::new` and other
lower-case paths are methods, not variants.
"""
import os
import re
import sys

ENUMS = ["Scenario", "Results", "ResultKind", "PartialBody", "Rows"]
VARIANT = re.compile(r"\b(" + "|".join(ENUMS) + r")::([A-Z]\w*)")
OWN = re.compile(r"(regret|identification|identify|multi_user|multi|sweep)(/|\.rs$)|/kind\.rs$")


def census(root):
    files = {}
    for d, _, names in os.walk(root):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(d, name)
            text = open(path, encoding="utf-8").read()
            cut = text.find("#[cfg(test)]\nmod tests")
            if cut >= 0:
                text = text[:cut]
            code = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("//"))
            n = len(VARIANT.findall(code))
            if n:
                files[os.path.relpath(path, root)] = n
    return files


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "src"
    files = census(root)
    shared = {p: n for p, n in files.items() if not OWN.search(p)}
    print(f"variant references: {sum(files.values())} in {len(files)} files")
    print(f"shared files naming a kind's variant: {len(shared)} ({sum(shared.values())} references)")
    for p, n in sorted(shared.items(), key=lambda x: (-x[1], x[0])):
        print(f"  {n:4}  {p}")


if __name__ == "__main__":
    main()
