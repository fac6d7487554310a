# SPDX-License-Identifier: Apache-2.0
"""A typed script against the cmswitch package: the config classes are generated from the C++ parameter tables
at import, and the shipped stub (cmswitch/config.pyi) gives them to type checkers, so that

    mypy --strict docs/examples/typed_sweep.py

checks every field name, type and choice below (tests/python/test_typing.py runs it). Run it with
    .venv/bin/python docs/examples/typed_sweep.py
"""
from __future__ import annotations

from typing import List

import cmswitch
from cmswitch import IncastConfig, OverloadConfig


def incast_points(buffers_kb: List[float]) -> List[IncastConfig]:
    base = IncastConfig(flows=16, min_rto_ms=10.0, duration_s=0.2, transport="dctcp", marking="step", ecn_k_kb=20.0)
    return [base.replace(buffer_kb=b) for b in buffers_kb]


def pfc_split(cfg: IncastConfig) -> cmswitch.PauseSplit:
    """The XOFF/XON the pause scheme would choose for this buffer (the core's rule, not a copy of it)."""
    return cmswitch.pause_split(cfg.buffer_kb, cfg.flows, cfg.link_gbps, cfg.delay_us)


def goodput_mbps(cfg: IncastConfig) -> float:
    return float(cmswitch.run(cfg).summary["goodput_mbps"])


def main() -> None:
    for cfg in incast_points([64.0, 256.0]):
        split = pfc_split(cfg)
        print(f"{cfg.buffer_kb:6.1f} KB: DCTCP goodput {goodput_mbps(cfg):6.1f} Mbps; "
              f"PFC XOFF would be {split.xoff_bytes} B (lossless: {split.lossless})")
    udp = OverloadConfig(senders=4, load=1.5, buffer_policy="dynamic", duration_s=0.05)
    print(f"overload at 1.5 x line rate: {cmswitch.run(udp).summary['drops']} drops")


if __name__ == "__main__":
    main()
