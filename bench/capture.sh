#!/usr/bin/env bash
# Measures diag capture decode against the I/O limit and against tshark, on
# one generated VXLAN capture, in one run:
#   raw      pcapgo reading every packet, decoding nothing (the I/O limit)
#   diag     diag capture decode with every finding, output discarded
#   tshark   tshark -T fields (VNI, addresses, TCP flags), when installed
# and the peak memory of diag on 2M packets in 2,000 flows. Times are the
# best of three runs; peak memory the worst.
# Usage: bench/capture.sh [packets]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/diag" ./cmd/diag
go build -o "$work/capbench" ./bench/capbench
"$work/capbench" gen "$N" 2000 "$work/bench.pcap"
cat "$work/bench.pcap" > /dev/null # into the page cache
echo "capture: $N packets, 2000 concurrent flows, $(du -h "$work/bench.pcap" | cut -f1)"

# The machine is shared and noisy: each figure is the best of three runs.
best() { sort -n | head -1; }
n=$N
raw_s=$(for i in 1 2 3; do "$work/capbench" raw "$work/bench.pcap" | cut -d' ' -f2; done | best)
diag_runs=$(for i in 1 2 3; do "$work/capbench" run "$work/diag" capture decode --vni 4096 "$work/bench.pcap"; done)
diag_s=$(echo "$diag_runs" | cut -d' ' -f1 | best)
diag_rss=$(echo "$diag_runs" | cut -d' ' -f2 | sort -n | tail -1)
pps() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
raw_pps=$(pps "$n" "$raw_s")
diag_pps=$(pps "$n" "$diag_s")
printf "%-8s %12s packets/s\n" raw "$raw_pps"
printf "%-8s %12s packets/s   %.0f%% of raw   peak RSS %d MiB\n" diag "$diag_pps" "$(awk -v a="$diag_pps" -v b="$raw_pps" 'BEGIN{print 100*a/b}')" $((diag_rss / 1024))

if command -v tshark >/dev/null 2>&1; then
  read -r ts_s ts_rss _ < <("$work/capbench" run tshark -n -r "$work/bench.pcap" -T fields -e frame.number -e vxlan.vni -e ip.src -e ip.dst -e tcp.flags)
  ts_pps=$(pps "$n" "$ts_s")
  printf "%-8s %12s packets/s   diag is %.0fx faster   peak RSS %d MiB\n" tshark "$ts_pps" "$(awk -v a="$diag_pps" -v b="$ts_pps" 'BEGIN{print a/b}')" $((ts_rss / 1024))
else
  echo "tshark   not installed (apt-get install tshark to compare)"
fi

"$work/capbench" gen 2000000 2000 "$work/big.pcap"
read -r big_s big_rss _ < <("$work/capbench" run "$work/diag" capture decode --vni 4096 -o json "$work/big.pcap")
echo "memory   2,000,000 packets in 2,000 flows: peak RSS $((big_rss / 1024)) MiB"
