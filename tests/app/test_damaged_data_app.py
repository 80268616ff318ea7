"""Damaged or unwritable data in the real app under X: settings of the wrong type at start,
settings that cannot be saved (a full disk, a read-only folder), a boxes.json nested too deep,
and past games whose journal rows hold values of the wrong type. Each is one line on screen;
nothing recorded changes, and the app plays on."""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.i18n import tr

pytestmark = pytest.mark.app
ROOT = Path(__file__).resolve().parents[2]


def test_settings_of_the_wrong_type_fall_back_one_by_one_and_the_app_starts(tmp_path):
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run through scripts/test.sh (it starts Xvfb)")
    data = tmp_path / "data"
    data.mkdir()
    text = json.dumps({"language": 5, "masking_loop": "no", "pace": 1.5, "caption_size": 48})
    (data / "settings.json").write_text(text)
    env = dict(os.environ)
    env.pop("KIVY_NO_CONSOLELOG", None)  # the app's log, for the message when it fails
    run = subprocess.run([sys.executable, "-m", "tests.app.settings_app_child", str(data)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["screen"] == "picker" and out["language"] == "en"
    s = out["settings"]
    assert (s["language"], s["masking_loop"], s["pace"], s["caption_size"]) == ("en", True, 1.5, 48)
    toast = out["toast"]
    assert "language = 5 is not text" in toast and "masking_loop = 'no' is not true or false" in toast
    assert "the other settings are kept" in toast and "\n" not in toast
    assert (data / "settings.json").read_text() == text   # the file is the table's to mend


@pytest.fixture
def full_disk(monkeypatch):
    """settings.json cannot be written: a part of it is, then the disk is full."""
    real = Path.write_text

    def fails(self, data, *args, **kwargs):
        if self.name != "settings.tmp":
            return real(self, data, *args, **kwargs)
        real(self, data[:10], *args, **kwargs)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(Path, "write_text", fails)


def test_settings_that_cannot_be_saved_apply_all_the_same_and_say_so(driver, full_disk):
    from companion.core import i18n
    app = driver.app
    path = app.data_dir / "settings.json"
    path.write_text("{}")
    app.settings.pace, app.settings.language = 1.5, "fr"
    try:
        app.save_settings()
        driver.pump(4)
        assert app.settings.pace == 1.5 and i18n.language() == "fr"   # in effect, in memory
        toast = app.root.ids.toast.message    # the new screens' toast, in the new language
        assert toast.startswith(f"Réglages non enregistrés dans {path}") and "\n" not in toast
        assert toast in driver.visible_texts()
        assert path.read_text() == "{}" and not path.with_suffix(".tmp").exists()
    finally:
        app.settings.language = "en"
        i18n.set_language("en")
        app._rebuild_screens()
    # The Devices panel's choice too: boxes off, kept for this run, said in one line.
    panel = app.screen("devices")
    app.goto("devices")
    driver.pump(2)
    panel.ids.boxes_on.state = "normal"
    try:
        assert panel.apply_boxes()
        assert app.settings.boxes_enabled is False and app.box_source is None
        assert app.root.ids.toast.message.startswith("Settings not saved") and path.read_text() == "{}"
    finally:
        app.settings.boxes_enabled = True


def test_a_pairing_file_nested_too_deep_is_kept_aside_and_the_boxes_start_unpaired(driver, tmp_path):
    app = driver.app
    deep = "[" * 100_000 + "]" * 100_000
    (app.data_dir / "boxes.json").write_text(deep)
    app.boxes_arg = str(tmp_path / "no-such-box")
    try:
        source = app._start_boxes()
        assert source is not None and source.manager.seats() == {}
        assert (app.data_dir / "boxes.json.bad").read_text() == deep
        toast = app.root.ids.toast.message
        assert toast.startswith(tr("devices.pairing_unreadable", path=app.data_dir / "boxes.json",
                                   problem="", kept="").split("(")[0]) and "\n" not in toast
        assert "boxes start unpaired" in toast
    finally:
        app.remove_source(app.box_source) if app.box_source else None
        app.box_source, app.boxes_arg = None, None


def _damage(journal, game_id, column, value):
    journal._db.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, game_id))


def test_past_games_names_a_damaged_game_and_still_lists_the_others(driver):
    """The journal lists a row it cannot read as damaged (companion/core/journal.py): the
    screen names it, lists the others, and its Details say one line instead of closing the app."""
    app = driver.app
    journal = app.journal
    ids = [journal.new_game("masks", {"players": ["Ann", "Ben", "Cat", "Dan", "Eve"]}) for _ in range(6)]
    journal.finish(ids[0], ["Ann"])
    bad = {ids[1]: ("winners", "5"), ids[2]: ("setup", "[1, 2]"), ids[3]: ("setup", '{"players": 5}'),
           ids[4]: ("status", "zombie"), ids[5]: ("finished_at", "yesterday")}
    for gid, (column, value) in bad.items():
        _damage(journal, gid, column, value)
    app.goto("past_games")
    driver.pump(4)
    texts = driver.visible_texts()
    for gid in bad:
        assert tr("past.damaged", n=gid) in texts
    [good] = driver.find_all(cls="PastGameRow")
    assert good.game_id == ids[0] and "Won by Ann" in good.ids.text.text
    driver.screenshot("storage/past_games_damaged_rows")
    screen = app.screen("past_games")
    screen.show_game(ids[5])   # its Details: one line, the list stays
    assert app.root.ids.toast.message == tr("past.damaged", n=ids[5]) and screen.shown == 0
    screen.show_game(ids[0])
    assert screen.shown == ids[0], app.root.ids.toast.message


# -- issue 34, items 7, 8, 10-13: the journal and the settings under real damage ---------------

def _child(module: str, *args: str) -> dict:
    env = dict(os.environ)
    env.pop("KIVY_NO_CONSOLELOG", None)
    run = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=180)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_settings_file_that_cannot_be_read_is_kept_aside_at_the_next_save(tmp_path):
    """Issue 34, 13: the real app starts on a settings.json that is not JSON (defaults, said), the
    table changes the pace: the unreadable file is kept as settings.json.bad, and said."""
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run through scripts/test.sh (it starts Xvfb)")
    data = tmp_path / "data"
    data.mkdir()
    damaged = '{"pace": 1.2, "voice": "esp\x00'
    (data / "settings.json").write_text(damaged)
    out = _child("tests.app.settings_app_child", str(data), "save")
    assert "is not valid JSON" in out["toast"]
    assert (data / "settings.json.bad").read_text() == damaged
    assert json.loads((data / "settings.json").read_text())["pace"] == 1.5
    assert out["toast_after_save"] == f"The settings file that could not be read is kept as {data / 'settings.json.bad'}."
    assert "settings.json.bad" in out["files"]


def test_box_pairings_go_back_with_the_journal_when_the_data_folder_is_deleted(driver, tmp_path):
    """Issue 34, 13: the data folder deleted mid-game; the next tap puts the journal back, and
    with it boxes.json (the seats as paired) and settings.json, said in one line."""
    import shutil
    from tests.app.test_storage_app import reopen
    app = driver.app
    folder = tmp_path / "data"
    folder.mkdir()
    pairing = {"version": 1, "seats": [{"box": "0000BEEF", "keypad": 1, "seat": 2}]}
    (folder / "boxes.json").write_text(json.dumps(pairing))
    reopen(driver, folder)
    app.boxes_arg = str(tmp_path / "no-such-box")
    try:
        source = app._start_boxes()
        assert source.manager.seats() == {("0000BEEF", 1): 2}
        driver.start_game("masks", ["Ann", "Ben", "Cat", "Dan", "Eve"])
        shutil.rmtree(folder)
        assert app.send("start_hidden_phase")
        driver.pump(4)
        assert json.loads((folder / "boxes.json").read_text())["seats"] == pairing["seats"]
        assert (folder / "settings.json").exists() and (folder / "journal.sqlite3").exists()
        toast = app.root.ids.toast.message
        assert toast == (f"The data folder {folder} was deleted while the app ran: "
                         "journal.sqlite3, settings.json, boxes.json put back."), toast
        driver.screenshot("storage/data_folder_put_back")
    finally:
        app.leave_game()
        if app.box_source is not None:
            app.remove_source(app.box_source)
        app.box_source, app.boxes_arg = None, None


def test_one_bad_text_byte_in_a_games_row_hides_only_that_game(driver, tmp_path):
    """Issue 34, 10 in the app: Past games lists the other games and names the damaged one in one
    line, and the unfinished game is still offered for resuming."""
    import sqlite3
    from tests.app.test_storage_app import reopen
    from tests.core.journal_samples import sample
    folder = tmp_path / "data"
    ids = sample(folder)
    conn = sqlite3.connect(folder / "journal.sqlite3")
    conn.execute("UPDATE games SET game = CAST(X'6D6173C36B73' AS TEXT) WHERE id = ?", (ids["masks"],))
    conn.commit()
    conn.close()
    reopen(driver, folder)
    app = driver.app
    picker = app.screen("picker")
    assert picker.resume_record is not None and picker.resume_record.id == ids["knives_playing"]
    app.goto("past_games")
    driver.pump(4)
    texts = driver.visible_texts()
    assert tr("past.damaged", n=ids["masks"]) in texts
    rows = driver.find_all(cls="PastGameRow")
    assert sorted(r.game_id for r in rows) == sorted(set(ids.values()) - {ids["masks"]})
    assert not any("decode" in t for t in texts)
    driver.screenshot("storage/past_games_one_bad_byte")
    picker.clear_notice()


def test_a_damaged_journal_is_salvaged_and_its_unfinished_game_resumes(driver, tmp_path):
    """Issue 34, 12 in the app: the finished game's second page of events zeroed: the journal is set aside as before, the other games come back whole, the
    table is told how many, and the unfinished game resumes where it was."""
    from tests.app.test_storage_app import reopen
    from tests.core.journal_samples import sample
    folder = tmp_path / "data"
    ids = sample(folder)
    path = folder / "journal.sqlite3"
    data = bytearray(path.read_bytes())
    first = data.find(b"vote_opened") // 4096  # the finished game's first page of events
    page = data.find(b"vote_opened", (first + 1) * 4096) // 4096   # its second, zeroed:
    data[page * 4096:(page + 1) * 4096] = bytes(4096)
    path.write_bytes(bytes(data))
    reopen(driver, folder)
    app = driver.app
    kept = app.damaged_journal
    assert kept is not None and kept.read_bytes() == bytes(data)
    notice = tr("storage.salvaged", kept=5, found=5, short=1, name=kept.name)
    assert app.storage_notice[0] == notice and notice in driver.visible_texts()
    driver.screenshot("storage/salvaged_journal_notice")
    picker = app.screen("picker")
    assert picker.resume_record.id == ids["knives_playing"]
    driver.tap(picker.ids.resume_button)
    driver.pump(6)
    assert app.session is not None and app.session.game_id == ids["knives_playing"]
    assert len(app.session.events) == 80
    app.leave_game()
    picker.clear_notice()


SECOND_COPY = """
import sys, time
from pathlib import Path
from companion.core.events import Command
from companion.core.journal import DataLock, Journal
from companion.core.session import GameSession, rules_for
data, game = Path(sys.argv[1]), int(sys.argv[2])
lock = DataLock(data).acquire()
journal = Journal(data / "journal.sqlite3", lock=lock)
session = GameSession.resume(journal, game, rules_for("masks"))
session.execute(Command("start_hidden_phase", {}))
print("written", len(session.events), flush=True)
time.sleep(120)
"""


def test_a_copy_whose_lock_another_copy_took_records_nothing_more_and_says_so(tmp_path):
    """Issue 34, 7 with real processes: the app plays, its journal.lock is deleted, a second copy
    takes the folder and resumes the game. The first copy's taps and box presses are all
    refused in one line (before, the first failed and the next wrote unlocked: two tallies);
    the journal's game replays."""
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run through scripts/test.sh (it starts Xvfb)")
    data = tmp_path / "data"
    env = dict(os.environ)
    env.pop("KIVY_NO_CONSOLELOG", None)
    first = subprocess.Popen([sys.executable, "-m", "tests.app.storage_app_child", str(data), "two_copies"], cwd=ROOT,
                             env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = None
    try:
        for line in first.stdout:
            if line.strip() == "lock deleted":
                break
        else:
            raise AssertionError(first.stderr.read()[-3000:])
        second = subprocess.Popen([sys.executable, "-c", SECOND_COPY, str(data), "1"], cwd=ROOT,
                                  stdout=subprocess.PIPE, text=True)
        written = second.stdout.readline().split()
        assert written[0] == "written", written
        first.stdin.write("go\n")
        first.stdin.flush()
        out, err = first.communicate(timeout=180)
        assert first.returncode == 0, err[-3000:]
        seen = json.loads(out.strip().splitlines()[-1])
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    said = (f"Another copy of the app (process {second.pid}) took {data} while this one ran: nothing more is "
            "recorded here; go on with that copy")
    assert seen["toasts"] == [said, said, f"box:01: {said}"], seen
    assert seen["phase"] == "deal" and seen["events_after"] == seen["events_before"]
    run = subprocess.run([sys.executable, "-m", "companion", "check", "--data", str(data)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "game 1 masks playing: ok" in run.stdout, run.stdout + run.stderr
    from companion.core.journal import Journal
    assert len(Journal(data / "journal.sqlite3").events(1)) == int(written[1])


@pytest.mark.slow
def test_the_real_app_starts_on_a_seeded_sample_of_random_damages(tmp_path):
    """The fuzz test's damages (tests/core/test_journal_fuzz.py) in the real app, a seeded sample
    of them: each start reaches its first frame and exits cleanly with no traceback, and every
    game `check` read back whole from the damaged file is in the app's journal afterwards and
    resumes."""
    import random
    from companion.core.journal import Journal
    from companion.core.session import GameSession, rules_for
    from tests.core.journal_samples import damage, sample
    from tests.core.test_journal_fuzz import SEED, checked
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run through scripts/test.sh (it starts Xvfb)")
    sample(tmp_path / "base")
    base = (tmp_path / "base" / "journal.sqlite3").read_bytes()
    rng = random.Random(SEED + 1)
    env = dict(os.environ, TABLE_COMPANION_FIRST_FRAME="1")
    env.pop("KIVY_NO_CONSOLELOG", None)
    salvaged = 0
    for n in range(5):
        bad, what = damage(base, rng)
        for name in ("check", "app"):
            (tmp_path / f"{name}{n}").mkdir()
            (tmp_path / f"{name}{n}" / "journal.sqlite3").write_bytes(bad)
        whole, _ = checked(tmp_path / f"check{n}")
        data = tmp_path / f"app{n}"
        run = subprocess.run([sys.executable, "-m", "companion", "--data", str(data)], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=180)
        said = run.stdout + run.stderr
        assert run.returncode == 0 and "first-frame" in run.stdout and "Traceback" not in said, (what, said[-3000:])
        salvaged += any(p.name.startswith("journal-damaged-") for p in data.iterdir())
        journal = Journal(data / "journal.sqlite3")
        for gid, events in whole.items():
            session = GameSession.resume(journal, gid, rules_for(journal.game(gid).game))
            assert len(session.events) >= events, (what, gid)
        journal.close()
    assert salvaged, "the sample never set a journal aside: choose another seed"


@pytest.mark.parametrize("damaged", ["schema_damaged", "index_damaged", "toobig_damaged"])
def test_the_real_app_on_a_damaged_schema_or_index_sets_it_aside_and_keeps_every_game(tmp_path, damaged):
    """Issue 34, 8 (schema bytes that are not text: the app exited with a UnicodeDecodeError), 9
    (a row "too big": the game's row is lost, the others kept) and 11 (an index that disagrees
    with its table: the app ran on with it) in the real app: it starts, keeps the damaged file as
    it was, and every game that reads is in the fresh journal."""
    from companion.core.journal import Journal
    from tests.core import test_journal_damage
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run through scripts/test.sh (it starts Xvfb)")
    data = tmp_path / "data"
    made = getattr(test_journal_damage, damaged)(data)
    ids = made[0] if isinstance(made, tuple) else made
    bad = (data / "journal.sqlite3").read_bytes()
    env = dict(os.environ, TABLE_COMPANION_FIRST_FRAME="1")
    env.pop("KIVY_NO_CONSOLELOG", None)
    run = subprocess.run([sys.executable, "-m", "companion", "--data", str(data)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=180)
    said = run.stdout + run.stderr
    assert run.returncode == 0 and "first-frame" in run.stdout and "Traceback" not in said, said[-3000:]
    [kept] = data.glob("journal-damaged-*.sqlite3")
    assert kept.read_bytes() == bad and f"the unreadable journal is kept as {kept}" in said
    journal = Journal(data / "journal.sqlite3")
    lost = {ids["knives_playing"]} if damaged == "toobig_damaged" else set()
    assert sorted(g.id for g in journal.games()) == sorted(set(ids.values()) - lost)
    assert [g.id for g in journal.unfinished()][0] == (ids["cicero"] if lost else ids["knives_playing"])
    assert "will not be kept" not in said   # never the memory-only mode
