"""Child process for the storage-fault tests: runs one scenario on a journal in DIR (a read-only
bind mount or a small tmpfs that the parent set up in a private mount namespace) and prints one
JSON line with what it saw."""
import json
import os
import sys
from pathlib import Path

from companion.core.events import Command
from companion.core.journal import Journal, JournalError, StorageFull
from companion.core.session import GameSession

from tests.core.toygame import ToyRules

PLAYERS = {"players": ["Ann", "Ben", "Cy"]}


def fill(folder: Path) -> Path:
    """Write a file until the filesystem is full."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def disk_full(folder: Path) -> dict:
    out = {}
    journal = Journal(folder / "journal.sqlite3")
    session = GameSession.start(journal, ToyRules(), PLAYERS)
    session.execute(Command("add", {"n": 2}))
    filler = fill(folder)
    errors = []
    for n in range(1, 400):  # the WAL's free pages absorb a few; the disk fills soon after
        try:
            session.execute(Command("call_exile", {"target": "Cy"}) if n == 1 else Command("add", {"n": 1}))
        except JournalError as exc:
            errors.append((type(exc).__name__, str(exc)))
            break
    out["errors"] = errors
    out["counter_after_refusal"] = session.state.counter
    out["events_in_memory"] = len(session.events)
    try:
        session.undo()
        out["undo"] = "ok"
    except JournalError as exc:
        out["undo"] = str(exc)
    out["events_on_disk_while_full"] = len(Journal(folder / "journal.sqlite3").events(session.game_id))
    filler.unlink()
    session.execute(Command("add", {"n": 5}))
    again = GameSession.resume(Journal(folder / "journal.sqlite3"), session.game_id, ToyRules())
    out["resumed_counter"] = again.state.counter
    out["live_counter"] = session.state.counter
    out["events_after"] = len(again.events)
    out["events_in_memory_after"] = len(session.events)
    return out


def read_only(folder: Path) -> dict:
    out = {}
    for name, path in (("existing", folder / "journal.sqlite3"), ("new", folder / "sub" / "journal.sqlite3")):
        try:
            Journal(path)
            out[name] = "opened"
        except JournalError as exc:
            out[name] = f"{type(exc).__name__}: {exc}"
    return out


def prepare(folder: Path) -> dict:
    j = Journal(folder / "journal.sqlite3")
    GameSession.start(j, ToyRules(), PLAYERS).execute(Command("add", {"n": 1}))
    j.close()
    return {"ok": True}


if __name__ == "__main__":
    scenario, folder = sys.argv[1], Path(sys.argv[2])
    print(json.dumps(globals()[scenario](folder)), flush=True)
    os._exit(0)
