#!/usr/bin/env bash
# Quick start, command 2: set up everything and run every test: the GoogleTest suite and command-line checks
# (ctest), the same suite built with ASan and UBSan, then the Python suite (pytest).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
(cd "$root/build" && ctest --output-on-failure -j "$(nproc)" --timeout 600)
# the same C++ suite built with AddressSanitizer and UndefinedBehaviorSanitizer (no benchmarks, no LTO): any
# memory error, leak or undefined behaviour fails it
cmake -S "$root" -B "$root/build-sanitize" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
      -DCMSWITCH_SANITIZE=ON -DCMSWITCH_BUILD_BENCH=OFF -DCMSWITCH_IPO=OFF >/dev/null
cmake --build "$root/build-sanitize" -j "$(nproc)"
(cd "$root/build-sanitize" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
   LSAN_OPTIONS="suppressions=$root/tests/lsan.supp" UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j "$(nproc)" --timeout 900)
cd "$root"
"$root/.venv/bin/python" -m pytest -q tests/python
