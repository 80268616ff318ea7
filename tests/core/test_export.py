"""A past game in full (votes, ballots, results, winners, duration) from a real journal, and its
export as JSON and CSV — by the function the screen uses and by `python -m companion export`."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest

from companion import export
from companion.core import i18n
from companion.core.events import BadInput
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.masks.rules import MasksRules
from tests.games.test_masks_journal import PLAYERS, ROUND

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class StepClock:
    def __init__(self):
        self.now = 1_700_000_000.0

    def __call__(self):
        self.now += 60.0   # a minute between recorded moments
        return self.now


@pytest.fixture
def finished(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite3", wall_clock=StepClock())
    session = GameSession.start(journal, MasksRules(), {"players": PLAYERS})
    for command in ROUND:
        session.execute(command)
    assert journal.game(session.game_id).status == "finished"
    yield journal, session.game_id, tmp_path
    journal.close()


def test_the_report_holds_each_vote_its_ballots_result_and_the_winners(finished):
    journal, game_id, _ = finished
    report = export.game_report(journal, game_id)
    assert report["game"] == "masks" and report["status"] == "finished"
    assert report["players"] == PLAYERS
    [vote] = report["votes"]
    # Ann changed her ballot before the reveal: the report has the one that counted.
    # Dan (the Vanguard's target) abstains.
    assert vote["ballots"] == {"Ann": "Eve", "Ben": "Ann", "Cat": "Eve", "Dan": None, "Eve": "Cat"}
    assert vote["missing"] == []
    assert vote["counts"]["Eve"] == 2 and vote["leading"] == ["Eve"] and not vote["tie"]
    assert vote["question"] and "{" not in vote["question"]
    assert report["winners"] == list(journal.game(game_id).winners)
    assert report["summary"]
    assert report["duration_seconds"] > 0 and report["duration_seconds"] % 60 == 0
    assert export.vote_result(vote) == i18n.tr("export.leading", choice="Eve")


def test_json_and_csv_are_written_to_exports_and_say_the_same(finished):
    journal, game_id, data = finished
    path = export.export_game(journal, game_id, "json", data)
    assert path == data / "exports" / f"masks-{game_id}.json"
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(
        json.dumps(export.game_report(journal, game_id)))
    path = export.export_game(journal, game_id, "csv", data)
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    ballots = {r["voter"]: r["ballot"] for r in rows if r["vote"] == "1"}
    assert ballots["Ann"] == "Eve" and ballots["Eve"] == "Cat"
    assert ballots["Dan"] == i18n.tr("vote.abstained")
    assert rows[-1]["ballot"] == ", ".join(journal.game(game_id).winners)
    assert not list((data / "exports").glob("*.tmp"))


def test_the_report_is_in_the_language_of_whoever_asks(finished):
    journal, game_id, _ = finished
    english = export.game_report(journal, game_id)["votes"][0]["question"]
    i18n.set_language("fr")
    try:
        french = export.game_report(journal, game_id)["votes"][0]["question"]
        assert export.duration_text(120) == i18n.ntr("export.minutes", 2)
        assert export.duration_text(30) == "moins d’une minute"
    finally:
        i18n.set_language("en")
    assert french != english


def test_an_unwritable_folder_or_a_full_disk_is_one_line_and_leaves_nothing_half_written(finished, monkeypatch):
    journal, game_id, data = finished
    blocked = data / "blocked"
    blocked.write_text("a file where the folder would be")
    with pytest.raises(BadInput) as err:
        export.export_game(journal, game_id, "csv", blocked)
    assert "\n" not in i18n.error_text(err.value) and "cannot be written" in i18n.error_text(err.value)
    good = export.export_game(journal, game_id, "json", data)
    before = good.read_bytes()

    real_open = open

    def full_disk(path, *a, **kw):
        f = real_open(path, *a, **kw)
        if str(path).endswith(".tmp"):
            f.close()
            raise OSError(28, "No space left on device")
        return f

    monkeypatch.setattr("builtins.open", full_disk)
    with pytest.raises(BadInput) as err:
        export.export_game(journal, game_id, "json", data)
    monkeypatch.undo()
    assert i18n.error_text(err.value) == i18n.tr("export.disk_full")
    assert good.read_bytes() == before            # the file from before is whole
    assert not list((data / "exports").glob("*.tmp"))
    with pytest.raises(BadInput):
        export.export_game(journal, game_id, "xml", data)


def test_the_command_line_export_writes_the_same_file(finished):
    journal, game_id, data = finished
    env = {**os.environ, "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, "-m", "companion", "export", str(game_id), "--format", "csv",
                          "--data", str(data)], capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    path = data / "exports" / f"masks-{game_id}.csv"
    assert out.stdout.strip() == str(path)
    assert path.read_text(encoding="utf-8") == export.to_csv(export.game_report(journal, game_id))
    bad = subprocess.run([sys.executable, "-m", "companion", "export", "999", "--data", str(data)],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1 and "999" in bad.stderr


def test_a_game_number_beyond_sqlite_is_no_such_game_in_one_line(finished):
    _journal, _game_id, data = finished
    env = {**os.environ, "PYTHONPATH": ROOT}
    bad = subprocess.run([sys.executable, "-m", "companion", "export", "99999999999999999999", "--data", str(data)],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines() == [
        f"The journal {data / 'journal.sqlite3'} has no game 99999999999999999999."]


@pytest.mark.parametrize("column, value", [("started_at", "yesterday"), ("finished_at", "later")])
def test_a_game_whose_times_are_text_is_a_damaged_journal_not_a_crash(finished, column, value):
    journal, game_id, data = finished
    journal._db.execute(f"UPDATE games SET {column}=? WHERE id=?", (value, game_id))
    from companion.core.journal import JournalDamaged
    with pytest.raises(JournalDamaged, match=rf"game {game_id} has an unreadable {column}"):
        export.game_report(journal, game_id)
    env = {**os.environ, "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, "-m", "companion", "export", str(game_id), "--data", str(data)],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.returncode == 1 and len(out.stderr.strip().splitlines()) == 1 and column in out.stderr
