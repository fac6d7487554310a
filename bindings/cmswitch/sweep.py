# SPDX-License-Identifier: Apache-2.0
"""Parallel sweeps over a grid of configurations.

A sweep never loses work: every point ends as a row, with its metrics, its reason in an ``infeasible`` column
(the core refused the config as a whole) or its failure in an ``error`` column (it broke while it ran; a worker
process that died running it), and the sweep goes on. With a store, finished points are saved as they finish.
Ctrl-C raises SweepInterrupted and ``errors="raise"`` raises SweepFailed, both carrying the finished rows.

Parallelism comes from processes (one simulation at a time per process): a thread-based executor or a Dask worker
with several threads gives correct results, one run at a time per process, and gains nothing from the threads.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import sqlite3
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Sized, Union

import pandas as pd

from . import _core
from .config import ScenarioConfig, budget_mb
from .runner import sweep_point
from .store import ResultStore

__all__ = ["sweep", "expand_grid", "SweepInterrupted", "SweepFailed", "usable_cores"]


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


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):   # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _die_with_parent(parent: int) -> None:
    """Worker initializer: on Linux a worker is killed when the sweeping process dies, even by SIGKILL (else the
    workers would run on, orphaned); elsewhere nothing."""
    try:
        import ctypes
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


class SweepFailed(RuntimeError):
    """Raised by sweep(errors="raise") at the first point that fails while it runs: `point` is its index in the
    grid, `error` what failed, `partial` the rows of the points that had finished, the failed one with its error
    (the store has the others too)."""

    def __init__(self, point: int, changed: str, error: str, partial: pd.DataFrame, total: int):
        super().__init__(f"sweep point {point} ({changed}) failed: {error}; {len(partial)} of {total} points "
                         f"finished")
        self.point = point
        self.error = error
        self.partial = partial
        self.total = total


def _rows(configs: Sequence[ScenarioConfig], summaries: Sequence[Optional[Dict[str, Any]]]) -> pd.DataFrame:
    rows = []
    flags = [k for k in ("infeasible", "error") if any(k in s for s in summaries if s is not None)]
    for cfg, summary in zip(configs, summaries):
        if summary is None:
            continue
        row = cfg.to_dict()
        row["scenario"] = cfg.scenario
        for k in flags:   # the reason, or "" for the points that ran
            row[k] = summary.get(k, "")
        for k, v in summary.items():
            if k not in row:
                row[k] = v
        rows.append(row)
    return pd.DataFrame(rows)


def _changed(base: ScenarioConfig, cfg: ScenarioConfig) -> str:
    b = base.to_dict()
    return ", ".join(f"{k}={v!r}" for k, v in cfg.to_dict().items() if b.get(k) != v) or "the base config"


def _threads_note(executor: Any) -> Optional[str]:
    """Why a user's executor runs points one at a time per process, or None."""
    if isinstance(executor, ThreadPoolExecutor) and getattr(executor, "_max_workers", 1) > 1:
        return (f"a ThreadPoolExecutor with {executor._max_workers} threads runs one simulation at a time (one per "
                f"process); use workers=N or a ProcessPoolExecutor for parallel runs")
    if _is_dask_client(executor):
        try:
            threads = executor.nthreads()
            pids = executor.run(os.getpid)
        except Exception:   # pragma: no cover - a client without workers yet
            return None
        per_process: Dict[Any, int] = {}
        for addr, pid in pids.items():
            per_process[pid] = per_process.get(pid, 0) + threads.get(addr, 1)
        if any(n > 1 for n in per_process.values()):
            return ("Dask workers with several threads in one process (threads_per_worker > 1 or processes=False) "
                    "run one simulation at a time per process; use threads_per_worker=1 and processes=True")
    return None


_POLL_S = 0.05   # how often a sweep looks at its in-flight points and at points other sweeps hold
_PRECHECK_BAR_AFTER = 5000   # points: checking more than this many shows a progress bar
_PREPARE_BAR_AFTER = 20000   # points: preparing (config and store key) more than this many shows a progress bar


def sweep(base: ScenarioConfig, grid: Optional[Mapping[str, Sequence[Any]]] = None, workers: Optional[int] = None,
          store: Union[None, str, os.PathLike, ResultStore] = None, executor: Optional[Any] = None,
          points: Optional[Iterable[Mapping[str, Any]]] = None, progress: bool = True,
          infeasible: str = "record", errors: str = "record",
          memory_budget_mb: Optional[float] = None) -> pd.DataFrame:
    """Run `base` changed by every point of `grid` (and `points`), in parallel, and return one row per point.

    - workers: worker processes on this machine (default: every usable core; at most one per core and one per
      point, a larger number is lowered with a warning; 1 runs in this process).
    - executor: a concurrent.futures executor or a Dask distributed.Client (e.g. on an LSF/Slurm cluster via
      dask-jobqueue); overrides workers. One simulation runs at a time per process: threads of one process
      (ThreadPoolExecutor, Dask threads_per_worker > 1 or processes=False) give correct results, one run at a time
      (a warning says so once).
    - store: a SQLite file (or ResultStore); points already in it are not recomputed, finished points are saved
      as they finish, so an interrupted sweep resumes where it stopped. Keys hash the full config, the package
      version and the compiled core (cmswitch.BUILD_ID): a rebuilt model computes anew. Several sweeps (processes,
      hosts on a shared file system) may use one store at once: each point is computed by one of them. Failed
      points are not stored (a rerun tries them again).
    - infeasible: "record" (default): a point the core refuses as a whole (a cross-field conflict, a PFC headroom
      that does not fit, a run over the memory budget) is checked in its worker just before it would run and gets
      its reason in an "infeasible" column; "raise": every point is checked before anything runs and the first
      such point raises ValueError naming it.
    - errors: "record" (default): a point that fails while it runs (the model breaks an invariant, the machine
      runs out of memory, its worker process dies) gets its failure in an "error" column, a warning names how many
      failed, and the sweep goes on; "raise": SweepFailed at the first one, carrying the finished rows.
    - a field that another one replaces where that one is given (alpha under alpha_by_queue) is refused as a
      swept field (ValueError before anything runs): its rows would differ by a number with no effect.
    - memory_budget_mb: the memory each run may plan for (default: CMSWITCH_MEMORY_BUDGET_MB, else half this
      machine's memory divided by the runs in parallel on it).
    Rows come in grid order whatever the completion order; the columns are the config's fields followed by the
    run's summary. df.attrs holds "computed", "reused" and "failed". Ctrl-C raises SweepInterrupted, whose
    `partial` holds the finished points.
    """
    from . import BUILD_ID

    if infeasible not in ("record", "raise"):
        raise ValueError(f"infeasible = {infeasible!r}: allowed 'record' or 'raise'")
    if errors not in ("record", "raise"):
        raise ValueError(f"errors = {errors!r}: allowed 'record' or 'raise'")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers = {workers!r}: a whole number >= 1 (None: every usable core)")
    budget = budget_mb(memory_budget_mb)
    points = list(points) if points is not None else None
    _refuse_oversized(grid, points)
    pts = expand_grid(grid, points)
    # ValueError before any run; a large grid says how far its preparation is (about 0.1 ms a point)
    bar = _progress(len(pts), progress and len(pts) > _PREPARE_BAR_AFTER, f"{base.scenario} sweep: preparing")
    configs, keys = [], []
    for k, p in enumerate(pts):
        configs.append(base.replace(**p))
        keys.append(configs[-1].key(BUILD_ID))
        if bar is not None and k % 1000 == 999:
            bar.update(1000)
    if bar is not None:
        bar.close()
    _refuse_overridden(configs)
    own_store = isinstance(store, (str, os.PathLike))
    db: Optional[ResultStore] = ResultStore(os.fspath(store)) if isinstance(store, (str, os.PathLike)) else store
    try:
        run = _Sweep(base, configs, keys, db, progress, infeasible, errors, budget, BUILD_ID)
        return run.go(workers, executor)
    finally:
        if db is not None:
            if own_store:
                db.close()
            else:
                db.release()


# What the sweep itself holds per point while it runs, rounded up: measured with tracemalloc on a 200,000-point
# incast grid, 7.0 KB a point prepared (its dict, its config, its store key) and 3.3 KB a copy of its summary
# (an incast run's 109 keys), and about 2 KB its row of the result table
_POINT_BYTES = 16384


def _refuse_oversized(grid: Optional[Mapping[str, Sequence[Any]]],
                      points: Optional[Sequence[Mapping[str, Any]]]) -> None:
    """ValueError before anything is prepared for a sweep whose own bookkeeping would not fit in this process's
    memory budget (CMSWITCH_MEMORY_BUDGET_MB, else half the machine's memory): it names the points and the size."""
    n = len(points) if points is not None else 1
    for values in (grid or {}).values():
        if isinstance(values, Sized) and not isinstance(values, (str, bytes)):   # (expand_grid checks the rest)
            n *= len(values)
    need_mb = n * _POINT_BYTES / 2 ** 20
    have_mb = _core.default_memory_budget_mb()
    if need_mb > have_mb:
        raise ValueError(f"a sweep of {n:,} points holds about {need_mb / 1024:.1f} GB of its own (each point's "
                         f"config, store key and row, {_POINT_BYTES} B), over this process's memory budget of "
                         f"{have_mb / 1024:.1f} GB (CMSWITCH_MEMORY_BUDGET_MB, else half the machine's memory): "
                         f"split the grid into several sweeps (a result store shares their points)")


def _refuse_overridden(configs: Sequence[ScenarioConfig]) -> None:
    """ValueError before anything runs when the sweep varies a field that another field replaces in some of its
    points (alpha under a given alpha_by_queue): those rows would differ only by a number with no effect."""
    if len(configs) < 2:
        return
    cls = type(configs[0])
    names = configs[0].to_dict()
    for name in names:
        over = cls.field_info(name).get("overridden_by")
        if not over or over not in names:
            continue
        values = sorted({c.__dict__[name] for c in configs})
        if len(values) < 2:
            continue
        given = [c for c in configs if c.__dict__[over]]
        if given:
            raise ValueError(
                f"the sweep varies {name} ({', '.join(f'{v:g}' for v in values)}), but {over} = "
                f"{tuple(given[0].__dict__[over])} replaces it in {len(given)} of its {len(configs)} points, so "
                f"{name} would have no effect there: set {over} to none (the empty list: {name} for every entry), "
                f"or sweep {over} instead")


class _Sweep:
    """One sweep's state: its points, their summaries, the store, the progress bar."""

    def __init__(self, base: ScenarioConfig, configs: List[ScenarioConfig], keys: List[str],
                 db: Optional[ResultStore], progress: bool, infeasible: str, errors: str, budget: float,
                 build_id: str):
        self.base, self.configs, self.db = base, configs, db
        self.infeasible, self.errors, self.budget, self.build_id = infeasible, errors, budget, build_id
        self.progress = progress
        self.summaries: List[Optional[Dict[str, Any]]] = [None] * len(configs)
        self.keys = keys
        self.computed = self.reused = self.failed = 0
        self.bar = None
        self.workers: List[Any] = []   # the worker processes of our own pool, seen as points were submitted
        self.pool: Optional[Any] = None
        self.own_pool = False

    # -- the points ----------------------------------------------------------------------------------------------
    def _same(self, i: int) -> List[int]:
        return [j for j in self.todo if self.keys[j] == self.keys[i] and self.summaries[j] is None]

    def finished(self, i: int, summary: Dict[str, Any], from_store: bool = False) -> None:
        """Point i's summary (and that of identical points): computed here, found in the store (another sweep
        computed it meanwhile), infeasible, or failed."""
        failed = "error" in summary
        if failed:
            self.failed += 1
        else:
            self.computed += not from_store
        for j in self._same(i):
            self.summaries[j] = summary
            self.reused += from_store
            if self.bar is not None:
                self.bar.update(1)
        if self.db is not None and not from_store:
            try:
                if failed:
                    self.db.release(self.keys[i])
                else:
                    self.db.put(self.keys[i], self.configs[i].scenario, self.build_id, self.configs[i].to_dict(),
                                summary)
            except sqlite3.Error as e:   # a full disk, a store on a file system gone read-only: the rows stay here
                warnings.warn(f"the result store could not be written ({e}): the sweep goes on, its remaining "
                              f"points are not stored", RuntimeWarning, stacklevel=2)
                self.db = None
        if failed and self.errors == "raise":
            raise SweepFailed(i, _changed(self.base, self.configs[i]), summary["error"],
                              _rows(self.configs, self.summaries), len(self.configs))

    def go(self, workers: Optional[int], executor: Optional[Any]) -> pd.DataFrame:
        configs = self.configs
        self.todo = []
        for i, key in enumerate(self.keys):
            cached = self.db.get(key) if self.db is not None else None
            if cached is not None:
                self.summaries[i] = cached
            else:
                self.todo.append(i)
        first_of: Dict[str, int] = {}
        unique = [i for i in self.todo if first_of.setdefault(self.keys[i], i) == i]   # identical points once
        if self.infeasible == "raise":
            self._check_all(unique)
        self.reused = len(configs) - len(self.todo)
        capacity, make_pool = self._plan(workers, executor, len(unique))
        self.bar = _progress(len(configs), self.progress, f"{self.base.scenario} sweep")
        if self.bar is not None:
            self.bar.update(len(configs) - len(self.todo))
        try:
            if make_pool is not None:
                self.pool, self.own_pool = make_pool(), True
            elif executor is not None:
                self.pool = executor
            self._run_queue(unique, capacity, make_pool)
        except KeyboardInterrupt:
            self._close(kill=True)
            raise SweepInterrupted(_rows(configs, self.summaries), len(configs)) from None
        finally:
            self._close(kill=False)
        df = _rows(configs, self.summaries)
        df.attrs["computed"] = self.computed
        df.attrs["reused"] = self.reused
        df.attrs["failed"] = self.failed
        if self.failed:
            first, why = next((i, s["error"]) for i, s in enumerate(self.summaries) if s is not None and "error" in s)
            warnings.warn(f"{self.failed} of {len(configs)} sweep points failed (the 'error' column says why; the "
                          f"first is point {first}: {why})", RuntimeWarning, stacklevel=3)
        return df

    def _check_all(self, unique: List[int]) -> None:
        """infeasible="raise": the whole config of every point before anything runs."""
        bar = _progress(len(unique), self.progress and len(unique) > _PRECHECK_BAR_AFTER,
                        f"{self.base.scenario} sweep: checking")
        try:
            for i in unique:
                try:
                    self.configs[i].check(memory_budget_mb=self.budget or None)
                except ValueError as e:
                    raise ValueError(f"sweep point {i} ({_changed(self.base, self.configs[i])}): {e}") from None
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()

    def _plan(self, workers: Optional[int], executor: Optional[Any], points: int):
        """(points in flight at once, a factory of our own process pool or None)."""
        if executor is not None:
            note = _threads_note(executor)
            if note:
                warnings.warn(note, RuntimeWarning, stacklevel=4)
            capacity = _capacity(executor)
            if not self.budget:   # the default budget, shared by the executor's workers (taken to be on this
                self.budget = _core.default_memory_budget_mb() / max(1, capacity // 2)   # machine)
            return capacity, None
        cores = usable_cores()
        if workers is not None and workers > cores:
            warnings.warn(f"workers = {workers} lowered to {cores}, the cores this process may use (a simulation "
                          f"keeps one core busy; more processes only share them)", RuntimeWarning, stacklevel=4)
        n = max(1, min(workers or cores, cores, points))
        if not self.budget:   # the default budget, shared by the runs in parallel on this machine
            self.budget = _core.default_memory_budget_mb() / n
        if n == 1:
            return 1, None   # in this process
        # fork: workers start at once and need no __main__ guard in the user's script; no simulation is running
        # in this process while it forks (and a child forked during one starts with the simulation lock free)
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")

        def make_pool() -> ProcessPoolExecutor:
            return ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_die_with_parent,
                                       initargs=(os.getpid(),))
        return n, make_pool

    def _close(self, kill: bool) -> None:
        if self.own_pool and self.pool is not None:
            if kill:
                _terminate(self.pool)
            else:
                self.pool.shutdown(wait=True, cancel_futures=True)
        self.own_pool = False
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    # -- running -------------------------------------------------------------------------------------------------
    def _submit(self, i: int) -> Any:
        cfg = self.configs[i]
        assert self.pool is not None
        if _is_dask_client(self.pool):
            return self.pool.submit(sweep_point, cfg.scenario, cfg.to_dict(), self.budget, pure=False)
        fut = self.pool.submit(sweep_point, cfg.scenario, cfg.to_dict(), self.budget)
        # kept here: once the pool breaks, its manager thread may drop its table of processes before we ask how
        # they ended
        for proc in list((getattr(self.pool, "_processes", None) or {}).values()):
            if proc not in self.workers:
                self.workers.append(proc)
        return fut

    def _result(self, fut: Any) -> Dict[str, Any]:
        """A finished future's summary; a failure of the executor itself becomes the point's error."""
        try:
            return fut.result()
        except (KeyboardInterrupt, BrokenProcessPool):
            raise
        except BaseException as e:   # noqa: BLE001 - Dask's KilledWorker, a pickling error, a cancelled future
            return {"error": f"{type(e).__name__}: {e}"}

    def _run_queue(self, queue: List[int], capacity: int, make_pool: Optional[Callable[[], Any]]) -> None:
        """Runs the points of `queue`: at most `capacity` in flight, each claimed in the store just before it starts
        (so that other sweeps on the store take the others); points another sweep holds are waited for, and taken
        over if that sweep dies. When our own pool breaks (a worker process died), the points that were in flight
        run again one at a time in a fresh pool: the one that kills its worker alone gets the error."""
        db = self.db
        pending = list(reversed(queue))   # pop() takes them in grid order
        suspects: List[int] = []           # in flight when a worker died, to run again one at a time
        isolated: Optional[int] = None     # the suspect running alone
        elsewhere: List[int] = []          # claimed by another live sweep
        inflight: Dict[Any, int] = {}
        dask = self.pool is not None and _is_dask_client(self.pool)
        while pending or suspects or inflight or elsewhere:
            broke_at_submit = False   # our own pool found broken as a point was handed to it
            if suspects:
                if not inflight:   # suspects are already ours (claimed): one at a time
                    isolated = suspects.pop()
                    inflight[self._submit(isolated)] = isolated
            else:
                while pending and len(inflight) < capacity:
                    i = pending.pop()
                    state = "ours" if db is None else db.claim(self.keys[i])
                    if state == "done":
                        assert db is not None
                        self.finished(i, db.get(self.keys[i]) or {"error": "the store lost its row"},
                                      from_store=True)
                    elif state == "taken":
                        elsewhere.append(i)
                    elif self.pool is None:
                        self.finished(i, sweep_point(self.configs[i].scenario, self.configs[i].to_dict(),
                                                     self.budget))
                    else:
                        try:
                            inflight[self._submit(i)] = i
                        except BrokenProcessPool as e:
                            if make_pool is None:   # a user's pool that broke earlier: it cannot be renewed
                                self.finished(i, {"error": f"BrokenProcessPool: {e}"})
                                continue
                            # ours: a worker died between two results; the point did not start, and goes again
                            # in the new pool (the ones in flight are the suspects)
                            pending.append(i)
                            broke_at_submit = True
                            break
            if broke_at_submit and not inflight and make_pool is not None:   # none in flight to blame: a fresh pool
                _terminate(self.pool)
                self.workers = []
                self.pool = make_pool()
            if inflight:
                done: Iterable[Any]
                if dask:
                    time.sleep(_POLL_S)
                    done = [f for f in inflight if f.done()]
                else:
                    done, _ = wait(list(inflight), timeout=_POLL_S, return_when=FIRST_COMPLETED)
                broken = False
                for fut in done:
                    try:
                        summary = self._result(fut)
                    except BrokenProcessPool as e:
                        broken = True
                        if make_pool is None:   # a user's executor: its points fail, it cannot be renewed
                            self.finished(inflight.pop(fut), {"error": f"BrokenProcessPool: {e}"})
                        continue
                    i = inflight.pop(fut)
                    if i == isolated:
                        isolated = None
                    self.finished(i, summary)
                if (broken or broke_at_submit) and make_pool is not None:
                    codes = _exit_codes(self.workers)
                    self.workers = []
                    _terminate(self.pool)
                    if isolated is not None:   # it killed its worker by itself
                        self.finished(isolated, {"error": f"the worker process running this point died ({codes})"})
                        isolated = None
                    else:
                        suspects = sorted(set(inflight.values()) | set(suspects), reverse=True)
                    inflight.clear()
                    self.pool = make_pool()
            elif elsewhere and not pending:
                time.sleep(_POLL_S)
            still = []
            for i in elsewhere:   # another sweep's points: its result, or its claim lost (it died): ours to run
                assert db is not None   # only a store has other sweeps' points
                got = db.get(self.keys[i])
                if got is not None:
                    self.finished(i, got, from_store=True)
                elif db.claimed_by_other(self.keys[i]):
                    still.append(i)
                else:
                    pending.append(i)
            elsewhere = still


def _capacity(executor: Any) -> int:
    """Points in flight at once on a user's executor: its workers, plus one each to keep them busy."""
    if _is_dask_client(executor):
        try:
            return max(1, 2 * sum(executor.nthreads().values()))
        except Exception:   # pragma: no cover - a client without workers yet
            return 2 * usable_cores()
    n = getattr(executor, "_max_workers", None)
    return 2 * n if isinstance(n, int) and n > 0 else 2 * usable_cores()


_REAP_S = 5.0   # how long _exit_codes waits, in all, for a broken pool's workers to be reaped


def _exit_codes(workers: Iterable[Any]) -> str:
    """How a broken pool's dead workers ended ("killed by SIGSEGV", "exit code 1"), for the error text. The pool
    itself sends SIGTERM to the survivors of a break: that is named only when nothing else is."""
    out = []
    deadline = time.monotonic() + _REAP_S
    for proc in workers:
        code = getattr(proc, "exitcode", None)
        # None: dead but not yet reaped (a loaded machine), or being reaped this instant by the pool's own thread
        # (its waitpid took the status: ours finds no child and returns at once, and the code appears when that
        # thread stores it). Asked again until it shows, as long as the deadline allows: one that is still
        # running is named by nothing.
        while code is None and hasattr(proc, "join") and time.monotonic() < deadline:
            proc.join(timeout=0.05)
            code = proc.exitcode
            if code is None:
                time.sleep(0.01)
        if code is None or code == 0:
            continue
        if code < 0:
            try:
                out.append(f"killed by {signal.Signals(-code).name}")
            except ValueError:
                out.append(f"killed by signal {-code}")
        else:
            out.append(f"exit code {code}")
    causes = set(out) - {"killed by SIGTERM"} or set(out)
    return ", ".join(sorted(causes)) or "it ended without a result"


def _terminate(pool: Any) -> None:
    """Stops a process pool at once (its workers may be in the middle of long points)."""
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            proc.terminate()
        except Exception:   # pragma: no cover - already gone
            pass
    try:
        pool.shutdown(wait=False, cancel_futures=True)
    except Exception:   # pragma: no cover
        pass

