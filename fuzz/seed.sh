#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets: the shipped scenarios, and the results, partials
# and shards that specprobe writes for a few of them.
#   fuzz/seed.sh            (from the repository root; uses target/release/specprobe)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/specprobe
[ -x "$bin" ] || cargo build --release --locked
rm -rf fuzz/corpus && mkdir -p fuzz/corpus/scenario fuzz/corpus/results
find scenarios -name '*.ron' -o -name '*.json' | while read -r f; do cp "$f" fuzz/corpus/scenario/; done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
n=0
for s in paper-fig1a paper-table1 spectrum-8ch paper-best1 sweep-alpha spectrum-markov spectrum-trace multi-user-means multi-sweep-users multi-time-left identification-sweep-confidence; do
  f=scenarios/$s.ron
  [ -f "$f" ] || continue
  small=(--runs 2 --horizon 40)
  # Identification scenarios have no horizon.
  "$bin" validate "$f" 2>/dev/null | grep -qi 'identification' && small=(--runs 2)
  "$bin" run "$f" "${small[@]}" --out "$work/$s" --format svg >/dev/null 2>&1 || continue
  "$bin" run "$f" "${small[@]}" --shard 0/2 --out "$work/$s-0" >/dev/null 2>&1 || continue
  "$bin" run "$f" "${small[@]}" --shard 1/2 --out "$work/$s-1" >/dev/null 2>&1 || continue
  sep=$'\xff'
  { printf '\x02'; cat "$work/$s/summary.json"; printf '%s' "$sep"; cat "$work/$s/curves.csv" 2>/dev/null || true;
    printf '%s' "$sep"; cat "$work/$s/runs.csv" 2>/dev/null || true; } > "fuzz/corpus/results/plot-$s"
  for mode in 0 1; do
    { printf "\\x0$mode"; cat "$work/$s-0/partial.json"; printf '%s' "$sep"; cat "$work/$s-1/partial.json"; } \
      > "fuzz/corpus/results/merge$mode-$s"
  done
  n=$((n + 1))
done
echo "seeded: $(ls fuzz/corpus/scenario | wc -l) scenarios, $(ls fuzz/corpus/results | wc -l) results inputs from $n scenarios"
