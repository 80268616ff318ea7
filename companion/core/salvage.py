"""Salvage: what a damaged journal still holds, copied into a fresh one.

A journal that cannot be opened (``JournalDamaged``) is moved aside whole, byte for byte
(``journal.move_aside``). Most of its pages are usually readable: every game whose row reads back,
with its events from the first up to the first one that is missing, unreadable or does not
replay, is copied into the fresh journal under its own number, so an unfinished game can be
resumed. The damaged file is read from a copy (opening it could write its -wal and -shm): it is
never changed.
"""
from __future__ import annotations

import logging
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from .events import BadInput, Event
from .rules import TABLE
from .journal import _GAME_SELECT, SCHEMA_VERSION, GameRecord, Journal, JournalDamaged, _connect, event_of, game_record

log = logging.getLogger(__name__)

# Rowids probed one by one past a damaged page before giving up (about 30 events fill a page).
GAP = 512


@dataclass
class Salvaged:
    """What a salvage saved and lost: one line per game cut short or lost, in words for the log
    and ``check``; the screen says the counts."""
    saved: list[int] = field(default_factory=list)      # game ids copied whole
    cut: list[tuple[int, int, int]] = field(default_factory=list)   # (game, events kept, events found)
    lost: list[tuple[Any, str]] = field(default_factory=list)      # (game id or "?", why)
    problem: str = ""  # why nothing at all could be read, if so

    @property
    def games(self) -> int:
        return len(self.saved) + len(self.cut)

    def lines(self) -> list[str]:
        out = [f"game {g}: {kept} of {found} events kept (the rest could not be read or replayed)"
               for g, kept, found in self.cut]
        out += [f"game {g}: lost ({why})" for g, why in self.lost]
        if self.problem:
            out.append(f"nothing could be read: {self.problem}")
        return out


def _rows(conn: sqlite3.Connection, table: str, columns: str) -> tuple[dict[int, tuple], int]:
    """Every row of ``table`` that reads back, by rowid, walking past damaged pages: a scan from
    the start and one back from the end; where a scan stops, the rowids after it are probed one
    by one, and the scan goes on from the next row found (up to ``GAP`` misses in a row).
    Returns the rows and how many reads failed."""
    rows: dict[int, tuple] = {}
    failures = 0
    low, high = -2 ** 63, 2 ** 63 - 1
    select = f"SELECT rowid, {columns} FROM {table} NOT INDEXED"

    def scan(sql: str, start: int) -> int | None:
        """Rows from ``start`` on: None when the scan reached the end, else the last rowid read."""
        nonlocal failures
        last = start
        try:
            for row in conn.execute(sql, (start,)):
                rows.setdefault(row[0], row[1:])
                last = row[0]
            return None
        except (sqlite3.Error, ValueError, OverflowError, MemoryError):
            failures += 1
            return last

    def probe(rowid: int) -> bool:
        nonlocal failures
        try:
            row = conn.execute(select + " WHERE rowid = ?", (rowid,)).fetchone()
        except (sqlite3.Error, ValueError, OverflowError, MemoryError):
            failures += 1
            return False
        if row is not None:
            rows.setdefault(row[0], row[1:])
        return row is not None

    stopped = scan(select + " WHERE rowid > ? ORDER BY rowid", low)
    if stopped is None:
        return rows, failures
    back = scan(select + " WHERE rowid < ? ORDER BY rowid DESC", high)
    if back is None:  # read back from the end to the first row: nothing is left to probe
        return rows, failures
    end = high if back == high else back   # rows from here on are read already
    rowid, misses = max(stopped, 0), 0
    while rowid + 1 < end and misses < GAP:
        rowid += 1
        if not probe(rowid):
            misses += 1
            continue
        misses = 0
        stopped = scan(select + " WHERE rowid > ? ORDER BY rowid", rowid)
        if stopped is None:
            break
        rowid = stopped
    return rows, failures


def _mend_schema(copy: Path) -> None:
    """The copy's schema rows written again as this version writes them (their root pages kept):
    a damaged schema text (bytes that are not text, a broken CREATE) would otherwise stop every
    read of the file. Only for a journal of this version, with its three schema rows."""
    conn = sqlite3.connect(str(copy), isolation_level=None)
    conn.text_factory = bytes
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return
        fresh = Journal(":memory:")
        try:
            want = fresh._db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").fetchall()
        finally:
            fresh.close()
        conn.execute("PRAGMA writable_schema=ON")  # damaged schema rows are read, not refused
        rows = conn.execute("SELECT rowid FROM sqlite_master ORDER BY rowid").fetchall()
        if len(rows) != len(want):
            return
        for (rowid,), row in zip(rows, want):
            conn.execute("UPDATE sqlite_master SET type=?, name=?, tbl_name=?, sql=? WHERE rowid=?", (*row, rowid))
        conn.execute("PRAGMA writable_schema=RESET")
    except (sqlite3.Error, ValueError):
        pass  # read as it is: what cannot be read is said by the scan
    finally:
        conn.close()


def _replayable(record: GameRecord, events: list[Event], rules_of: Callable) -> int:
    """How many of ``events`` (from the first) the game's rules fold: all of them, or the longest
    prefix that folds (found by halving: a fold is linear in the events)."""
    try:
        rules = rules_of(record.game)
    except BadInput:
        return 0

    def folds(n: int) -> bool:
        try:
            state = rules.fold(record.setup, events[:n])
            rules.view(state, TABLE)  # a resumed game is shown: its table view must be made too
            rules.outcome(state)
            return True
        except Exception:  # any failure to replay: the events from here are not kept
            return False
    if folds(len(events)):
        return len(events)
    lo, hi = 0, len(events)   # folds(lo), not folds(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if folds(mid):
            lo = mid
        else:
            hi = mid
    return lo


def read_damaged(path: Path, rules_of: Callable) -> tuple[list[tuple[GameRecord, list[Event]]], Salvaged]:
    """The games of the damaged journal at ``path`` (its -wal too) that read back and replay,
    oldest first, and what could not be read. Reads a copy in a temporary folder beside it."""
    report = Salvaged()
    work = path.with_name(path.name + ".salvage")
    shutil.rmtree(work, ignore_errors=True)
    out: list[tuple[GameRecord, list[Event]]] = []
    try:
        work.mkdir()
        copy = work / "journal.sqlite3"
        for suffix in ("", "-wal"):
            if Path(str(path) + suffix).exists():
                shutil.copyfile(str(path) + suffix, str(copy) + suffix)
        _mend_schema(copy)
        conn = _connect(str(copy))
        try:
            conn.execute("PRAGMA query_only=ON")  # a damaged file's WAL is read, never checkpointed
            games, failed = _rows(conn, "games", _GAME_SELECT.split("SELECT ", 1)[1].split(" FROM")[0])
            events, failed_too = _rows(conn, "events", "game_id, seq, kind, data, source, at")
        finally:
            conn.close()
    except (OSError, sqlite3.Error, ValueError) as exc:
        report.problem = str(exc) or type(exc).__name__
        return out, report
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not games and not events and failed + failed_too:
        report.problem = "neither games nor events could be read"
    by_game: dict[Any, dict[Any, tuple]] = {}
    for game_id, seq, *rest in events.values():
        by_game.setdefault(game_id, {}).setdefault(seq, (seq, *rest))
    for rowid in sorted(games):
        row = games[rowid]
        gid = row[0]
        try:
            record = game_record(row, path)
        except JournalDamaged as exc:
            report.lost.append((gid, str(exc)))
            continue
        found = by_game.get(gid, {})
        read: list[Event] = []
        for seq in range(1, len(found) + 1):  # from the first: a gap ends what can be replayed
            if seq not in found:
                break
            try:
                read.append(event_of(found[seq], path, gid))
            except JournalDamaged:
                break
        if not read or read[0].kind != "game_started":
            report.lost.append((gid, "its first event could not be read"))
            continue
        kept = read[:_replayable(record, read, rules_of)]
        if not kept:
            report.lost.append((gid, "its events do not replay"))
            continue
        last = max((seq for seq in found if isinstance(seq, int)), default=0)  # the events it had
        if len(kept) < max(last, len(found)):
            report.cut.append((gid, len(kept), max(last, len(found))))
        else:
            report.saved.append(gid)
        out.append((record, kept))
    for gid in sorted(set(by_game) - {row[0] for row in games.values()}, key=repr):
        report.lost.append((gid, "its game row could not be read"))
    return out, report


def salvage(damaged: Path, into: Journal, rules_of: Callable | None = None) -> Salvaged:
    """Copy what reads back of the journal kept aside at ``damaged`` into the fresh journal
    ``into``. A game cut short is left playing (resumable) unless its kept events end it;
    an abandoned one stays abandoned. StorageFull / JournalError when ``into`` cannot take it."""
    if rules_of is None:
        from .session import rules_for
        rules_of = rules_for
    games, report = read_damaged(damaged, rules_of)
    for record, events in games:
        whole = record.id not in {g for g, _, _ in report.cut}
        into.copy_in(record if whole else _cut_short(record, events, rules_of), events)
    for line in report.lines():
        log.warning("salvage of %s: %s", damaged, line)
    return report


def _cut_short(record: GameRecord, events: Sequence[Event], rules_of: Callable) -> GameRecord:
    from dataclasses import replace

    from .i18n import text_of
    rules = rules_of(record.game)
    outcome = rules.outcome(rules.fold(record.setup, events))
    if outcome is not None:
        return replace(record, status="finished", finished_at=events[-1].at,
                       winners=tuple(outcome.get("winners", [])),
                       summary=text_of(outcome.get("summary", ""), "en"))
    if record.status == "abandoned":
        return record
    return replace(record, status="playing", finished_at=None, winners=(), summary="")

