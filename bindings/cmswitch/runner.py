# SPDX-License-Identifier: Apache-2.0
"""Running one configuration.

One simulation at a time per process: SystemC keeps its current simulation context in process-wide globals, so
runs from several threads of one interpreter wait for each other (each gives exactly the result it gives alone;
the GIL is released while one runs). Parallelism comes from processes: ``sweep`` forks workers.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, Optional, Union

from . import _core
from .config import ScenarioConfig, budget_mb, config_class
from .result import Result, Tables

Progress = Union[None, bool, Callable[[Dict[str, Any]], None]]


def _print_line(p: Dict[str, Any]) -> None:
    print(f"cmswitch: {p['line']}", file=sys.stderr, flush=True)


def _progress_callback(progress: Progress) -> Optional[Callable[[Dict[str, Any]], None]]:
    if progress is None or progress is True:
        return _print_line
    if progress is False:
        return None
    if not callable(progress):
        raise ValueError(f"progress = {progress!r}: True, False, None or a callable taking a dict")
    return progress


def run(config: ScenarioConfig, vcd: Optional[Union[str, os.PathLike]] = None, vcd_signals: str = "*",
        vcd_max_mb: float = 64, progress: Progress = None, memory_budget_mb: Optional[float] = None) -> Result:
    """Run one scenario in a fresh simulation context and return its metrics.

    The GIL is released while the simulation runs; Ctrl-C stops it with KeyboardInterrupt within a second, while
    it builds the model as while it runs (the model is torn down cleanly and the next run works). Raises
    ValueError for a bad config, RuntimeError if the model breaks an invariant (e.g. conservation of bytes).

    One simulation at a time per process: a run started from another thread waits for the running one.

    progress: a run that lasts over 5 s of wall time prints a line on stderr every few seconds (simulated time,
    model events per second, time left); False: none; a callable gets a dict (phase, wall_s, simulated_s, end_s,
    events, events_per_s, left_s, line) instead; an exception it raises stops the run.

    memory_budget_mb: the memory the run may plan for (default: CMSWITCH_MEMORY_BUDGET_MB, else half this
    machine's memory). A config whose estimate (``config.cost()``) exceeds it raises ValueError naming the field
    that drives it (a sampling period, duration_s, fat_tree_k ...) before anything is built.

    vcd: also write a value change dump (GTKWave, Surfer) of the signals whose names match `vcd_signals`
    (comma-separated glob patterns: queue depths <switch>.port<p>.bytes / q<c>_bytes, pause states paused<c> and
    xoff<c>, ingress<c>_bytes, pause_tx, headroom_bytes, host<h>.flow<f>.cwnd), at most vcd_max_mb MB (later
    changes are left out; the summary's vcd_truncated_at_ms says from when). The dump changes no result.
    """
    if not isinstance(config, ScenarioConfig):
        raise TypeError(f"run() takes a scenario config (e.g. cmswitch.IncastConfig), not {type(config).__name__}")
    kw: Dict[str, Any] = dict(progress=_progress_callback(progress), memory_budget_mb=budget_mb(memory_budget_mb))
    if vcd is not None:
        if not isinstance(vcd_signals, str):
            raise ValueError(f"vcd_signals = {vcd_signals!r}: must be a string of glob patterns")
        kw.update(vcd=os.fspath(vcd), vcd_signals=vcd_signals, vcd_max_mb=float(vcd_max_mb))
    out = _core.run(config.scenario, config.to_params(), **kw)
    return Result(config=config, summary=out["summary"], tables=Tables(out["tables"]))


def run_summary(scenario: str, params: Dict[str, Any], memory_budget_mb: float = 0.0) -> Dict[str, Any]:
    """A run's summary only (small to ship between processes), without progress lines."""
    cfg = config_class(scenario).from_dict(params)
    return dict(_core.run(cfg.scenario, cfg.to_params(), memory_budget_mb=memory_budget_mb)["summary"])


def sweep_point(scenario: str, params: Dict[str, Any], memory_budget_mb: float = 0.0) -> Dict[str, Any]:
    """Worker entry point of sweeps: the summary; {"infeasible": why} for a point the core refuses as a whole (a
    cross-field conflict such as a PFC headroom that does not fit, a run over the memory budget); {"error": what}
    for a point that failed while it ran (the model broke an invariant, the machine ran out of memory), so that
    the sweep goes on either way."""
    try:
        return run_summary(scenario, params, memory_budget_mb)
    except ValueError as e:
        return {"infeasible": str(e)}
    except Exception as e:   # noqa: BLE001 - recorded with the point; KeyboardInterrupt still stops the sweep
        return {"error": f"{type(e).__name__}: {e}"}
