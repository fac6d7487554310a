# SPDX-License-Identifier: Apache-2.0
"""Writing result files so that a failure never leaves a half-written file or loses the rows.

A file is written next to its final name under a temporary name, flushed to disk and renamed over the final
name: a reader sees the old file or the whole new one, never a part. When the file cannot be written (a full
disk, a lost mount), ``save_rows`` puts the rows in a fallback file in the temporary folder (another file system,
often) and, failing that, on stdout, and says where.
"""
from __future__ import annotations

import os
import sys
import tempfile
from typing import Callable, IO

import pandas as pd

__all__ = ["write_atomic", "write_csv", "save_rows"]


def write_atomic(path: str, write: Callable[[IO[str]], None]) -> None:
    """Writes a text file with `write(fh)` under a temporary name beside `path`, then renames it to `path`.
    OSError (naming the file) if any step fails; the temporary file is removed and `path` is left as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_csv(df: pd.DataFrame, path: str) -> None:
    """df as CSV at path, atomically (see write_atomic)."""
    write_atomic(path, lambda fh: df.to_csv(fh, index=False))


def save_rows(df: pd.DataFrame, path: str) -> str:
    """Writes df to the CSV at `path`; if that fails, to a fallback file in the temporary folder, and failing that
    to stdout. Returns where the rows went; raises OSError (with the fallback's place in its text) when `path`
    itself could not be written, so that the caller reports it and exits with an error."""
    try:
        write_csv(df, path)
        return path
    except OSError as first:
        why = f"cannot write {path} ({first.strerror or first})"
    fallback = os.path.join(tempfile.gettempdir(), f"cmswitch-{os.getpid()}-{os.path.basename(path)}")
    try:
        write_csv(df, fallback)
        where = fallback
    except OSError:
        sys.stdout.write(df.to_csv(index=False))
        sys.stdout.flush()
        where = "stdout (the fallback file could not be written either)"
    raise OSError(f"{why}; its {len(df)} rows are in {where}")
