"""Every Python fence of the README and the user guide runs as a user would paste it, from a
folder holding the repository's scenarios, with `specprobe.run` cut to two runs of 300 slots
(the fences' numbers are not checked here, their code is). The fences of one page run in order
in one namespace, as a reader runs them one after another."""

import os
import re
from pathlib import Path

import pytest

import specprobe

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "guide" / "src").glob("*.md"))


def fences(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def test_the_guide_has_python_fences():
    assert sum(len(fences(d)) for d in DOCS) >= 4


@pytest.mark.parametrize("doc", [d for d in DOCS if fences(d)], ids=lambda d: d.name)
def test_every_python_fence_runs(doc, tmp_path, monkeypatch):
    code = fences(doc)
    if any("gymnasium" in c for c in code):
        pytest.importorskip("gymnasium")
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    monkeypatch.chdir(tmp_path)
    run = specprobe.run

    def reduced(scenario, **kw):
        kw["runs"] = min(kw.get("runs") or 2, 2)
        kw["horizon"] = min(kw.get("horizon") or 300, 300)
        return run(scenario, **kw)

    monkeypatch.setattr(specprobe, "run", reduced)
    namespace = {}
    for i, c in enumerate(code):
        exec(compile(c, f"{doc.name}, python fence {i + 1}", "exec"), namespace)
