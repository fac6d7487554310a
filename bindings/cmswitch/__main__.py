# SPDX-License-Identifier: Apache-2.0
from .cli import entry

entry()
