"""Puts a bench's measured table into the user guide, so that its figures come from the bench and
are never typed by hand: the text between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` is
replaced whole (the markers stay). The target is a page, or a folder of pages (`guide/src`), in
which exactly one page holds the block; no block, or more than one, is an error naming them."""
import os
import re


def page_of(target, name):
    """The page of `target` (a file, or a folder of .md pages) holding block `name`."""
    start = f"<!-- bench:{name} -->"
    if not os.path.isdir(target):
        return target
    pages = [os.path.join(target, f) for f in sorted(os.listdir(target)) if f.endswith(".md")]
    holding = [p for p in pages if start in open(p, encoding="utf-8").read()]
    if len(holding) != 1:
        raise SystemExit(f"{target}: needs exactly one page with a {start} block (found {len(holding)})")
    return holding[0]


def splice(target, name, text):
    """Replaces the block `name` of the page `target` (or of the one page of the folder `target`
    that holds it) with `text` (a markdown fragment)."""
    page = page_of(target, name)
    with open(page, encoding="utf-8") as f:
        doc = f.read()
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if len(pattern.findall(doc)) != 1:
        raise SystemExit(f"{page}: needs exactly one {start} … {end} block")
    doc = pattern.sub(lambda _: f"{start}\n{text.strip()}\n{end}", doc)
    with open(page, "w", encoding="utf-8") as f:
        f.write(doc)
    print(f"wrote the measured table into {page} ({start})")
