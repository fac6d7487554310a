# SPDX-License-Identifier: Apache-2.0
"""Thousands of runs in one interpreter: each gets a fresh SystemC context and gives its memory back."""
import cmswitch


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_1000_runs_in_one_process_do_not_grow_memory():
    cfg = cmswitch.OverloadConfig(senders=4, duration_s=0.002, sample_us=0)
    for _ in range(50):
        cmswitch.run(cfg)
    before = rss_bytes()
    for i in range(1000):
        r = cmswitch.run(cfg.replace(seed=i))
        assert r["conservation_ok"]
    grown = rss_bytes() - before
    assert grown < 4 * 1024 * 1024, f"grew by {grown / 1024:.0f} KiB over 1000 runs"
