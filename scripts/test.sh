#!/usr/bin/env bash
# Quick start, command 2: set up everything and run every test.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" --timeout 600
