"""Issue 34, items 7-12, on a real journal file of this version (games of all four kinds) with
real damage, through the journal, `python -m companion check` and `export` in their own
processes, and salvage. (The app itself: tests/app/test_damaged_data_app.py.)"""
from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.journal import DAMAGED, DataLock, DataInUse, Journal, JournalDamaged, move_aside
from companion.core.session import GameSession, rules_for
from tests.core.journal_samples import sample, too_big

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def one_line_refusal(run: subprocess.CompletedProcess) -> str:
    said = (run.stdout + run.stderr).strip()
    assert "Traceback" not in said and "Error:" not in said, said
    assert run.returncode == 1
    return said


def schema_damaged(folder: Path) -> dict[str, int]:
    """Issue 34, 8: bytes 3855-3858 of the journal overwritten with 6D 77 C2 E9 (inside the
    schema's CREATE TABLE text: not UTF-8)."""
    ids = sample(folder)
    path = folder / "journal.sqlite3"
    data = bytearray(path.read_bytes())
    assert b"PRIMARY KEY" in data[3800:3870]   # the schema text, as the issue found it
    data[3855:3859] = bytes.fromhex("6D77C2E9")
    path.write_bytes(bytes(data))
    return ids


def test_schema_bytes_that_are_not_text_are_one_line_in_check_and_export_and_salvaged_whole(tmp_path):
    folder = tmp_path / "data"
    ids = schema_damaged(folder)
    damaged = (folder / "journal.sqlite3").read_bytes()
    run = cli("check", "--data", str(folder))
    one_line_refusal(run)
    assert run.stdout.strip() == "summary: the journal cannot be opened"
    assert run.stderr.strip().endswith("is damaged (its schema holds bytes that are not text)"), run.stderr
    said = one_line_refusal(cli("export", str(ids["knives_playing"]), "--data", str(folder)))
    assert len(said.splitlines()) == 1 and said.endswith("is damaged (its schema holds bytes that are not text)")
    with pytest.raises(JournalDamaged):
        Journal(folder / "journal.sqlite3")
    from companion.core.salvage import salvage  # after what fails on main (which has none)
    kept = move_aside(folder / "journal.sqlite3")
    fresh = Journal(folder / "journal.sqlite3")
    report = salvage(kept, fresh)
    assert kept.read_bytes() == damaged                  # the damaged file as it was
    assert sorted(report.saved) == sorted(ids.values()) and not report.cut and not report.lost
    session = GameSession.resume(fresh, ids["knives_playing"], rules_for("knives23"))
    assert len(session.events) == 80


def toobig_damaged(folder: Path) -> dict[str, int]:
    ids = sample(folder)
    assert too_big(folder / "journal.sqlite3") == ids["knives_playing"]
    return ids


def test_string_or_blob_too_big_is_damage_check_lists_the_other_games_and_salvage_keeps_them(tmp_path):
    """Issue 34, 9: a games row SQLite refuses with "string or blob too big" is damage: the
    journal is set aside and the other games salvaged (before: a storage failure, and the app
    played on in memory), `check` lists the other games (before: "cannot be opened"), `export`
    is one line."""
    folder = tmp_path / "data"
    ids = toobig_damaged(folder)
    conn = sqlite3.connect(folder / "journal.sqlite3")
    with pytest.raises(sqlite3.DataError, match="string or blob too big"):
        conn.execute("SELECT * FROM games").fetchall()
    conn.close()
    run = cli("check", "--data", str(folder))
    assert run.returncode == 1 and "Traceback" not in run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert sum(line.startswith("game ") and line.endswith(": ok") for line in lines) == 4, lines
    assert any(line.startswith(f"game {ids['knives_playing']} ? damaged: ") for line in lines), lines
    said = one_line_refusal(cli("export", str(ids["cicero"]), "--data", str(folder)))
    assert len(said.splitlines()) == 1 and "damaged" in said
    with pytest.raises(JournalDamaged):
        Journal(folder / "journal.sqlite3")
    from companion.core.salvage import salvage  # after what fails on main (which has none)
    kept = move_aside(folder / "journal.sqlite3")
    fresh = Journal(folder / "journal.sqlite3")
    report = salvage(kept, fresh)
    assert sorted(report.saved) == sorted(set(ids.values()) - {ids["knives_playing"]})
    assert [gid for gid, _ in report.lost] == [ids["knives_playing"]]
    assert len(GameSession.resume(fresh, ids["cicero"], rules_for("cicero")).events) == 55


def test_string_or_blob_too_big_from_sqlite_is_journal_damaged(tmp_path):
    """The mapping itself: SQLite's own SQLITE_TOOBIG (here from a length limit lowered under a
    real journal) is JournalDamaged, never a storage failure."""
    sample(tmp_path)
    journal = Journal(tmp_path / "journal.sqlite3")
    journal._db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 8)
    with pytest.raises(JournalDamaged, match="string or blob too big"):
        journal.events(1)


def test_one_bad_text_byte_in_a_games_row_names_that_game_only(tmp_path):
    """Issue 34, 10."""
    folder = tmp_path / "data"
    ids = sample(folder)
    bad = ids["masks"]
    conn = sqlite3.connect(folder / "journal.sqlite3")
    conn.execute("UPDATE games SET game = CAST(X'6D6173C36B73' AS TEXT) WHERE id = ?", (bad,))  # ma\xc3ks
    conn.commit()
    conn.close()
    journal = Journal(folder / "journal.sqlite3")
    listed = {g.id: g for g in journal.games()}
    assert set(listed) == set(ids.values()) and listed[bad].status == DAMAGED
    assert "game" in str(listed[bad].damaged) and "\n" not in str(listed[bad].damaged)
    assert [g.id for g in journal.unfinished()] == sorted({ids["knives_playing"], ids["cicero"], ids["sevenknights"]},
                                                          reverse=True)
    journal.close()
    run = cli("check", "--data", str(folder))
    lines = run.stdout.strip().splitlines()
    assert run.returncode == 1 and "Traceback" not in run.stdout + run.stderr
    assert [line for line in lines if " damaged: " in line] == [next(line for line in lines if line.startswith(f"game {bad} "))]
    assert sum(line.startswith("game ") and line.endswith(": ok") for line in lines) == 4
    good = cli("export", str(ids["knives_playing"]), "--data", str(folder))
    assert good.returncode == 0 and good.stdout.strip().endswith(f"knives23-{ids['knives_playing']}.json")
    said = one_line_refusal(cli("export", str(bad), "--data", str(folder)))
    assert len(said.splitlines()) == 1 and "game" in said


def index_damaged(folder: Path) -> tuple[dict[str, int], int]:
    """The events' index made to disagree with its table: the entry of Seven Knights' event 3
    points at its event 5's row. quick_check passes this (it does not compare an index with its
    table); integrity_check does not. Returns the ids and the row the index lost."""
    ids = sample(folder)
    path = folder / "journal.sqlite3"
    conn = sqlite3.connect(path)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_events_1'").fetchone()[0]
    game = ids["sevenknights"]
    row = conn.execute("SELECT rowid FROM events WHERE game_id = ? AND seq = 3", (game,)).fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    page = slice((root - 1) * 4096, root * 4096)
    entry = bytes([4, 1, 1, 1, game, 3, row])  # record: header, game_id, seq, rowid (one byte each)
    at = data.find(entry, page.start, page.stop)
    assert at > 0 and row < 125
    data[at + 6] = row + 2
    path.write_bytes(bytes(data))
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    assert conn.execute("PRAGMA integrity_check").fetchall() != [("ok",)]
    conn.close()
    return ids, row


def test_index_damage_is_found_at_start_and_salvage_reads_the_table(tmp_path):
    """Issue 34, 11: what quick_check passed, the start-up check finds; salvage reads the rows
    themselves, so the game comes back whole, its event 3 its own."""
    folder = tmp_path / "data"
    original = Journal(Path(tmp_path / "ref") / "journal.sqlite3") if sample(tmp_path / "ref") else None
    ids, _row = index_damaged(folder)
    game = ids["sevenknights"]
    with pytest.raises(JournalDamaged, match="missing from index"):
        Journal(folder / "journal.sqlite3")
    run = cli("check", "--data", str(folder))
    assert run.returncode == 1 and "integrity: row" in run.stdout and "integrity FAILED" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr
    said = one_line_refusal(cli("export", str(game), "--data", str(folder)))
    assert len(said.splitlines()) == 1 and "missing from index" in said
    from companion.core.salvage import salvage  # after what fails on main (which has none)
    kept = move_aside(folder / "journal.sqlite3")
    fresh = Journal(folder / "journal.sqlite3")
    report = salvage(kept, fresh)
    assert sorted(report.saved) == sorted(ids.values())
    assert fresh.events(game) == original.events(game)
    assert fresh.game(game) == original.game(game)


def test_salvage_keeps_every_game_that_reads_and_cuts_a_game_at_its_damage(tmp_path):
    """Issue 34, 12: the finished game's second page of events zeroed (the integrity
    check fails): the other games come back whole and the unfinished one is resumable; the
    finished game is kept up to its damage, left playing (resumable), and said."""
    folder = tmp_path / "data"
    ids = sample(folder)
    original = Journal(folder / "journal.sqlite3", readonly=True)
    finished = ids["knives_finished"]
    whole = {gid: original.events(gid) for gid in ids.values()}
    original.close()
    path = folder / "journal.sqlite3"
    data = bytearray(path.read_bytes())
    needle = b'{"game":"knives23",'  # events rows are written in order: the first is game 1's first
    target = data.find(b"vote_opened")
    assert data.find(needle) > 0 and target > 0
    page = data.find(b"vote_opened", (target // 4096 + 1) * 4096) // 4096  # its second page of events
    data[page * 4096:(page + 1) * 4096] = bytes(4096)   # zeroed
    path.write_bytes(bytes(data))
    from companion.core.salvage import salvage  # after what fails on main (which has none)
    kept = move_aside(path)
    fresh = Journal(path)
    report = salvage(kept, fresh)
    cut = {g: (k, n) for g, k, n in report.cut}
    assert set(report.saved) | set(cut) == set(ids.values()) and not report.lost
    assert len(cut) == 1
    [(gid, (kept_events, found))] = cut.items()
    assert gid == finished and 0 < kept_events < found == len(whole[gid])
    assert fresh.events(gid) == whole[gid][:kept_events]
    assert fresh.game(gid).status == "playing"
    assert any(line.startswith(f"game {gid}: {kept_events} of {found} events kept") for line in report.lines())
    for other in set(ids.values()) - {gid}:
        assert fresh.events(other) == whole[other]
    session = GameSession.resume(fresh, ids["knives_playing"], rules_for("knives23"))
    assert len(session.events) == len(whole[ids["knives_playing"]])


def test_a_copy_whose_lock_was_taken_by_another_never_writes_again(tmp_path):
    """Issue 34, 7 (the journal's part; the app's: tests/app/test_damaged_data_app.py): the lock
    file deleted, another process takes the folder; every later write of the first is refused."""
    from tests.core.faults import lock_held_elsewhere
    folder = tmp_path / "data"
    sample(folder)
    lock = DataLock(folder).acquire()
    journal = Journal(folder / "journal.sqlite3", lock=lock)
    (folder / "journal.lock").unlink()
    with lock_held_elsewhere(folder):
        for _ in range(3):
            with pytest.raises(DataInUse):
                journal.append(5, [("note", {}, "tablet")])
    with pytest.raises(DataInUse):  # and after the other copy left too: the game may differ now
        journal.append(5, [("note", {}, "tablet")])
    assert len(journal.events(5)) == 80
    lock.release()
