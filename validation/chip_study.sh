#!/usr/bin/env bash
# The shared-buffer study on a Tomahawk-3-class chip (examples/switches/th3_32x100.json: 32 x 100G, 64 MB in
# 4 slices, 254-byte cells, service pools, cut-through) against the same switch with one ideal shared memory
# (th3_32x100_ideal.json), for two workloads: web search at 40 % plus a 31:1 incast every ms, and RPCs of
# 128-512 bytes at 20 % plus the same incast; drop-tail, DCTCP and PFC, 5 seeds each; then DCTCP on web search
# below 2 MB. Writes the six reports under ${OUT:-validation/chip_study} and the comparison
# (validation/chip_study.py) to comparison.md there: the tables of docs/chip-study.md, whose reading is written by
# hand from them. About 30 minutes on 2 cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=${OUT:-$root/validation/chip_study}
py=${PYTHON:-$root/.venv/bin/python}
common=(--schemes droptail,dctcp,pfc --seeds 1,2,3,4,5 --alphas 1 --target-slowdown 10)
for sw in th3_32x100 th3_32x100_ideal; do
  "$py" -m cmswitch study shared-buffer --switch "$root/examples/switches/$sw.json" --out "$out/websearch-$sw" \
    --buffers-kb 2048,4096,8192,16384,32768,65536 "${common[@]}" \
    --load 0.4 --duration-s 0.02 --drain-ms 10
  # DCTCP meets the target at every buffer above: where its answer lies, below 2 MB
  "$py" -m cmswitch study shared-buffer --switch "$root/examples/switches/$sw.json" --out "$out/websearch-small-$sw" \
    --buffers-kb 256,512,1024,2048 --schemes dctcp --seeds 1,2,3,4,5 --alphas 1 --target-slowdown 10 \
    --load 0.4 --duration-s 0.02 --drain-ms 10
  "$py" -m cmswitch study shared-buffer --switch "$root/examples/switches/$sw.json" --out "$out/rpc-$sw" \
    --buffers-kb 1024,2048,4096,8192,16384 "${common[@]}" \
    --load 0.2 --flow-sizes "$root/examples/flow_sizes/rpc_128_512.csv" --duration-s 0.005 --drain-ms 5
done
"$py" "$root/validation/chip_study.py" "$out" > "$out/comparison.md"   # the tables of docs/chip-study.md
"$py" "$root/validation/chip_study_isolate.py"   # its isolation table
