#!/usr/bin/env bash
# Run a scenario in N shards on this machine (or, with GNU parallel's --sshlogin, on several)
# and merge them.
#
#   scripts/parallel-shards.sh scenarios/paper-fig1a.ron 4 results/paper-fig1a
#
# Uses GNU parallel when installed, xargs -P otherwise. Extra arguments after the third are
# passed to every `specprobe run` (e.g. --runs 1000 --threads 1).
#
# The binary: $SPECPROBE if set, else `specprobe` on the PATH, else this checkout's
# target/release/specprobe, built with `cargo build --release --locked` when missing.
set -euo pipefail
scenario=${1:?usage: parallel-shards.sh SCENARIO SHARDS OUT_DIR [run options...]}
shards=${2:?number of shards}
out=${3:?output folder}
shift 3
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${SPECPROBE:-}" ]; then
    specprobe=$SPECPROBE
elif command -v specprobe >/dev/null 2>&1; then
    specprobe=specprobe
else
    specprobe=$here/target/release/specprobe
    if [ ! -x "$specprobe" ]; then
        echo "parallel-shards.sh: no specprobe on the PATH; building $specprobe" >&2
        (cd "$here" && cargo build --release --locked --quiet)
    fi
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/specprobe-shards.XXXXXX")
trap 'rm -rf "$work"' EXIT
if command -v parallel >/dev/null 2>&1; then
    seq 0 $((shards - 1)) | parallel --halt now,fail=1 \
        "$specprobe" run "$scenario" --shard {}/"$shards" --out "$work"/{} "$@"
else
    seq 0 $((shards - 1)) | xargs -P "$shards" -I{} \
        "$specprobe" run "$scenario" --shard {}/"$shards" --out "$work"/{} "$@"
fi
"$specprobe" merge "$work"/* --out "$out"
