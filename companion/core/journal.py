"""The game journal: every change to a game is an event appended to SQLite.

Durability: WAL mode with ``synchronous=FULL``; ``append`` returns only after the transaction has
committed, so an event is *acknowledged* when ``append`` returns, and a process killed at any
moment (kill -9) reopens with every acknowledged event and no half-written one.

The schema is versioned with ``PRAGMA user_version``; ``MIGRATIONS`` upgrades a journal written
by an older version in place (inside one transaction), so old journals still open.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from .events import BadInput, Event

SCHEMA_VERSION = 2

# Version 1 (the first release) had no event source and no recorded winners. It is kept here
# because the migration test builds a v1 journal from it.
SCHEMA_V1 = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""

MIGRATIONS: dict[int, str] = {
    # 1 -> 2: where an event came from (tablet, box, camera, phone) and who won a finished game.
    2: """
    ALTER TABLE events ADD COLUMN source TEXT NOT NULL DEFAULT 'system';
    ALTER TABLE games ADD COLUMN winners TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE games ADD COLUMN summary TEXT NOT NULL DEFAULT '';
    ALTER TABLE games ADD COLUMN status TEXT NOT NULL DEFAULT 'playing';
    UPDATE games SET status = 'finished' WHERE finished_at IS NOT NULL;
    """,
}


def default_data_dir() -> Path:
    """The user's data folder (``TABLE_COMPANION_DATA`` overrides; the app passes Kivy's
    ``user_data_dir`` on Android)."""
    env = os.environ.get("TABLE_COMPANION_DATA")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "table-companion"


@dataclass(frozen=True)
class GameRecord:
    id: int
    game: str
    setup: Mapping[str, Any]
    started_at: float
    finished_at: float | None
    status: str  # "playing", "finished", "abandoned"
    winners: Sequence[str]
    summary: str


class Journal:
    def __init__(self, path: str | os.PathLike, *, wall_clock=time.time):
        self.path = Path(path)
        self._wall = wall_clock
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._upgrade()
        except sqlite3.DatabaseError as exc:
            raise BadInput(f"journal {self.path} cannot be opened: {exc}") from None

    # -- schema ---------------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def _upgrade(self) -> None:
        version = self.schema_version
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version == 0 and not tables:
            self._db.execute("BEGIN IMMEDIATE")
            for stmt in _statements(SCHEMA_V1):
                self._db.execute(stmt)
            self._db.execute("PRAGMA user_version = 1")
            self._db.execute("COMMIT")
            version = 1
        elif version == 0:
            raise BadInput(f"journal {self.path} is a SQLite file of another program (tables: {', '.join(sorted(tables))})")
        if version > SCHEMA_VERSION:
            raise BadInput(
                f"journal {self.path} was written by a newer version (schema {version}, this app reads up to {SCHEMA_VERSION})"
            )
        while version < SCHEMA_VERSION:
            target = version + 1
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for stmt in _statements(MIGRATIONS[target]):
                    self._db.execute(stmt)
                self._db.execute(f"PRAGMA user_version = {target}")
                self._db.execute("COMMIT")
            except Exception:
                self._db.execute("ROLLBACK")
                raise
            version = target

    # -- games ----------------------------------------------------------------------------
    def new_game(self, game: str, setup: Mapping[str, Any]) -> int:
        cur = self._db.execute(
            "INSERT INTO games (game, setup, started_at) VALUES (?, ?, ?)",
            (game, _dumps(setup), self._wall()),
        )
        assert cur.lastrowid is not None  # an INSERT sets it
        return cur.lastrowid

    def game(self, game_id: int) -> GameRecord:
        row = self._db.execute(_GAME_SELECT + " WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise BadInput(f"journal {self.path} has no game {game_id}")
        return self._record(row)

    def games(self, game: str | None = None) -> list[GameRecord]:
        """Past and present games, newest first."""
        if game is None:
            rows = self._db.execute(_GAME_SELECT + " ORDER BY id DESC")
        else:
            rows = self._db.execute(_GAME_SELECT + " WHERE game = ? ORDER BY id DESC", (game,))
        return [self._record(r) for r in rows]

    def unfinished(self) -> list[GameRecord]:
        return [g for g in self.games() if g.status == "playing"]

    def finish(self, game_id: int, winners: Iterable[str], summary: str = "") -> None:
        self._db.execute(
            "UPDATE games SET status='finished', finished_at=?, winners=?, summary=? WHERE id=?",
            (self._wall(), _dumps(list(winners)), summary, game_id),
        )

    def reopen(self, game_id: int) -> None:
        self._db.execute(
            "UPDATE games SET status='playing', finished_at=NULL, winners='[]', summary='' WHERE id=?", (game_id,)
        )

    def abandon(self, game_id: int) -> None:
        self._db.execute(
            "UPDATE games SET status='abandoned', finished_at=? WHERE id=? AND status='playing'",
            (self._wall(), game_id),
        )

    # -- events ---------------------------------------------------------------------------
    def append(self, game_id: int, items: Sequence[tuple[str, Mapping[str, Any], str]]) -> list[Event]:
        """Append events atomically: all of them or none. Returns them once committed."""
        if not items:
            return []
        now = self._wall()
        self._db.execute("BEGIN IMMEDIATE")
        try:
            last = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
            out = []
            for i, (kind, data, source) in enumerate(items, start=1):
                text = _dumps(data)
                self._db.execute(
                    "INSERT INTO events (game_id, seq, kind, data, at, source) VALUES (?, ?, ?, ?, ?, ?)",
                    (game_id, last + i, kind, text, now, source),
                )
                out.append(Event(last + i, kind, json.loads(text), source, now))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return out

    def events(self, game_id: int) -> list[Event]:
        rows = self._db.execute(
            "SELECT seq, kind, data, source, at FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        out = []
        for seq, kind, data, source, at in rows:
            try:
                payload = json.loads(data)
            except ValueError:
                raise BadInput(f"journal {self.path}: game {game_id} event {seq} ({kind}) has unreadable data") from None
            out.append(Event(seq, kind, payload, source, at))
        return out

    def close(self) -> None:
        self._db.close()

    # -- helpers --------------------------------------------------------------------------
    def _record(self, row) -> GameRecord:
        gid, game, setup, started, finished, status, winners, summary = row
        try:
            return GameRecord(gid, game, json.loads(setup), started, finished, status, json.loads(winners), summary)
        except ValueError:
            raise BadInput(f"journal {self.path}: game {gid} has an unreadable setup or winner list") from None


_GAME_SELECT = "SELECT id, game, setup, started_at, finished_at, status, winners, summary FROM games"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
