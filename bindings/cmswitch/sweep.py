# SPDX-License-Identifier: Apache-2.0
"""Parallel sweeps over a grid of configurations."""
from __future__ import annotations

import itertools
import multiprocessing
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import pandas as pd

from .config import ScenarioConfig
from .runner import sweep_point
from .store import ResultStore

__all__ = ["sweep", "expand_grid", "SweepInterrupted"]


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


class SweepInterrupted(KeyboardInterrupt):
    """Raised by sweep() on Ctrl-C: `partial` holds the rows of the points that had finished (grid order, the
    same columns as a full sweep's), so that nothing finished is lost; the store, if any, has them too."""

    def __init__(self, partial: pd.DataFrame, total: int):
        super().__init__(f"sweep interrupted: {len(partial)} of {total} points finished")
        self.partial = partial
        self.total = total


def _rows(configs: Sequence[ScenarioConfig], summaries: Sequence[Optional[Dict[str, Any]]]) -> pd.DataFrame:
    rows = []
    any_infeasible = any("infeasible" in s for s in summaries if s is not None)
    for cfg, summary in zip(configs, summaries):
        if summary is None:
            continue
        row = cfg.to_dict()
        row["scenario"] = cfg.scenario
        if any_infeasible:   # the reason, or "" for the points that ran
            row["infeasible"] = summary.get("infeasible", "")
        for k, v in summary.items():
            if k not in row:
                row[k] = v
        rows.append(row)
    return pd.DataFrame(rows)


def _changed(base: ScenarioConfig, cfg: ScenarioConfig) -> str:
    b = base.to_dict()
    return ", ".join(f"{k}={v!r}" for k, v in cfg.to_dict().items() if b.get(k) != v) or "the base config"


_POLL_S = 0.05   # how often a sweep looks at its in-flight points and at points other sweeps hold


def sweep(base: ScenarioConfig, grid: Optional[Mapping[str, Sequence[Any]]] = None, workers: Optional[int] = None,
          store: Union[None, str, os.PathLike, ResultStore] = None, executor: Optional[Any] = None,
          points: Optional[Iterable[Mapping[str, Any]]] = None, progress: bool = True,
          infeasible: str = "record") -> pd.DataFrame:
    """Run `base` changed by every point of `grid` (and `points`), in parallel, and return one row per point.

    - workers: worker processes on this machine (default: all cores; 1 runs in this process).
    - executor: a concurrent.futures executor or a Dask distributed.Client (e.g. on an LSF/Slurm cluster via
      dask-jobqueue); overrides workers.
    - store: a SQLite file (or ResultStore); points already in it are not recomputed, finished points are saved
      as they finish, so an interrupted sweep resumes where it stopped. Keys hash the full config, the package
      version and the compiled core (cmswitch.BUILD_ID): a rebuilt model computes anew. Several sweeps (processes,
      hosts on a shared file system) may use one store at once: each point is computed by one of them.
    - infeasible: every point is checked before anything runs, each field's range and then the whole config as
      the core would build it (ScenarioConfig.check). "record" (default): a point the core refuses as a whole
      (a cross-field conflict, a PFC headroom that does not fit) is not run and gets its reason in an
      "infeasible" column; "raise": ValueError naming the first such point, before any run.
    Rows come in grid order whatever the completion order; the columns are the config's fields followed by the
    run's summary. df.attrs holds "computed" and "reused". Ctrl-C raises SweepInterrupted, whose `partial` holds
    the finished points.
    """
    from . import BUILD_ID

    if infeasible not in ("record", "raise"):
        raise ValueError(f"infeasible = {infeasible!r}: allowed 'record' or 'raise'")
    configs = [base.replace(**p) for p in expand_grid(grid, points)]   # ValueError before any run
    own_store = isinstance(store, (str, os.PathLike))
    db = ResultStore(store) if own_store else store
    try:
        return _sweep(base, configs, workers, db, executor, progress, infeasible, BUILD_ID)
    finally:
        if db is not None:
            if own_store:
                db.close()
            else:
                db.release()


def _sweep(base: ScenarioConfig, configs: List[ScenarioConfig], workers: Optional[int], db: Optional[ResultStore],
           executor: Optional[Any], progress: bool, infeasible: str, build_id: str) -> pd.DataFrame:
    summaries: List[Optional[Dict[str, Any]]] = [None] * len(configs)
    keys = [c.key(build_id) for c in configs]
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
    # the whole config of every point, before anything runs
    refused: Dict[int, str] = {}
    for i in unique:
        try:
            configs[i].check()
        except ValueError as e:
            if infeasible == "raise":
                raise ValueError(f"sweep point {i} ({_changed(base, configs[i])}): {e}") from None
            refused[i] = str(e)

    bar = _progress(len(configs), progress, f"{base.scenario} sweep")
    if bar is not None:
        bar.update(len(configs) - len(todo))
    computed = 0
    reused = len(configs) - len(todo)

    def finished(i: int, summary: Dict[str, Any], from_store: bool = False) -> None:
        """Point i's summary (and that of identical points): computed here, or found in the store (another
        sweep computed it meanwhile)."""
        nonlocal computed, reused
        computed += not from_store
        for j in todo:
            if keys[j] == keys[i] and summaries[j] is None:
                summaries[j] = summary
                reused += from_store
                if bar is not None:
                    bar.update(1)
        if db is not None and not from_store:
            db.put(keys[i], configs[i].scenario, build_id, configs[i].to_dict(), summary)

    pool: Optional[Any] = None
    own_pool = False
    try:
        for i, why in refused.items():
            finished(i, {"infeasible": why})
        queue = [i for i in unique if i not in refused]
        if executor is None and (workers == 1 or len(queue) <= 1):
            capacity = 1   # in this process
        elif executor is not None:
            pool, capacity = executor, _capacity(executor)
        else:
            # fork: workers start at once and need no __main__ guard in the user's script; no simulation is
            # running in this process while it forks (each run owns its context for its duration only)
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            capacity = workers or os.cpu_count() or 1
            pool = ProcessPoolExecutor(max_workers=capacity, mp_context=ctx, initializer=_die_with_parent,
                                       initargs=(os.getpid(),))
            own_pool = True
        dask = pool is not None and _is_dask_client(pool)
        _run_queue(queue, configs, keys, db, pool, dask, capacity, finished)
    except KeyboardInterrupt:
        if own_pool:
            _terminate(pool)
            own_pool = False
        if bar is not None:
            bar.close()
            bar = None
        raise SweepInterrupted(_rows(configs, summaries), len(configs)) from None
    finally:
        if own_pool:
            pool.shutdown(wait=True, cancel_futures=True)
        if bar is not None:
            bar.close()

    df = _rows(configs, summaries)
    df.attrs["computed"] = computed
    df.attrs["reused"] = reused
    return df


def _capacity(executor: Any) -> int:
    """Points in flight at once on a user's executor: its workers, plus one each to keep them busy."""
    if _is_dask_client(executor):
        try:
            return max(1, 2 * sum(executor.nthreads().values()))
        except Exception:   # pragma: no cover - a client without workers yet
            return 2 * (os.cpu_count() or 1)
    n = getattr(executor, "_max_workers", None)
    return 2 * n if isinstance(n, int) and n > 0 else 2 * (os.cpu_count() or 1)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stops a process pool at once (its workers may be in the middle of long points)."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _run_queue(queue: List[int], configs: List[ScenarioConfig], keys: List[str], db: Optional[ResultStore],
               pool: Optional[Any], dask: bool, capacity: int, finished) -> None:
    """Runs the points of `queue`: at most `capacity` in flight, each claimed in the store just before it starts
    (so that other sweeps on the store take the others); points another sweep holds are waited for, and taken
    over if that sweep dies."""
    
    pending = list(reversed(queue))   # pop() takes them in grid order
    elsewhere: List[int] = []          # claimed by another live sweep
    inflight: Dict[Any, int] = {}
    while pending or inflight or elsewhere:
        while pending and len(inflight) < capacity:
            i = pending.pop()
            state = db.claim(keys[i]) if db is not None else "ours"
            if state == "done":
                finished(i, db.get(keys[i]), from_store=True)
            elif state == "taken":
                elsewhere.append(i)
            elif pool is None:
                finished(i, sweep_point(configs[i].scenario, configs[i].to_dict()))
            elif dask:
                inflight[pool.submit(sweep_point, configs[i].scenario, configs[i].to_dict(), pure=False)] = i
            else:
                inflight[pool.submit(sweep_point, configs[i].scenario, configs[i].to_dict())] = i
        if inflight:
            if dask:
                time.sleep(_POLL_S)
                done = [f for f in inflight if f.done()]
            else:
                done, _ = wait(list(inflight), timeout=_POLL_S, return_when=FIRST_COMPLETED)
            for fut in done:
                finished(inflight.pop(fut), fut.result())
        elif elsewhere and not pending:
            time.sleep(_POLL_S)
        still = []
        for i in elsewhere:   # another sweep's points: its result, or its claim lost (it died): ours to run
            got = db.get(keys[i])
            if got is not None:
                finished(i, got, from_store=True)
            elif db.claimed_by_other(keys[i]):
                still.append(i)
            else:
                pending.append(i)
        elsewhere = still
