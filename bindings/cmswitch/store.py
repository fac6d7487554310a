# SPDX-License-Identifier: Apache-2.0
"""A SQLite file of finished runs, keyed by a stable hash of the full config, the package version and the
compiled core (cmswitch.BUILD_ID).

Each finished point is committed at once, so an interrupted sweep loses nothing it had finished, and a rerun
of the same sweep computes only what is missing. A new package version or a rebuilt core computes anew.
"""
from __future__ import annotations

import json
import sqlite3
import time
from typing import Any, Dict, Optional


_COLUMNS = ["key", "scenario", "version", "config", "summary", "finished"]


class ResultStore:
    def __init__(self, path: str):
        """Opens (or creates) the store; ValueError naming the file for one that is not a store of this schema
        (another SQLite database, or not SQLite at all)."""
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, timeout=60)
            self._db.execute("PRAGMA journal_mode=WAL")
            cols = [r[1] for r in self._db.execute("PRAGMA table_info(runs)").fetchall()]
            if cols and cols != _COLUMNS:
                self._db.close()
                raise ValueError(f"store {self.path!r}: its table 'runs' has columns {', '.join(cols)}, not a "
                                 f"cmswitch result store ({', '.join(_COLUMNS)}); give another file")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS runs (key TEXT PRIMARY KEY, scenario TEXT NOT NULL, version TEXT NOT NULL,"
                " config TEXT NOT NULL, summary TEXT NOT NULL, finished REAL NOT NULL)")
            self._db.commit()
        except sqlite3.DatabaseError as e:
            raise ValueError(f"store {self.path!r}: not a usable SQLite result store ({e})") from None

    def get(self, key: str) -> Optional[Dict[str, Any]]:
        row = self._db.execute("SELECT summary FROM runs WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, scenario: str, version: str, config: Dict[str, Any], summary: Dict[str, Any]) -> None:
        self._db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                         (key, scenario, version, json.dumps(config, sort_keys=True), json.dumps(summary),
                          time.time()))
        self._db.commit()

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
