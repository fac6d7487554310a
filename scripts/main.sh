#!/usr/bin/env bash
# Quick start, command 1: set up everything and run the main job, the buffer-sizing study: TCP incast over
# buffer sizes x flow counts for every congestion-management scheme and two TCP minimum RTOs. It writes a report
# folder (default report/; give another as the first argument): points.csv, min_buffer.csv, PNG plots,
# report.md and index.html (five seeds per point for 95 % confidence intervals). 12-15 minutes on 2 cores
# after the set-up.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
out=${1:-report}
"$root/.venv/bin/cmswitch" study buffer-sizing --out "$out"
