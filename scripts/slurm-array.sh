#!/usr/bin/env bash
# Run a scenario as a Slurm job array: one shard per array task, then merge.
#
#   sbatch --array=0-15 --cpus-per-task=4 scripts/slurm-array.sh scenarios/paper-fig1a.ron 16 shards/fig1a
#   # when every task is done:
#   specprobe merge shards/fig1a/* --out results/paper-fig1a
#
# Each task simulates the runs r with r % N == I and writes shards/fig1a/<I>/partial.json;
# `merge` checks that every shard is there exactly once and writes the same summary.json and
# curves.csv as an unsharded run, byte for byte. Arguments after the third are passed to every
# `specprobe run` (e.g. --runs 1000). The binary is $SPECPROBE, else `specprobe` on the PATH.
#
# The script asks Slurm for nothing beyond its defaults (one CPU a task): a fixed request such
# as 16 CPUs is accepted on a smaller node and then pends forever (Reason=PartitionConfig).
# Ask for what your nodes have on the sbatch line (--cpus-per-task, --time, --partition); each
# task uses the CPUs it was given.
#SBATCH --job-name=specprobe
set -euo pipefail
scenario=${1:?usage: slurm-array.sh SCENARIO SHARDS OUT_DIR [run options...]}
shards=${2:?number of shards}
out=${3:?output folder for the shards}
shift 3
index=${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-$((shards - 1))}
specprobe=${SPECPROBE:-specprobe}
"$specprobe" run "$scenario" --shard "$index/$shards" --threads "${SLURM_CPUS_PER_TASK:-1}" \
    --out "$out/$index" "$@"
