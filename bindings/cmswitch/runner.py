# SPDX-License-Identifier: Apache-2.0
"""Running one configuration."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional, Union

from . import _core
from .config import ScenarioConfig, config_class
from .result import Result, Tables


def run(config: ScenarioConfig, vcd: Optional[Union[str, os.PathLike]] = None, vcd_signals: str = "*",
        vcd_max_mb: float = 64) -> Result:
    """Run one scenario in a fresh simulation context and return its metrics.

    The GIL is released while the simulation runs; Ctrl-C stops it with KeyboardInterrupt (the model is torn
    down cleanly and the next run works). Raises ValueError for a bad config, RuntimeError if the model breaks
    an invariant (e.g. conservation of bytes).

    vcd: also write a value change dump (GTKWave, Surfer) of the signals whose names match `vcd_signals`
    (comma-separated glob patterns: queue depths <switch>.port<p>.bytes / q<c>_bytes, pause states paused<c> and
    xoff<c>, ingress<c>_bytes, pause_tx, headroom_bytes, host<h>.flow<f>.cwnd), at most vcd_max_mb MB (later
    changes are left out; the summary's vcd_truncated_at_ms says from when). The dump changes no result.
    """
    if not isinstance(config, ScenarioConfig):
        raise TypeError(f"run() takes a scenario config (e.g. cmswitch.IncastConfig), not {type(config).__name__}")
    if vcd is None:
        out = _core.run(config.scenario, config.to_params())
    else:
        if not isinstance(vcd_signals, str):
            raise ValueError(f"vcd_signals = {vcd_signals!r}: must be a string of glob patterns")
        out = _core.run(config.scenario, config.to_params(), vcd=os.fspath(vcd), vcd_signals=vcd_signals,
                        vcd_max_mb=float(vcd_max_mb))
    return Result(config=config, summary=out["summary"], tables=Tables(out["tables"]))


def run_summary(scenario: str, params: Dict[str, Any]) -> Dict[str, Any]:
    """A run's summary only (small to ship between processes)."""
    cfg = config_class(scenario).from_dict(params)
    return dict(_core.run(cfg.scenario, cfg.to_params())["summary"])


def sweep_point(scenario: str, params: Dict[str, Any]) -> Dict[str, Any]:
    """Worker entry point of sweeps: the summary, or {"infeasible": why} for a point the core refuses as a whole
    (a cross-field conflict such as a PFC headroom that does not fit), so that the sweep goes on."""
    try:
        return run_summary(scenario, params)
    except ValueError as e:
        return {"infeasible": str(e)}
