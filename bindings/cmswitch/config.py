# SPDX-License-Identifier: Apache-2.0
"""Scenario configurations: one validated, frozen dataclass per scenario of the core, generated at import.

Nothing here is written by hand per parameter: the classes, their fields, types, defaults, units, ranges,
choices and docs come from the C++ parameter tables (``_core.describe``), the same tables the command line and
``--help`` use. A parameter added to a scenario or to a congestion-management scheme in C++ is a field here
after a rebuild; the package and ``cmswitch-sim`` accept and refuse exactly the same values, and a bad value
raises ``ValueError`` naming the field and what is allowed, before any simulation starts.

A field marked "profile" (the hosts' TCP and egress settings: ``sack``, ``init_cwnd``, ``host_qdisc`` ...) is
``None`` by default: it takes the value of the config's ``host_profile`` (``ns2``, ``linux`` or
``linux-fq-codel``); any other value overrides the profile.

Field names carry their units (``buffer_kb`` is KB of 1024 bytes, ``min_rto_ms`` milliseconds, ``link_gbps``
Gbit/s). A scenario ``name`` gives the class ``NameConfig`` (``rdma-incast`` -> ``RdmaIncastConfig``). A core
parameter called ``scenario`` (the baseline scenario's workload) becomes the field named after the scenario
(``BaselineConfig.baseline``), since ``scenario`` is the class's own name.

For editors and type checkers the package ships ``config.pyi``, generated from the same tables by
``scripts/gen_config_stub.py`` (a test checks it is current).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import numbers
import os
import re
import warnings
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Tuple, Type, TypeVar

from . import _core

_TYPES: Dict[str, type] = {"int": int, "float": float, "choice": str, "bool": bool, "list": tuple}
_C = TypeVar("_C", bound="ScenarioConfig")


@lru_cache(maxsize=None)
def param_specs(scenario: str) -> Dict[str, Dict[str, Any]]:
    """The core's parameter table of a scenario, by core name (name, type, unit, default, range or choices, help)."""
    return {p["name"]: p for p in _core.describe(scenario)["params"]}


def class_name(scenario: str) -> str:
    """The config class of a scenario: ``incast`` -> ``IncastConfig``, ``rdma-incast`` -> ``RdmaIncastConfig``."""
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[-_]", scenario) if w) + "Config"


def field_name(scenario: str, core_name: str) -> str:
    """The Python field of a core parameter (the same name, except ``scenario``: see the module doc)."""
    return scenario.replace("-", "_") if core_name == "scenario" else core_name


def _fmt(x: float) -> str:
    return repr(float(x)) if not float(x).is_integer() else str(int(x)) if abs(x) <= 2 ** 53 else repr(float(x))


def describe_field(p: Mapping[str, Any]) -> str:
    """One line for a parameter: type, unit, range or choices, default, what it is, who declares it."""
    unit = f" {p['unit']}" if p.get("unit") else ""
    if p["type"] in ("int", "float"):
        what = f"{'(' if p.get('min_open') else '['}{_fmt(p['min'])}, {_fmt(p['max'])}]{unit}"
    elif p["type"] == "list":
        n = f"{p['count']} " if p.get("count") else ""
        what = (f"a list of {n}{'integers' if p.get('integers') else 'numbers'}, each in "
                f"[{_fmt(p['min'])}, {_fmt(p['max'])}]{unit}, or empty (None, 'none')")
    elif p["type"] == "choice":
        what = "one of " + ", ".join(p["choices"]) + (", or the path of a .csv file" if p.get("csv_file") else "")
    else:
        what = "True or False"
    owner = f" [{p['group']} scheme]" if p.get("group") else ""
    if p.get("profile"):
        return f"{what}, or None; default None (the host profile's: {p['profile']}){owner}. {p['help']}"
    return f"{what}; default {p['default']!r}{owner}. {p['help']}"


def unknown_fields_text(owner: str, unknown: Any, known: Any) -> str:
    """"WorkloadConfig has no field alpa (did you mean alpha?)": the nearest known names for each unknown one, or
    the whole list when none is near."""
    import difflib
    known = list(known)
    near = {u: difflib.get_close_matches(u, known, n=3, cutoff=0.75) for u in sorted(unknown)}
    if all(near.values()):
        return f"{owner} has no field " + "; ".join(f"{u} (did you mean {' or '.join(n)}?)" for u, n in near.items())
    return f"{owner} has no field {', '.join(sorted(unknown))}; fields are {', '.join(known)}"


def budget_mb(memory_budget_mb: Optional[float]) -> float:
    """The core's form of a memory budget: MB > 0, or 0 for the default (CMSWITCH_MEMORY_BUDGET_MB, else half the
    machine's memory)."""
    if memory_budget_mb is None:
        return 0.0
    if isinstance(memory_budget_mb, bool) or not isinstance(memory_budget_mb, numbers.Real) \
            or not math.isfinite(memory_budget_mb) or memory_budget_mb <= 0:
        raise ValueError(f"memory_budget_mb = {memory_budget_mb!r}: a number of MB > 0 (None: the default)")
    return float(memory_budget_mb)


def _check(cls_name: str, name: str, value: Any, p: Mapping[str, Any]) -> None:
    where = f"{cls_name}.{name}"
    kind = p["type"]
    if value is None and p.get("profile"):
        return   # the host profile's value
    unit = f" {p['unit']}" if p.get("unit") else ""
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{where} = {value!r}: must be True or False")
        return
    if kind == "list":
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise ValueError(f"{where} = {value!r}: must be a list of numbers"
                             + (f" ({p['count']} of them)" if p.get("count") else ""))
        if value and p.get("count") and len(value) != p["count"]:
            raise ValueError(f"{where} = {list(value)!r}: needs exactly {p['count']} values (or none), "
                             f"got {len(value)}")
        for k, x in enumerate(value):
            if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x) \
                    or x < p["min"] or x > p["max"] or (p.get("integers") and not float(x).is_integer()):
                raise ValueError(f"{where}[{k}] = {x!r}: each entry {'an integer ' if p.get('integers') else ''}"
                                 f"in [{_fmt(p['min'])}, {_fmt(p['max'])}]{unit}")
        return
    if kind == "choice":
        if p.get("csv_file") and isinstance(value, str) and value.endswith(".csv") and value not in p["choices"]:
            if not os.path.isfile(value):
                raise ValueError(f"{where} = {value!r}: the file cannot be read (a CSV file, or one of "
                                 f"{', '.join(p['choices'])})")
            return
        if value not in p["choices"]:
            raise ValueError(f"{where} = {value!r}: allowed values are {', '.join(p['choices'])}"
                             + (", or the path of a .csv file" if p.get("csv_file") else ""))
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real):   # numpy numbers too (grids from arrays)
        raise ValueError(f"{where} = {value!r}: must be a number ({kind}){unit}")
    if kind == "int" and not float(value).is_integer():
        raise ValueError(f"{where} = {value!r}: must be an integer")
    lo, hi = p["min"], p["max"]
    lo_open = p.get("min_open", False)
    if not math.isfinite(value) or value < lo or value > hi or (lo_open and value == lo):
        rng = f"{'(' if lo_open else '['}{_fmt(lo)}, {_fmt(hi)}]"
        raise ValueError(f"{where} = {value!r} is out of range: allowed {rng}{unit}")
    smallest = p.get("min_nonzero", 0)
    if value != 0 and value < smallest:
        zero = "0 or " if lo <= 0 and not lo_open else ""
        raise ValueError(f"{where} = {value!r} is below the smallest allowed value: allowed {zero}"
                         f"{_fmt(smallest)} to {_fmt(hi)}{unit}")


@dataclass(frozen=True)
class ScenarioConfig:
    """Base of every scenario config: validation, conversion for the core, a stable hash."""

    scenario: ClassVar[str] = ""

    @classmethod
    def _fields(cls) -> Dict[str, Mapping[str, Any]]:
        """Field name -> what the core says of it, in field order (made once per class)."""
        got = cls.__dict__.get("_field_specs")
        if got is None:
            spec = param_specs(cls.scenario)
            got = {f.name: spec[f.metadata["core_name"]] for f in fields(cls)}
            cls._field_specs = got
        return got

    @classmethod
    def _sorted_names(cls) -> List[str]:
        got = cls.__dict__.get("_sorted_field_names")
        if got is None:
            got = sorted(cls._fields())
            cls._sorted_field_names = got
        return got

    @classmethod
    def _csv_fields(cls) -> List[str]:
        got = cls.__dict__.get("_csv_field_names")
        if got is None:
            got = [n for n, p in cls._fields().items() if p.get("csv_file")]
            cls._csv_field_names = got
        return got

    def _set_checked(self, name: str, value: Any, p: Mapping[str, Any]) -> None:
        if p["type"] == "list" and (value is None or (isinstance(value, str) and value.strip().lower() == "none")):
            value = ()   # a list's documented "none" (its default rule), as in the core and on the command line
        _check(type(self).__name__, name, value, p)
        # one representation per value, so that equal configs hash equal (64 and 64.0 KB)
        if value is None:
            pass
        elif p["type"] == "int":
            value = int(value)
        elif p["type"] == "float":
            value = float(value)
        elif p["type"] == "list":
            value = tuple(int(x) if p.get("integers") else float(x) for x in value)
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        for name, p in self._fields().items():
            self._set_checked(name, getattr(self, name), p)

    def replace(self: _C, **changes: Any) -> _C:
        """A copy with some fields changed (those validated; the rest are this valid config's)."""
        specs = self._fields()
        unknown = set(changes) - set(specs)
        if unknown:
            raise ValueError(unknown_fields_text(type(self).__name__, unknown, specs))
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name, value in changes.items():
            new._set_checked(name, value, specs[name])
        return new

    def to_dict(self) -> Dict[str, Any]:
        d = self.__dict__
        return {name: d[name] for name in self._fields()}

    def check(self, memory_budget_mb: Optional[float] = None) -> None:
        """Everything a run checks before simulated time starts, without running: the cross-field rules (DCTCP
        without marking, warm-up past the end), the memory the run would need against the budget (see cost), and
        what building the model refuses (a PFC headroom that does not fit). ValueError naming the field; a few ms
        (a large network takes longer to build). Each field's own range is checked when the config is made."""
        _core.check(self.scenario, self.to_params(), build=True, memory_budget_mb=budget_mb(memory_budget_mb))

    def cost(self, memory_budget_mb: Optional[float] = None) -> Dict[str, Any]:
        """What a run of this config would hold in memory, estimated in microseconds without building anything:
        {"memory_mb": total, "budget_mb": the budget, "items": [{"field", "mb", "what"}, ...]}, each item with the
        field that drives it (the network, connections, sampled series, per-frame samples, per-flow records).
        Within a factor of about two of the run's peak; runs above the budget are refused."""
        return dict(_core.cost(self.scenario, self.to_params(), memory_budget_mb=budget_mb(memory_budget_mb)))

    def to_params(self) -> Dict[str, str]:
        """Parameters as the core parses them, by their core names (floats in shortest round-trip form)."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            out[f.metadata["core_name"]] = "profile" if v is None else ("true" if v else "false") if isinstance(v, bool) else \
                repr(v) if isinstance(v, float) else ",".join(repr(x) for x in v) if isinstance(v, tuple) else str(v)
        return out

    def key(self, version: str) -> str:
        """Stable hash of the scenario, every field and the package version (the result store's key); a field
        naming the user's .csv file adds the file's content."""
        d = self.__dict__
        params = {name: d[name] for name in self._sorted_names()}
        files = {}   # a user's data file counts by its content, not only its path
        for name in self._csv_fields():
            v = d[name]
            if isinstance(v, str) and v.endswith(".csv"):
                with open(v, "rb") as fh:
                    files[name] = hashlib.sha256(fh.read()).hexdigest()
        blob = json.dumps({"scenario": self.scenario, "version": version, "params": params,
                           **({"files": files} if files else {})},
                          sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    @classmethod
    def from_dict(cls: Type[_C], values: Mapping[str, Any]) -> _C:
        names = {f.name for f in fields(cls)}
        unknown = set(values) - names
        if unknown:
            raise ValueError(unknown_fields_text(cls.__name__, unknown, sorted(names)))
        return cls(**dict(values))

    @classmethod
    def field_info(cls, name: str) -> Mapping[str, Any]:
        """What the core says of a field: type, unit, default, min/max or choices, help, group."""
        try:
            return cls._fields()[name]
        except KeyError:
            raise ValueError(unknown_fields_text(cls.__name__, [name], cls._fields())) from None


def _make_class(scenario: str) -> Type[ScenarioConfig]:
    desc = _core.describe(scenario)
    spec: List[Tuple[str, type, Any]] = []
    doc = [desc["description"], "", "Fields:"]
    for p in desc["params"]:
        name = field_name(scenario, p["name"])
        meta = {"core_name": p["name"], "unit": p["unit"], "help": p["help"], "group": p["group"]}
        typ: Any = Optional[_TYPES[p["type"]]] if p.get("profile") else _TYPES[p["type"]]
        spec.append((name, typ, dataclasses.field(default=p["default"], metadata=meta)))
        doc.append(f"    {name}: {describe_field(p)}")
    cls = dataclasses.make_dataclass(class_name(scenario), spec, bases=(ScenarioConfig,), frozen=True,
                                     namespace={"scenario": scenario, "__doc__": "\n".join(doc)})
    cls.__module__ = __name__
    return cls


CONFIG_CLASSES: Dict[str, Type[ScenarioConfig]] = {s: _make_class(s) for s in _core.scenario_names()}
globals().update({c.__name__: c for c in CONFIG_CLASSES.values()})   # importable (and picklable) by name


# A renamed scenario's former config class, accepted for one release: its name -> the scenario it is now.
_RENAMED_CLASSES = {class_name(old): new for old, new in _core.renamed_scenarios().items()}


def _renamed(old: str, new: str) -> None:
    warnings.warn(f"{old!r} is now {new!r}; the old name is accepted until the next release", DeprecationWarning,
                  stacklevel=3)


def __getattr__(name: str) -> Type[ScenarioConfig]:
    if name in _RENAMED_CLASSES:
        cls = CONFIG_CLASSES[_RENAMED_CLASSES[name]]
        _renamed(name, cls.__name__)
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def config_class(scenario: str) -> Type[ScenarioConfig]:
    current = _core.renamed_scenarios().get(scenario)
    if current is not None:
        _renamed(scenario, current)
        scenario = current
    try:
        return CONFIG_CLASSES[scenario]
    except KeyError:
        raise ValueError(f"scenario = {scenario!r}: known scenarios are {', '.join(CONFIG_CLASSES)}") from None


def _docstring(text: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return text + " " if text.endswith('"') else text


def stub_text() -> str:
    """The text of config.pyi for the core this package was built with (scripts/gen_config_stub.py)."""
    out = [
        "# SPDX-License-Identifier: Apache-2.0",
        "# Generated by scripts/gen_config_stub.py from the C++ parameter tables (_core.describe): do not edit.",
        "from dataclasses import dataclass",
        "from typing import Any, ClassVar, Dict, Literal, Mapping, Optional, Tuple, Type, TypeVar",
        "",
        '_C = TypeVar("_C", bound="ScenarioConfig")',
        "",
        "def param_specs(scenario: str) -> Dict[str, Dict[str, Any]]: ...",
        "def class_name(scenario: str) -> str: ...",
        "def field_name(scenario: str, core_name: str) -> str: ...",
        "def describe_field(p: Mapping[str, Any]) -> str: ...",
        "def unknown_fields_text(owner: str, unknown: Any, known: Any) -> str: ...",
        "",
        "@dataclass(frozen=True)",
        "class ScenarioConfig:",
        "    scenario: ClassVar[str]",
        "    def replace(self: _C, **changes: Any) -> _C: ...",
        "    def to_dict(self) -> Dict[str, Any]: ...",
        "    def check(self, memory_budget_mb: Optional[float] = None) -> None: ...",
        "    def cost(self, memory_budget_mb: Optional[float] = None) -> Dict[str, Any]: ...",
        "    def to_params(self) -> Dict[str, str]: ...",
        "    def key(self, version: str) -> str: ...",
        "    @classmethod",
        "    def from_dict(cls: Type[_C], values: Mapping[str, Any]) -> _C: ...",
        "    @classmethod",
        "    def field_info(cls, name: str) -> Mapping[str, Any]: ...",
    ]
    for scenario, cls in CONFIG_CLASSES.items():
        desc = _core.describe(scenario)
        out += ["", "@dataclass(frozen=True)", f"class {cls.__name__}(ScenarioConfig):",
                f'    """{desc["description"]}"""']
        for p in desc["params"]:
            if p["type"] == "choice" and p.get("csv_file"):
                typ = "str"
            elif p["type"] == "list":
                typ = "Tuple[float, ...]"
            elif p["type"] == "choice":
                typ = "Literal[" + ", ".join(json.dumps(c) for c in p["choices"]) + "]"
            else:
                typ = _TYPES[p["type"]].__name__
            if p.get("profile"):
                typ = f"Optional[{typ}]"
            out.append(f"    {field_name(scenario, p['name'])}: {typ} = ...")
            out.append(f'    """{_docstring(describe_field(p))}"""')
    out += ["", "def budget_mb(memory_budget_mb: Optional[float]) -> float: ...",
            "", "CONFIG_CLASSES: Dict[str, Type[ScenarioConfig]]",
            "def config_class(scenario: str) -> Type[ScenarioConfig]: ...",
            "def stub_text() -> str: ...", ""]
    return "\n".join(out)


__all__ = ["ScenarioConfig", "CONFIG_CLASSES", "config_class", "class_name", "field_name", "describe_field", "budget_mb",
           "unknown_fields_text",
           "param_specs", "stub_text"] + [c.__name__ for c in CONFIG_CLASSES.values()]
