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
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

from .config import ScenarioConfig

_OPS: Dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt, "==": operator.eq}
_TARGET = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|==|<|>)\s*([-+0-9.eE]+)\s*$")


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


@dataclass
class OptimizeResult:
    trials: pd.DataFrame           # one row per trial: its fields, each metric's mean / min / max, feasible
    best: Optional[pd.Series]      # one objective: the cheapest feasible trial (None: no trial met the targets)
    pareto: Optional[pd.DataFrame]  # two objectives: the feasible trials no other feasible trial beats on both
    runs: int                      # simulations computed for this call (the store's points not counted)
    reused: int                    # simulations found in the result store
    seeds: int

    def __repr__(self) -> str:
        feasible = int(self.trials["feasible"].sum()) if len(self.trials) else 0
        head = f"OptimizeResult({len(self.trials)} trials x {self.seeds} seed(s), {feasible} meet the targets, " \
               f"{self.runs} runs computed, {self.reused} from the store"
        if self.best is not None:
            return head + f"; best trial {int(self.best['trial'])})"
        if self.pareto is not None:
            return head + f"; Pareto front of {len(self.pareto)})"
        return head + "; none feasible)"


def _space_spec(base: ScenarioConfig, space: Mapping[str, Any]) -> Dict[str, Tuple[str, Any]]:
    """Field -> ("int"|"float", (lo, hi, log)) or ("choice", values), checked against the field's own range. A
    numeric field takes (low, high), (low, high, "log") or {"low": .., "high": .., "log": bool}; any field takes
    {"values": [...]} (and a list of other than two or three entries is its values)."""
    out: Dict[str, Tuple[str, Any]] = {}
    if not space:
        raise ValueError("space is empty: give {field: (low, high)} or {field: {'values': [...]}}")
    for name, dom in space.items():
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
            lo, hi = float(dom[0]), float(dom[1])
            log = len(dom) == 3 and dom[2] == "log"
            if not lo < hi:
                raise ValueError(f"space[{name!r}] = {dom!r}: low must be below high")
            if log and lo <= 0:
                raise ValueError(f"space[{name!r}] = {dom!r}: a log range needs low > 0")
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


def _objective_names(minimize: Optional[str], objectives: Optional[Sequence[str]]) -> List[Tuple[str, str]]:
    if (minimize is None) == (objectives is None):
        raise ValueError("give minimize='field or metric' (the cheapest trial meeting the targets) or "
                         "objectives=[a, b] (their Pareto front), not both")
    names = [minimize] if minimize is not None else list(objectives or [])
    if not 1 <= len(names) <= 2:
        raise ValueError(f"objectives = {names!r}: one or two (a Pareto front of two)")
    return [("maximize", n[1:]) if n.startswith("-") else ("minimize", n) for n in names]


def optimize(base: ScenarioConfig, space: Mapping[str, Any], targets: Sequence[Union[str, Target]] = (),
             minimize: Optional[str] = None, objectives: Optional[Sequence[str]] = None, trials: int = 40,
             seeds: Sequence[int] = (1, 2, 3), workers: Optional[int] = None, store=None,
             study_store: Optional[str] = None, study_name: Optional[str] = None, sampler_seed: int = 0,
             executor: Optional[Any] = None, progress: bool = False,
             memory_budget_mb: Optional[float] = None) -> OptimizeResult:
    """See the module doc. ValueError (before any run) for an unknown field or metric form, a range outside the
    field's, no objective or two ways of giving one."""
    try:
        import optuna
    except ImportError:   # pragma: no cover
        raise ValueError("cmswitch.optimize needs Optuna: pip install 'cmswitch[optimize]' (or optuna)") from None
    from .sweep import sweep

    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials = {trials!r}: a whole number >= 1")
    if not seeds:
        raise ValueError("seeds is empty: give at least one")
    dims = _space_spec(base, space)
    goals = [Target.parse(t) for t in targets]
    objs = _objective_names(minimize, objectives)
    fields = set(base.to_dict())
    state = {"runs": 0, "reused": 0}
    rows: List[Dict[str, Any]] = []

    def evaluate(trial: "optuna.trial.Trial") -> Any:
        params: Dict[str, Any] = {}
        for name, (kind, dom) in dims.items():
            if kind == "int":
                params[name] = trial.suggest_int(name, int(dom[0]), int(dom[1]), log=dom[2])
            elif kind == "float":
                params[name] = trial.suggest_float(name, dom[0], dom[1], log=dom[2])
            else:
                params[name] = trial.suggest_categorical(name, dom)
        cfg = base.replace(**params)
        df = sweep(cfg, {"seed": list(seeds)}, workers=workers, store=store, executor=executor, progress=False,
                   errors="raise", memory_budget_mb=memory_budget_mb)
        state["runs"] += int(df.attrs.get("computed", 0))
        state["reused"] += int(df.attrs.get("reused", 0))
        row: Dict[str, Any] = {"trial": trial.number, **params}
        infeasible = ""
        if "infeasible" in df and df["infeasible"].fillna("").astype(str).ne("").any():
            infeasible = str(df["infeasible"].fillna("").astype(str).iloc[0])
        violations = []
        for g in goals:
            if infeasible:
                violations.append(1.0)
                continue
            if g.metric not in df:
                raise ValueError(f"target {g}: {base.scenario} reports no metric {g.metric!r}")
            vals = [float(v) for v in df[g.metric]]
            row[f"{g.metric}_mean"] = sum(vals) / len(vals)
            row[f"{g.metric}_min"], row[f"{g.metric}_max"] = min(vals), max(vals)
            violations.append(g.violation(vals))
        values = []
        for direction, name in objs:
            if name in params:
                v = float(params[name])
            elif name in fields:
                v = float(cfg.to_dict()[name])
            elif infeasible:
                v = math.inf if direction == "minimize" else -math.inf
            elif name in df:
                v = float(df[name].mean())
                row[f"{name}_mean"] = v   # and its spread over the seeds
                row[f"{name}_min"], row[f"{name}_max"] = float(df[name].min()), float(df[name].max())
            else:
                raise ValueError(f"objective {name!r}: neither a field of {type(base).__name__} nor a metric "
                                 f"{base.scenario} reports")
            values.append(v)
        row["feasible"] = not infeasible and all(v <= 0 for v in violations)
        row["infeasible"] = infeasible
        trial.set_user_attr("violations", violations)
        if per_trial_constraints:   # Optuna >= 5: constraints set on the trial (constraints_func is deprecated)
            for k, v in enumerate(violations):
                trial.set_constraint(f"target{k}", v)
        rows.append(row)
        return values[0] if len(values) == 1 else tuple(values)

    def constraints(t: "optuna.trial.FrozenTrial") -> Sequence[float]:
        return t.user_attrs.get("violations", [1.0] * len(goals))

    per_trial_constraints = bool(goals) and hasattr(optuna.trial.Trial, "set_constraint")
    cfunc = constraints if goals and not per_trial_constraints else None
    if len(objs) == 1:
        sampler: Any = optuna.samplers.TPESampler(seed=sampler_seed, constraints_func=cfunc,
                                                  n_startup_trials=min(10, max(2, trials // 4)))
    else:
        sampler = optuna.samplers.NSGAIISampler(seed=sampler_seed, constraints_func=cfunc,
                                                population_size=min(20, max(4, trials // 4)))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = f"sqlite:///{study_store}" if study_store else None
    directions: List[Any] = [d for d, _ in objs]
    study = optuna.create_study(directions=directions, sampler=sampler, storage=storage,
                                study_name=study_name or f"cmswitch-{base.scenario}",
                                load_if_exists=bool(study_store))
    study.optimize(evaluate, n_trials=trials, show_progress_bar=progress)
    df = pd.DataFrame(rows)
    best = pareto = None
    ok = df[df["feasible"]] if len(df) else df
    if len(objs) == 1 and len(ok):
        direction, name = objs[0]
        col = name if name in ok else f"{name}_mean"
        i = ok[col].idxmin() if direction == "minimize" else ok[col].idxmax()
        best = ok.loc[i]
    elif len(objs) == 2:
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
    return OptimizeResult(trials=df, best=best, pareto=pareto, runs=state["runs"], reused=state["reused"],
                          seeds=len(seeds))


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


__all__ = ["optimize", "OptimizeResult", "Target", "grid_runs"]
