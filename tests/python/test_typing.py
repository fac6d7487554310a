# SPDX-License-Identifier: Apache-2.0
"""The shipped type stub: current with the core's parameter tables, installed with the package, and strict enough
that mypy --strict accepts a correct script and refuses wrong field names, types and choices."""
import pathlib
import subprocess
import sys
import textwrap

import pytest

import cmswitch
from conftest import ROOT

STUB = pathlib.Path(ROOT) / "bindings" / "cmswitch" / "config.pyi"


def test_shipped_stub_is_generated_from_the_current_core():
    assert STUB.read_text() == cmswitch.config.stub_text(), \
        "bindings/cmswitch/config.pyi is stale: run .venv/bin/python scripts/gen_config_stub.py"


def test_installed_package_ships_the_stub_and_the_typed_marker():
    pkg = pathlib.Path(cmswitch.__file__).parent
    assert (pkg / "py.typed").exists()
    assert (pkg / "config.pyi").read_text() == cmswitch.config.stub_text()


def mypy(path: pathlib.Path, tmp_path: pathlib.Path) -> subprocess.CompletedProcess:
    pytest.importorskip("mypy")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                           "--cache-dir", str(tmp_path / "mypy-cache"), str(path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)


def test_example_script_passes_mypy_strict(tmp_path):
    r = mypy(pathlib.Path(ROOT) / "docs" / "examples" / "typed_sweep.py", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_refuses_wrong_fields_types_and_choices(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""\
        from cmswitch import IncastConfig, OverloadConfig
        a = IncastConfig(flows="8")
        b = IncastConfig(bufer_kb=64.0)
        c = IncastConfig(marking="blue")
        d = OverloadConfig(traffic="tcp")
        e = IncastConfig()
        e.flows = 3
        f: str = IncastConfig().buffer_kb
        """))
    r = mypy(bad, tmp_path)
    assert r.returncode == 1
    lines = sorted({int(line.split(":")[1]) for line in r.stdout.splitlines() if ": error:" in line})
    assert lines == [2, 3, 4, 5, 7, 8], r.stdout
