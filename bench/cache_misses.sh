#!/usr/bin/env bash
# Counts, with valgrind's cache simulator, what one switch frame costs the caches in a small and a large fabric:
# instructions, first-level data misses and misses of a simulated last level the size of one core's L2 (512 KB by
# default), per switch frame. The counts are the same on every run and on a loaded machine: a layout change shows
# here when the timings of a shared machine cannot resolve it (docs/performance.md).
# Usage: bench/cache_misses.sh [last-level KB, default 512]   (about 6 minutes: the k = 16 case runs 50 x slower)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="$root/build-bench"
ll_kb=${1:-512}
if ! [[ "$ll_kb" =~ ^[0-9]+$ ]] || ((ll_kb < 64 || ll_kb > 1048576)); then
  echo "last-level KB = '$ll_kb': give a whole number of KB in [64, 1048576]" >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMSWITCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target cmswitch-sim >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "Cache simulation (valgrind --tool=cachegrind, last level $ll_kb KB, 8-way, 64-byte lines) at commit"
echo "$(git -C "$root" describe --always --dirty): web search at 50 %, DCTCP, per switch frame sent."
echo
echo "| fabric | simulated | switch frames | instructions | L1 data misses | last-level misses |"
echo "|---|---|---|---|---|---|"
for case in "4 0.02" "16 0.002"; do
  read -r k dur <<<"$case"
  valgrind --tool=cachegrind --cache-sim=yes --LL=$((ll_kb * 1024)),8,64 --cachegrind-out-file="$tmp/cg.out" \
    "$build/cmswitch-sim" workload --topology fat-tree --fat-tree-k "$k" --load 0.5 --transport dctcp \
    --marking step --duration-s "$dur" >"$tmp/run.json" 2>"$tmp/cg.err"
  python3 - "$k" "$dur" "$tmp/run.json" "$tmp/cg.err" <<'EOF'
import json, re, sys
k, dur, run, err = sys.argv[1:]
summary = json.load(open(run))
summary = summary.get("summary", summary)
frames = summary["switch_frames_sent"]
text = open(err).read()
def count(label):
    return int(re.search(label + r":\s+([\d,]+)", text).group(1).replace(",", ""))
ir, d1, ll = count("I +refs"), count("D1 +misses"), count("LLd misses")
print(f"| k = {k} | {float(dur) * 1e3:g} ms of arrivals | {frames:,} | {ir / frames:.0f} | {d1 / frames:.1f} | "
      f"{ll / frames:.2f} |")
EOF
done
