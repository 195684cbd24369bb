"""The submitit recipe on one machine (`--cluster local`): shards in waves merge into the
unsharded run byte for byte; a destination holding files specprobe did not write is refused
before anything runs; `--force` reaches `run` and `merge`.

    SPECPROBE=target/debug/specprobe python -m pytest -q scripts/test_submitit_shards.py
"""
import os
import subprocess
import sys

import pytest

pytest.importorskip("submitit")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SPECPROBE = os.environ.get("SPECPROBE", os.path.join(ROOT, "target", "debug", "specprobe"))
SCENARIO = os.path.join(ROOT, "scenarios", "paper-fig1a.ron")
ARGS = ["--runs", "6", "--horizon", "2000", "--no-charts"]


def recipe(out, *options):
    return subprocess.run(
        [sys.executable, os.path.join(HERE, "submitit-shards.py"), SCENARIO, "3", str(out),
         "--cluster", "local", *options, "--", *ARGS],
        env={**os.environ, "SPECPROBE": SPECPROBE}, capture_output=True, text=True, timeout=600)


def test_local_waves_merge_to_the_unsharded_run(tmp_path):
    whole = tmp_path / "whole"
    subprocess.run([SPECPROBE, "run", SCENARIO, "--out", str(whole), *ARGS], check=True,
                   capture_output=True)
    done = recipe(tmp_path / "merged", "--parallel", "2")
    assert done.returncode == 0, done.stderr
    # Two waves: tasks 0..1, then 2.
    assert "tasks 0..1 of 3" in done.stderr and "tasks 2..2 of 3" in done.stderr, done.stderr
    for name in ("summary.json", "curves.csv", "runs.csv"):
        assert (tmp_path / "merged" / name).read_bytes() == (whole / name).read_bytes(), name


def test_a_foreign_destination_is_refused_before_running(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my notes")
    refused = recipe(out)
    assert refused.returncode == 1
    assert "did not write" in refused.stderr and "--force" in refused.stderr, refused.stderr
    assert not (tmp_path / "mine.shards").exists()  # nothing ran
    assert (out / "notes.txt").read_text() == "my notes"
    forced = recipe(out, "--force")
    assert forced.returncode == 0, forced.stderr
    assert (out / "summary.json").exists()


def test_a_broken_scenario_is_refused_before_submitting(tmp_path):
    bad = tmp_path / "bad.ron"
    bad.write_text("Regret(name: \"x\")")
    done = subprocess.run(
        [sys.executable, os.path.join(HERE, "submitit-shards.py"), str(bad), "2",
         str(tmp_path / "out"), "--cluster", "local"],
        env={**os.environ, "SPECPROBE": SPECPROBE}, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert not (tmp_path / "out.logs").exists()
