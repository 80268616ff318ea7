"""`python -m companion check`: a line per game and a summary; exit 0 only when all is well.
And the kill harness: the demo killed at random moments on one folder, checked after every kill."""
import importlib.util
import shlex
import subprocess
import sys

import pytest

from companion.check import run
from companion.core.journal import DataLock, Journal
from companion.core.session import GameSession
from companion.games.masks.rules import MasksRules

from .faults import ROOT, in_namespace, lock_held_elsewhere, needs_unshare, python, read_only, tmpfs, written_by_two_copies

SETUP = {"players": ["Ann", "Ben", "Cy", "Dee", "Eve"]}


def _check(folder):
    lines = []
    return run(folder, out=lines.append), lines


def test_check_passes_a_whole_journal_and_repairs_as_the_app_does(tmp_path):
    j = Journal(tmp_path / "journal.sqlite3")
    GameSession.start(j, MasksRules(), SETUP)
    j._db.execute("INSERT INTO games (game, setup, started_at) VALUES ('masks', '{}', 1.0)")  # a killed old start
    j.close()
    code, lines = _check(tmp_path)
    assert code == 0, lines
    assert lines[0] == "repaired: game 2 (masks) had no events: removed"
    assert "game 1 masks playing: ok" in lines
    assert lines[-1] == "summary: 1 games, 0 with problems, integrity ok"


def test_check_fails_on_a_game_that_does_not_replay_and_on_a_missing_journal(tmp_path):
    """What two copies of the app on one journal wrote (issue 16, 3.): a vote revealed and
    decided twice, which 23 Knives' replay cannot fold."""
    written_by_two_copies(tmp_path / "journal.sqlite3")
    code, lines = _check(tmp_path)
    assert code == 1
    assert "game 1 knives23 playing: does not replay: AssertionError: an Exile decided with no Exile called" in lines
    assert lines[-1] == "summary: 1 games, 1 with problems, integrity ok"
    assert _check(tmp_path / "nowhere") == (1, [f"no journal at {tmp_path / 'nowhere' / 'journal.sqlite3'}"])


def test_check_reads_only_while_the_app_holds_the_folder(tmp_path):
    j = Journal(tmp_path / "journal.sqlite3")
    GameSession.start(j, MasksRules(), SETUP)
    j._db.execute("INSERT INTO games (game, setup, started_at) VALUES ('masks', '{}', 1.0)")
    with lock_held_elsewhere(tmp_path):
        code, lines = _check(tmp_path)
    assert lines[0] == "the app is running on this folder: checked read-only, nothing repaired"
    assert "game 2 masks playing: the game row has no events" in lines and code == 1
    assert [g.id for g in j.games()] == [2, 1]  # nothing was removed under the app


def test_check_from_the_command_line(tmp_path):
    Journal(tmp_path / "journal.sqlite3").close()
    proc = subprocess.run([sys.executable, "-m", "companion", "check", "--data", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.splitlines() == [
        "integrity: ok", "summary: 0 games, 0 with problems, integrity ok"]
    help_text = subprocess.run([sys.executable, "-m", "companion", "--help"], cwd=ROOT,
                               capture_output=True, text=True).stdout
    assert "check" in help_text


@pytest.mark.slow
def test_the_demo_killed_at_random_moments_always_checks_clean(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # the script imports its neighbour _args
    spec = importlib.util.spec_from_file_location("demo_kill", ROOT / "benchmarks" / "demo_kill.py")
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    result = harness.harness(tmp_path / "demo", kills=8, seed=3, log=lambda *_: None)
    assert result["failed"] == 0
    assert result["kills"] >= 4
    # the folder keeps every run's game (a run killed before its start adds none)
    games = Journal(tmp_path / "demo" / "journal.sqlite3", readonly=True).games()
    assert 2 <= len(games) <= 2 + result["runs"]
    assert sum(g.status == "finished" for g in games) >= 2  # the two whole runs before the kills
    assert all(g.status in ("playing", "finished") for g in games)
    DataLock(tmp_path / "demo").acquire().release()  # no killed demo left the folder locked


def _damaged_copy(folder, sql, *args):
    """Two Masks games, the first with one row changed behind the journal's back."""
    import sqlite3
    j = Journal(folder / "journal.sqlite3")
    s = GameSession.start(j, MasksRules(), SETUP)
    ok = GameSession.start(j, MasksRules(), SETUP)
    j.close()
    raw = sqlite3.connect(folder / "journal.sqlite3")
    raw.execute(sql, (*args, s.game_id))
    raw.commit()
    raw.close()
    return s.game_id, ok.game_id


@pytest.mark.parametrize("sql, args, said", [
    ("UPDATE games SET winners=? WHERE id=?", (5,), "unreadable winners ('5')"),
    ("UPDATE games SET started_at=? WHERE id=?", ("yesterday",), "unreadable started_at ('yesterday')"),
    ("UPDATE games SET status=? WHERE id=?", ("zombie",), "unreadable status ('zombie')"),
    ("UPDATE games SET setup=? WHERE id=?", ("{not json",), "unreadable setup or winner list"),
    ("UPDATE events SET data=? WHERE seq=1 AND game_id=?", ("[" * 100_000 + "]" * 100_000,),
     "event 1 (game_started) has unreadable data"),
])
def test_check_names_a_damaged_row_in_one_line_and_fails(tmp_path, sql, args, said):
    bad, ok = _damaged_copy(tmp_path, sql, *args)
    code, lines = _check(tmp_path)
    assert code == 1, lines
    (line,) = [x for x in lines if x.startswith(f"game {bad} ")]
    assert said in line and "damaged" in line
    assert f"game {ok} masks playing: ok" in lines
    assert lines[-1] == "summary: 2 games, 1 with problems, integrity ok"


@needs_unshare
@pytest.mark.parametrize("fault", ["read_only", "full"])
def test_check_and_export_read_a_folder_they_cannot_write(tmp_path, fault):
    folder = tmp_path / "data"
    folder.mkdir()
    j = Journal(tmp_path / "journal.sqlite3")
    GameSession.start(j, MasksRules(), SETUP)
    j.close()
    if fault == "read_only":
        (tmp_path / "journal.sqlite3").rename(folder / "journal.sqlite3")
        mounts = read_only(folder)
    else:
        q = shlex.quote(str(folder))
        mounts = (f"{tmpfs(folder, '128k')}; cp {shlex.quote(str(tmp_path / 'journal.sqlite3'))} {q}/; "
                  f"dd if=/dev/zero of={q}/filler bs=1k count=1000 2>/dev/null || true")
    check = in_namespace(mounts, python("-m", "companion", "check", "--data", str(folder)))
    assert check.returncode == 0, check.stdout + check.stderr
    said = "it is read-only" if fault == "read_only" else "storage is full"
    assert said in check.stdout.splitlines()[0] and "checked read-only, nothing repaired" in check.stdout
    assert "game 1 masks playing: ok" in check.stdout
    export = in_namespace(mounts, python("-m", "companion", "export", "1", "--data", str(folder)))
    assert export.returncode == 1 and "Traceback" not in export.stderr
    (line,) = export.stderr.strip().splitlines()
    assert ("exports cannot be written" in line) if fault == "read_only" else ("storage is full" in line)
