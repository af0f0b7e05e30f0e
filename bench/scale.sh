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
anon=$(echo "$runs" | cut -d' ' -f3 | sort -n | tail -1)
best=$(echo "$runs" | cut -d' ' -f1 | sort -n | head -1)
awk -v r="$rss" -v a="$anon" -v s="$size" -v t="$best" 'BEGIN { printf "diag analyze, one bundle: %.2f s; peak anonymous memory %.1f MiB = %.2fx the input; peak RSS (with the program'"'"'s own pages) %.1f MiB = %.2fx\n", t, a/1024, a*1024/s, r/1024, r*1024/s }'
offruns=$(for r in 1 2 3; do GOMEMLIMIT=off "$work/capbench" run "$work/diag" analyze -o json "$work/node-1"; done)
awk -v a="$(echo "$offruns" | cut -d' ' -f3 | sort -n | tail -1)" -v s="$size" -v t="$(echo "$offruns" | cut -d' ' -f1 | sort -n | head -1)" \
  'BEGIN { printf "  the same without the soft memory limit (GOMEMLIMIT=off): %.2f s; peak anonymous memory %.1f MiB = %.2fx\n", t, a/1024, a*1024/s }'

for k in 10 25 50; do
  args=()
  for i in $(seq 0 $((k - 1))); do args+=("$work/node-$i"); done
  best=$(for r in 1 2 3; do "$work/capbench" run "$work/diag" analyze -o json "${args[@]}"; done | sort -n | head -1)
  awk -v k="$k" -v t="$(echo "$best" | cut -d' ' -f1)" -v m="$(echo "$best" | cut -d' ' -f2)" \
    'BEGIN { printf "diag analyze, %2d bundles: %.2f s, %.1f ms per bundle, peak RSS %.0f MiB\n", k, t, t*1000/k, m/1024 }'
done
