# SPDX-License-Identifier: Apache-2.0
"""What a run returns: the summary as a dict and every table as a pandas DataFrame."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, Optional

import pandas as pd

from .config import ScenarioConfig


def _frame(cols: Dict[str, Any]) -> pd.DataFrame:
    """A table from the core (columns of doubles); counters and ids come back as integers."""
    df = pd.DataFrame(cols)
    for c in df.columns:
        col = df[c]
        if len(col) and col.notna().all() and (col == col.round()).all() and col.abs().max() < 2 ** 53:
            df[c] = col.astype("int64")
    return df


class Tables(Mapping):
    """The run's tables by name, each a DataFrame built on first access (a sweep that only needs the summary
    does not pay for them)."""

    def __init__(self, raw: Dict[str, Dict[str, Any]]):
        self._raw = raw
        self._built: Dict[str, pd.DataFrame] = {}

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._built:
            self._built[name] = _frame(self._raw[name])
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return f"Tables({', '.join(self._raw)})"


@dataclass
class Result:
    config: ScenarioConfig
    summary: Dict[str, Any]
    tables: Mapping = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.summary[key]

    @property
    def flows(self) -> pd.DataFrame:
        """Per-flow counters."""
        return self.tables["flows"]

    @property
    def series(self) -> Optional[pd.DataFrame]:
        """Sampled time series (queue bytes, cumulative per-flow bytes), indexed by t_ms; None unless the
        config asked for it (series=True)."""
        t = self.tables.get("queue_series")
        if t is None:
            t = self.tables.get("series")   # baseline's name for its series (throughput and queues per bin)
        return None if t is None or "t_ms" not in t else t.set_index("t_ms")

    def flow_rates_mbps(self) -> Optional[pd.DataFrame]:
        """Per-flow rate over time (Mbps) from the cumulative byte counters of the series; None for a run without
        series, ValueError for a scenario whose series has no per-flow counters (rdma-incast)."""
        s = self.series
        if s is None:
            return None
        cols = [c for c in s.columns if "_bytes_flow" in c]
        if not cols:   # not an empty frame with a row per sample and no column
            raise ValueError(f"the {type(self.config).__name__} run's series has no per-flow byte counters (it has "
                             f"{', '.join(s.columns)}); each flow's totals are in .flows")
        dt_s = pd.Series(s.index, index=s.index).diff().fillna(pd.Series(s.index, index=s.index)) / 1e3
        rates = s[cols].diff().fillna(s[cols]).div(dt_s, axis=0) * 8 / 1e6
        rates.columns = [c.split("_flow")[-1] for c in cols]
        rates.columns.name = "flow"
        return rates

    def __repr__(self) -> str:
        keys = [k for k in ("goodput_mbps", "delivered_mbps", "drops", "mean_queue_bytes", "wall_s") if k in self.summary]
        inner = ", ".join(f"{k}={self.summary[k]!r}" for k in keys)
        return f"Result({type(self.config).__name__}, {inner})"
