#!/usr/bin/env bash
# Quick start, command 2: set up everything and run every test: the GoogleTest suite and command-line checks
# (ctest), the embed example built against the installed CMake package, the same suite built with ASan and
# UBSan, then the Python suite (pytest).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
# the house style: C++ as clang-format 18 writes it (.clang-format), Python as ruff and mypy accept it
# (pyproject.toml); the tools come with the test extras, pinned
(cd "$root" && git ls-files -z '*.cpp' '*.h' | xargs -0 "$root/.venv/bin/clang-format" --dry-run -Werror)
(cd "$root" && "$root/.venv/bin/ruff" check --quiet . && "$root/.venv/bin/mypy")
(cd "$root/build" && ctest --output-on-failure -j "$(nproc)" --timeout 600)
# the CMake package: install into a temporary prefix, build examples/embed against it (find_package(cmswitch))
# and run it (a user's sc_main with a switch of the model behind TLM-2.0 generic-payload bridges)
embed=$(mktemp -d)
trap 'rm -rf "$embed"' EXIT
cmake --install "$root/build" --prefix "$embed/prefix" >/dev/null
cmake -S "$root/examples/embed" -B "$embed/build" -G Ninja -DCMAKE_PREFIX_PATH="$embed/prefix" >/dev/null
cmake --build "$embed/build"
"$embed/build/embed_switch" | tee "$embed/out.txt"
grep -q "conservation: ok" "$embed/out.txt"
# the same C++ suite built with AddressSanitizer and UndefinedBehaviorSanitizer (no benchmarks, no LTO): any
# memory error, leak or undefined behaviour fails it
cmake -S "$root" -B "$root/build-sanitize" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
      -DCMSWITCH_SANITIZE=ON -DCMSWITCH_BUILD_BENCH=OFF -DCMSWITCH_IPO=OFF >/dev/null
cmake --build "$root/build-sanitize" -j "$(nproc)"
(cd "$root/build-sanitize" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j "$(nproc)" --timeout 900)
cd "$root"
"$root/.venv/bin/python" -m pytest -q tests/python
