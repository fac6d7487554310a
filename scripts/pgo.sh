#!/usr/bin/env bash
# Profile-guided optimization, the training step (cmake/ProfileGuided.cmake): builds cmswitch-sim with profile
# counters in build-pgo/ and runs it on a training set, which leaves the counts in build-pgo/profile. A build
# configured with -DCMSWITCH_PROFILE_USE=<that directory> then compiles the model's libraries with them
# (scripts/setup.sh and bench/run.sh do). Prints the directory. About two minutes from nothing on 2 cores; at once
# when the counts are newer than the instrumented program (below). GCC only: with another compiler the training
# leaves no counts (the builds go without; cmake/ProfileGuided.cmake says so).
#
# The training set: every regression case (each scenario, scheme and option family, a short run each; they give
# the counts their breadth) and five longer runs of the paths where the time goes: the 20 s 16-flow incast's
# point, a 10 Gb/s incast of 256 flows, k = 4 fat-trees with DCTCP and with Linux hosts, and 0.3 ms of a k = 16
# one, whose thousands of pending events take the event calendar's other branches. The weights are chosen: a
# longer k = 16 run (1 ms) gave k = 16 3 % fewer instructions and the 16-flow incast 4 % more.
# Simulations are deterministic, but a few counts are not (code that reads the clock: progress, run costs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gen="$root/build-pgo"
profile="$gen/profile"

cmake -S "$root" -B "$gen" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMSWITCH_BUILD_TESTS=OFF \
  -DCMSWITCH_BUILD_BENCH=OFF -DCMSWITCH_PROFILE_GENERATE="$profile" >/dev/null
cmake --build "$gen" --target cmswitch-sim -j "$(nproc)" >&2   # (stdout is the directory, for the caller)
sim="$gen/cmswitch-sim"

# The counts of a training newer than the instrumented program and the training set are this source's: kept.
# A new training writes $profile/trained last, and the builds that use the counts recompile the libraries when
# it changes (cmake/ProfileGuided.cmake; the counts themselves differ from run to run in code that reads the
# clock, so the stamp is what says "trained again").
stamp="$profile/trained"
fresh=1
for input in "$sim" "$root/scripts/pgo.sh" "$root/tests/regression/cases.txt"; do
  [ "$stamp" -nt "$input" ] || fresh=0
done
if [ "$fresh" = 1 ]; then
  echo "$profile"
  exit 0
fi
rm -rf "$profile"

python3 - "$root/tests/regression" "$sim" <<'EOF'
import subprocess, sys
sys.path.insert(0, sys.argv[1])
from check import cases
for name, args in cases():
    subprocess.run([sys.argv[2], *args], stdout=subprocess.DEVNULL, check=True)
EOF
"$sim" incast --flows 16 --buffer-kb 256 --min-rto-ms 10 --duration-s 20 --sample-us 0 >/dev/null
"$sim" incast --flows 256 --link-gbps 10 --buffer-kb 256 --min-rto-ms 10 --duration-s 0.1 --sample-us 0 >/dev/null
"$sim" workload --topology fat-tree --fat-tree-k 4 --load 0.5 --transport dctcp --marking step --duration-s 0.01 \
  >/dev/null
"$sim" workload --topology fat-tree --fat-tree-k 4 --load 0.5 --transport dctcp --marking step --host-profile linux \
  --duration-s 0.005 >/dev/null
"$sim" workload --topology fat-tree --fat-tree-k 16 --load 0.5 --transport dctcp --marking step --duration-s 0.0003 \
  >/dev/null
mkdir -p "$profile"   # (no counts in it after another compiler than GCC)
date -u > "$stamp"
echo "$profile"
