#!/usr/bin/env python3
"""Run a scenario as N shards through submitit, then merge them: the Python way onto Slurm.

    python scripts/submitit-shards.py scenarios/paper-fig1a.ron 16 results/paper-fig1a \
        --cpus 4 --timeout-min 60 -- --runs 1000

submitit (``pip install submitit``) submits one Slurm array task per shard when ``sbatch`` is on
the PATH, and runs them as local processes otherwise (``--cluster local`` forces that, to try a
recipe on one machine first). Each task runs ``specprobe run SCENARIO --shard I/N --out
OUT.shards/I``; when every task has finished, ``specprobe merge`` writes OUT, byte for byte what
an unsharded run writes. Arguments after ``--`` go to every ``specprobe run``. The binary is
``$SPECPROBE``, else ``specprobe`` on the PATH. The shard folders are kept (``OUT.shards``), as
the Slurm array script keeps its own; submitit's logs go to ``OUT.logs``.

Before anything runs, OUT and OUT.shards are checked: a folder that holds files specprobe did
not write (no ``.specprobe.json`` marker) is refused unless ``--force`` is given, which is then
passed to every ``specprobe run`` and to ``specprobe merge`` (so nothing is simulated only to be
refused at the end). ``--parallel P`` caps the tasks running at once: Slurm's array throttle
(``%P``), and locally the default is the machine's CPUs divided by ``--cpus`` (local mode used
to start every shard at once).
"""

import argparse
import os
import subprocess
import sys

MARKER = ".specprobe.json"


def shard(specprobe: str, scenario: str, index: int, shards: int, out: str, cpus: int,
          extra: list) -> str:
    """One array task: the runs r with r % shards == index, into out/index."""
    folder = os.path.join(out, str(index))
    subprocess.run(
        [specprobe, "run", scenario, "--shard", f"{index}/{shards}", "--threads", str(cpus),
         "--out", folder, *extra],
        check=True,
    )
    return folder


def foreign(folder: str) -> bool:
    """Whether `folder` exists, is not empty and is not a folder specprobe wrote."""
    if not os.path.exists(folder):
        return False
    if not os.path.isdir(folder):
        return True
    entries = os.listdir(folder)
    return bool(entries) and MARKER not in entries


def refuse_foreign(out: str, shards_dir: str, shards: int, force: bool) -> str | None:
    """Why the run must not start (a destination holds files specprobe did not write), or
    None. With --force, nothing is refused."""
    if force:
        return None
    if foreign(out):
        return (f"{out} exists and holds files specprobe did not write; "
                "choose another folder, or pass --force to this script to replace them")
    if os.path.exists(shards_dir) and not os.path.isdir(shards_dir):
        return f"{shards_dir} exists and is not a folder; remove it or pass --force"
    for i in range(shards):
        folder = os.path.join(shards_dir, str(i))
        if foreign(folder):
            return (f"{folder} exists and holds files specprobe did not write; "
                    "remove it or pass --force to this script")
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("shards", type=int)
    ap.add_argument("out", help="the merged results folder")
    ap.add_argument("--cpus", type=int, default=1, help="CPUs per task (default 1)")
    ap.add_argument("--timeout-min", type=int, default=60, help="per task (default 60)")
    ap.add_argument("--partition", help="Slurm partition (default: the cluster's)")
    ap.add_argument("--cluster", choices=["slurm", "local"],
                    help="default: slurm when sbatch is on the PATH, else local")
    ap.add_argument("--parallel", type=int,
                    help="tasks at once (default: all on Slurm; CPUs / --cpus locally)")
    ap.add_argument("--force", action="store_true",
                    help="replace whatever OUT and the shard folders hold (passed to run and merge)")
    argv = sys.argv[1:]
    # What follows `--` goes to every `specprobe run` untouched.
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    extra = argv[cut + 1:]
    if args.shards < 1:
        ap.error("shards must be at least 1")
    if args.cpus < 1:
        ap.error("--cpus must be at least 1")
    if args.parallel is not None and args.parallel < 1:
        ap.error("--parallel must be at least 1")
    specprobe = os.environ.get("SPECPROBE", "specprobe")
    out = os.path.abspath(args.out)
    shards_dir = out + ".shards"
    why = refuse_foreign(out, shards_dir, args.shards, args.force)
    if why:
        print(f"error: {why} (nothing was run)", file=sys.stderr)
        return 1
    # The scenario itself is checked before any task is submitted.
    checked = subprocess.run([specprobe, "validate", args.scenario], capture_output=True, text=True)
    if checked.returncode != 0:
        sys.stderr.write(checked.stderr)
        return checked.returncode
    if args.force and "--force" not in extra:
        extra = [*extra, "--force"]

    import submitit  # after the checks: a refusal needs no submitit

    executor = submitit.AutoExecutor(folder=out + ".logs", cluster=args.cluster)
    # Only what the user asked for: a fixed request larger than a node pends forever.
    params = {"timeout_min": args.timeout_min, "cpus_per_task": args.cpus}
    if args.partition:
        params["slurm_partition"] = args.partition
    local = executor.cluster == "local"
    if args.parallel and not local:
        params["slurm_array_parallelism"] = args.parallel
    executor.update_parameters(**params)
    n = args.shards
    # Locally, submitit starts every task of an array at once: submit in waves instead.
    wave = n
    if local:
        wave = args.parallel or max(1, (os.cpu_count() or 1) // args.cpus)
    folders = []
    for first in range(0, n, wave):
        chunk = range(first, min(n, first + wave))
        jobs = executor.map_array(
            shard,
            [specprobe] * len(chunk),
            [os.path.abspath(args.scenario)] * len(chunk),
            chunk,
            [n] * len(chunk),
            [shards_dir] * len(chunk),
            [args.cpus] * len(chunk),
            [extra] * len(chunk),
        )
        print(f"submitted tasks {chunk.start}..{chunk.stop - 1} of {n} ({executor.cluster}): "
              f"{jobs[0].job_id.split('_')[0]}", file=sys.stderr)
        folders.extend(job.result() for job in jobs)  # raises, with the task's log, if one failed
    merge = [specprobe, "merge", *folders, "--out", out]
    if args.force:
        merge.append("--force")
    subprocess.run(merge, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
