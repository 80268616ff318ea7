"""`python -m companion check`: a line per game and a summary; exit 0 only when all is well.
And the kill harness: the demo killed at random moments on one folder, checked after every kill."""
import importlib.util
import subprocess
import sys

import pytest

from companion.check import run
from companion.core.journal import DataLock, Journal
from companion.core.session import GameSession
from companion.games.masks.rules import MasksRules

from .faults import ROOT, lock_held_elsewhere, written_by_two_copies

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
def test_the_demo_killed_at_random_moments_always_checks_clean(tmp_path):
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
