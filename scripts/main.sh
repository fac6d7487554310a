#!/usr/bin/env bash
# Quick start, command 1: set up everything and run the main job.
# For now the main job is the N-to-1 overload demo: 8 UDP senders at 1.25x the receiver's 1 Gbps port, for
# two buffer sizes; it prints each run's metrics as JSON.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
for kb in 64 256; do
  echo "== overload: 8 senders, load 1.25, static buffer ${kb} KB per port, 1 s simulated" >&2
  "$root/build/cmswitch-sim" overload --senders 8 --load 1.25 --buffer-kb "$kb" --duration-s 1 --seed 1
done
