#!/usr/bin/env python3
"""Functions over a length limit (issue 49: none over 120 lines outside tests), in the Rust of
the given folders (a function runs from its `fn` line to the brace that closes it at the same
indentation) and in their Python (by the syntax tree). Tests are left out: `tests/`, a file's
`#[cfg(test)] mod tests` and functions marked `#[test]`, and Python files named test_*.py.

    python3 scripts/long-functions.py [--limit 120] [DIR ...]   (default: src python/src python/specprobe benches examples)

Exits 1 when a function is over the limit.
"""
import ast
import os
import re
import sys

FN = re.compile(r'^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+"C"\s+)?fn\s+(\w+)')


def rust(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    cut = next((i for i, l in enumerate(lines) if l.startswith("mod tests") and i and lines[i - 1] == "#[cfg(test)]"), len(lines))
    for i, line in enumerate(lines[:cut]):
        m = FN.match(line)
        if not m or (i and lines[i - 1].strip() == "#[test]"):
            continue
        indent = m.group(1)
        for j in range(i + 1, cut):
            if lines[j].rstrip() == indent + "}":
                yield m.group(8), i + 1, j - i + 1
                break


def python(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


def main():
    args = sys.argv[1:]
    limit = 120
    if "--limit" in args:
        i = args.index("--limit")
        limit = int(args[i + 1])
        del args[i:i + 2]
    dirs = args or ["src", "python/src", "python/specprobe", "benches", "examples"]
    over = []
    for top in dirs:
        for d, _, names in os.walk(top):
            for name in sorted(names):
                path = os.path.join(d, name)
                if name.endswith(".rs"):
                    found = rust(path)
                elif name.endswith(".py") and not name.startswith("test_"):
                    found = python(path)
                else:
                    continue
                over += [(n, path, line, fn) for fn, line, n in found if n > limit]
    for n, path, line, fn in sorted(over, reverse=True):
        print(f"{n:5}  {path}:{line}  {fn}")
    print(f"{len(over)} functions over {limit} lines")
    sys.exit(1 if over else 0)


if __name__ == "__main__":
    main()
