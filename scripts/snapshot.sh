#!/usr/bin/env bash
# Every shipped scenario through every command, small, into one folder: compare two builds'
# folders with `diff -r` to prove a refactor changed no byte (charts, reports, CSV, JSON, the
# text `validate` and `policies` print).
#
#   scripts/snapshot.sh target/release/specprobe /tmp/after
#   scripts/snapshot.sh /tmp/specprobe-old /tmp/before && diff -r /tmp/before /tmp/after
#
# Sizes are reduced (--runs, --horizon) so that the whole set takes about a minute; identification
# scenarios keep their horizon-free runs but only 2 of them.
set -euo pipefail
bin=${1:?usage: snapshot.sh SPECPROBE_BINARY OUT_DIR}
out=${2:?output folder}
bin=$(readlink -f "$bin")
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out"
mkdir -p "$out"
out=$(readlink -f "$out")
cd "$here"
"$bin" policies >"$out/policies.txt"
for s in scenarios/*.ron scenarios/*.json; do
    name=$(basename "$s")
    "$bin" validate "$s" >"$out/validate-$name.txt" 2>&1 || echo "exit $?" >>"$out/validate-$name.txt"
    case "$name" in
    paper-best1.ron | paper-topk.ron | spectrum-8ch-top3.ron)
        # The identification scenarios' cells are long at N = 500: two runs each.
        "$bin" run "$s" --runs 2 --threads 2 --out "$out/run-$name" >/dev/null 2>"$out/run-$name.err" || true
        ;;
    spectrum-wideband-1024.ron)
        "$bin" run "$s" --runs 2 --horizon 2000 --threads 2 --out "$out/run-$name" >/dev/null 2>"$out/run-$name.err" || true
        ;;
    *)
        "$bin" run "$s" --runs 3 --horizon 3000 --threads 2 --out "$out/run-$name" >/dev/null 2>"$out/run-$name.err" || true
        ;;
    esac
done
# Shards and merge, plot, compare.
"$bin" run scenarios/paper-fig1a.ron --runs 4 --horizon 2000 --shard 0/2 --out "$out/shard0" >/dev/null
"$bin" run scenarios/paper-fig1a.ron --runs 4 --horizon 2000 --shard 1/2 --out "$out/shard1" >/dev/null
"$bin" merge "$out/shard0" "$out/shard1" --out "$out/merged" >/dev/null
cp -r "$out/run-paper-fig1a.ron" "$out/replotted"
"$bin" plot "$out/replotted" --format svg --axis both --band sd >/dev/null
"$bin" compare scenarios/paper-fig1a.ron scenarios/peers-ucb1.ron --runs 2 --horizon 1000 --out "$out/compare" >/dev/null
# Markers carry the version only; staging names are random and never left behind.
find "$out" -name '*.err' -size 0 -delete
echo "snapshot written to $out"
