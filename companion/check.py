"""`python -m companion check [--data DIR]`: is the journal whole?

Opens the journal as the app does (with the app's own repairs: a game whose events say it
finished is marked finished, an empty game row is removed), runs SQLite's integrity check,
replays every game through its rules and compares it with what its row records. One line per
game and a summary; exit 0 when all is well, 1 otherwise. It writes nothing beyond those
repairs, and none at all while the app holds the folder or when the folder cannot be written
(read-only, full): it then reads only.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from companion.core.events import BadInput
from companion.core.journal import (DataLock, GameRecord, Journal, JournalDamaged, JournalError, StorageFull,
                                    StorageUnavailable,
                                    default_data_dir)
from companion.core.rules import TABLE
from companion.core.session import repair, rules_for

JOURNAL = "journal.sqlite3"


def check_game(journal: Journal, record: GameRecord) -> list[str]:
    """The problems of one game (empty when it is whole)."""
    try:
        events = journal.events(record.id)
    except BadInput as exc:
        return [str(exc)]
    if not events:
        return ["the game row has no events"]
    problems = []
    seqs = [e.seq for e in events]
    if seqs != list(range(1, len(events) + 1)):
        problems.append(f"event numbers are not 1..{len(events)} without gaps")
    if events[0].kind != "game_started":
        problems.append(f"the first event is {events[0].kind}, not game_started")
    try:
        rules = rules_for(record.game)
        state = rules.fold(record.setup, events)
        rules.view(state, TABLE)  # what the screen shows of it: a resumed game must show
        outcome = rules.outcome(state)
    except Exception as exc:  # any failure to replay is what this command is for
        return problems + [f"does not replay: {type(exc).__name__}: {exc}"]
    if record.status == "finished":
        if outcome is None:
            problems.append("recorded as finished, but its events do not end the game")
        elif sorted(outcome.get("winners", [])) != sorted(record.winners):
            problems.append(f"recorded winners {list(record.winners)} but its events give {outcome.get('winners')}")
    elif record.status == "playing" and outcome is not None:
        problems.append("its events say it finished, but it is left playing")
    return problems


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def run(data: Path, out: Callable[[str], None] = print, err: Callable[[str], None] | None = None) -> int:
    """Check the journal in ``data``: its lines go to ``out``, what stops the check (no journal,
    one that cannot be opened) to ``err`` (default: ``out`` too; the command line: stderr)."""
    err = err or out
    path = data / JOURNAL
    if not path.exists():
        err(f"no journal at {path}")
        return 1
    lock = DataLock(data)
    readonly = None
    try:
        if lock.held_elsewhere():
            readonly = "the app is running on this folder"
        else:
            try:
                lock.acquire()
                journal = Journal(path)
            except (StorageUnavailable, StorageFull) as exc:
                # a read-only folder or a full disk: checking only reads (repairs wait)
                lock.release()
                readonly = str(exc)
        if readonly:
            journal = Journal(path, readonly=True)
    except JournalDamaged as exc:
        # Damaged (SQLite's integrity check fails): read what it still holds, repairing nothing.
        lock.release()
        try:
            journal = Journal(path, readonly=True, verify=False)
        except JournalError:
            err(f"journal {path}: {exc}")
            out("summary: the journal cannot be opened")
            return 1
        readonly = "the journal is damaged"
    except JournalError as exc:
        lock.release()
        err(f"journal {path}: {exc}")
        out("summary: the journal cannot be opened")
        return 1
    try:
        if readonly:
            out(f"{readonly}: checked read-only, nothing repaired")
        else:
            for note in repair(journal):
                out(f"repaired: {note}")
        bad = 0
        integrity = journal.integrity()
        if integrity != ["ok"]:
            bad += 1
            out(f"integrity: {'; '.join(integrity)}")
        else:
            out("integrity: ok")
        records = journal.games()
        for record in reversed(records):
            if record.damaged is not None:  # a row the journal cannot read
                out(f"game {record.id} {record.game} damaged: {record.damaged}")
                bad += 1
                continue
            problems = check_game(journal, record)
            winners = f" won by {', '.join(record.winners)}" if record.status == "finished" else ""
            out(f"game {record.id} {record.game} {record.status}{winners}: "
                + ("ok" if not problems else "; ".join(problems)))
            bad += bool(problems)
        games_bad = bad - (integrity != ["ok"])
        out(f"summary: {len(records)} games, {games_bad} with problems, integrity "
            f"{'ok' if integrity == ['ok'] else 'FAILED'}")
        return 0 if bad == 0 else 1
    except JournalError as exc:
        err(f"journal {path}: {exc}")
        return 1
    finally:
        journal.close()
        lock.release()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m companion check", description=__doc__.splitlines()[0])
    ap.add_argument("--data", metavar="DIR", help="the data folder (default: the app's)")
    args = ap.parse_args(argv)
    return run(Path(args.data) if args.data else default_data_dir(), err=_stderr)


if __name__ == "__main__":
    sys.exit(main())
