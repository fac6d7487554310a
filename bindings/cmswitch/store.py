# SPDX-License-Identifier: Apache-2.0
"""A SQLite file of finished runs, keyed by a stable hash of the full config, the package version and the
compiled core (cmswitch.BUILD_ID).

Each finished point is committed at once, so an interrupted sweep loses nothing it had finished, and a rerun
of the same sweep computes only what is missing. A new package version or a rebuilt core computes anew.

Sweeps sharing one store share the work: a sweep claims a point (table `claims`: host, process, heartbeat) just
before it starts it, and the others skip claimed points and wait for their results. A claim whose process has
died (same host) or whose heartbeat is older than CLAIM_LEASE_S (another host) is taken over.
"""
from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import time
import uuid
import warnings
from typing import Any, Dict, Optional


_COLUMNS = ["key", "scenario", "version", "config", "summary", "finished"]
CLAIM_LEASE_S = 120.0    # a claim from another host lives this long without a heartbeat
_HEARTBEAT_S = 20.0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # pragma: no cover - another user's process
        return True
    try:   # a zombie has finished
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return True


class ResultStore:
    def __init__(self, path: str):
        """Opens (or creates) the store; ValueError naming the file for one that is not a store of this schema
        (another SQLite database, or not SQLite at all)."""
        self.path = str(path)
        deadline = time.time() + 60
        while True:   # sweeps opening a new store at once: switching it to WAL is not covered by the busy timeout
            try:
                self._open()
                break
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or time.time() > deadline:
                    raise ValueError(f"store {self.path!r}: not a usable SQLite result store ({e})") from None
                time.sleep(0.05)
            except sqlite3.DatabaseError as e:
                raise ValueError(f"store {self.path!r}: not a usable SQLite result store ({e})") from None
        # a claim is this store object's (host/instance, pid): two sweeps in two threads of one process, each with
        # its own store object, are two claimants (the pid alone made them one, and both ran every point)
        self._hostname = socket.gethostname()
        self._host = f"{self._hostname}/{uuid.uuid4().hex[:12]}"
        self._pid = os.getpid()
        self._mine: set = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat: Optional[threading.Thread] = None

    def _open(self) -> None:
        self._db = sqlite3.connect(self.path, timeout=60)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            cols = [r[1] for r in self._db.execute("PRAGMA table_info(runs)").fetchall()]
            if cols and cols != _COLUMNS:
                raise ValueError(f"store {self.path!r}: its table 'runs' has columns {', '.join(cols)}, not a "
                                 f"cmswitch result store ({', '.join(_COLUMNS)}); give another file")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS runs (key TEXT PRIMARY KEY, scenario TEXT NOT NULL, version TEXT NOT NULL,"
                " config TEXT NOT NULL, summary TEXT NOT NULL, finished REAL NOT NULL)")
            # added in 0.x stores as they are opened (a store without it had no concurrent sweeps)
            self._db.execute("CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, host TEXT NOT NULL, "
                             "pid INTEGER NOT NULL, beat REAL NOT NULL)")
            self._db.commit()
        except BaseException:
            self._db.close()
            raise

    # -- claims --------------------------------------------------------------------------------------------------
    def _claim_live(self, host: str, pid: int, beat: float) -> bool:
        if host.split("/")[0] == self._hostname:   # this machine: live while its process is
            return _pid_alive(pid)
        return time.time() - beat < CLAIM_LEASE_S

    def claim(self, key: str) -> str:
        """"done" if the point is in the store, "taken" if another live sweep claimed it, else claims it for
        this process and returns "ours"."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute("SELECT summary FROM runs WHERE key = ?", (key,)).fetchone()
                if row is not None and self._parse(key, row[0]) is not None:
                    db.execute("COMMIT")
                    return "done"
                row = db.execute("SELECT host, pid, beat FROM claims WHERE key = ?", (key,)).fetchone()
                if row is not None and (row[0], row[1]) != (self._host, self._pid) and self._claim_live(*row):
                    db.execute("COMMIT")
                    return "taken"
                db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)",
                           (key, self._host, self._pid, time.time()))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._mine.add(key)
        self._start_heartbeat()
        return "ours"

    def claimed_by_other(self, key: str) -> bool:
        """Whether a live sweep other than this one holds a claim on key."""
        with self._lock:
            row = self._db.execute("SELECT host, pid, beat FROM claims WHERE key = ?", (key,)).fetchone()
        return row is not None and (row[0], row[1]) != (self._host, self._pid) and self._claim_live(*row)

    def release(self, key: Optional[str] = None) -> None:
        """Drops this process's claim on key, or all of them."""
        with self._lock:
            keys = list(self._mine) if key is None else [key]
            self._db.executemany("DELETE FROM claims WHERE key = ? AND host = ? AND pid = ?",
                                 [(k, self._host, self._pid) for k in keys])
            self._db.commit()
            self._mine.difference_update(keys)

    def _start_heartbeat(self) -> None:
        if self._beat is not None:
            return
        self._beat = threading.Thread(target=self._heartbeat, name="cmswitch-store-heartbeat", daemon=True)
        self._beat.start()

    def _heartbeat(self) -> None:
        # its own connection: the sweep's thread may be inside a long in-process run
        db = sqlite3.connect(self.path, timeout=60)
        try:
            while not self._stop.wait(_HEARTBEAT_S):
                db.execute("UPDATE claims SET beat = ? WHERE host = ? AND pid = ?",
                           (time.time(), self._host, self._pid))
                db.commit()
        finally:
            db.close()

    def _parse(self, key: str, text: Any) -> Optional[Dict[str, Any]]:
        """A stored summary, or None for a damaged row (not JSON, not a table of metrics): reported with its key
        and treated as missing, so that the point is computed again and its row replaced."""
        def no_constant(name: str) -> Any:   # the core never reports NaN or infinity: such a row was damaged
            raise ValueError(f"it holds {name}")
        try:
            value = json.loads(text, parse_constant=no_constant)
            if isinstance(value, dict):
                return value
            why = f"a {type(value).__name__}, not a table of metrics"
        except (TypeError, ValueError) as e:
            why = f"not valid JSON ({e})"
        warnings.warn(f"store {self.path!r}: the row of point {key[:16]}... is damaged ({why}); computing the "
                      f"point again", RuntimeWarning, stacklevel=3)
        return None

    def get(self, key: str) -> Optional[Dict[str, Any]]:
        """The stored summary of a point, or None (not stored, or its row damaged: see _parse)."""
        with self._lock:
            row = self._db.execute("SELECT summary FROM runs WHERE key = ?", (key,)).fetchone()
        return None if row is None else self._parse(key, row[0])

    def put(self, key: str, scenario: str, version: str, config: Dict[str, Any], summary: Dict[str, Any]) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                             (key, scenario, version, json.dumps(config, sort_keys=True), json.dumps(summary),
                              time.time()))
            self._db.execute("DELETE FROM claims WHERE key = ?", (key,))
            self._db.commit()
            self._mine.discard(key)

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    def close(self) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join()
            self._beat = None
        if self._mine:
            self.release()
        self._db.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
