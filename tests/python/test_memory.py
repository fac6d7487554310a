# SPDX-License-Identifier: Apache-2.0
"""Thousands of runs in one interpreter: each gets a fresh SystemC context and gives its memory back."""
import cmswitch


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_10000_full_runs_in_one_process_grow_memory_by_under_1_mb():
    # full runs (parse, validate, build, simulate, report, tear down), three scenarios in turn, every
    # run with its own seed; a leak of 100 bytes per run would show as 1 MB
    cfgs = [cmswitch.IncastConfig(flows=4, duration_s=0.002),
            cmswitch.OverloadConfig(senders=2, duration_s=0.0002, sample_us=0),
            cmswitch.RdmaIncastConfig(senders=2, qps=2, duration_s=0.0002)]
    for i in range(600):   # warm-up: allocator arenas, interned strings, the largest pools reach their size
        cmswitch.run(cfgs[i % 3].replace(seed=i + 1))
    before = rss_bytes()
    for i in range(10000):
        r = cmswitch.run(cfgs[i % 3].replace(seed=1000 + i))
        assert r["conservation_ok"]
    grown = rss_bytes() - before
    assert grown < 1024 * 1024, f"grew by {grown / 1024:.0f} KiB over 10,000 runs"
