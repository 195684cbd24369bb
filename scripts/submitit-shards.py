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
"""

import argparse
import os
import subprocess
import sys

import submitit


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
    argv = sys.argv[1:]
    # What follows `--` goes to every `specprobe run` untouched.
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    extra = argv[cut + 1:]
    if args.shards < 1:
        ap.error("shards must be at least 1")
    specprobe = os.environ.get("SPECPROBE", "specprobe")
    out = os.path.abspath(args.out)
    shards_dir = out + ".shards"
    executor = submitit.AutoExecutor(folder=out + ".logs", cluster=args.cluster)
    # Only what the user asked for: a fixed request larger than a node pends forever.
    params = {"timeout_min": args.timeout_min, "cpus_per_task": args.cpus}
    if args.partition:
        params["slurm_partition"] = args.partition
    executor.update_parameters(**params)
    n = args.shards
    jobs = executor.map_array(
        shard,
        [specprobe] * n,
        [os.path.abspath(args.scenario)] * n,
        range(n),
        [n] * n,
        [shards_dir] * n,
        [args.cpus] * n,
        [extra] * n,
    )
    print(f"submitted {n} tasks ({executor.cluster}): {jobs[0].job_id.split('_')[0]}",
          file=sys.stderr)
    folders = [job.result() for job in jobs]  # raises, with the task's log, if one failed
    subprocess.run([specprobe, "merge", *folders, "--out", out], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
