#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes docs/metrics.md: every summary key of every scenario with what it counts (cmswitch.metrics) and the
scenarios that report it, from one short run of each. Run after adding a summary key (tests/python/test_metrics.py
fails until the shipped table matches):  .venv/bin/python scripts/gen_metrics_doc.py"""
import pathlib

from cmswitch.metrics import metrics_table

path = pathlib.Path(__file__).resolve().parents[1] / "docs" / "metrics.md"
path.write_text(metrics_table())
print(f"wrote {path}")
