# SPDX-License-Identifier: Apache-2.0
"""Search against a target: the values of some numeric fields (a buffer, alpha, Kmin/Kmax/Pmax, DCTCP's K, a
headroom) that meet one or more targets at least cost, or the Pareto front of two objectives.

    import cmswitch
    res = cmswitch.optimize(
        cmswitch.IncastConfig(flows=16, duration_s=0.5),
        space={"buffer_kb": (8, 1024)},                 # (low, high); ints stay ints; (low, high, "log")
        targets=["goodput_mbps >= 900", "drops == 0"],  # summary metrics, each the mean over the seeds
        minimize="buffer_kb",                           # the cost: a field or a metric
        trials=40, seeds=(1, 2, 3))
    res.best          # the cheapest trial that meets every target (a Series), or None
    res.trials        # one row per trial: the fields, each metric's mean and spread, feasible
    res.runs          # simulations made (trials x seeds, less what the store already held)

Two objectives (``objectives=["pool_kb", "slowdown_p99_small"]``, both minimized; prefix a name with ``-`` to
maximize it) give ``res.pareto``: the trials that meet the targets and that no other such trial beats on both.

The search is Optuna's (TPE, with the targets as constraints; NSGA-II for two objectives), seeded, so the same call
gives the same trials. Each trial is a `sweep` over the seeds: runs go in parallel (`workers`, a Dask `executor`)
and into the result `store`, so a repeated or resumed search reruns nothing; with `study_store` (a SQLite file)
the Optuna study itself is kept and a later call with the same name continues it. A target on a metric is met
by the seeds' mean; ``drops == 0``-style equalities must hold in every seed. ``cmswitch optimize SPEC`` runs the
same from a TOML or YAML file (scenario, base, space, targets, minimize or objectives, trials, seeds, output).
"""
from __future__ import annotations

import math
import operator
import os
import re
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from .config import ScenarioConfig

_OPS: Dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt, "==": operator.eq}
_TARGET = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|==|<|>)\s*([-+0-9.eE]+)\s*$")
_ORDER = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=)\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


@dataclass(frozen=True)
class Target:
    """``metric op value``: met by the mean over the seeds (``==``: by every seed)."""
    metric: str
    op: str
    value: float

    @classmethod
    def parse(cls, text: Union[str, "Target"]) -> "Target":
        if isinstance(text, Target):
            return text
        m = _TARGET.match(str(text))
        if not m:
            raise ValueError(f"target {text!r}: write 'metric op number', op one of <, <=, >, >=, == "
                             f"(e.g. 'delay_p99_us < 20')")
        return cls(m.group(1), m.group(2), float(m.group(3)))

    def violation(self, values: Sequence[float]) -> float:
        """How far the seeds' values are from meeting the target (<= 0: met), for the search's constraints."""
        if self.op == "==":
            return max(abs(v - self.value) for v in values)
        mean = sum(values) / len(values)
        if self.op in ("<", "<="):
            gap = mean - self.value
        else:
            gap = self.value - mean
        return gap if self.op in ("<=", ">=") or gap != 0 else 1e-12   # strict: equality is not met

    def __str__(self) -> str:
        return f"{self.metric} {self.op} {self.value:g}"


@dataclass(frozen=True)
class Order:
    """``low <= high`` between two fields: the search never samples a point that breaks it (DCQCN's Kmin <= Kmax,
    a pool's XON below its XOFF). `high` is sampled first (or is the base config's value when it is not searched)
    and `low` is drawn in [its low, min(its high, high's value)]: a reparametrisation, so no trial is spent on a
    config the model refuses."""
    low: str
    high: str

    @classmethod
    def parse(cls, text: Union[str, "Order"]) -> "Order":
        if isinstance(text, Order):
            return text
        m = _ORDER.match(str(text))
        if not m:
            raise ValueError(f"constraint {text!r}: write 'field <= field' (or 'field >= field'), e.g. "
                             f"'dcqcn_kmin_kb <= dcqcn_kmax_kb'")
        a, op, b = m.group(1), m.group(2), m.group(3)
        return cls(a, b) if op == "<=" else cls(b, a)

    def __str__(self) -> str:
        return f"{self.low} <= {self.high}"


@dataclass
class OptimizeResult:
    trials: pd.DataFrame           # one row per trial: its fields, each metric's mean / min / max, feasible, error,
    #                                best_so_far (the objective's best feasible value after the trial)
    best: Optional[pd.Series]      # one objective: the cheapest feasible trial (None: no trial met the targets)
    pareto: Optional[pd.DataFrame]  # two objectives: the feasible trials no other feasible trial beats on both
    runs: int                      # simulations computed for this call (the store's points not counted)
    reused: int                    # simulations found in the result store
    seeds: int
    converged: Optional[bool] = None   # one objective: the last `patience` trials did not improve the best
    convergence: str = ""          # that verdict in words, with the trial that found the best

    def __repr__(self) -> str:
        feasible = int(self.trials["feasible"].sum()) if len(self.trials) else 0
        failed = int((self.trials["error"] != "").sum()) if "error" in self.trials else 0
        head = f"OptimizeResult({len(self.trials)} trials x {self.seeds} seed(s), {feasible} meet the targets, " \
               f"{failed} failed, {self.runs} runs computed, {self.reused} from the store"
        if self.best is not None:
            return head + f"; best trial {int(self.best['trial'])})"
        if self.pareto is not None:
            return head + f"; Pareto front of {len(self.pareto)})"
        return head + "; none feasible)"


def _finite_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _space_spec(base: ScenarioConfig, space: Mapping[str, Any]) -> Dict[str, Tuple[str, Any]]:
    """Field -> ("int"|"float", (lo, hi, log)) or ("choice", values), checked against the field's own range. A
    numeric field takes (low, high), (low, high, "log") or {"low": .., "high": .., "log": bool}; any field takes
    {"values": [...]} (and a list of other than two or three entries is its values)."""
    out: Dict[str, Tuple[str, Any]] = {}
    if not isinstance(space, Mapping) or not space:
        raise ValueError("space is empty: give {field: (low, high)} or {field: {'values': [...]}}")
    for name, dom in space.items():
        if name == "seed":
            raise ValueError("space['seed']: the seeds are given by seeds=[...] (every trial runs each of them), "
                             "not searched")
        info = type(base).field_info(name)
        numeric = info["type"] in ("int", "float")
        if isinstance(dom, Mapping):
            if "values" in dom:
                dom = list(dom["values"])
            else:
                dom = (dom.get("low"), dom.get("high")) + (("log",) if dom.get("log") else ())
        is_range = numeric and isinstance(dom, (list, tuple)) and len(dom) in (2, 3) and \
            all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in dom[:2]) and \
            (len(dom) == 2 or dom[2] in ("log", "linear"))
        if is_range:
            if not all(_finite_number(x) for x in dom[:2]):
                raise ValueError(f"space[{name!r}] = {list(dom)!r}: low and high must be finite numbers")
            lo, hi = float(dom[0]), float(dom[1])
            log = len(dom) == 3 and dom[2] == "log"
            if not lo < hi:
                raise ValueError(f"space[{name!r}] = {dom!r}: low must be below high")
            if log and lo <= 0:
                raise ValueError(f"space[{name!r}] = {dom!r}: a log range needs low > 0")
            if info["type"] == "int" and (not float(lo).is_integer() or not float(hi).is_integer()):
                raise ValueError(f"space[{name!r}] = {list(dom)!r}: {name} is a whole number; give whole bounds")
            for v in (lo, hi):   # the field's own range, named as the config would name it
                base.replace(**{name: int(v) if info["type"] == "int" else v})
            out[name] = (info["type"], (lo, hi, log))
        elif isinstance(dom, (list, tuple)) and dom:
            for v in dom:
                base.replace(**{name: v})
            out[name] = ("choice", list(dom))
        else:
            raise ValueError(f"space[{name!r}] = {dom!r}: give (low, high), (low, high, 'log') or "
                             f"{{'values': [...]}}")
    return out


def _orders(base: ScenarioConfig, dims: Dict[str, Tuple[str, Any]],
            constraints: Sequence[Union[str, Order]]) -> Dict[str, str]:
    """low field -> high field for each constraint, checked: both fields numeric, `low` searched, at most one
    bound per field, no chain, and a space in which every value of `high` leaves `low` a value."""
    fields = base.to_dict()
    out: Dict[str, str] = {}
    for c in (Order.parse(x) for x in constraints):
        for f in (c.low, c.high):
            if f not in fields:
                type(base).field_info(f)   # the config's own "unknown field, did you mean" error
        if c.low not in dims or dims[c.low][0] == "choice":
            raise ValueError(f"constraint {c}: {c.low} must be searched over a (low, high) range in space")
        if c.high in dims and dims[c.high][0] == "choice":
            raise ValueError(f"constraint {c}: {c.high} is searched over a list of values; give it a range")
        if c.low in out or c.high in out:
            raise ValueError(f"constraint {c}: a field may be bounded by one other field and not bound another "
                             f"in turn (have {', '.join(f'{a} <= {b}' for a, b in out.items())})")
        lo_low = dims[c.low][1][0]
        lo_high = dims[c.high][1][0] if c.high in dims else float(fields[c.high])
        if lo_high < lo_low:
            where = f"space[{c.high!r}] starts at" if c.high in dims else f"the base config's {c.high} is"
            raise ValueError(f"constraint {c}: {where} {lo_high:g}, below the lowest {c.low} searched ({lo_low:g}): "
                             f"no {c.low} exists there; start {c.high} at {lo_low:g} or more")
        out[c.low] = c.high
    return out


def _suggest(trial: Any, base_fields: Dict[str, Any], dims: Dict[str, Tuple[str, Any]],
             orders: Dict[str, str]) -> Dict[str, Any]:
    """One trial's field values: free fields first, then each bounded field as a fraction of its range below
    its bound (the parameter `<field>__fraction`; the value itself goes in the trial's attributes)."""
    params: Dict[str, Any] = {}
    for name, (kind, dom) in dims.items():
        if name in orders:
            continue
        if kind == "int":
            params[name] = trial.suggest_int(name, int(dom[0]), int(dom[1]), log=dom[2])
        elif kind == "float":
            params[name] = trial.suggest_float(name, dom[0], dom[1], log=dom[2])
        else:
            params[name] = trial.suggest_categorical(name, dom)
    for name, bound in orders.items():
        kind, (lo, hi, log) = dims[name]
        top = min(hi, float(params.get(bound, base_fields[bound])))
        u = trial.suggest_float(f"{name}__fraction", 0.0, 1.0)
        v = math.exp(math.log(lo) + u * (math.log(top) - math.log(lo))) if log and top > lo else lo + u * (top - lo)
        params[name] = min(int(math.floor(v + 1e-9)), int(top)) if kind == "int" else min(v, top)
    return {name: params[name] for name in dims}


def _objective_names(minimize: Optional[str], objectives: Optional[Sequence[str]]) -> List[Tuple[str, str]]:
    if (minimize is None) == (objectives is None):
        raise ValueError("give minimize='field or metric' (the cheapest trial meeting the targets) or "
                         "objectives=[a, b] (their Pareto front), not both")
    names = [minimize] if minimize is not None else list(objectives or [])
    if not 1 <= len(names) <= 2 or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"objectives = {names!r}: one or two names (a Pareto front of two)")
    return [("maximize", n[1:]) if n.startswith("-") else ("minimize", n) for n in names]


def _check_seeds(seeds: Any) -> Tuple[int, ...]:
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence) or not seeds:
        raise ValueError(f"seeds = {seeds!r}: a non-empty list of whole numbers, e.g. [1, 2, 3]")
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"seeds = {list(seeds)!r}: every seed a whole number >= 0 (not {s!r})")
    return tuple(seeds)


def _check_count(name: str, value: Any, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} = {value!r}: a whole number >= 1")


@contextmanager
def _study_lock(path: Optional[str]):
    """Creating an Optuna study in a new SQLite file is not safe from two processes at once (both create the
    tables): the creation holds an exclusive lock on a file beside it."""
    if not path:
        yield
        return
    import fcntl
    with open(path + ".lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _check_study_store(path: Optional[str]) -> None:
    if path is None:
        return
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ValueError(f"study_store = {path!r}: the path of an SQLite file")
    folder = os.path.dirname(os.path.abspath(str(path)))
    if os.path.isdir(str(path)) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise ValueError(f"study_store = {str(path)!r}: not a file in a folder that exists and is writable")


class _Trials:
    """The search's bookkeeping: one row per trial, the runs it cost, the best value so far."""

    def __init__(self, base: ScenarioConfig, goals: List[Target], objs: List[Tuple[str, str]]):
        self.base, self.goals, self.objs = base, goals, objs
        self.fields = base.to_dict()
        self.rows: List[Dict[str, Any]] = []
        self.runs = self.reused = 0
        self.best: Optional[float] = None
        self.since_best = 0

    def record(self, row: Dict[str, Any], value: Optional[float], rel_tol: float) -> None:
        """Appends a trial; for one objective, the best feasible value after it and whether it improved it by
        more than rel_tol of the best's size."""
        if len(self.objs) == 1:
            sign = 1.0 if self.objs[0][0] == "minimize" else -1.0
            improved = value is not None and row["feasible"] and (
                self.best is None or sign * (self.best - value) > rel_tol * abs(self.best))
            if value is not None and row["feasible"] and (self.best is None or sign * (self.best - value) > 0):
                self.best = value
            self.since_best = 0 if improved else self.since_best + 1
            row["improved"] = bool(improved)
            row["best_so_far"] = math.nan if self.best is None else self.best
        self.rows.append(row)

    def metrics(self, df: pd.DataFrame, row: Dict[str, Any], cfg: ScenarioConfig,
                params: Dict[str, Any]) -> Tuple[List[float], List[float], str]:
        """The targets' violations and the objectives' values of one trial's runs (row gets each metric's mean,
        min and max), and the reason the core refused the config ("" if it ran)."""
        infeasible = ""
        if "infeasible" in df and df["infeasible"].fillna("").astype(str).ne("").any():
            infeasible = str(df["infeasible"].fillna("").astype(str).iloc[0])
        violations = []
        for g in self.goals:
            if infeasible:
                violations.append(1.0)
                continue
            if g.metric not in df:
                raise ValueError(f"target {g}: {self.base.scenario} reports no metric {g.metric!r}")
            vals = [float(v) for v in df[g.metric]]
            row[f"{g.metric}_mean"] = sum(vals) / len(vals)
            row[f"{g.metric}_min"], row[f"{g.metric}_max"] = min(vals), max(vals)
            violations.append(g.violation(vals))
        values = []
        for direction, name in self.objs:
            if name in params:
                v = float(params[name])
            elif name in self.fields:
                v = float(cfg.to_dict()[name])
            elif infeasible:
                v = math.inf if direction == "minimize" else -math.inf
            elif name in df:
                v = float(df[name].mean())
                row[f"{name}_mean"] = v   # and its spread over the seeds
                row[f"{name}_min"], row[f"{name}_max"] = float(df[name].min()), float(df[name].max())
            else:
                raise ValueError(f"objective {name!r}: neither a field of {type(self.base).__name__} nor a metric "
                                 f"{self.base.scenario} reports")
            values.append(v)
        return violations, values, infeasible


def optimize(base: ScenarioConfig, space: Mapping[str, Any], targets: Sequence[Union[str, Target]] = (),
             minimize: Optional[str] = None, objectives: Optional[Sequence[str]] = None, trials: int = 40,
             seeds: Sequence[int] = (1, 2, 3), workers: Optional[int] = None, store=None,
             study_store: Optional[str] = None, study_name: Optional[str] = None, sampler_seed: int = 0,
             executor: Optional[Any] = None, progress: bool = False,
             memory_budget_mb: Optional[float] = None, constraints: Sequence[Union[str, Order]] = (),
             patience: Optional[int] = None, rel_tol: float = 0.01) -> OptimizeResult:
    """Searches `space` for the cheapest config meeting `targets` (or the Pareto front of two `objectives`).

    - space: {field: (low, high)} (ints stay ints), (low, high, "log"), {"low", "high", "log"} or
      {"values": [...]}, each inside the field's own range; `seed` is not searched (seeds= gives them).
    - targets: "metric op number" (op <, <=, >, >=, ==), each met by the mean over the seeds; == in every seed.
    - minimize: a field or a metric (prefix "-" to maximize); objectives: two of them for a Pareto front.
    - constraints: "a <= b" between two fields (a searched, b searched or fixed by base): no trial breaks it.
    - trials: at most this many; patience: stop once this many trials in a row have not improved the best
      feasible value by more than rel_tol of it (one objective; None: run every trial). The result says
      whether the search converged (`converged`, `convergence`) and each trial's `best_so_far`.
    - a trial whose runs fail (the model breaks an invariant, a worker dies) or whose config the model refuses
      is recorded (`error` / `infeasible`, feasible False) and the search goes on.
    - workers, executor, store, memory_budget_mb: as cmswitch.sweep; study_store (an SQLite file) keeps the
      Optuna study itself, so a later call with the same study_name continues it (several processes may share
      one). sampler_seed: the same call gives the same trials.

    ValueError, before any run, for an unknown field or metric form, a range outside the field's, a constraint
    that cannot hold, no objective or two ways of giving one. The module doc has an example."""
    try:
        import optuna
    except ImportError:   # pragma: no cover
        raise ValueError("cmswitch.optimize needs Optuna: pip install 'cmswitch[optimize]' (or optuna)") from None
    from .sweep import SweepFailed, sweep

    _check_count("trials", trials)
    _check_count("patience", patience, allow_none=True)
    if not (_finite_number(rel_tol) and 0 <= rel_tol < 1):
        raise ValueError(f"rel_tol = {rel_tol!r}: a fraction in [0, 1)")
    seeds = _check_seeds(seeds)
    _check_study_store(study_store)
    dims = _space_spec(base, space)
    orders = _orders(base, dims, constraints)
    goals = [Target.parse(t) for t in targets]
    objs = _objective_names(minimize, objectives)
    if patience is not None and len(objs) != 1:
        raise ValueError("patience: a stopping rule for one objective (minimize=...), not a Pareto front")
    book = _Trials(base, goals, objs)

    def evaluate(trial: "optuna.trial.Trial") -> Any:
        params = _suggest(trial, book.fields, dims, orders)
        for name in orders:
            trial.set_user_attr(name, params[name])
        row: Dict[str, Any] = {"trial": trial.number, **params, "error": ""}
        try:
            cfg = base.replace(**params)
            df = sweep(cfg, {"seed": list(seeds)}, workers=workers, store=store, executor=executor, progress=False,
                       errors="raise", memory_budget_mb=memory_budget_mb)
        except (SweepFailed, ValueError) as e:   # recorded; the sampler learns nothing from it
            row.update(feasible=False, infeasible="", error=f"{type(e).__name__}: {e}")
            book.record(row, None, rel_tol)
            return None
        book.runs += int(df.attrs.get("computed", 0))
        book.reused += int(df.attrs.get("reused", 0))
        violations, values, infeasible = book.metrics(df, row, cfg, params)
        row["feasible"] = not infeasible and all(v <= 0 for v in violations)
        row["infeasible"] = infeasible
        trial.set_user_attr("violations", violations)
        if per_trial_constraints:   # Optuna >= 5: constraints set on the trial (constraints_func is deprecated)
            for k, v in enumerate(violations):
                trial.set_constraint(f"target{k}", v)
        book.record(row, values[0] if len(values) == 1 else None, rel_tol)
        return values[0] if len(values) == 1 else tuple(values)

    def stop_when_flat(study: Any, _trial: Any) -> None:
        if patience is not None and book.best is not None and book.since_best >= patience:
            study.stop()

    per_trial_constraints = bool(goals) and hasattr(optuna.trial.Trial, "set_constraint")
    study = _make_study(optuna, base, objs, goals, trials, sampler_seed, study_store, study_name,
                        None if per_trial_constraints else _constraints_func(goals))
    study.optimize(evaluate, n_trials=trials, show_progress_bar=progress, callbacks=[stop_when_flat])
    df = pd.DataFrame(book.rows)
    best, pareto = _answers(df, objs)
    converged, text = _convergence(df, objs, patience, rel_tol, trials)
    return OptimizeResult(trials=df, best=best, pareto=pareto, runs=book.runs, reused=book.reused,
                          seeds=len(seeds), converged=converged, convergence=text)


def _constraints_func(goals: List[Target]) -> Optional[Callable[[Any], Sequence[float]]]:
    if not goals:
        return None

    def constraints(t: Any) -> Sequence[float]:
        return t.user_attrs.get("violations", [1.0] * len(goals))
    return constraints


def _make_study(optuna: Any, base: ScenarioConfig, objs: List[Tuple[str, str]], goals: List[Target], trials: int,
                sampler_seed: int, study_store: Optional[str], study_name: Optional[str],
                cfunc: Optional[Callable[[Any], Sequence[float]]]) -> Any:
    """TPE (multivariate: the fields of a threshold pair move together) for one objective, NSGA-II for two;
    the study created under a file lock when it lives in an SQLite file several processes may share."""
    if len(objs) == 1:
        with warnings.catch_warnings():   # multivariate TPE is stable in use; Optuna still flags it experimental
            warnings.simplefilter("ignore")
            sampler: Any = optuna.samplers.TPESampler(seed=sampler_seed, constraints_func=cfunc, multivariate=True,
                                                      n_startup_trials=min(10, max(2, trials // 4)))
    else:
        sampler = optuna.samplers.NSGAIISampler(seed=sampler_seed, constraints_func=cfunc,
                                                population_size=min(20, max(4, trials // 4)))
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    storage = f"sqlite:///{os.path.abspath(study_store)}" if study_store else None
    with _study_lock(study_store):
        return optuna.create_study(directions=[d for d, _ in objs], sampler=sampler, storage=storage,
                                   study_name=study_name or f"cmswitch-{base.scenario}",
                                   load_if_exists=bool(study_store))


def _answers(df: pd.DataFrame, objs: List[Tuple[str, str]]) -> Tuple[Optional[pd.Series], Optional[pd.DataFrame]]:
    """The cheapest feasible trial (one objective) or the feasible trials no other beats on both (two)."""
    best = pareto = None
    ok = df[df["feasible"].astype(bool)] if len(df) else df
    if len(objs) == 1 and len(ok):
        direction, name = objs[0]
        col = name if name in ok else f"{name}_mean"
        i = ok[col].idxmin() if direction == "minimize" else ok[col].idxmax()
        best = ok.loc[i]
    elif len(objs) == 2 and len(ok):
        cols = [n if n in ok else f"{n}_mean" for _, n in objs]
        sign = [1 if d == "minimize" else -1 for d, _ in objs]
        keep = []
        for i, r in ok.iterrows():
            a = [s * r[c] for s, c in zip(sign, cols)]
            dominated = any(all(s * q[c] <= x for s, c, x in zip(sign, cols, a)) and
                            any(s * q[c] < x for s, c, x in zip(sign, cols, a)) for _, q in ok.iterrows())
            if not dominated:
                keep.append(i)
        pareto = ok.loc[keep].sort_values(cols[0]).drop_duplicates(subset=cols)
    elif len(objs) == 2:
        pareto = ok
    return best, pareto


def _convergence(df: pd.DataFrame, objs: List[Tuple[str, str]], patience: Optional[int], rel_tol: float,
                 trials: int) -> Tuple[Optional[bool], str]:
    if len(objs) != 1 or not len(df):
        return None, ""
    if not df["feasible"].astype(bool).any():
        return False, f"no trial of {len(df)} met the targets: not converged"
    improved = df.index[df["improved"]].tolist()
    last = int(df.loc[improved[-1], "trial"]) if improved else int(df["trial"].iloc[0])
    flat = len(df) - 1 - df.index.get_loc(improved[-1]) if improved else len(df)
    window = patience if patience is not None else max(5, trials // 4)
    ok = flat >= window
    verdict = (f"converged: the last {flat} trials did not improve the best by more than {rel_tol:.0%} "
               f"(stopping rule: {window})" if ok else
               f"not converged: trial {last} improved the best and only {flat} trials followed (the rule asks "
               f"{window}); give more trials")
    best = df["best_so_far"].iloc[-1]
    found = int(df.loc[df["best_so_far"] == best, "trial"].iloc[0])
    return ok, (f"best {objs[0][1]} {best:.6g} (trial {found}); the last improvement by more than {rel_tol:.0%}: "
                f"trial {last}; {verdict}")


def resolution(trials: pd.DataFrame, space: Mapping[str, Any], best: pd.Series) -> Dict[str, float]:
    """Per searched range: how finely the search sampled around its best, the larger of the gaps from the best
    to the nearest other trial below and above it in that field (a grid with that step would have sampled as
    close)."""
    out: Dict[str, float] = {}
    for name, dom in space.items():
        if name not in trials or not (isinstance(dom, (list, tuple)) and len(dom) in (2, 3) and
                                      _finite_number(dom[0])):
            continue
        x = float(best[name])
        vals = trials[name].astype(float)
        below, above = vals[vals < x], vals[vals > x]
        gaps = [x - float(below.max()) if len(below) else x - float(dom[0]),
                float(above.min()) - x if len(above) else float(dom[1]) - x]
        out[name] = max(max(gaps), 1e-12)
    return out


def grid_runs(space: Mapping[str, Any], resolution: Mapping[str, float], seeds: int) -> int:
    """The runs of the grid that answers to the same resolution: prod over fields of (high - low) / step + 1,
    times the seeds (what the search is compared with)."""
    n = 1
    for name, dom in space.items():
        if isinstance(dom, (list, tuple)) and len(dom) in (2, 3) and not isinstance(dom[0], str) and \
                name in resolution:
            n *= int(math.floor((float(dom[1]) - float(dom[0])) / resolution[name] + 1e-9)) + 1
        else:
            n *= len(dom)
    return n * seeds


__all__ = ["optimize", "OptimizeResult", "Order", "Target", "grid_runs", "resolution"]
