#!/usr/bin/env bash
# Builds the project in Release mode and records the speed benchmarks in bench/RESULTS.md.
# Usage: bench/run.sh [repetitions]   (run on an unloaded machine; the file notes the machine and its load)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build="$root/build-bench"
reps=${1:-3}
profile=$(bash "$root/scripts/pgo.sh")   # the libraries built as scripts/setup.sh builds them
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMSWITCH_BUILD_TESTS=OFF \
  -DCMSWITCH_PROFILE_USE="$profile" >/dev/null
cmake --build "$build" --target bench_forwarding bench_incast bench_machine bench_rdma bench_scale bench_testbed bench_workload >/dev/null
out="$here/RESULTS.md"
{
  echo "# Speed benchmarks"
  echo
  echo "Recorded by \`bench/run.sh\` on $(date -u +%Y-%m-%d) at commit $(git -C "$root" rev-parse --short HEAD)."
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
  echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "## The machine: the same fixed work, before and after the model's benchmarks"
  echo
  echo "CPU ns per step, best of $reps (bench/bench_machine.cpp): a dependent integer chain (the core's clock), 8"
  echo "independent adds (what the core issues: about 2.25 cycles of the chain's clock on a core of its own, more"
  echo "when another tenant shares it), and a random pointer chase over each size (the latency of the cache level or"
  echo "memory it lands in). The 16-host cases fit the caches (their time moves with the adds); the"
  echo "k = 16 fat-tree runs from memory. A record whose figures here are higher than"
  echo "another's was taken on a slower machine, whatever the code did."
  echo
  machine_header="| when | integer chain | 8 independent adds | chase 256 KB | chase 4 MB | chase 16 MB | chase 256 MB |"
  machine_rule="|---|---|---|---|---|---|---|"
  echo "$machine_header"
  echo "$machine_rule"
  echo "| before | $("$build/bench/bench_machine" "$reps" | sed 's/^| //')"
  echo
  echo "## Forwarding: N UDP CBR senders saturating one 1 Gbps port (load 1.1, 1500-byte frames)"
  echo
  echo "Events are the model's own event-queue entries dispatched (frame arrivals, transmitter wakeups, source"
  echo "timers); the shared, temporally decoupled event domain runs them (model/event_domain.h)."
  echo
  "$build/bench/bench_forwarding" "$reps"
  echo
  echo "## TCP incast: 20 s, 16 flows, 256 KB, minRTO 10 ms, 1 Gbps"
  echo
  echo "Budgets: at most 0.7 wall s (the speed target: htsim runs this point in 0.73 s here, ns-2 in 2.2-2.55 s,"
  echo "ns-3 in about 40 s), and the first row at most 0.40 CPU s (the scale target; htsim 0.60 CPU s on the same"
  echo "machine). The CPU s are the simulating thread's, set-up to teardown: they leave out the time another tenant"
  echo "held the core, not the slowing of one on the core's other hyperthread or in the shared caches. Data frames are"
  echo "those the switch sent to the client; as many ACKs cross the switch the other way."
  echo
  "$build/bench/bench_incast" "$reps"
  echo
  echo "## RDMA incast: 8 senders x 50 queue pairs, 40 Gb/s, PFC, 100 ms"
  echo
  echo "Target: at least 2 M data frames (through the bottleneck) per wall second."
  echo
  "$build/bench/bench_rdma" "$reps"
  echo
  echo "## Stewart et al.'s SCTP testbed: 11 hosts, incast client and two elephants, 60 s"
  echo
  echo "Target: 60 s simulated in well under a minute."
  echo
  "$build/bench/bench_testbed" "$reps"
  echo
  echo "## Datacenter workload: 32 x 25 Gb/s switch, web search at 60 % + a 31:1 incast every ms, 100 ms"
  echo
  echo "Target: at least 2 M frames per wall second."
  echo
  "$build/bench/bench_workload" "$reps"
  echo
  echo "## Scaling: cost per frame from 16 hosts to thousands (CPU seconds of the simulating thread; one run each, the fat-trees in three rounds)"
  echo
  echo "Targets: a k = 16 fat-tree's CPU ns per switch frame at most 2 x the k = 4 figure and its 20 ms under 20 CPU s;"
  echo "the 4,000-flow incast's CPU per data frame at most 2 x the 16-flow figure; under 10 KB per idle host at k = 16;"
  echo "set-up of a 4,000-host network under 0.3 CPU s."
  echo
  "$build/bench/bench_scale"
  echo
  echo "How to compare builds (instructions, cache misses, alternating pairs): [NOTES.md](NOTES.md)."
  echo
  echo "## The machine after the model's benchmarks (the same work as at the top)"
  echo
  echo "$machine_header"
  echo "$machine_rule"
  echo "| after | $("$build/bench/bench_machine" "$reps" | sed 's/^| //')"
  if [ -x "$root/.venv/bin/python" ]; then
    echo
    echo "## Python layer: sweep scaling and per-run overhead"
    echo
    echo "Sweep: 40 incast points (16 flows, 3 s simulated each) on 1 worker (in process) and 2 worker processes."
    echo
    "$root/.venv/bin/python" "$here/bench_python.py" "$reps"
  fi
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
