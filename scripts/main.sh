#!/usr/bin/env bash
# Quick start, command 1: set up everything and run the main job.
# Until the buffer-sizing study lands, the main job is a small demo: the N-to-1 UDP overload for two buffer
# sizes, then TCP incast with 16 servers for the same two buffers; each run prints its metrics as JSON.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
for kb in 64 256; do
  echo "== overload: 8 senders, load 1.25, static buffer ${kb} KB per port, 1 s simulated" >&2
  "$root/build/cmswitch-sim" overload --senders 8 --load 1.25 --buffer-kb "$kb" --duration-s 1 --seed 1
done
for kb in 64 256; do
  echo "== incast: 16 servers, SRU 256 KB, buffer ${kb} KB, minRTO 10 ms, 2 s simulated" >&2
  "$root/build/cmswitch-sim" incast --flows 16 --buffer-kb "$kb" --min-rto-ms 10 --duration-s 2 --jitter-ns 500
done
