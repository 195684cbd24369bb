#!/usr/bin/env python3
"""Rewrites `crate::old` module paths to `crate::new` in every .rs file under the given roots
(a tool for moving modules between folders; mapping pairs on the command line: old=new)."""
import re, sys, os
pairs = [a.split("=") for a in sys.argv[1:] if "=" in a]
roots = [a for a in sys.argv[1:] if "=" not in a] or ["src"]
# longest first so that a::b maps before a
pairs.sort(key=lambda p: -len(p[0]))
for root in roots:
    for d, _, fs in os.walk(root):
        for f in fs:
            if not f.endswith(".rs"):
                continue
            p = os.path.join(d, f)
            t = open(p, encoding="utf-8").read()
            n = t
            for old, new in pairs:
                n = re.sub(r"(?<![\w:])crate::" + re.escape(old) + r"\b", "crate::" + new, n)
            if n != t:
                open(p, "w", encoding="utf-8").write(n)
