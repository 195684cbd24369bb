"""Puts a bench's measured table into the README, so that its figures come from the bench and
are never typed by hand: the text between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` is
replaced whole (the markers stay; a README without them is an error naming them)."""
import re


def splice(readme, name, text):
    """Replaces the block `name` of the file `readme` with `text` (a markdown fragment)."""
    with open(readme, encoding="utf-8") as f:
        doc = f.read()
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if len(pattern.findall(doc)) != 1:
        raise SystemExit(f"{readme}: needs exactly one {start} … {end} block")
    doc = pattern.sub(lambda _: f"{start}\n{text.strip()}\n{end}", doc)
    with open(readme, "w", encoding="utf-8") as f:
        f.write(doc)
    print(f"wrote the measured table into {readme} ({start})")
