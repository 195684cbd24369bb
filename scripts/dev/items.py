"""Top-level items of a Rust file (with their doc comments and attributes), by name: a tool
for splitting files by concern."""
import re

ITEM = re.compile(r"^(pub(\([^)]*\))?\s+)?(const fn|async fn|unsafe fn|fn|struct|enum|trait|type|const|static|impl|mod|macro_rules!|use)\b")

def items(text):
    """[(name_or_header, start, end)] of top-level items; start includes docs/attrs."""
    lines = text.split("\n")
    out, i, n = [], 0, len(lines)
    offs = [0]
    for l in lines:
        offs.append(offs[-1] + len(l) + 1)
    while i < n:
        l = lines[i]
        if ITEM.match(l):
            # back up over docs and attributes
            s = i
            while s > 0 and (lines[s-1].startswith("///") or lines[s-1].startswith("#[") or lines[s-1].startswith("#![") is False and lines[s-1].startswith("    ") and False):
                s -= 1
            # find end: brace matching or semicolon
            depth, j, started = 0, i, False
            while j < n:
                code = re.sub(r'//.*', '', lines[j])
                code = re.sub(r'"(\\.|[^"\\])*"', '""', code)
                code = re.sub(r"'(\\.|[^'\\])'", "''", code)
                for ch in code:
                    if ch == "{": depth += 1; started = True
                    elif ch == "}": depth -= 1
                if started and depth == 0:
                    break
                if not started and code.rstrip().endswith(";") and depth == 0:
                    break
                j += 1
            m = re.match(r"^(?:pub(?:\([^)]*\))?\s+)?(?:const fn|fn|struct|enum|trait|type|const|static|mod|macro_rules!)\s+(\w+)", l)
            name = m.group(1) if m else l.strip()
            out.append((name, offs[s], offs[j+1] if j+1 < len(offs) else len(text)))
            i = j + 1
        else:
            i += 1
    return out

def take(text, names):
    """(extracted text of the named items, in file order; the rest)."""
    its = [it for it in items(text) if it[0] in names]
    missing = set(names) - {it[0] for it in its}
    if missing:
        raise SystemExit(f"missing items: {missing}")
    got, rest, last = [], [], 0
    for name, s, e in its:
        rest.append(text[last:s]); got.append(text[s:e]); last = e
    rest.append(text[last:])
    return "\n".join(g.rstrip("\n") + "\n" for g in got), re.sub(r"\n{3,}", "\n\n", "".join(rest))
