#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes docs/cli.md, the command-line reference, from the `cmswitch` parser and the core's parameter tables.
Run after adding or changing a flag, a parameter or its help (tests/python/test_cli_doc.py fails until the shipped
file matches):  .venv/bin/python scripts/gen_cli_doc.py"""
import pathlib

from cmswitch.cli_doc import cli_reference

path = pathlib.Path(__file__).resolve().parents[1] / "docs" / "cli.md"
path.write_text(cli_reference())
print(f"wrote {path}")
