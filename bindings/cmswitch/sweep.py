# SPDX-License-Identifier: Apache-2.0
"""Parallel sweeps over a grid of configurations."""
from __future__ import annotations

import itertools
import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pandas as pd

from .config import ScenarioConfig
from .runner import sweep_point
from .store import ResultStore

__all__ = ["sweep", "expand_grid"]


def expand_grid(grid: Optional[Mapping[str, Sequence[Any]]] = None,
                points: Optional[Iterable[Mapping[str, Any]]] = None) -> List[Dict[str, Any]]:
    """The cartesian product of `grid` (field -> list of values, first field varying slowest), crossed with
    each of the explicit `points` (dicts of fields), or either alone."""
    grid = dict(grid or {})
    for name, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ValueError(f"grid[{name!r}] must be a list of values, not {values!r}")
    combos = [dict(zip(grid, vals)) for vals in itertools.product(*grid.values())] if grid else [{}]
    pts = [dict(p) for p in points] if points is not None else [{}]
    return [{**p, **c} for p in pts for c in combos]


def _die_with_parent(parent: int) -> None:
    """Worker initializer: on Linux a worker is killed when the sweeping process dies, even by SIGKILL (else the
    workers would run on, orphaned); elsewhere nothing."""
    try:
        import ctypes
        import signal
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):   # pragma: no cover - not Linux
        return
    if os.getppid() != parent:   # the parent died before prctl took effect
        os._exit(1)


def _is_dask_client(executor: Any) -> bool:
    return type(executor).__module__.split(".")[0] == "distributed" and hasattr(executor, "gather")


def _progress(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:   # pragma: no cover
        return None
    return tqdm(total=total, desc=desc, unit="run")


def sweep(base: ScenarioConfig, grid: Optional[Mapping[str, Sequence[Any]]] = None, workers: Optional[int] = None,
          store: Union[None, str, os.PathLike, ResultStore] = None, executor: Optional[Any] = None,
          points: Optional[Iterable[Mapping[str, Any]]] = None, progress: bool = True) -> pd.DataFrame:
    """Run `base` changed by every point of `grid` (and `points`), in parallel, and return one row per point.

    - workers: worker processes on this machine (default: all cores; 1 runs in this process).
    - executor: a concurrent.futures executor or a Dask distributed.Client (e.g. on an LSF/Slurm cluster via
      dask-jobqueue); overrides workers.
    - store: a SQLite file (or ResultStore); points already in it are not recomputed, finished points are saved
      as they finish, so an interrupted sweep resumes where it stopped. Keys hash the full config, the package
      version and the compiled core (cmswitch.BUILD_ID): a rebuilt model computes anew.
    Every config is validated before anything runs; a point the core refuses as a whole (a cross-field conflict)
    is recorded with its reason in an "infeasible" column and the sweep goes on. Rows come in grid order whatever the completion order; the
    columns are the config's fields followed by the run's summary. df.attrs holds "computed" and "reused".
    """
    from . import BUILD_ID

    configs = [base.replace(**p) for p in expand_grid(grid, points)]   # ValueError before any run
    own_store = isinstance(store, (str, os.PathLike))
    db = ResultStore(store) if own_store else store
    summaries: List[Optional[Dict[str, Any]]] = [None] * len(configs)
    keys = [c.key(BUILD_ID) for c in configs]
    todo = []
    for i, key in enumerate(keys):
        cached = db.get(key) if db is not None else None
        if cached is not None:
            summaries[i] = cached
        else:
            todo.append(i)
    # identical points are computed once
    first_of: Dict[str, int] = {}
    unique = [i for i in todo if first_of.setdefault(keys[i], i) == i]

    bar = None

    def start_progress() -> None:
        nonlocal bar
        bar = _progress(len(configs), progress, f"{base.scenario} sweep")
        if bar is not None:
            bar.update(len(configs) - len(todo))

    def finished(i: int, summary: Dict[str, Any]) -> None:
        for j in todo:
            if keys[j] == keys[i]:
                summaries[j] = summary
                if bar is not None:
                    bar.update(1)
        if db is not None:
            db.put(keys[i], configs[i].scenario, BUILD_ID, configs[i].to_dict(), summary)

    try:
        if executor is None and (workers == 1 or len(unique) <= 1):
            start_progress()
            for i in unique:
                finished(i, sweep_point(configs[i].scenario, configs[i].to_dict()))
        elif executor is not None and _is_dask_client(executor):
            from distributed import as_completed as dask_as_completed
            futures = {executor.submit(sweep_point, configs[i].scenario, configs[i].to_dict(), pure=False): i
                       for i in unique}
            start_progress()
            for fut in dask_as_completed(list(futures)):
                finished(futures[fut], fut.result())
        else:
            pool: Executor
            if executor is not None:
                pool, own_pool = executor, False
            else:
                # fork: workers start at once and need no __main__ guard in the user's script; no simulation is
                # running in this process while it forks (each run owns its context for its duration only)
                methods = multiprocessing.get_all_start_methods()
                ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
                pool = ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1, mp_context=ctx,
                                           initializer=_die_with_parent, initargs=(os.getpid(),))
                own_pool = True
            try:
                futures = {pool.submit(sweep_point, configs[i].scenario, configs[i].to_dict()): i for i in unique}
                start_progress()   # after the workers have forked: no progress thread is copied into them
                for fut in as_completed(futures):
                    finished(futures[fut], fut.result())
            finally:
                if own_pool:
                    pool.shutdown(wait=True, cancel_futures=True)
    finally:
        if bar is not None:
            bar.close()
        if own_store:
            db.close()

    rows = []
    any_infeasible = any("infeasible" in s for s in summaries if s is not None)
    for cfg, summary in zip(configs, summaries):
        row = cfg.to_dict()
        row["scenario"] = cfg.scenario
        if any_infeasible:   # the reason, or "" for the points that ran
            row["infeasible"] = summary.get("infeasible", "")
        for k, v in summary.items():
            if k not in row:
                row[k] = v
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs["computed"] = len(unique)
    df.attrs["reused"] = len(configs) - len(todo)
    return df
