#!/usr/bin/env bash
# Quick start, command 2: set up everything and run every test: the GoogleTest suite and command-line checks
# (ctest), then the Python suite (pytest).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
(cd "$root/build" && ctest --output-on-failure -j "$(nproc)" --timeout 600)
cd "$root"
"$root/.venv/bin/python" -m pytest -q tests/python
