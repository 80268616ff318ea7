"""The game journal: every change to a game is an event appended to SQLite.

Durability: WAL mode with ``synchronous=FULL``; ``append`` returns only after the transaction has
committed, so an event is *acknowledged* when ``append`` returns, and a process killed at any
moment (kill -9) reopens with every acknowledged event and no half-written one.

The schema is versioned with ``PRAGMA user_version``; ``MIGRATIONS`` upgrades a journal written
by an older version in place (inside one transaction), so old journals still open.
"""
from __future__ import annotations

import errno
import json
import math
import os
import sqlite3
import time
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence
from urllib.request import pathname2url

from .events import BadInput, Event
from .i18n import keyed, reason_of

SCHEMA_VERSION = 2
FULL = "journal.full"   # the catalogue key of a full disk's one line


def __getattr__(name: str) -> str:
    if name == "STORAGE_FULL":  # its English words (logs, tests), read from the catalogue
        from .i18n import text_of
        return text_of(keyed(FULL), "en")
    raise AttributeError(name)


class JournalError(BadInput):
    """The journal's storage failed (one line). A BadInput, so every place that shows a refused
    command shows this too instead of letting the app exit. Its message is ``keyed``: the
    table reads it in its own language (``i18n.error_text``), ``str()`` is English."""


class JournalDamaged(JournalError):
    """The file cannot be read as our journal (damaged, another program's, a newer version):
    the app moves it aside, keeping its bytes, and starts a fresh one."""


class StorageFull(JournalError):
    def __init__(self, message: str | Mapping | None = None):
        super().__init__(message or keyed(FULL))


class StorageUnavailable(JournalError):
    """The data folder cannot be written (read-only, missing, in use by another copy of the app)."""


# SQLite's primary result codes (sqlite3.h), for the errors a table can do something about.
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_IOERR, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 10, 11, 13, 14, 26
_SQLITE_TOOBIG = 18  # "string or blob too big": a damaged record header claims a huge length


class Unreadable:
    """A text cell whose bytes are not UTF-8 (a damaged page). Not a ``str``: every check of a
    column's type refuses it, so it is named as damage instead of raising UnicodeDecodeError."""
    __slots__ = ("raw",)

    def __init__(self, raw: bytes):
        self.raw = bytes(raw)

    def __repr__(self) -> str:
        return f"<not UTF-8: {self.raw[:16]!r}>"


def _text(raw: bytes) -> "str | Unreadable":
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return Unreadable(raw)


def _connect(target: str, **kwargs: Any) -> sqlite3.Connection:
    """Every connection to a journal: autocommit, and text that is not UTF-8 read as Unreadable."""
    conn = sqlite3.connect(target, isolation_level=None, **kwargs)
    conn.text_factory = _text
    return conn


# A damaged schema can make SQLite's own message hold bytes that are not UTF-8: Python then
# raises UnicodeDecodeError in place of the sqlite3.Error.
_SQL_ERRORS = (sqlite3.Error, UnicodeDecodeError)


def storage_error(exc: sqlite3.Error | UnicodeDecodeError, path: Path) -> JournalError:
    """The one-line error for a failed SQLite call on the journal at ``path``."""
    if isinstance(exc, UnicodeDecodeError):
        return JournalDamaged(keyed("journal.damaged", path=str(path),
                                    problem="its schema holds bytes that are not text"))
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = _one_line(exc)   # SQLite's own words, quoted as they are (on one line)
    if code == _SQLITE_FULL or "disk is full" in text:
        return StorageFull()
    if code in (_SQLITE_CORRUPT, _SQLITE_NOTADB, _SQLITE_TOOBIG) or "malformed" in text or "not a database" in text:
        return JournalDamaged(keyed("journal.damaged", path=str(path), problem=text))
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return StorageUnavailable(keyed("journal.in_use", path=str(path), problem=text))
    if code == _SQLITE_IOERR and _no_space(path.parent):
        return StorageFull()  # SQLite says only "disk I/O error" when -shm cannot grow
    if code in (_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_PERM, _SQLITE_IOERR):
        return unwritable(path.parent, text)
    return JournalError(keyed("journal.failed", path=str(path), problem=text))


def _no_space(folder: Path) -> bool:
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 64 * 1024  # less than a few pages: nothing more fits


def unwritable(folder: Path, problem: Any, verb: str = "written") -> "StorageUnavailable":
    """The data folder cannot be ``written`` (or ``created``): why, in the table's words when
    the folder says why, else the system's ``problem`` (``i18n.reason_of``)."""
    if verb == "created":
        return StorageUnavailable(keyed("journal.cannot_be_created", folder=str(folder), why=problem))
    why = problem
    if not folder.is_dir():
        why = keyed("journal.why_missing")
    elif not os.access(folder, os.W_OK):
        why = keyed("journal.why_readonly")
    return StorageUnavailable(keyed("journal.cannot_be_written", folder=str(folder), why=why))

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
    # Set (to the one-line error) only on a record ``Journal.games`` lists for a row it cannot
    # read: its status is then "damaged" and its other fields neutral.
    damaged: JournalDamaged | None = None


STATUSES = ("playing", "finished", "abandoned")
DAMAGED = "damaged"  # the status of a row ``games()`` lists but cannot read


class Journal:
    """``Journal(path)`` opens (or creates) a journal; ``Journal(":memory:")`` keeps one in memory
    (the app's stand-in when its data folder cannot be written). ``readonly=True`` opens it
    without writing a byte (``python -m companion check`` while the app holds the folder);
    ``verify=False`` (with ``readonly``) skips SQLite's integrity check, for ``check`` to read
    what a damaged journal still holds.

    Every storage failure raises a one-line :class:`JournalError`: :class:`JournalDamaged`,
    :class:`StorageFull`, :class:`StorageUnavailable`."""

    def __init__(self, path: str | os.PathLike, *, wall_clock: Callable[[], float] = time.time, readonly: bool = False,
                 lock: "DataLock | None" = None, verify: bool = True,
                 on_put_back: "Callable[[], None] | None" = None):
        memory = str(path) == ":memory:"
        self.path = Path(path)
        self._wall = wall_clock
        self._lock = lock  # the folder's, taken again with the journal if the folder is deleted
        self._on_put_back = on_put_back  # the app's other files go back with the journal
        self.readonly = readonly
        self._conn: sqlite3.Connection | None = None  # None only until connected
        self._file: tuple[int, int] | None = None  # (device, inode) of the file opened at path
        if not memory and not readonly:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise unwritable(self.path.parent, reason_of(exc), "created") from None
        if not memory and self.path.is_dir():
            raise JournalDamaged(keyed("journal.is_folder", path=str(self.path)))
        try:
            if readonly:
                self._conn = self._connect_readonly()
            else:
                self._conn = _connect(":memory:" if memory else str(self.path))
            if not memory and not readonly:
                self._file = _identity(os.stat(self.path))
            # Read before writing anything: another program's file must stay exactly as it was
            # (switching it to WAL would already change it).
            self._refuse_foreign()
            self._configure()
            # The full check: quick_check does not compare an index with its table, and a damaged
            # index hides events from every read that uses it (a game replayed with one missing).
            problems = _one_lines(self._db.execute("PRAGMA integrity_check(3)")) if verify else ["ok"]
            if problems != ["ok"]:
                raise JournalDamaged(keyed("journal.damaged", path=str(self.path), problem="; ".join(problems)))
            if not readonly:
                self._upgrade()
            if not memory:
                self._check_columns()
        except _SQL_ERRORS as exc:
            self._close_quietly()
            raise self._open_error(exc) from None
        except BaseException:
            self._close_quietly()
            raise

    def _connect_readonly(self) -> sqlite3.Connection:
        uri = f"file:{pathname2url(str(self.path.resolve()))}?mode=ro"
        conn = _connect(uri, uri=True)
        try:
            conn.execute("PRAGMA user_version").fetchone()  # SQLite opens the file at its first read
            return conn
        except _SQL_ERRORS:
            conn.close()
            try:
                wal_size = os.path.getsize(str(self.path) + "-wal")
            except OSError:
                wal_size = 0
            if wal_size:
                raise
        # Even reading a WAL journal needs its index (-shm) created, which a read-only folder or
        # a full disk refuses. With no WAL content to miss, the file alone is the whole journal.
        return _connect(uri + "&immutable=1", uri=True)

    def _configure(self) -> None:
        if not self.readonly:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")

    def _open_error(self, exc: sqlite3.Error | UnicodeDecodeError) -> JournalError:
        err = storage_error(exc, self.path)
        if isinstance(err, JournalDamaged) and not isinstance(exc, UnicodeDecodeError):
            return JournalDamaged(keyed("journal.cannot_open", path=str(self.path), problem=_one_line(exc)))
        if isinstance(err, StorageUnavailable) and self.path.exists():
            # The folder may be fine and the file itself the problem: name the file.
            try:
                os.close(os.open(self.path, os.O_RDONLY))
            except OSError as os_exc:
                return StorageUnavailable(keyed("journal.cannot_read_file", path=str(self.path),
                                                why=reason_of(os_exc)))
            if not self.readonly and not os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK):
                return StorageUnavailable(keyed("journal.cannot_write_file", path=str(self.path),
                                                why=keyed("journal.why_readonly")))
        return err

    @property
    def _db(self) -> sqlite3.Connection:
        assert self._conn is not None, "connected first thing in __init__"
        return self._conn

    def _close_quietly(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass

    def _refuse_foreign(self) -> None:
        version = self.schema_version
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version < 0:  # no version of this app wrote it
            raise JournalDamaged(keyed("journal.bad_version", path=str(self.path), version=version))
        if version == 0 and tables:
            raise JournalDamaged(keyed("journal.foreign", path=str(self.path), tables=", ".join(sorted(tables))))
        if version > SCHEMA_VERSION:
            raise JournalDamaged(keyed("journal.newer", path=str(self.path), version=version,
                                       supported=SCHEMA_VERSION))

    def _check_columns(self) -> None:
        """A journal whose tables or columns are not this version's (a table dropped, a
        version number that lies) is damaged: opened as it is, every game read or event written
        would fail one by one, and the app could record nothing."""
        if self.schema_version != SCHEMA_VERSION:
            return  # read-only: an older version's journal is read as it is
        for table, needed in _COLUMNS.items():
            have = {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}
            missing = [c for c in needed if c not in have]
            if missing:
                problem = (f"table {table} is missing" if not have
                           else f"table {table} has no column {', '.join(missing)}")
                raise JournalDamaged(keyed("journal.damaged", path=str(self.path), problem=problem))

    # -- schema ---------------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def _upgrade(self) -> None:
        version = self.schema_version
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version == 0 and not tables:
            with self._tx():
                for stmt in _statements(SCHEMA_V1):
                    self._db.execute(stmt)
                self._db.execute("PRAGMA user_version = 1")
            version = 1
        while version < SCHEMA_VERSION:
            target = version + 1
            with self._tx():
                try:
                    for stmt in _statements(MIGRATIONS[target]):
                        self._db.execute(stmt)
                except sqlite3.OperationalError as exc:  # its version lies: a column already there, say
                    raise JournalDamaged(keyed("journal.damaged", path=str(self.path),
                                               problem=f"cannot be upgraded to version {target}: {exc}")) from None
                self._db.execute(f"PRAGMA user_version = {target}")
            version = target

    @contextmanager
    def _tx(self) -> Iterator[None]:
        """One write transaction. A failed COMMIT (disk full) may already have rolled back: the
        real error is raised, never "cannot rollback - no transaction is active"."""
        if self.readonly:
            raise StorageUnavailable(keyed("journal.open_read_only", path=str(self.path)))
        self._still_in_place()
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    try:
                        self._db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass  # the error that got us here is the one to report
                raise
        except _SQL_ERRORS as exc:
            raise storage_error(exc, self.path) from None

    def _still_in_place(self) -> None:
        """Before each write: is the open file still the journal at our path? Deleted under the
        app (its data folder removed mid-game), SQLite would go on writing to the unlinked file
        and every event would be lost at close; it is put back instead, so nothing confirmed is
        lost. A different file at the path is never overwritten. A stat per write, and the lock's."""
        if self._file is None:
            return
        try:
            now = _identity(os.stat(self.path))
        except FileNotFoundError:
            self._put_back()
            return
        except OSError as exc:
            raise StorageUnavailable(keyed("journal.vanished", path=str(self.path), why=reason_of(exc))) from None
        if now != self._file:
            raise StorageUnavailable(keyed("journal.replaced", path=str(self.path)))
        if self._lock is not None:  # its file alone deleted: a second copy could take the folder
            self._lock.keep()

    def _put_back(self) -> None:
        """Copy the deleted journal, still open, back to its path (SQLite's backup reads every
        committed page, the WAL's too) and go on with the copy."""
        tmp = self.path.with_name(self.path.name + ".restoring")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self._lock is not None:  # first, so that no second copy of the app opens the folder
                self._lock.keep()
            copy = sqlite3.connect(str(tmp))
            try:
                self._db.backup(copy)
            finally:
                copy.close()
            if self.path.exists():  # another program's file appeared meanwhile: keep it
                raise StorageUnavailable(keyed("journal.replaced", path=str(self.path)))
            os.replace(tmp, self.path)
            # Close the old connection before opening the copy: closing deletes the -wal and
            # -shm by name, which must still be the old ones.
            self._close_quietly()
            self._conn = _connect(str(self.path))
            self._file = _identity(os.stat(self.path))
            self._configure()
            if self._on_put_back is not None:
                self._on_put_back()
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise StorageFull() from None
            raise StorageUnavailable(keyed("journal.vanished", path=str(self.path), why=reason_of(exc))) from None
        except _SQL_ERRORS as exc:
            err = storage_error(exc, self.path)
            raise (err if isinstance(err, StorageFull) else StorageUnavailable(
                keyed("journal.vanished", path=str(self.path), why=_one_line(exc)))) from None
        finally:
            for leftover in (tmp, Path(str(tmp) + "-journal")):
                with suppress(OSError):
                    leftover.unlink()

    @contextmanager
    def _reading(self) -> Iterator[None]:
        try:
            yield
        except _SQL_ERRORS as exc:
            raise storage_error(exc, self.path) from None

    # -- games ----------------------------------------------------------------------------
    def new_game(self, game: str, setup: Mapping[str, Any],
                 first: Sequence[tuple[str, Mapping[str, Any], str]] = ()) -> int:
        """A new game row and its first events, in one transaction: a kill leaves both or neither."""
        with self._tx():
            cur = self._db.execute(
                "INSERT INTO games (game, setup, started_at) VALUES (?, ?, ?)",
                (game, _dumps(setup), self._wall()),
            )
            assert cur.lastrowid is not None  # an INSERT sets it
            game_id = cur.lastrowid
            self._insert(game_id, first, self._wall())
        return game_id

    def game(self, game_id: int) -> GameRecord:
        """The game's record; JournalDamaged when its row cannot be read."""
        if not _INT64[0] <= game_id <= _INT64[1]:  # sqlite3 raises OverflowError for it
            raise BadInput(keyed("journal.no_game", path=str(self.path), game=game_id))
        with self._reading():
            row = self._db.execute(_GAME_SELECT + " WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise BadInput(keyed("journal.no_game", path=str(self.path), game=game_id))
        return self._record(row)

    def games(self, game: str | None = None) -> list[GameRecord]:
        """Past and present games, newest first. A row that cannot be read neither fails the
        list nor hides the other games: it is listed with status ``DAMAGED``, ``damaged`` set to
        its one-line JournalDamaged, and neutral fields (no setup, no winners); ``game(id)``
        raises that error."""
        where, args = ("", ()) if game is None else (" WHERE game = ?", (game,))
        try:
            rows: list[Any] = self._db.execute(_GAME_SELECT + where + " ORDER BY id DESC", args).fetchall()
        except _SQL_ERRORS as exc:
            problem = storage_error(exc, self.path)
            if not isinstance(problem, JournalDamaged):
                raise problem from None
            rows = self._rows_one_by_one(where, args)  # one row SQLite cannot read ("too big", say)
        out = []
        for r in rows:
            if isinstance(r, GameRecord):
                out.append(r)
                continue
            try:
                out.append(self._record(r))
            except JournalDamaged as exc:
                gid, name, _setup, started = r[:4]
                out.append(GameRecord(gid, name if isinstance(name, str) else "?", {},
                                      started if _is_time(started) else 0.0, None, DAMAGED, (), "", exc))
        return out

    def _rows_one_by_one(self, where: str, args: tuple) -> list[Any]:
        """The games rows read one at a time, each that SQLite refuses as a DAMAGED record."""
        with self._reading():
            ids = [r[0] for r in self._db.execute("SELECT id FROM games" + where + " ORDER BY id DESC", args)]
        rows: list[Any] = []
        for gid in ids:
            try:
                row = self._db.execute(_GAME_SELECT + " WHERE id = ?", (gid,)).fetchone()
                if row is not None:
                    rows.append(row)
            except _SQL_ERRORS as exc:
                problem = storage_error(exc, self.path)
                if not isinstance(problem, JournalDamaged):
                    raise problem from None
                rows.append(GameRecord(gid, "?", {}, 0.0, None, DAMAGED, (), "", JournalDamaged(
                    keyed("journal.unreadable_game", path=str(self.path), game=gid))))
        return rows

    def unfinished(self) -> list[GameRecord]:
        """The games left playing (a damaged row is not one: ``games`` lists it)."""
        return [g for g in self.games() if g.status == "playing"]

    def finish(self, game_id: int, winners: Iterable[str], summary: str = "") -> None:
        with self._tx():
            self._set_finished(game_id, (list(winners), summary))

    def reopen(self, game_id: int) -> None:
        """A finished game whose winning action was undone, or an abandoned game resumed."""
        with self._tx():
            self._set_finished(game_id, None)

    def abandon(self, game_id: int) -> None:
        with self._tx():
            self._db.execute(
                "UPDATE games SET status='abandoned', finished_at=? WHERE id=? AND status='playing'",
                (self._wall(), game_id),
            )

    def remove_empty_game(self, game_id: int) -> bool:
        """Remove a game row that has no events (left by a start that never completed)."""
        with self._tx():
            cur = self._db.execute(
                "DELETE FROM games WHERE id=? AND NOT EXISTS (SELECT 1 FROM events WHERE game_id=?)",
                (game_id, game_id))
        return cur.rowcount > 0

    def copy_in(self, record: GameRecord, events: Sequence[Event]) -> None:
        """A game read from another journal (a salvage), under its own number, with its events
        as they were recorded, in one transaction."""
        with self._tx():
            self._db.execute(
                "INSERT INTO games (id, game, setup, started_at, finished_at, status, winners, summary)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (record.id, record.game, _dumps(record.setup), record.started_at, record.finished_at,
                 record.status, _dumps(list(record.winners)), record.summary))
            self._db.executemany(
                "INSERT INTO events (game_id, seq, kind, data, at, source) VALUES (?, ?, ?, ?, ?, ?)",
                [(record.id, e.seq, e.kind, _dumps(e.data), e.at, e.source) for e in events])

    # -- events ---------------------------------------------------------------------------
    def append(self, game_id: int, items: Sequence[tuple[str, Mapping[str, Any], str]],
               *, finish: tuple[Sequence[str], str] | None = None, reopen: bool = False) -> list[Event]:
        """Append events atomically: all of them or none. Returns them once committed.

        ``finish=(winners, summary)`` marks the game finished, ``reopen=True`` playing again, in
        the same transaction as the events that decided it."""
        if not items:
            return []
        now = self._wall()
        with self._tx():
            out = self._insert(game_id, items, now)
            if finish is not None or reopen:
                self._set_finished(game_id, finish)
        return out

    def _insert(self, game_id: int, items: Sequence[tuple[str, Mapping[str, Any], str]], now: float) -> list[Event]:
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
        return out

    def _set_finished(self, game_id: int, result: tuple[Sequence[str], str] | None) -> None:
        if result is None:
            self._db.execute(
                "UPDATE games SET status='playing', finished_at=NULL, winners='[]', summary='' WHERE id=?",
                (game_id,))
        else:
            winners, summary = result
            self._db.execute(
                "UPDATE games SET status='finished', finished_at=?, winners=?, summary=? WHERE id=?",
                (self._wall(), _dumps(list(winners)), summary, game_id),
            )

    def events(self, game_id: int) -> list[Event]:
        """The game's events in order; JournalDamaged naming the first that cannot be read."""
        if not _INT64[0] <= game_id <= _INT64[1]:
            return []
        with self._reading():
            rows = self._db.execute(
                "SELECT seq, kind, data, source, at FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        try:
            # One parse for the whole game (a resume reads thousands of events); a row that
            # spoils it is found below, one by one.
            payloads = json.loads("[" + ",".join(r[2] for r in rows) + "]")
            if len(payloads) != len(rows) or not all(type(p) is dict for p in payloads) or not all(
                    type(r[1]) is str and type(r[3]) is str and _is_time(r[4]) for r in rows):
                raise ValueError("a row holds more than one value, or not an event")
        except (TypeError, ValueError, RecursionError):  # too deeply nested: RecursionError
            return [event_of(r, self.path, game_id) for r in rows]
        return [Event(seq, kind, payload, source, at) for (seq, kind, _d, source, at), payload in zip(rows, payloads)]

    def integrity(self) -> list[str]:
        """SQLite's full integrity check: ``["ok"]`` or the problems it found."""
        with self._reading():
            return _one_lines(self._db.execute("PRAGMA integrity_check(20)"))

    def close(self) -> None:
        self._close_quietly()

    # -- helpers --------------------------------------------------------------------------
    def _record(self, row: Sequence[Any]) -> GameRecord:
        return game_record(row, self.path)


def game_record(row: Sequence[Any], path: Path) -> GameRecord:
    """A games row (``_GAME_SELECT``'s columns), every column checked: a damaged file must fail
    here, in one line naming the game and the column, not later in a screen's arithmetic."""
    gid, game, setup_text, started, finished, status, winners_text, summary = row
    try:
        setup, winners = json.loads(setup_text), json.loads(winners_text)
    except (TypeError, ValueError, RecursionError):  # too deeply nested: RecursionError
        raise JournalDamaged(keyed("journal.unreadable_game", path=str(path), game=gid)) from None
    checks = (("game", game, isinstance(game, str)),
              ("setup", setup_text, isinstance(setup, dict) and _names(setup.get("players", []))),
              ("started_at", started, _is_time(started)),
              ("finished_at", finished, finished is None or _is_time(finished)),
              ("status", status, status in STATUSES),
              ("winners", winners_text, _names(winners)),
              ("summary", summary, isinstance(summary, str)))
    for column, value, ok in checks:
        if not ok:
            raise JournalDamaged(keyed("journal.bad_column", path=str(path), game=gid, column=column,
                                       value=_shown(value)))
    return GameRecord(gid, game, setup, started, finished, status, winners, summary)


def event_of(row: Sequence[Any], path: Path, game_id: int) -> Event:
    """An events row (seq, kind, data, source, at) read back, or JournalDamaged naming it."""
    seq, kind, data, source, at = row
    try:
        payload = json.loads(data)
        if type(payload) is not dict or type(kind) is not str or type(source) is not str or not _is_time(at):
            raise ValueError("not an event")
    except (TypeError, ValueError, RecursionError):
        raise JournalDamaged(keyed("journal.unreadable_event", path=str(path), game=game_id,
                                   seq=seq, kind=_shown(kind) if type(kind) is not str else kind)) from None
    return Event(seq, kind, payload, source, at)


_GAME_SELECT = "SELECT id, game, setup, started_at, finished_at, status, winners, summary FROM games"
_COLUMNS = {"games": ("id", "game", "setup", "started_at", "finished_at", "status", "winners", "summary"),
            "events": ("game_id", "seq", "kind", "data", "source", "at")}
_INT64 = (-2 ** 63, 2 ** 63 - 1)  # what an SQLite integer holds


def _one_line(exc: BaseException) -> str:
    """An error's words on one line (SQLite quotes a damaged schema's text, newlines and all)."""
    return " ".join(str(exc).split())


def _one_lines(rows: Iterable[Sequence[Any]]) -> list[str]:
    """SQLite's integrity problems, one line each (a row may hold several, and a heading)."""
    lines = [line.strip() for r in rows for line in str(r[0]).splitlines()]
    return [line for line in lines if line and not line.startswith("*** in database")]


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _is_time(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _shown(value: Any) -> str:
    """A damaged value, short enough for one line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


class DataInUse(StorageUnavailable):
    """Another copy of the app holds the data folder."""


class DataLock:
    """One app per data folder: an advisory lock on ``<folder>/journal.lock`` for as long as the
    app runs (the kernel drops it when the process ends, however it ends). A second copy of the
    app gets :class:`DataInUse` and must not write."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self.path = self.folder / "journal.lock"
        self._fd: int | None = None
        self._lost: DataInUse | None = None  # another copy took the folder while this one ran
        self._retry = False  # the lock was dropped and could not be taken again yet

    def acquire(self) -> "DataLock":
        import fcntl
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise _lock_error(self.folder, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            other = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            raise DataInUse(keyed("journal.other_copy_process", process=other, folder=str(self.folder))
                            if other.isdigit() else keyed("journal.other_copy", folder=str(self.folder))) from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as exc:  # a full disk: the lock file was created, its line does not fit
            os.close(fd)
            raise _lock_error(self.folder, exc) from None
        self._fd = fd
        return self

    def keep(self) -> None:
        """Take the lock again if its file was deleted (the data folder removed under the app) or
        replaced: a lock on a file no longer at the path keeps nobody out. :class:`DataInUse` if
        another copy of the app took the new file first, and from then on at every call: this
        copy never writes unlocked again (the other one may be writing the same game)."""
        if self._lost is not None:
            raise self._lost
        if self._fd is None:
            if self._retry:
                self._take_again()
            return  # never taken (check's read-only use): nothing to keep
        try:
            if _identity(os.stat(self.path)) == _identity(os.fstat(self._fd)):
                return
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise _lock_error(self.folder, exc) from None
        old, self._fd = self._fd, None
        os.close(old)  # its file is gone from the folder: holding it protects nothing
        self._take_again()

    def _take_again(self) -> None:
        self._retry = True  # until taken: a full disk, say, is tried again at the next write
        try:
            self.acquire()
        except DataInUse:
            try:
                with open(self.path, encoding="ascii", errors="replace") as f:
                    other = f.read(32).strip()
            except OSError:
                other = ""
            self._lost = DataInUse(keyed("journal.taken_over", folder=str(self.folder),
                                         process=other if other.isdigit() else "?"))
            raise self._lost from None
        self._retry = False

    def held_elsewhere(self) -> bool:
        """True while another process holds the lock (without taking it)."""
        import fcntl
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False
        except OSError:
            return True
        finally:
            os.close(fd)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None


def _lock_error(folder: Path, exc: OSError) -> JournalError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return StorageFull()
    return unwritable(folder, reason_of(exc))


def move_aside(path: str | os.PathLike, now: float | None = None) -> Path:
    """Rename a journal that cannot be opened (and its -wal/-shm companions) to
    ``journal-damaged-YYYY-MM-DD-HHMMSS.sqlite3`` in the same folder: every byte is kept, and
    a fresh journal can take its place."""
    path = Path(path)
    stamp = time.strftime("%Y-%m-%d-%H%M%S", time.localtime(now))
    base = path.with_name(f"{path.stem}-damaged-{stamp}{path.suffix}")
    n = 1
    while base.exists():
        n += 1
        base = path.with_name(f"{path.stem}-damaged-{stamp}-{n}{path.suffix}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            os.replace(src, str(base) + suffix)
    return base
