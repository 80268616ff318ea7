"""Storage faults for real: damaged files, a read-only folder, a full disk, two processes on one
folder, kills around a game's start and finish. Each numbered defect of issue 16 has a test here
that failed before the fix."""
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.core.events import BadInput, Command, RuleError
from companion.core.journal import (DAMAGED, STORAGE_FULL, DataInUse, DataLock, Journal, JournalDamaged, storage_error,
                                    StorageUnavailable, move_aside)
from companion.core.session import GameSession, repair
from companion.core.timers import Countdown
from companion.core.clock import FakeClock

from .faults import ROOT, in_namespace, lock_held_elsewhere, needs_unshare, python, read_only, second_copy_tries, tmpfs
from .toygame import ToyRules

PLAYERS = {"players": ["Ann", "Ben", "Cy"]}


def _journal_with_games(path: Path, games: int = 3, adds: int = 300) -> None:
    j = Journal(path)
    for _ in range(games):
        s = GameSession.start(j, ToyRules(), PLAYERS)
        for i in range(adds):
            s.execute(Command("add", {"n": 1 + i % 3}))
    j.close()  # the last connection checkpoints the WAL into the file


def damaged_header(path: Path) -> bytes:
    """A journal of one short game with its first 100 bytes (SQLite's header) overwritten."""
    _journal_with_games(path, games=1, adds=5)
    data = bytearray(path.read_bytes())
    data[0:100] = b"\xde\xad" * 50
    path.write_bytes(bytes(data))
    return bytes(data)


# -- 1. a journal that cannot be opened ------------------------------------------------------
def test_damaged_header_is_a_one_line_journal_damaged_error(tmp_path):
    path = tmp_path / "journal.sqlite3"
    data = damaged_header(path)
    with pytest.raises(JournalDamaged) as e:
        Journal(path)
    assert "\n" not in str(e.value) and "journal.sqlite3" in str(e.value)
    assert path.read_bytes() == data  # refused without touching it


def test_a_damaged_page_is_found_on_open_not_mid_game(tmp_path):
    path = tmp_path / "journal.sqlite3"
    _journal_with_games(path)
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * 4096
    data[5 * 4096:5 * 4096 + 300] = os.urandom(300)  # a page of the events table
    path.write_bytes(bytes(data))
    with pytest.raises(JournalDamaged, match="cannot be opened"):
        Journal(path)


def test_moving_aside_keeps_every_byte_under_a_dated_name(tmp_path):
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    (tmp_path / "journal.sqlite3-wal").write_bytes(b"wal bytes")
    kept = move_aside(path, now=time.mktime((2026, 11, 30, 21, 5, 9, 0, 0, -1)))
    assert kept.name == "journal-damaged-2026-11-30-210509.sqlite3"
    assert kept.read_bytes() == b"garbage" * 1000
    assert Path(str(kept) + "-wal").read_bytes() == b"wal bytes"
    assert not path.exists()
    assert move_aside(kept.with_name("journal.sqlite3").write_bytes(b"x") and path,
                      now=time.mktime((2026, 11, 30, 21, 5, 9, 0, 0, -1))).name.endswith("-2.sqlite3")


@needs_unshare
def test_a_read_only_data_folder_is_named_in_one_line(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    assert json.loads(subprocess.run(python("-m", "tests.core.storage_child", "prepare", str(folder)),
                                     cwd=ROOT, capture_output=True, text=True).stdout)["ok"]
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    proc = in_namespace(read_only(folder), python("-m", "tests.core.storage_child", "read_only", str(folder)))
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    for name in ("existing", "new"):
        assert seen[name].startswith("StorageUnavailable: "), seen
        assert "\n" not in seen[name]
    assert "is read-only" in seen["existing"]
    assert "cannot be created" in seen["new"]
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_a_missing_data_folder_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageUnavailable, match="cannot be created"):
        Journal(blocker / "data" / "journal.sqlite3")


# -- 2. disk full ------------------------------------------------------------------------------
@needs_unshare
def test_disk_full_refuses_the_command_with_the_real_reason_and_goes_on_once_freed(tmp_path):
    folder = tmp_path / "small"
    folder.mkdir()
    proc = in_namespace(tmpfs(folder, "2m"), python("-m", "tests.core.storage_child", "disk_full", str(folder)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout)
    assert seen["errors"] == [["StorageFull", STORAGE_FULL]], seen
    assert "cannot rollback" not in proc.stdout
    # The refused command changed nothing, in memory or on disk.
    assert seen["events_on_disk_while_full"] == seen["events_in_memory"]
    assert seen["undo"] == STORAGE_FULL
    # Space freed: the game goes on, and a resume sees exactly what the live game has.
    assert seen["resumed_counter"] == seen["live_counter"] == seen["counter_after_refusal"] + 5
    assert seen["events_after"] == seen["events_in_memory_after"] == seen["events_in_memory"] + 1


# -- 3. one app per data folder ----------------------------------------------------------------
def test_a_second_process_cannot_take_the_data_folder(tmp_path):
    with lock_held_elsewhere(tmp_path) as holder:
        assert DataLock(tmp_path).held_elsewhere()
        with pytest.raises(DataInUse, match=rf"process {holder.pid}\) is already using"):
            DataLock(tmp_path).acquire()
    # The kernel drops the lock with the process, however it ended.
    lock = DataLock(tmp_path).acquire()
    lock.release()


def test_a_game_that_does_not_replay_is_a_message_not_a_crash(tmp_path):
    """Two copies on one journal once wrote events the rules cannot fold (a TypeError in the
    replay); resuming now names the game in one line."""
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    s.execute(Command("add", {"n": 1}))
    j.append(s.game_id, [("added", {"n": "two"}, "tablet")])  # the other copy's write
    with pytest.raises(BadInput, match=rf"Game {s.game_id} cannot be replayed") as e:
        GameSession.resume(j, s.game_id, ToyRules())
    assert "\n" not in str(e.value)


# -- 4. a damaged event row ------------------------------------------------------------------
def test_a_damaged_event_row_is_named_on_resume(tmp_path):
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    s.execute(Command("add", {"n": 1}))
    j._db.execute("UPDATE events SET data=X'FFFE7B' WHERE seq=2")  # bytes that are not text
    with pytest.raises(BadInput, match=r"game 1 event 2 \(added\) has unreadable data"):
        GameSession.resume(j, s.game_id, ToyRules())


def test_a_page_damaged_under_a_running_game_becomes_journal_damaged(tmp_path):
    path = tmp_path / "journal.sqlite3"
    _journal_with_games(path)
    data = bytearray(path.read_bytes())
    data[5 * 4096:5 * 4096 + 300] = os.urandom(300)
    path.write_bytes(bytes(data))
    raw = sqlite3.connect(path)  # what a long-open journal meets when it reads that page
    with pytest.raises(sqlite3.DatabaseError) as e:
        raw.execute("SELECT data FROM events").fetchall()
    assert isinstance(storage_error(e.value, path), JournalDamaged)


# -- 5. atomic ends and starts; repairs on open -----------------------------------------------
def test_finish_is_in_the_same_transaction_as_the_last_event(tmp_path):
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    real_append = j.append
    seen = {}

    def append(game_id, items, **kw):
        seen.update(kw)
        return real_append(game_id, items, **kw)
    j.append = append
    s.execute(Command("finish"))
    assert seen["finish"] == (["Ann"], "done")
    assert j.game(s.game_id).status == "finished"
    s.undo()
    assert seen["reopen"] is True and j.game(s.game_id).status == "playing"


def test_repair_marks_a_finished_game_and_removes_an_empty_row(tmp_path):
    j = Journal(tmp_path / "j.db")
    done = GameSession.start(j, ToyRules(), PLAYERS)
    done.execute(Command("finish"))
    j._db.execute("UPDATE games SET status='playing', finished_at=NULL, winners='[]' WHERE id=?", (done.game_id,))
    j._db.execute("INSERT INTO games (game, setup, started_at) VALUES ('toy', '{}', 1.0)")  # old start, killed
    playing = GameSession.start(j, ToyRules(), PLAYERS)
    notes = repair(j, lambda game: ToyRules())
    assert notes == [f"game 2 (toy) had no events: removed", f"game {done.game_id} (toy) had finished: marked finished"]
    assert [(g.id, g.status) for g in j.games()] == [(playing.game_id, "playing"), (done.game_id, "finished")]
    assert list(j.game(done.game_id).winners) == ["Ann"]
    assert repair(j, lambda game: ToyRules()) == []


FINISH_CHILD = """
import sys
from companion.core.events import Command
from companion.core.journal import Journal
from companion.core.session import GameSession
from tests.core.toygame import ToyRules
j = Journal(sys.argv[1])
while True:
    s = GameSession.start(j, ToyRules(), {"players": ["Ann", "Ben"]})
    s.execute(Command("add", {"n": 1}))
    s.execute(Command("finish"))
    print("finished", s.game_id, flush=True)
"""


@pytest.mark.slow
def test_kills_around_start_and_finish_leave_no_game_stuck_or_empty(tmp_path):
    """A child starts and finishes games as fast as it can; kill -9 lands anywhere, inside
    ``start`` and between the last event and the end included."""
    rng = random.Random(16)
    path = tmp_path / "journal.sqlite3"
    for kill in range(25):
        child = subprocess.Popen([sys.executable, "-c", FINISH_CHILD, str(path)], cwd=ROOT,
                                 stdout=subprocess.PIPE, text=True)
        child.stdout.readline()
        time.sleep(rng.random() * 0.05)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        j = Journal(path)
        for g in j.games():
            events = j.events(g.id)
            assert events, f"kill {kill}: game {g.id} has no events"
            finished = events[-1].kind == "finished"
            assert (g.status == "finished") == finished, (kill, g, [e.kind for e in events])
        j.close()


# -- 8. another program's file is left untouched -----------------------------------------------
def test_another_programs_sqlite_file_is_refused_without_a_single_byte_changed(tmp_path):
    path = tmp_path / "recipes.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.execute("INSERT INTO recipes VALUES ('soup')")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(JournalDamaged, match="another program"):
        Journal(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["recipes.db"]


# -- undo that forgives: redo -----------------------------------------------------------------
def test_redo_takes_back_undos_latest_first_until_something_new_is_done(tmp_path):
    j = Journal(tmp_path / "j.db")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    s.execute(Command("add", {"n": 1}))
    s.execute(Command("add", {"n": 10}))
    with pytest.raises(RuleError, match="nothing to redo"):
        s.redo()
    s.undo()
    s.undo()
    assert s.state.counter == 0 and s.can_redo()
    s.note("timer", {"name": "t"})  # bookkeeping does not end the redo chain
    s.redo()
    assert s.state.counter == 1
    s.redo()
    assert s.state.counter == 11 and not s.can_redo()
    s.undo()
    s.execute(Command("add", {"n": 100}))
    with pytest.raises(RuleError, match="nothing to redo"):
        s.redo()
    assert GameSession.resume(j, s.game_id, ToyRules()).state.counter == 101


def test_undo_steps_over_timer_records(tmp_path):
    s = GameSession.start(Journal(tmp_path / "j.db"), ToyRules(), PLAYERS)
    s.execute(Command("add", {"n": 3}))
    s.note("timer", {"name": "t", "action": "paused"})
    s.undo()
    assert s.state.counter == 0
    assert s.events[-1].data["undoes"] == 2


# -- timers come back as they were -------------------------------------------------------------
def test_a_restored_countdown_is_paused_where_it_was_or_running_less_the_time_away():
    clock = FakeClock()
    t = Countdown(420, clock, warnings=(120, 60, 10))
    changes = []
    t.on_change = lambda action, cd: changes.append((action, round(cd.remaining())))
    clock.advance(310)
    t.pause()
    t.add(60)
    t.resume()
    clock.advance(5)
    t.pause()
    assert changes == [("paused", 110), ("added", 170), ("resumed", 170), ("paused", 165)]
    paused = Countdown.restore(t.to_dict(), FakeClock(5000), away_s=3600)
    assert not paused.running and paused.remaining() == pytest.approx(165)
    t.resume()
    running = Countdown.restore(t.to_dict(), clock, away_s=100)
    assert running.running and running.remaining() == pytest.approx(65)
    assert running.poll() == []  # the 120 s warning was crossed while away: not fired late
    gone = Countdown.restore(t.to_dict(), clock, away_s=10_000)
    assert gone.running and gone.remaining() == pytest.approx(10)


# -- damaged rows, a vanished folder, odd files (the storage audit) ------------------------------
def _toy_games(path: Path, games: int = 2) -> list[int]:
    """A journal with ``games`` games of one added number each, all playing."""
    j = Journal(path)
    ids = []
    for _ in range(games):
        s = GameSession.start(j, ToyRules(), PLAYERS)
        s.execute(Command("add", {"n": 1}))
        ids.append(s.game_id)
    j.close()
    return ids


def _damage(path: Path, sql: str, *args) -> None:
    """A row changed behind the journal's back, as a damaged file or another program leaves it."""
    raw = sqlite3.connect(path)
    raw.execute(sql, args)
    raw.commit()
    raw.close()


DEEP = "[" * 100_000 + "]" * 100_000  # json.loads raises RecursionError on it


@pytest.mark.parametrize("setup", ["{not json", DEEP])
def test_an_unreadable_setup_is_journal_damaged_and_the_other_games_still_listed(tmp_path, setup):
    path = tmp_path / "journal.sqlite3"
    first, second = _toy_games(path)
    _damage(path, "UPDATE games SET setup=? WHERE id=?", setup, first)
    j = Journal(path)
    with pytest.raises(JournalDamaged, match=rf"game {first} has an unreadable setup") as e:
        j.game(first)
    assert "\n" not in str(e.value)
    with pytest.raises(JournalDamaged):
        GameSession.resume(j, first, ToyRules())
    listed = {g.id: g for g in j.games()}
    assert listed[second].damaged is None and listed[second].status == "playing"
    assert listed[first].status == DAMAGED and listed[first].damaged is not None
    assert str(listed[first].damaged) == str(e.value)
    assert [g.id for g in j.unfinished()] == [second]


@pytest.mark.parametrize("data", ["{bad", DEEP, "[1]", "5", "NaN"])
def test_an_unreadable_event_of_an_unfinished_game_is_journal_damaged_and_repair_goes_on(tmp_path, data):
    path = tmp_path / "journal.sqlite3"
    bad, done = _toy_games(path)
    j = Journal(path)
    GameSession.resume(j, done, ToyRules()).execute(Command("finish"))
    j._db.execute("UPDATE games SET status='playing', finished_at=NULL, winners='[]' WHERE id=?", (done,))
    j.close()
    _damage(path, "UPDATE events SET data=? WHERE game_id=? AND seq=2", data, bad)
    j = Journal(path)
    with pytest.raises(JournalDamaged, match=rf"game {bad} event 2 \(added\) has unreadable data"):
        j.events(bad)
    # The app's repair on open: the damaged game is left for `check`, the other one mended.
    assert repair(j, lambda game: ToyRules()) == [f"game {done} (toy) had finished: marked finished"]
    assert j.game(done).status == "finished"


@pytest.mark.parametrize("column, value", [
    ("winners", 5), ("winners", '"Bo"'), ("winners", '[1]'), ("setup", "[1,2]"), ("setup", '{"players":5}'),
    ("setup", '{"players":[1]}'), ("status", "zombie"), ("started_at", "yesterday"), ("finished_at", "later"),
    ("started_at", 9e999), ("game", b"\xff")])
def test_a_games_column_of_the_wrong_shape_is_journal_damaged_naming_game_and_column(tmp_path, column, value):
    path = tmp_path / "journal.sqlite3"
    first, second = _toy_games(path)
    _damage(path, f"UPDATE games SET {column}=? WHERE id=?", value, second)
    before = path.read_bytes()
    j = Journal(path)
    with pytest.raises(JournalDamaged, match=rf"game {second} has an unreadable {column} ") as e:
        j.game(second)
    assert "\n" not in str(e.value)
    assert [(g.id, g.status) for g in j.games()] == [(second, DAMAGED), (first, "playing")]
    assert j.game(first).setup == PLAYERS
    j.close()
    assert path.read_bytes() == before  # refused, never rewritten


def test_a_negative_schema_version_is_refused_as_damaged_and_left_as_it_was(tmp_path):
    path = tmp_path / "journal.sqlite3"
    _toy_games(path, 1)
    _damage(path, "PRAGMA user_version=-1")
    before = path.read_bytes()
    with pytest.raises(JournalDamaged, match="schema version -1"):
        Journal(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("damage, words", [
    ("DROP TABLE events", "table events is missing"),
    ("ALTER TABLE games DROP COLUMN summary", "table games has no column summary"),
    # a journal that says version 1 but has version 2's columns: its upgrade cannot run
    ("PRAGMA user_version=1", "cannot be upgraded to version 2: duplicate column name"),
])
def test_a_journal_whose_tables_are_not_this_versions_is_damaged_and_left_as_it_was(tmp_path, damage, words):
    """Opened as it was, every game read or event written failed one by one (the app then played
    on recording nothing); damaged, the app keeps it aside and starts afresh."""
    path = tmp_path / "journal.sqlite3"
    _toy_games(path, 1)
    _damage(path, damage)
    before = path.read_bytes()
    with pytest.raises(JournalDamaged, match=words):
        Journal(path)
    assert path.read_bytes() == before


def test_a_game_number_sqlite_cannot_hold_is_no_such_game(tmp_path):
    j = Journal(tmp_path / "journal.sqlite3")
    with pytest.raises(BadInput, match="has no game 99999999999999999999"):
        j.game(99999999999999999999)
    assert j.events(-2 ** 70) == []


def test_a_journal_that_is_a_folder_is_damaged_not_an_unwritable_folder(tmp_path):
    (tmp_path / "journal.sqlite3").mkdir()
    with pytest.raises(JournalDamaged, match="is a folder"):
        Journal(tmp_path / "journal.sqlite3")
    with pytest.raises(JournalDamaged, match="is a folder"):
        Journal(tmp_path / "journal.sqlite3", readonly=True)


def test_the_data_folder_deleted_mid_game_is_put_back_with_every_confirmed_event(tmp_path):
    import shutil
    data = tmp_path / "data"
    j = Journal(data / "journal.sqlite3")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    for n in (1, 2, 3):
        s.execute(Command("add", {"n": n}))
    shutil.rmtree(data)  # mid-game: the open file is unlinked, SQLite would write on into it
    for n in (4, 5):
        s.execute(Command("add", {"n": n}))
    shutil.rmtree(data)  # again, between two writes of the copy
    s.execute(Command("add", {"n": 6}))
    j.close()
    again = Journal(data / "journal.sqlite3")
    assert [e.data.get("n") for e in again.events(s.game_id)] == [None, 1, 2, 3, 4, 5, 6]
    assert GameSession.resume(again, s.game_id, ToyRules()).state.counter == 21
    assert not list(data.glob("*.restoring*"))


def _folder_deleted_mid_game(tmp_path):
    """A game on a locked data folder, and the folder deleted under it."""
    import shutil
    data = tmp_path / "data"
    lock = DataLock(data.mkdir() or data).acquire()
    j = Journal(data / "journal.sqlite3", lock=lock)
    s = GameSession.start(j, ToyRules(), PLAYERS)
    shutil.rmtree(data)
    return data, lock, j, s


def test_the_data_folder_deleted_mid_game_gets_its_lock_back_so_a_second_copy_is_refused(tmp_path):
    # Before, the journal was put back but not journal.lock: a second copy of the app started
    # after the deletion made a fresh lock file, took it and wrote into the same journal.
    data, lock, j, s = _folder_deleted_mid_game(tmp_path)
    s.execute(Command("add", {"n": 1}))  # puts the journal back, and the lock with it
    assert (data / "journal.lock").read_text().strip() == str(os.getpid())
    assert f"Another copy of the app (process {os.getpid()})" in second_copy_tries(data)
    s.execute(Command("add", {"n": 2}))  # still ours: the lock was kept, not taken again
    (data / "journal.lock").unlink()  # the lock file alone
    s.execute(Command("add", {"n": 3}))
    assert f"Another copy of the app (process {os.getpid()})" in second_copy_tries(data)
    j.close()
    lock.release()
    assert [e.data.get("n") for e in Journal(data / "journal.sqlite3").events(s.game_id)] == [None, 1, 2, 3]


def test_a_second_copy_that_took_the_deleted_folder_first_is_never_written_over(tmp_path):
    data, lock, j, s = _folder_deleted_mid_game(tmp_path)
    data.mkdir()
    with lock_held_elsewhere(data):
        with pytest.raises(DataInUse) as e:
            s.execute(Command("add", {"n": 1}))
        assert "\n" not in str(e.value)
    assert not (data / "journal.sqlite3").exists()  # the other copy's folder: nothing written
    assert [ev.kind for ev in s.events] == ["game_started"]
    lock.release()


def test_a_journal_replaced_under_the_app_is_never_overwritten(tmp_path):
    path = tmp_path / "journal.sqlite3"
    j = Journal(path)
    s = GameSession.start(j, ToyRules(), PLAYERS)
    os.unlink(path)
    path.write_bytes(b"another program's file")
    with pytest.raises(StorageUnavailable, match="was replaced by another file") as e:
        s.execute(Command("add", {"n": 1}))
    assert "\n" not in str(e.value)
    assert path.read_bytes() == b"another program's file"
    assert [ev.kind for ev in s.events] == ["game_started"]  # the refused command recorded nothing


def test_a_deleted_journal_that_cannot_be_put_back_refuses_every_write_in_one_line(tmp_path):
    import shutil
    data = tmp_path / "data"
    j = Journal(data / "journal.sqlite3")
    s = GameSession.start(j, ToyRules(), PLAYERS)
    shutil.rmtree(data)
    data.write_text("a file where the data folder was")
    for _ in range(2):
        with pytest.raises(StorageUnavailable, match="was deleted while in use and cannot be put back") as e:
            s.execute(Command("add", {"n": 1}))
        assert "\n" not in str(e.value)
    assert [ev.kind for ev in s.events] == ["game_started"] and s.state.counter == 0


@needs_unshare
def test_the_lock_on_a_full_disk_is_storage_full(tmp_path):
    folder = tmp_path / "small"
    folder.mkdir()
    script = ("import sys; from pathlib import Path; from tests.core.storage_child import fill;"
              "from companion.core.journal import DataLock, StorageFull;"
              "folder = Path(sys.argv[1]); (folder / 'data').mkdir(); fill(folder)\n"
              "try:\n DataLock(folder / 'data').acquire(); print('acquired')\n"
              "except StorageFull as e: print('StorageFull', e)")
    proc = in_namespace(tmpfs(folder, "64k"), python("-c", script, str(folder)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == f"StorageFull {STORAGE_FULL}"


def test_an_io_error_on_a_full_disk_is_storage_full(tmp_path, monkeypatch):
    """SQLite says only "disk I/O error" when it cannot grow the -shm of a full disk."""
    import companion.core.journal as journal
    err = sqlite3.OperationalError("disk I/O error")
    err.sqlite_errorcode = 4874  # SQLITE_IOERR_SHMSIZE
    monkeypatch.setattr(journal, "_no_space", lambda folder: True)
    assert isinstance(storage_error(err, tmp_path / "journal.sqlite3"), journal.StorageFull)
    monkeypatch.setattr(journal, "_no_space", lambda folder: False)
    assert type(storage_error(err, tmp_path / "journal.sqlite3")) is StorageUnavailable
