#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes bindings/cmswitch/config.pyi (the type stub of the generated config classes) from the installed core's
parameter tables. Run after changing a scenario's or a scheme's parameters (tests/python/test_typing.py fails
until the shipped stub matches):  .venv/bin/python scripts/gen_config_stub.py"""
import pathlib

from cmswitch.config import stub_text

path = pathlib.Path(__file__).resolve().parents[1] / "bindings" / "cmswitch" / "config.pyi"
path.write_text(stub_text())
print(f"wrote {path}")
