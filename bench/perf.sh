#!/usr/bin/env bash
# make perf: diag's whole-process figures on data the repository generates
# (bench/capbench, gen), each against its floor, side by side in one run:
#   analyze   diag analyze -o json of one node's bundle in an N-node cluster
#             (a zip) against only decoding its JSON with encoding/json;
#             peak RSS against the uncompressed input
#   paste     diag analyze -o json of that node's Get-HnsEndpoint output
#             pasted as Format-List text against the same endpoints as
#             ConvertTo-Json; peak RSS against the text; the same findings
# Times are the best of three runs, peak RSS the largest. It prints each
# ratio with its goal and exits 1 when one is missed.
# Usage: bench/perf.sh [nodes]   (default 1000; DIAG=path uses that binary)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

diag=${DIAG:-$work/diag}
[ -n "${DIAG:-}" ] || go build -o "$diag" ./cmd/diag
go build -o "$work/capbench" ./bench/capbench
cb=$work/capbench
"$cb" node "$N" 1 "$work/node" && "$cb" zip "$work/node" "$work/node.zip"
"$cb" paste "$N" "$work/paste"

# best3 CMD...: "seconds peakRSS-KiB" of three runs (best time, largest RSS).
best3() {
  for i in 1 2 3; do "$cb" run "$@"; done | awk '
    NR == 1 || $1 < t { t = $1 } $2 > r { r = $2 }
    END { printf "%.3f %d\n", t, r }'
}
rc=0
# check NAME T FLOOR RSS SIZE GOAL_T GOAL_RSS WHAT...: prints one line, and
# records a missed goal.
check() {
  local name=$1 t=$2 floor=$3 rss=$4 size=$5 gt=$6 gr=$7; shift 7
  if ! awk -v t="$t" -v f="$floor" -v r="$rss" -v s="$size" -v gt="$gt" -v gr="$gr" -v name="$name" -v what="$*" 'BEGIN {
      ratio = t / f; memx = r * 1024 / s
      printf "%-8s %s: %.2f s vs %.2f s, ratio %.2f (goal <= %s); peak RSS %.0f MB = %.1fx (goal <= %s)\n",
        name, what, t, f, ratio, gt, r / 1024, memx, gr
      exit !(ratio <= gt && memx <= gr) }'; then
    rc=1
  fi
}

"$diag" analyze -o json "$work/node.zip" >/dev/null || [ $? -eq 3 ]
read -r td rd < <(best3 "$diag" analyze -o json "$work/node.zip")
read -r tb _ < <(best3 "$cb" decode "$work/node.zip")
size=$("$cb" decode "$work/node.zip" | cut -d' ' -f2)
check analyze "$td" "$tb" "$rd" "$size" 1.25 2.5 "one node's bundle of a $N-node cluster ($((size >> 20)) MiB of JSON) against decoding its JSON"

for f in endpoints-list.txt endpoints.json; do
  "$diag" analyze -o json "$work/paste/$f" >"$work/$f.report" || [ $? -eq 3 ]
  "$cb" findings "$work/$f.report" >"$work/$f.ids"
done
read -r tt rt < <(best3 "$diag" analyze -o json "$work/paste/endpoints-list.txt")
read -r tj _ < <(best3 "$diag" analyze -o json "$work/paste/endpoints.json")
text=$(wc -c <"$work/paste/endpoints-list.txt")
check paste "$tt" "$tj" "$rt" "$text" 1.5 3 "Get-HnsEndpoint of a $N-node cluster as Format-List ($((text >> 20)) MiB) against the same as JSON"
if ! cmp -s "$work/endpoints-list.txt.ids" "$work/endpoints.json.ids"; then
  echo "paste    the text and the JSON give different findings:"; diff "$work/endpoints-list.txt.ids" "$work/endpoints.json.ids" | head; rc=1
fi
exit $rc
