# SPDX-License-Identifier: Apache-2.0
"""Scenario configurations: one validated dataclass per scenario of the core.

Field names carry their units (``buffer_kb`` is KB of 1024 bytes, ``min_rto_ms`` milliseconds, ``link_gbps``
Gbit/s). Types, ranges and choices come from the C++ parameter tables (``_core.describe``), so the Python
package and ``cmswitch-sim`` accept and refuse exactly the same values; a bad value raises ``ValueError``
naming the field and what is allowed, before any simulation starts.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, ClassVar, Dict, Mapping

from . import _core

__all__ = ["ScenarioConfig", "OverloadConfig", "IncastConfig", "BaselineConfig", "config_class", "CONFIG_CLASSES"]

# Python field names that differ from the core's (the config's own "scenario" is its class)
_RENAMED = {"baseline": {"baseline": "scenario"}}


@lru_cache(maxsize=None)
def _spec(scenario: str) -> Dict[str, dict]:
    return {p["name"]: p for p in _core.describe(scenario)["params"]}


def _fmt(x: float) -> str:
    return repr(float(x)) if not float(x).is_integer() else str(int(x)) if abs(x) < 1e15 else repr(float(x))


def _check(cls_name: str, name: str, value: Any, p: dict) -> None:
    where = f"{cls_name}.{name}"
    kind = p["type"]
    unit = f" {p['unit']}" if p.get("unit") else ""
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{where} = {value!r}: must be True or False")
        return
    if kind == "choice":
        if value not in p["choices"]:
            raise ValueError(f"{where} = {value!r}: allowed values are {', '.join(p['choices'])}")
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where} = {value!r}: must be a number ({kind}){unit}")
    if kind == "int" and not float(value).is_integer():
        raise ValueError(f"{where} = {value!r}: must be an integer")
    lo, hi = p["min"], p["max"]
    lo_open = p.get("min_open", False)
    if not math.isfinite(value) or value < lo or value > hi or (lo_open and value == lo):
        rng = f"{'(' if lo_open else '['}{_fmt(lo)}, {_fmt(hi)}]"
        raise ValueError(f"{where} = {value!r} is out of range: allowed {rng}{unit}")


@dataclass(frozen=True)
class ScenarioConfig:
    """Base of every scenario config: validation, conversion for the core, a stable hash."""

    scenario: ClassVar[str] = ""

    def __post_init__(self) -> None:
        spec = _spec(self.scenario)
        renamed = _RENAMED.get(self.scenario, {})
        for f in fields(self):
            core_name = renamed.get(f.name, f.name)
            if core_name not in spec:
                raise TypeError(f"{type(self).__name__}.{f.name} is not a parameter of scenario {self.scenario!r}")
            value = getattr(self, f.name)
            _check(type(self).__name__, f.name, value, spec[core_name])
            # one representation per value, so that equal configs hash equal (64 and 64.0 KB)
            kind = spec[core_name]["type"]
            if kind == "int":
                object.__setattr__(self, f.name, int(value))
            elif kind == "float":
                object.__setattr__(self, f.name, float(value))

    def replace(self, **changes: Any) -> "ScenarioConfig":
        """A copy with some fields changed (validated)."""
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise ValueError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}; "
                             f"fields are {', '.join(f.name for f in fields(self))}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> Dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_params(self) -> Dict[str, str]:
        """Parameters as the core parses them (exact: floats in shortest round-trip form)."""
        out = {}
        for k, v in self.to_dict().items():
            if isinstance(v, bool):
                out[k] = "true" if v else "false"
            elif isinstance(v, float):
                out[k] = repr(v)
            else:
                out[k] = str(v)
        return out

    def key(self, version: str) -> str:
        """Stable hash of the scenario, every field and the package version (the result store's key)."""
        blob = json.dumps({"scenario": self.scenario, "version": version,
                           "params": {k: v for k, v in sorted(self.to_dict().items())}},
                          sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> "ScenarioConfig":
        names = {f.name for f in fields(cls)}
        unknown = set(values) - names
        if unknown:
            raise ValueError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}; "
                             f"fields are {', '.join(sorted(names))}")
        return cls(**dict(values))


@dataclass(frozen=True)
class OverloadConfig(ScenarioConfig):
    """N UDP senders into one receiver through one switch; the receiver's port is the bottleneck."""

    scenario: ClassVar[str] = "overload"
    senders: int = 4
    link_gbps: float = 1.0
    delay_us: float = 1.0
    load: float = 1.25
    traffic: str = "cbr"
    frame_bytes: int = 1500
    txn_bytes: int = 1500
    buffer_policy: str = "static"
    buffer_kb: float = 150.0
    pool_kb: float = 1024.0
    alpha: float = 1.0
    nic_queue_kb: float = 1024.0
    duration_s: float = 1.0
    seed: int = 1
    sample_us: float = 1000.0
    series: bool = False
    event_domains: str = "shared"
    no_decoupling: bool = False
    warmup_s: float = 0.0
    cm: str = "none"
    qcn_cp: str = "standard"
    qcn_rp: str = "standard"
    qcn_rp_variant: str = "sef1"
    qcn_quantizer: str = "linear"
    qcn_qeq_kb: float = 25.390625
    qcn_w: float = 2.0
    qcn_sample_base_kb: float = 146.484375
    qcn_memory_decay_ms: float = 250.0
    qcn_detailed_min_kb: float = 0.9765625
    qcn_gd: float = 0.0078125
    qcn_min_rate_mbps: float = 10.0
    qcn_byte_counter_kb: float = 146.484375
    qcn_timer_ms: float = 15.0
    qcn_fast_recovery: int = 5
    qcn_rai_mbps: float = 5.0
    qcn_rhai_mbps: float = 50.0
    rate_sample_us: float = 1000.0
    qcn_rl_queue_kb: float = 1024.0


@dataclass(frozen=True)
class IncastConfig(ScenarioConfig):
    """Barrier-synchronized TCP incast (seed 000): a client fetches one SRU from each of `flows` servers."""

    scenario: ClassVar[str] = "incast"
    flows: int = 8
    buffer_kb: float = 128.0
    min_rto_ms: float = 200.0
    duration_s: float = 20.0
    seed: int = 1
    sru_kb: float = 256.0
    link_gbps: float = 1.0
    delay_us: float = 25.0
    delay_skew_ns: float = 0.0
    transport: str = "newreno"
    ecn: bool = False
    marking: str = "none"
    ecn_k_kb: float = 29.296875
    red_kmin_kb: float = 29.296875
    red_kmax_kb: float = 87.890625
    red_pmax: float = 0.1
    dctcp_g: float = 0.0625
    init_cwnd: int = 2
    limited_transmit: bool = True
    slow_start_after_idle: bool = True
    ssthresh_rule: str = "cwnd"
    sack: bool = False
    timestamps: bool = False
    request_timing: str = "simultaneous"
    rwnd_segments: int = 0
    delayed_ack: bool = False
    jitter_ns: float = 0.0
    jitter_scope: str = "all"
    bulk_flows: int = 0
    elephant_flows: int = 0
    elephant_min_mb: float = 100.0
    elephant_max_mb: float = 512.0
    udp_cbr_mbps: float = 0.0
    pause: str = "none"
    pause_xoff_kb: float = 0.0
    pause_xon_kb: float = 0.0
    cm: str = "none"
    qcn_cp: str = "standard"
    qcn_rp: str = "standard"
    qcn_rp_variant: str = "sef1"
    qcn_quantizer: str = "linear"
    qcn_qeq_kb: float = 25.390625
    qcn_w: float = 2.0
    qcn_sample_base_kb: float = 146.484375
    qcn_memory_decay_ms: float = 250.0
    qcn_detailed_min_kb: float = 0.9765625
    qcn_gd: float = 0.0078125
    qcn_min_rate_mbps: float = 10.0
    qcn_byte_counter_kb: float = 146.484375
    qcn_timer_ms: float = 15.0
    qcn_fast_recovery: int = 5
    qcn_rai_mbps: float = 5.0
    qcn_rhai_mbps: float = 50.0
    rate_sample_us: float = 1000.0
    qcn_rl_queue_kb: float = 1024.0
    sample_us: float = 1000.0
    series: bool = False
    trace: bool = False
    trace_acks: bool = False


@dataclass(frozen=True)
class BaselineConfig(ScenarioConfig):
    """IEEE 802.1Qau baselines of seed 002 at 10 Gb/s: og-hotspot, periodic-hotspot, pause-spreading, with the
    scheme in `cm` (tcp|udp, +qcn, +pause). Results: innocent vs victim throughput, queues per switch, PAUSE."""

    scenario: ClassVar[str] = "baseline"
    baseline: str = "og-hotspot"
    cm: str = "tcp-qcn-pause"
    link_gbps: float = 10.0
    duration_s: float = 1.0
    seed: int = 1
    hot_rate_gbps: float = 0.0
    loop_latency_us: float = 0.0
    txn_bytes: int = 9000
    buffer_kb: float = 146.484375
    pause_mode: str = "pause"
    pause_xoff_kb: float = 126.953125
    pause_xon_kb: float = 107.421875
    pause_quanta: int = 65535
    min_rto_ms: float = 10.0
    sample_us: float = 1000.0
    series: bool = True
    qcn_cp: str = "standard"
    qcn_rp: str = "standard"
    qcn_rp_variant: str = "sef1"
    qcn_quantizer: str = "linear"
    qcn_qeq_kb: float = 25.390625
    qcn_w: float = 2.0
    qcn_sample_base_kb: float = 146.484375
    qcn_memory_decay_ms: float = 250.0
    qcn_detailed_min_kb: float = 0.9765625
    qcn_gd: float = 0.0078125
    qcn_min_rate_mbps: float = 10.0
    qcn_byte_counter_kb: float = 146.484375
    qcn_timer_ms: float = 15.0
    qcn_fast_recovery: int = 5
    qcn_rai_mbps: float = 5.0
    qcn_rhai_mbps: float = 50.0
    rate_sample_us: float = 1000.0
    qcn_rl_queue_kb: float = 1024.0

    def to_params(self):
        p = super().to_params()
        p["scenario"] = p.pop("baseline")   # the core calls this field "scenario"
        return p


CONFIG_CLASSES = {c.scenario: c for c in (OverloadConfig, IncastConfig, BaselineConfig)}


def config_class(scenario: str):
    try:
        return CONFIG_CLASSES[scenario]
    except KeyError:
        raise ValueError(f"scenario = {scenario!r}: known scenarios are {', '.join(CONFIG_CLASSES)}") from None
