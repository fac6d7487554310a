#!/usr/bin/env bash
# All set-up for a fresh machine, safe to run again (installs only what is missing):
#  1. Debian packages: compiler, CMake, SystemC, GoogleTest, Python venv support;
#  2. the C++ build in build/ (library layers, cmswitch-sim, GoogleTest suite, benchmarks), its libraries
#     compiled with the profile counts of a training build in build-pgo/ (scripts/pgo.sh; GCC);
#  3. a Python virtual environment in .venv with the cmswitch package (pip install ., which builds the
#     pybind11 extension with scikit-build-core) and its test dependencies from PyPI.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=(g++ cmake ninja-build pkg-config libsystemc-dev libgtest-dev python3 python3-venv python3-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# profile-guided optimization (GCC): train in build-pgo/, then compile the libraries with its counts
profile=$(bash "$root/scripts/pgo.sh")
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMSWITCH_PROFILE_USE="$profile" >/dev/null
cmake --build "$root/build" -j "$(nproc)"

py=${PYTHON:-python3}
if [ ! -x "$root/.venv/bin/python" ]; then
  "$py" -m venv "$root/.venv"
  "$root/.venv/bin/python" -m pip install -q --upgrade pip
fi
"$root/.venv/bin/python" -m pip install -q -C cmake.define.CMSWITCH_PROFILE_USE="$profile" "$root[test]"
