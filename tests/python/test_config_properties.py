# SPDX-License-Identifier: Apache-2.0
"""Property tests (Hypothesis): for every scenario and every numeric or boolean field, the Python config and the
core accept and refuse exactly the same values, in range or not; an accepted config round-trips through the
core's parser unchanged."""
import dataclasses
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cmswitch
from cmswitch import _core

FIELDS = [(scenario, p) for scenario in _core.scenario_names() for p in _core.describe(scenario)["params"]
          if p["type"] in ("int", "float", "bool")]


def _values(p):
    if p["type"] == "bool":
        return st.booleans()
    lo, hi = p["min"], p["max"]
    edges = st.sampled_from([lo, hi, -lo, lo - 1, hi + 1, hi * 2, 0, p.get("min_nonzero", 0),
                             p.get("min_nonzero", 0) / 2, 1e-13])
    if p["type"] == "int":
        return st.one_of(st.integers(min_value=int(max(lo - 10, -2**62)), max_value=int(min(hi + 10, 2**62))),
                         edges.map(lambda x: int(x) if math.isfinite(x) and abs(x) < 2**62 else 0))
    return st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(min_value=lo, max_value=hi), edges)


@pytest.mark.parametrize("scenario,p", FIELDS, ids=[f"{s}.{p['name']}" for s, p in FIELDS])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_python_and_the_core_agree_on_every_value(scenario, p, data):
    value = data.draw(_values(p))
    cls = cmswitch.config_class(scenario)
    name = next(f.name for f in dataclasses.fields(cls) if f.metadata.get("core_name") == p["name"])
    try:
        cfg = cls(**{name: value})
        python_ok = True
    except ValueError:
        python_ok = False
    text = ("true" if value else "false") if isinstance(value, bool) else repr(value) if isinstance(value, float) \
        else str(value)
    try:
        _core.check(scenario, {p["name"]: text})
        core_ok = True
    except ValueError:
        core_ok = False
    assert python_ok == core_ok, f"{scenario}.{p['name']} = {value!r}: python {python_ok}, core {core_ok}"
    if python_ok:
        _core.check(scenario, cfg.to_params())   # the whole accepted config parses again unchanged
