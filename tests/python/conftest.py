# SPDX-License-Identifier: Apache-2.0
import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def sim_binary():
    """The cmswitch-sim of the installed package (same build as the extension), else the CMake build's."""
    here = os.path.join(os.path.dirname(sys.executable), "cmswitch-sim")
    for path in (here, shutil.which("cmswitch-sim"), os.path.join(ROOT, "build", "cmswitch-sim")):
        if path and os.path.exists(path):
            return path
    pytest.skip("cmswitch-sim not found")


def strip_wall(summary):
    return {k: v for k, v in summary.items() if k != "wall_s"}
