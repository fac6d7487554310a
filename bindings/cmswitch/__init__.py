# SPDX-License-Identifier: Apache-2.0
"""cmswitch: a SystemC/TLM-2.0 model of a congestion-managed Ethernet switch, for design-space exploration.

    import cmswitch
    res = cmswitch.run(cmswitch.IncastConfig(flows=16, buffer_kb=64, min_rto_ms=10, duration_s=2))
    res.summary["goodput_mbps"], res.flows
    df = cmswitch.sweep(cmswitch.IncastConfig(duration_s=2), {"flows": [4, 16, 64], "buffer_kb": [32, 128]},
                        store="incast.sqlite")
"""
from . import _core as _core
from .config import (CONFIG_CLASSES, BaselineConfig, IncastConfig, OverloadConfig, RdmaIncastConfig, ScenarioConfig,
                     SctpIncastConfig, VegasIncastConfig, WorkloadConfig, config_class)
from .result import Result
from .runner import run
from .store import ResultStore
from .dcqcn_study import dcqcn_scale
from .optimize import OptimizeResult, optimize
from .study import MinBuffer, PauseSplit, buffer_sizing, find_min_buffer, pause_split
from .sweep import SweepFailed, SweepInterrupted, expand_grid, sweep
from .switch import load_sonic, load_switch, write_sonic

__version__ = _core.__version__


def __getattr__(name: str) -> object:
    """A renamed scenario's former config class (``Testbed001Config``) with a DeprecationWarning."""
    from . import config
    return getattr(config, name)


def _build_id() -> str:
    """The package version and a hash of the compiled core: result-store keys change with either, so results
    of an older build (same version number, other code) are never reused."""
    import hashlib
    h = hashlib.sha256()
    with open(_core.__file__, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return f"{__version__}+{h.hexdigest()[:16]}"


BUILD_ID = _build_id()

__all__ = ["run", "sweep", "expand_grid", "SweepInterrupted", "SweepFailed", "find_min_buffer", "buffer_sizing", "dcqcn_scale", "optimize", "OptimizeResult", "Result", "ResultStore", "MinBuffer", "PauseSplit", "pause_split",
           "ScenarioConfig", "IncastConfig", "OverloadConfig", "BaselineConfig", "RdmaIncastConfig", "SctpIncastConfig",
           "VegasIncastConfig", "WorkloadConfig", "CONFIG_CLASSES", "config_class", "load_switch", "load_sonic", "write_sonic",
           "__version__"]
