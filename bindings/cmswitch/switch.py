# SPDX-License-Identifier: Apache-2.0
"""Switch descriptions: the switch an architect has in mind (ports and speeds, class -> queue and priority-group
maps, the scheduler and its weights, the MMU) written once in a file and used with any scenario.

A description is a JSON, TOML or YAML file whose keys are the scenario's fields, grouped in sections of the
writer's choosing (section names only organize the file; every leaf key must be a field; keys starting with ``_``
are notes, for JSON, which has no comments)::

    # leaf.toml: a 32 x 25 Gb/s leaf with 8 x 100 Gb/s uplinks
    [ports]
    topology = "leaf-spine"
    hosts_per_leaf = 32
    link_gbps = 25
    spines = 8
    fabric_gbps = 100
    [classes]
    queue_map = [0, 0, 1, 3, 1, 2, 2, 7]      # 802.1p priority -> egress queue (3 alone: lossless)
    pg_map = [0, 0, 0, 3, 0, 0, 0, 7]         # 802.1p priority -> ingress priority group (PFC accounting)
    [scheduler]
    scheduler = "dwrr"
    dwrr_weights = [1, 2, 4, 0, 0, 0, 0, 0]   # per queue; 0: strict priority above the DWRR queues
    [mmu]
    buffer_policy = "shared"
    pool_kb = 16384
    alpha_by_queue = [1, 1, 0.5, 8, 1, 1, 1, 1]

``load_switch(path, scenario)`` gives the fields as a dict: ``WorkloadConfig(**load_switch("leaf.toml"),
load=0.6)``. ``cmswitch run workload --switch leaf.toml --load 0.6`` does the same on the command line (fields
given after ``--switch`` override the file's) and ``cmswitch-sim workload --switch leaf.json`` in C++ (JSON only).
"""
from __future__ import annotations

import json
from typing import Any, Dict, Optional

from .config import _spec, field_name


def read_tree(path: str, what: str, other: str = "JSON") -> Any:
    """A YAML (.yaml, .yml), TOML (.toml) or JSON (.json) file as Python data, any other name read as `other`;
    ValueError naming `what` and the file for one that cannot be read or parsed."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise ValueError(f"{what} {path}: cannot be read ({e.strerror})") from None
    kind = ("YAML" if path.endswith((".yaml", ".yml")) else "TOML" if path.endswith(".toml") else
            "JSON" if path.endswith(".json") else other)
    try:
        if kind == "YAML":
            import yaml
            return yaml.safe_load(data)
        if kind == "TOML":
            try:
                import tomllib
            except ImportError:   # Python < 3.11
                import tomli as tomllib
            return tomllib.loads(data.decode())
        return json.loads(data.decode())
    except Exception as e:   # json.JSONDecodeError, tomllib.TOMLDecodeError, yaml.YAMLError, UnicodeDecodeError
        raise ValueError(f"{what} {path}: not valid {kind}: "
                         f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None


def _read(path: str) -> Dict[str, Any]:
    tree = read_tree(path, "switch description")
    if not isinstance(tree, dict):
        raise ValueError(f"switch description {path}: must hold sections and fields, not {type(tree).__name__}")
    return tree


def flatten(tree: Dict[str, Any], where: str = "") -> Dict[str, Any]:
    """The description's fields, sections dissolved (a key seen twice: ValueError naming both places)."""
    out: Dict[str, Any] = {}
    seen: Dict[str, str] = {}
    for key, value in tree.items():
        if str(key).startswith("_"):   # a note (JSON has no comments)
            continue
        path = f"{where}.{key}" if where else key
        items = flatten(value, path).items() if isinstance(value, dict) else [(key, value)]
        for k, v in items:
            if k in out:
                raise ValueError(f"switch description: {k!r} is given twice ({seen[k]} and {path})")
            out[k] = tuple(v) if isinstance(v, list) else v
            seen[k] = path
    return out


def load_switch(path_or_tree: Any, scenario: Optional[str] = "workload") -> Dict[str, Any]:
    """The fields of a switch description (a path to .json/.toml/.yaml, or the nested dict itself) for a
    scenario's config class. ValueError naming the file and the key for one that is not a field of the scenario."""
    tree = _read(path_or_tree) if isinstance(path_or_tree, str) else path_or_tree
    where = path_or_tree if isinstance(path_or_tree, str) else "switch description"
    values = flatten(tree)
    if scenario is None:
        return values
    spec = _spec(scenario)
    fields = {field_name(scenario, n) for n in spec}
    for k in values:
        if k not in fields:
            raise ValueError(f"{where}: unknown key {k!r}: every key must be a field of {scenario} "
                             f"(sections only group them); fields are {', '.join(sorted(fields))}")
    return values


__all__ = ["load_switch", "flatten"]
