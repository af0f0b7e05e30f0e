#!/usr/bin/env bash
# Peak memory of diag analyze on the bundle of one node in an N-node
# cluster, against the bundle's uncompressed size (the goal is under 4x),
# and the time of analyzing K bundles of that cluster at once (it should
# grow linearly with K). Peak memory is the worst of three runs, times the
# best. Usage: bench/scale.sh [nodes]   (default 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/diag" ./cmd/diag
go build -o "$work/capbench" ./bench/capbench
for i in $(seq 0 49); do "$work/capbench" node "$N" "$i" "$work/node-$i"; done
size=$(du -sb "$work/node-1" | cut -f1)
echo "bundle of one node in a $N-node cluster: $size bytes uncompressed"

runs=$(for r in 1 2 3; do "$work/capbench" run "$work/diag" analyze -o json "$work/node-1"; done)
rss=$(echo "$runs" | cut -d' ' -f2 | sort -n | tail -1)
awk -v r="$rss" -v s="$size" 'BEGIN { printf "diag analyze, one bundle: peak RSS %.1f MiB = %.2fx the input\n", r/1024, r*1024/s }'

for k in 10 25 50; do
  args=()
  for i in $(seq 0 $((k - 1))); do args+=("$work/node-$i"); done
  best=$(for r in 1 2 3; do "$work/capbench" run "$work/diag" analyze -o json "${args[@]}"; done | sort -n | head -1)
  awk -v k="$k" -v t="$(echo "$best" | cut -d' ' -f1)" -v m="$(echo "$best" | cut -d' ' -f2)" \
    'BEGIN { printf "diag analyze, %2d bundles: %.2f s, %.1f ms per bundle, peak RSS %.0f MiB\n", k, t, t*1000/k, m/1024 }'
done
