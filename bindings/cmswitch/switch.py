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

One reader for every front end: the core's (config/switch_description.h). A JSON file goes to it as it is; a TOML
or YAML file is parsed here (strictly: a key given twice in one table is refused, YAML as its 1.2 core schema:
``yes``/``on`` are strings, not booleans, and a number with a leading zero such as ``010``, which YAML 1.1 reads
as 8, is refused) and handed over as JSON. The core refuses a key given twice in two sections, an unknown key
(with the nearest field), a value of the wrong type (a string where a number is due, a list entry that is not a
number), null, and nesting beyond 8 sections or 32 levels, naming the file, the place and the key.

``load_switch(path, scenario, **overrides)`` gives the fields as a dict, the overrides replacing the file's:
``WorkloadConfig(**load_switch("leaf.toml", load=0.6))``. ``cmswitch run workload --switch leaf.toml --load
0.6`` does the same on the command line (fields given after ``--switch`` override the file's) and
``cmswitch-sim workload --switch leaf.json`` in C++ (JSON only).

SONiC's buffer configuration (CONFIG_DB JSON: PORT, CABLE_LENGTH, BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG,
BUFFER_QUEUE, the port profile lists, PORT_QOS_MAP and its maps) is read the same way by ``load_sonic(path,
scenario, **overrides)`` (``--sonic-config FILE`` on both command lines) into a service-pool MMU (buffer_policy
pools), refusing what the model cannot do with the table and key named; ``write_sonic(config)`` writes the switch
of a config back as those tables (``cmswitch-sim ... --write-sonic FILE``).
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
from typing import Any, Dict, Mapping, Union

from . import _core
from .config import field_name


def _kind(path: str, other: str) -> str:
    return ("YAML" if path.endswith((".yaml", ".yml")) else "TOML" if path.endswith(".toml") else
            "JSON" if path.endswith(".json") else other)


def _strict_yaml_loader():
    """A safe YAML loader with the YAML 1.2 core schema's plain scalars (true/false only as booleans; decimal,
    0o and 0x integers; a leading zero refused as ambiguous) and no key twice in one mapping."""
    import yaml

    class Strict(yaml.SafeLoader):
        pass

    dropped = {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
    Strict.yaml_implicit_resolvers = {k: [r for r in v if r[0] not in dropped]
                                      for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Strict.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                 list("tTfF"))
    Strict.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
                                 list("-+0123456789"))
    Strict.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)"
                   r"|\.(?:nan|NaN|NAN))$"), list("-+0123456789."))

    def construct_int(loader, node):
        text = loader.construct_scalar(node)
        body = text.lstrip("+-")
        if body.startswith("0o"):
            return int(body[2:], 8) * (-1 if text.startswith("-") else 1)
        if body.startswith("0x"):
            return int(body[2:], 16) * (-1 if text.startswith("-") else 1)
        if len(body) > 1 and body.startswith("0"):
            raise ValueError(f"line {node.start_mark.line + 1}: {text} is ambiguous (YAML 1.1 reads it as octal "
                             f"{int(body, 8) if set(body) <= set('01234567') else '?'}, YAML 1.2 as {int(body)}): "
                             f"write {int(text)}, or 0o{body.lstrip('0')} for octal")
        return int(text)

    def construct_bool(loader, node):
        return loader.construct_scalar(node).lower() == "true"

    def construct_mapping(loader, node, deep=False):
        seen: Dict[Any, int] = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise ValueError(f"key {key!r} is given twice in one section (lines {seen[key]} and {line})")
            seen[key] = line
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    Strict.add_constructor("tag:yaml.org,2002:int", construct_int)
    Strict.add_constructor("tag:yaml.org,2002:bool", construct_bool)
    Strict.add_constructor("tag:yaml.org,2002:map", lambda loader, node: construct_mapping(loader, node, True))
    return Strict


def read_tree(path: str, what: str, other: str = "JSON") -> Any:
    """A YAML (.yaml, .yml), TOML (.toml) or JSON (.json) file as Python data, any other name read as `other`;
    ValueError naming `what` and the file for one that cannot be read or parsed (a key given twice included)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise ValueError(f"{what} {path}: cannot be read ({e.strerror})") from None
    kind = _kind(path, other)
    try:
        if kind == "YAML":
            import yaml
            return yaml.load(data, Loader=_strict_yaml_loader())
        if kind == "TOML":
            if sys.version_info >= (3, 11):
                import tomllib
            else:   # Python < 3.11
                import tomli as tomllib
            return tomllib.loads(data.decode())

        def no_twice(pairs):
            keys = [k for k, _ in pairs]
            for k in keys:
                if keys.count(k) > 1:
                    raise ValueError(f"key {k!r} is given twice in one section")
            return dict(pairs)
        return json.loads(data.decode(), object_pairs_hook=no_twice)
    except Exception as e:   # json.JSONDecodeError, tomllib.TOMLDecodeError, yaml.YAMLError, UnicodeDecodeError
        raise ValueError(f"{what} {path}: not valid {kind}: "
                         f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None


def _as_json(tree: Any, where: str) -> str:
    """The tree as JSON text for the core's reader; ValueError for what JSON cannot hold (a date, a key that is
    not a string, an infinite number)."""
    def check(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                if not isinstance(k, str):
                    raise ValueError(f"{where}: key {k!r} at {path or 'the top'} must be a string")
                check(v, f"{path}.{k}" if path else k)
        elif isinstance(node, (list, tuple)):
            for i, v in enumerate(node):
                check(v, f"{path}[{i}]")
        elif isinstance(node, float) and not math.isfinite(node):
            raise ValueError(f"{where}: {path} = {node!r}: must be a finite number")
        elif node is not None and not isinstance(node, (str, int, float, bool)):
            raise ValueError(f"{where}: {path} = {node!r}: a {type(node).__name__} is not a value a description "
                             f"can hold (numbers, strings, true/false, lists, sections)")
    check(tree, "")
    return json.dumps(tree)


def load_switch(path_or_tree: Union[str, os.PathLike, Mapping[str, Any]], scenario: str = "workload",
                **overrides: Any) -> Dict[str, Any]:
    """The fields of a switch description (a path to .json/.toml/.yaml, or the nested dict itself) for a
    scenario's config class, checked by the core's reader, with `overrides` (fields by name) replacing the file's:
    ``WorkloadConfig(**load_switch("tor.json", load=0.6))`` works whether or not the file sets ``load``. ValueError
    naming the file, the place and the key."""
    if isinstance(path_or_tree, (str, os.PathLike)):
        path = os.fspath(path_or_tree)
        if _kind(path, "JSON") == "JSON":   # read by the core as written (a key twice, nesting, types)
            pairs = _core.read_switch(scenario, path)
        else:
            tree = read_tree(path, "switch description")
            if not isinstance(tree, Mapping):
                raise ValueError(f"switch description {path}: must hold sections and fields, not "
                                 f"{type(tree).__name__}")
            pairs = _core.read_switch(scenario, _as_json(tree, f"switch description {path}"), label=path)
    elif isinstance(path_or_tree, Mapping):
        pairs = _core.read_switch(scenario, _as_json(path_or_tree, "switch description"), label="(a dict)")
    else:
        raise ValueError(f"load_switch takes a path or a dict of sections and fields, not "
                         f"{type(path_or_tree).__name__}")
    fields = {field_name(scenario, name): value for name, value in pairs}
    fields.update(overrides)
    return fields


def load_sonic(path: Union[str, os.PathLike], scenario: str = "workload", **overrides: Any) -> Dict[str, Any]:
    """The fields a SONiC CONFIG_DB JSON file sets for a scenario's config class (buffer_policy pools, its pools,
    profiles, lossless headroom, cables, PFC and maps), with `overrides` replacing them:
    ``WorkloadConfig(**load_sonic("examples/sonic/arista-7060cx-32s-c32.json", topology="star"))``. ValueError
    naming the table and key for what the model cannot do."""
    pairs = _core.read_sonic(scenario, os.fspath(path))
    fields = {field_name(scenario, name): value for name, value in pairs}
    fields.update(overrides)
    return fields


def write_sonic(config: Any, path: Union[str, os.PathLike, None] = None, switch: int = 0) -> str:
    """One switch of the network `config` (a ScenarioConfig with buffer_policy "pools") would build, as SONiC
    CONFIG_DB JSON text; written to `path` too when given. A headroom found by a rule is written as the numbers it
    gives each port. ValueError naming the field SONiC cannot express."""
    text: str = _core.write_sonic(config.scenario, config.to_params(), switch)
    if path is not None:
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            f.write(text)
    return text


__all__ = ["load_switch", "load_sonic", "write_sonic", "read_tree"]
