# SPDX-License-Identifier: Apache-2.0
"""Command line for people who do not write Python:

  cmswitch run <scenario> [--field value ...]      one run; prints its summary as JSON
  cmswitch sweep <spec.toml|spec.yaml>             a sweep described in a file; writes a CSV
  cmswitch optimize <spec.toml|spec.yaml>          a search: the field values meeting targets at least cost
  cmswitch study buffer-sizing --out DIR           incast goodput against buffer, flows and scheme (the main job)
  cmswitch study shared-buffer --out DIR           a switch's shared buffer for web search plus incasts
  cmswitch study dcqcn-scale --out DIR             DCQCN vs DCQCN+ over flows x link speed
  cmswitch scenarios [<scenario>]                  the scenarios and their fields (unit, default, range)

Hosts: the incast, vegas-incast and baseline scenarios default to host_profile ns2 (the ns-2 TCP agents their
papers measured); workload and every packaged study to linux (a Linux 6.x server's defaults). Every study
report's header names the profile it ran; --host-profile changes it.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import warnings
from typing import Any, Dict, List, Optional

from . import _core
from .config import CONFIG_CLASSES, config_class, field_name, param_specs, unknown_fields_text
from .sweep import SweepFailed
from .switch import load_sonic, load_switch


def _parse_fields(scenario: str, args: List[str]) -> Dict[str, Any]:
    """--name value pairs as the config class's fields: a name is the core's parameter or the Python field (they
    differ for a core parameter called scenario: `baseline --baseline og-hotspot` and `--scenario og-hotspot`)."""
    core = param_specs(scenario)
    spec = {field_name(scenario, n): p for n, p in core.items()}
    spec.update({n: p for n, p in core.items() if n not in spec and field_name(scenario, n) in spec})
    values: Dict[str, Any] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("--"):
            raise ValueError(f"unexpected argument {a!r}: fields are given as --name value")
        name, _, inline = a[2:].partition("=")
        name = name.replace("-", "_")
        if name in ("switch", "sonic_config"):   # a description file: its fields, overridden by those after it
            if not inline:
                if i + 1 >= len(args):
                    raise ValueError(f"--{name.replace('_', '-')} needs a value: the path of " +
                                     ("a switch description (.json, .toml, .yaml)" if name == "switch"
                                      else "a SONiC CONFIG_DB JSON file"))
                inline = args[i + 1]
                i += 1
            i += 1
            values.update(load_switch(inline, scenario) if name == "switch" else load_sonic(inline, scenario))
            continue
        if name not in spec:
            raise ValueError(unknown_fields_text(f"scenario {scenario}", [name], spec))
        p = spec[name]
        if p["type"] == "bool" and not inline:
            values[field_name(scenario, p["name"])] = True
            i += 1
            continue
        if not inline:
            if i + 1 >= len(args):
                raise ValueError(f"--{name} needs a value")
            inline = args[i + 1]
            i += 1
        i += 1
        values[field_name(scenario, p["name"])] = _convert(name, inline, p)
    return values


def _convert(name: str, text: str, p: dict) -> Any:
    try:
        if p["type"] == "int":
            try:
                return int(text)   # exact (a float would round 2^53 + 1 to 2^53)
            except ValueError:
                v = float(text)    # 1e6 and 4.0 are integers too
                return int(v) if v.is_integer() else v
        if p["type"] == "float":
            return float(text)
        if p["type"] == "list":
            if text.strip().lower() in ("", "none"):   # the documented "none": the empty list
                return ()
            return tuple(float(x) for x in text.split(","))
        if p["type"] == "bool":
            return {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}[text.lower()]
        return text
    except (ValueError, KeyError):
        raise ValueError(f"{name} = {text!r}: not a valid {p['type']}") from None


def _load_spec(path: str) -> Dict[str, Any]:
    """The spec file as a mapping; ValueError naming the file for one that cannot be read or parsed."""
    from .switch import read_tree
    spec = read_tree(path, "sweep spec", other="TOML")
    if not isinstance(spec, dict):
        raise ValueError(f"{path}: the file must hold sections (scenario, base, grid, points, output), "
                         f"not {type(spec).__name__}")
    return spec


def _check_spec(path: str, spec: Dict[str, Any]) -> None:
    """Section types, output keys and empty grids, each named with the file, before anything runs."""
    for key, typ, what in (("base", dict, "a table of fields"), ("grid", dict, "a table of field = [values]"),
                           ("points", list, "a list of tables of fields"), ("output", dict, "a table")):
        if key in spec and not isinstance(spec[key], typ):
            raise ValueError(f"{path}: [{key}] must be {what}, not {type(spec[key]).__name__}")
    for name, values in (spec.get("grid") or {}).items():
        if isinstance(values, list) and not values:
            raise ValueError(f"{path}: grid {name!r} is empty: give at least one value")
    for i, p in enumerate(spec.get("points") or []):
        if not isinstance(p, dict):
            raise ValueError(f"{path}: points[{i}] must be a table of fields, not {type(p).__name__}")
    unknown = set(spec.get("output") or {}) - {"csv", "store", "workers"}
    if unknown:
        raise ValueError(f"{path}: unknown [output] key(s) {', '.join(sorted(unknown))}; allowed: csv, store, workers")
    workers = (spec.get("output") or {}).get("workers")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"{path}: [output] workers = {workers!r}: a whole number >= 1")


def _check_writable(path: str, what: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise ValueError(f"{what} = {path!r}: its folder {folder!r} does not exist or is not writable")


def _current_scenario(name: str) -> str:
    """A scenario's current name; a former name is taken with a warning on stderr."""
    current = _core.renamed_scenarios().get(name)
    if current is None:
        return name
    print(f"warning: scenario {name!r} is now {current!r}; the old name is accepted until the next release",
          file=sys.stderr)
    return current


def cmd_run(ns, rest: List[str]) -> int:
    from .runner import run
    cfg = config_class(ns.scenario).from_dict(_parse_fields(ns.scenario, rest))
    if ns.vcd:
        _check_writable(ns.vcd, "vcd")
    res = run(cfg, vcd=ns.vcd, vcd_signals=ns.vcd_signals, vcd_max_mb=ns.vcd_max_mb, progress=not ns.quiet,
              memory_budget_mb=ns.memory_budget_mb)
    print(json.dumps(res.summary, indent=2))
    return 0


def cmd_sweep(ns, rest: List[str]) -> int:
    from .files import save_rows
    from .sweep import SweepInterrupted, sweep
    if rest:
        raise ValueError(f"unexpected arguments {rest}")
    spec = _load_spec(ns.spec)
    _check_spec(ns.spec, spec)
    for key in spec:
        if key not in ("scenario", "base", "grid", "points", "output"):
            raise ValueError(f"{ns.spec}: unknown section {key!r}; allowed: scenario, base, grid, points, output")
    if "scenario" not in spec:
        raise ValueError(f"{ns.spec}: 'scenario' is missing (one of {', '.join(CONFIG_CLASSES)})")
    cls = config_class(_current_scenario(str(spec["scenario"])))
    base = cls.from_dict(spec.get("base", {}))
    output = spec.get("output", {})
    csv = ns.csv or output.get("csv") or os.path.splitext(ns.spec)[0] + ".csv"
    _check_writable(csv, "csv")   # before the sweep: results are never lost at the end for a bad path
    if ns.store or output.get("store"):
        _check_writable(ns.store or output.get("store"), "store")
    store = ns.store or output.get("store")
    try:
        with warnings.catch_warnings():   # failed points are reported below, with the exit status
            warnings.filterwarnings("ignore", message=r".*sweep points failed", category=RuntimeWarning)
            df = sweep(base, spec.get("grid"), workers=ns.workers or output.get("workers"), store=store,
                       points=spec.get("points"), memory_budget_mb=ns.memory_budget_mb)
    except SweepInterrupted as e:   # what had finished is written, marked as partial by its name
        part = os.path.splitext(csv)[0] + ".partial.csv"
        try:
            save_rows(e.partial, part)
        except OSError as w:
            print(f"cmswitch: error: {w}", file=sys.stderr)
        print(f"cmswitch: interrupted: {len(e.partial)} of {e.total} points finished -> {part}", file=sys.stderr)
        return 130
    try:
        save_rows(df, csv)
    except OSError as e:
        kept = f" (and in the store {store})" if store else ""
        print(f"cmswitch: error: {e}{kept}", file=sys.stderr)
        return 1
    print(f"{len(df)} points ({df.attrs['computed']} computed, {df.attrs['reused']} from the store"
          f"{', ' + str(df.attrs['failed']) + ' failed' if df.attrs['failed'] else ''}) -> {csv}", file=sys.stderr)
    if df.attrs["failed"]:
        bad = df.index[df["error"] != ""].tolist()
        print(f"cmswitch: error: {df.attrs['failed']} of {len(df)} points failed (rows {', '.join(map(str, bad[:10]))}"
              f"{' ...' if len(bad) > 10 else ''}; their error column says why): {df['error'][bad[0]]}",
              file=sys.stderr)
        return 1
    return 0


_OPTIMIZE_KEYS = ("scenario", "base", "space", "constraints", "targets", "minimize", "objectives", "trials",
                  "patience", "seeds", "grid_step", "output")


def _check_optimize_spec(path: str, spec: Dict[str, Any]) -> None:
    """The spec's shape checked before anything runs, each error naming the file and the key (optimize itself
    checks trials, patience, seeds, the space and the constraints; cmd_optimize prefixes its errors with the
    file)."""
    unknown = set(spec) - set(_OPTIMIZE_KEYS)
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(_OPTIMIZE_KEYS)}")
    if "scenario" not in spec or "space" not in spec:
        raise ValueError(f"{path}: needs scenario = \"...\" and a [space] table (field = [low, high])")
    for key, typ, what in (("base", dict, "a table of fields"), ("space", dict, "a table of field = [low, high]"),
                           ("grid_step", dict, "a table of field = step"), ("output", dict, "a table"),
                           ("targets", list, "a list of 'metric op number'"),
                           ("constraints", list, "a list of 'field <= field'"), ("objectives", list, "a list of two"),
                           ("minimize", str, "a field or metric name"), ("scenario", str, "a scenario name")):
        if key in spec and not isinstance(spec[key], typ):
            raise ValueError(f"{path}: {key} must be {what}, not {type(spec[key]).__name__} ({spec[key]!r})")
    for name, step in (spec.get("grid_step") or {}).items():
        if name not in spec["space"]:
            raise ValueError(f"{path}: grid_step {name!r} is not a field of [space] ({', '.join(spec['space'])})")
        if isinstance(step, bool) or not isinstance(step, (int, float)) or not 0 < step < float("inf"):
            raise ValueError(f"{path}: grid_step {name} = {step!r}: a step > 0 in the field's unit")
    output = spec.get("output") or {}
    unknown = set(output) - {"csv", "store", "study_store", "workers"}
    if unknown:
        raise ValueError(f"{path}: unknown [output] key(s) {', '.join(sorted(unknown))}; allowed: csv, store, "
                         f"study_store, workers")
    for key in ("csv", "store", "study_store"):
        if key in output:
            if not isinstance(output[key], str) or not output[key]:
                raise ValueError(f"{path}: [output] {key} = {output[key]!r}: a file path")
            _check_writable(output[key], f"[output] {key}")
    w = output.get("workers")
    if w is not None and (isinstance(w, bool) or not isinstance(w, int) or w < 1):
        raise ValueError(f"{path}: [output] workers = {w!r}: a whole number >= 1")


def cmd_optimize(ns, rest: List[str]) -> int:
    """A search from a TOML or YAML spec: scenario, base, space, constraints, targets, minimize or objectives,
    trials, patience, seeds, [grid_step] (a grid's step per field, to compare its run count), [output] csv, store,
    study_store, workers."""
    from .files import save_rows
    from .optimize import grid_runs, optimize, resolution
    if rest:
        raise ValueError(f"unexpected arguments {rest}")
    spec = _load_spec(ns.spec)
    _check_optimize_spec(ns.spec, spec)
    cls = config_class(_current_scenario(str(spec["scenario"])))
    fields = dict(spec.get("base") or {})
    if "switch" in fields:   # a switch description, relative to the spec; the other base fields override it
        from .switch import load_switch
        path = os.path.join(os.path.dirname(os.path.abspath(ns.spec)), fields.pop("switch"))
        fields = load_switch(path, spec["scenario"], **fields)
    base = cls.from_dict(fields)
    output = spec.get("output") or {}
    csv = output.get("csv") or os.path.splitext(ns.spec)[0] + ".csv"
    _check_writable(csv, "csv")
    seeds = spec.get("seeds", [1, 2, 3])
    try:
        res = optimize(base, spec["space"], spec.get("targets") or [], minimize=spec.get("minimize"),
                       objectives=spec.get("objectives"), trials=spec.get("trials", 40), seeds=seeds,
                       workers=ns.workers or output.get("workers"), store=output.get("store"),
                       study_store=output.get("study_store"), progress=not ns.quiet,
                       constraints=spec.get("constraints") or (), patience=spec.get("patience"))
    except ValueError as e:
        raise ValueError(f"{ns.spec}: {e}") from None
    save_rows(res.trials, csv)
    print(repr(res), file=sys.stderr)
    _print_search(res, spec, len(seeds), grid_runs, resolution)
    print(f"trials -> {csv}", file=sys.stderr)
    return 0


def _print_search(res, spec: Dict[str, Any], seeds: int, grid_runs, resolution) -> None:
    """The answer, the search's convergence (the best after each trial that improved it) and what a grid would
    cost at the resolution the search reached around its best."""
    hidden = ("infeasible", "error", "improved", "best_so_far")
    if res.best is not None:
        shown = {k: res.best[k] for k in res.trials.columns if k not in hidden}
        print("best: " + ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}"
                                  for k, v in shown.items()))
    elif res.pareto is not None:
        print(f"Pareto front ({len(res.pareto)} trials):")
        print(res.pareto.drop(columns=[c for c in hidden if c in res.pareto]).to_string(index=False))
    else:
        print("no trial met every target")
    failed = res.trials[res.trials["error"] != ""] if "error" in res.trials else res.trials.iloc[:0]
    for _, r in failed.head(5).iterrows():
        print(f"trial {int(r['trial'])} failed: {r['error']}")
    if "improved" in res.trials:
        steps = res.trials[res.trials["improved"]]
        print("convergence (trial: best so far): " +
              ", ".join(f"{int(r['trial'])}: {r['best_so_far']:.4g}" for _, r in steps.iterrows()))
        print(res.convergence)
    searched = res.runs + res.reused
    print(f"runs: {searched} for the search ({len(res.trials)} trials x {seeds} seeds)")
    if res.best is not None:
        step = resolution(res.trials, spec["space"], res.best)
        if step:
            n = grid_runs(spec["space"], step, seeds)
            print("the search sampled within " + ", ".join(f"{k} +-{v:.3g}" for k, v in step.items()) +
                  f" of its best (the wider gap to a neighbouring trial); a uniform grid that fine: {n:,} runs "
                  f"({n / max(1, searched):,.1f} x the search)")
    if spec.get("grid_step"):
        n = grid_runs(spec["space"], spec["grid_step"], seeds)
        half = ", ".join(f"{k} +-{float(v) / 2:g}" for k, v in spec["grid_step"].items())
        print(f"a grid at the steps {spec['grid_step']}: {n:,} runs ({n / max(1, searched):.1f} x the search), "
              f"placing a point only within {half} of the optimum")


def _number_list(flag: str, text: str, whole: bool = False, zero_ok: bool = False) -> tuple:
    """A comma-separated flag value as numbers, each finite and above 0 (or at least 0 with zero_ok; whole
    numbers with whole); ValueError naming the flag."""
    kind = "whole number" if whole else "number"
    out = []
    for part in text.split(","):
        try:
            v = float(part)
        except ValueError:
            raise ValueError(f"--{flag} {text!r}: {part.strip()!r} is not a number (give comma-separated "
                             f"{kind}s)") from None
        if not math.isfinite(v) or v < 0 or (v == 0 and not zero_ok) or (whole and not v.is_integer()):
            raise ValueError(f"--{flag} {text!r}: {part.strip()!r} must be a {kind} "
                             f"{'>= 0' if zero_ok else 'above 0'}")
        out.append(int(v) if whole else v)
    return tuple(out)


def _positive(flag: str, value: Optional[float]) -> Optional[float]:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise ValueError(f"--{flag} {value!r}: a finite number above 0")
    return value


def _check_out(path: str) -> None:
    """--out: a folder that exists and is writable, or one that can be made; ValueError naming it."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"--out {path!r}: is a file, not a folder")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--out {path!r}: cannot make the folder ({e.strerror})") from None
    if not os.access(path, os.W_OK):
        raise ValueError(f"--out {path!r}: the folder is not writable")


def _study_args(ns) -> Dict[str, Any]:
    """The options every study shares, checked (each error names its flag)."""
    kw: Dict[str, Any] = dict(out=ns.out, workers=ns.workers, store=ns.store)
    if ns.workers is not None and ns.workers < 1:
        raise ValueError(f"--workers {ns.workers}: a whole number >= 1")
    if ns.memory_budget_mb is not None:
        kw["memory_budget_mb"] = _positive("memory-budget-mb", ns.memory_budget_mb)
    if ns.flows:
        kw["flows"] = _number_list("flows", ns.flows, whole=True)
    if ns.schemes:
        kw["schemes"] = tuple(x.strip() for x in ns.schemes.split(","))
    if ns.seeds:
        kw["seeds"] = _number_list("seeds", ns.seeds, whole=True, zero_ok=True)
    if ns.duration_s is not None:
        kw["duration_s"] = _positive("duration-s", ns.duration_s)
    if ns.buffers_kb:
        kw["buffers_kb"] = _number_list("buffers-kb", ns.buffers_kb)
    return kw


def cmd_study(ns, rest: List[str]) -> int:
    from .study import buffer_sizing
    if rest and ns.study != "shared-buffer":
        raise ValueError(f"unexpected arguments {rest}")
    if ns.study not in ("buffer-sizing", "dcqcn-scale", "shared-buffer"):
        raise ValueError(f"study = {ns.study!r}: known studies are buffer-sizing, dcqcn-scale, shared-buffer")
    kw = _study_args(ns)
    _check_out(ns.out)
    if ns.study == "shared-buffer":
        from .shared_buffer_study import shared_buffer
        kw.pop("flows", None)
        if ns.quick:
            quick: Dict[str, Any] = dict(buffers_kb=(1024, 4096, 16384), alphas=(1.0,), seeds=QUICK_SEEDS,
                                         quick=True)
            if not ns.switch and ns.topology in (None, "star"):
                quick["hosts"] = 16
            kw = dict(quick, **kw)
        if ns.switch:
            kw["switch"] = ns.switch
        if ns.topology:
            kw["topology"] = ns.topology
        if ns.target_goodput_gbps is not None:
            kw["target_goodput_gbps"] = _positive("target-goodput-gbps", ns.target_goodput_gbps)
        if ns.target_slowdown is not None:
            kw["target_slowdown"] = _positive("target-slowdown", ns.target_slowdown)
        if ns.alphas:
            kw["alphas"] = _number_list("alphas", ns.alphas)
        if ns.dctcp_k_kb is not None:
            kw["dctcp_k_kb"] = _positive("dctcp-k-kb", ns.dctcp_k_kb)
        # any workload field after the options (--load 0.3, --alpha-by-queue none): the base config, over --switch
        kw.update(_parse_fields("workload", rest))
        _run_study(shared_buffer, kw)
    elif ns.study == "dcqcn-scale":
        from .dcqcn_study import dcqcn_scale
        if ns.quick:
            kw = dict(dict(flows=(16, 80), link_gbps=(10,), duration_s=0.05, lambdas=(1.0, 2.0), seeds=QUICK_SEEDS,
                           quick=True), **kw)
        if ns.link_gbps:
            kw["link_gbps"] = _number_list("link-gbps", ns.link_gbps)
        kw.pop("buffers_kb", None)
        _run_study(dcqcn_scale, kw)
    else:
        if ns.quick:
            kw = dict(dict(flows=(4, 16, 64), buffers_kb=(32, 128, 512), seeds=QUICK_SEEDS, duration_s=1.0,
                           quick=True), **kw)
        if ns.min_rtos_ms:
            kw["min_rtos_ms"] = _number_list("min-rtos-ms", ns.min_rtos_ms)
        _run_study(buffer_sizing, kw)
    print(f"report: {os.path.join(ns.out, 'index.html')} and {os.path.join(ns.out, 'report.md')}", file=sys.stderr)
    return 0


def _run_study(fn, kw: Dict[str, Any]) -> None:
    """A study; a file it cannot write (a full disk, a folder made read-only meanwhile) is an error naming --out,
    not a traceback."""
    try:
        fn(**kw)
    except OSError as e:
        raise ValueError(f"--out {kw['out']!r}: cannot write the report ({e.strerror or e}"
                         f"{': ' + e.filename if getattr(e, 'filename', None) else ''})") from None


def cmd_scenarios(ns, rest: List[str]) -> int:
    from . import _core
    names = [ns.scenario] if ns.scenario else list(CONFIG_CLASSES)
    for name in names:
        config_class(name)
        d = _core.describe(name)
        print(f"{name}: {d['description']}")
        for p in d["params"]:
            allowed = (", ".join(p["choices"]) if p["type"] == "choice" else
                       "true/false" if p["type"] == "bool" else
                       f"{p['count'] or 'any number of'} x [{p['min']:g}, {p['max']:g}]" if p["type"] == "list" else
                       f"[{p['min']:g}, {p['max']:g}]")
            unit = f" {p['unit']}" if p["unit"] else ""
            print(f"  {p['name']:<18} {p['type']:<6} default {p['default']!s:<12} allowed {allowed}{unit}")
            print(f"  {'':<18} {p['help']}")
    return 0


QUICK_SEEDS = (1, 2, 3)   # a quick study's seeds: the fewest that give an interval worth reading
_BUDGET_HELP = ("the memory each run may plan for, MB (default: CMSWITCH_MEMORY_BUDGET_MB, else half this machine's "
                "memory, shared by the runs in parallel); a config estimated above it is refused naming its field")


def build_parser() -> argparse.ArgumentParser:
    """The ``cmswitch`` command's parser (docs/cli.md is generated from it and the parameter tables)."""
    parser = argparse.ArgumentParser(prog="cmswitch", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="one run; fields as --name value (see 'cmswitch scenarios')")
    p.add_argument("scenario", choices=sorted(CONFIG_CLASSES), type=_current_scenario)
    p.add_argument("--vcd", help="also write a value change dump (GTKWave, Surfer) of the run to this file")
    p.add_argument("--vcd-signals", default="*",
                   help="comma-separated glob patterns over signal names (default *), e.g. '*.port0.*,*xoff*'")
    p.add_argument("--vcd-max-mb", type=float, default=64, help="size cap of the dump in MB (default 64)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr (a run over 5 s prints them)")
    p.add_argument("--memory-budget-mb", type=float, help=_BUDGET_HELP)
    p.set_defaults(fn=cmd_run)
    p = sub.add_parser("sweep", help="a sweep from a TOML or YAML file (scenario, base, grid, points, output)")
    p.add_argument("spec")
    p.add_argument("--csv", help="output CSV (default: the spec's name with .csv)")
    p.add_argument("--store", help="SQLite result store: finished points are reused")
    p.add_argument("--workers", type=int, help="worker processes (default: every usable core; at most that many)")
    p.add_argument("--memory-budget-mb", type=float, help=_BUDGET_HELP)
    p.set_defaults(fn=cmd_sweep)
    p = sub.add_parser("study", help="a packaged study: buffer-sizing, dcqcn-scale, shared-buffer (shared-buffer: "
                       "workload fields after the options set its base config, e.g. --load 0.3)")
    p.add_argument("study")
    p.add_argument("--out", default="report", help="report folder (default: report)")
    p.add_argument("--quick", action="store_true",
                   help="a small grid and 3 seeds, the report marked 'quick: indicative' (buffer-sizing: 3 x 3 "
                        "points of 1 s; dcqcn-scale: 16 and 80 flows at 10 Gb/s, 50 ms; shared-buffer: 1, 4 and "
                        "16 MB, alpha 1, 16 hosts on the star, the study's 50 ms of arrivals)")
    p.add_argument("--flows", help="comma-separated flow counts (buffer-sizing 2,4,8,16,32,64; dcqcn-scale 16,80,160,400)")
    p.add_argument("--link-gbps", help="dcqcn-scale: comma-separated link speeds (default 10,40,100)")
    p.add_argument("--buffers-kb", help="comma-separated buffer sizes in KB (default 16,32,64,128,256,512,1024)")
    p.add_argument("--schemes", help="comma-separated schemes (buffer-sizing droptail,red-ecn,dctcp,qcn,qcn-mod,pfc; "
                   "shared-buffer droptail (NewReno), dctcp, pfc (NewReno over PFC); dcqcn-scale dcqcn,dcqcn+)")
    p.add_argument("--seeds", help="comma-separated seeds (default 1,2,3,4,5; --quick 1,2,3)")
    p.add_argument("--duration-s", type=float, help="simulated seconds per run (buffer-sizing 10, dcqcn-scale 0.2)")
    p.add_argument("--min-rtos-ms", help="comma-separated TCP minimum RTOs in ms (default 200,10)")
    p.add_argument("--target-slowdown", type=float,
                   help="shared-buffer: the p99 FCT slowdown of flows <= 10 KB a buffer must meet (default 500)")
    p.add_argument("--target-goodput-gbps", type=float,
                   help="shared-buffer: also find the smallest buffer whose incast goodput reaches this (Gb/s)")
    p.add_argument("--topology", choices=("star", "leaf-spine", "fat-tree"),
                   help="shared-buffer: the network (default star; leaf-spine and fat-tree with the workload's "
                        "defaults, or give them in --switch)")
    p.add_argument("--switch", help="shared-buffer: a switch description (.json, .toml, .yaml) for the base config")
    p.add_argument("--alphas", help="shared-buffer: comma-separated dynamic-threshold alphas (default 0.25,1,4)")
    p.add_argument("--dctcp-k-kb", type=float,
                   help="shared-buffer: DCTCP's marking threshold in KB (default C x RTT / 7, at least two frames)")
    p.add_argument("--workers", type=int, help="worker processes (default: every usable core; at most that many)")
    p.add_argument("--store", help="SQLite result store: finished points are reused")
    p.add_argument("--memory-budget-mb", type=float, help=_BUDGET_HELP)
    p.set_defaults(fn=cmd_study)
    p = sub.add_parser("optimize", help="a search from a TOML or YAML spec: the field values that meet targets at "
                       "least cost, or a Pareto front (scenario, base, space, targets, minimize or objectives)")
    p.add_argument("spec")
    p.add_argument("--workers", type=int, help="worker processes per trial (its seeds run in parallel)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(fn=cmd_optimize)
    p = sub.add_parser("scenarios", help="list scenarios and their fields")
    p.add_argument("scenario", nargs="?")
    p.set_defaults(fn=cmd_scenarios)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    ns, rest = build_parser().parse_known_args(argv)
    try:
        return ns.fn(ns, rest)
    except ValueError as e:
        print(f"cmswitch: error: {e}", file=sys.stderr)
        return 2
    except SweepFailed as e:
        print(f"cmswitch: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("cmswitch: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:   # `cmswitch scenarios | head`: the reader went away
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:   # pragma: no cover
            pass
        return 0


def entry() -> None:
    """The command's entry point (``cmswitch``, ``python -m cmswitch``): main(); after Ctrl-C the process ends at
    once instead of waiting for the interrupted model's teardown (seconds for a large fabric): the system takes
    its memory back."""
    code = main()
    if code == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    sys.exit(code)


if __name__ == "__main__":   # pragma: no cover
    entry()
