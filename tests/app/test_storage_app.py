"""Issue 16 in the real app under X: a journal that cannot be opened, an unwritable folder,
abandon that asks, undo that names what it undid and redoes, and every game's timer resumed
as it was. (Real processes and private mount namespaces: test_storage_processes.py.)"""
from __future__ import annotations

import os

import pytest

from companion.core.i18n import tr

pytestmark = pytest.mark.app

MASKS = ["Ann", "Ben", "Cat", "Dan", "Eve"]


def reopen(driver, folder):
    """What a start of the app does with a data folder, on the test's one app."""
    app = driver.app
    if app.session is not None:
        app.leave_game()
    app.journal.close()
    if app._lock is not None:
        app._lock.release()
        app._lock = None
    app.data_dir = folder
    app.storage_notice, app.damaged_journal = None, None
    assert app._open_storage()
    app.on_start()
    driver.pump(6)


def restart(driver):
    """The app closed and opened again on the same folder (the game's screens are rebuilt
    from the journal, as after a real restart)."""
    app = driver.app
    reopen(driver, app.data_dir)


@pytest.fixture
def clean_picker(driver):
    yield driver
    picker = driver.app.screen("picker")
    picker.clear_notice()
    driver.app.action_toast.clear()


def test_a_damaged_journal_is_moved_aside_and_offered_for_export(clean_picker, tmp_path, monkeypatch):
    driver = clean_picker
    folder = tmp_path / "data"
    folder.mkdir()
    damaged = os.urandom(3 * 4096)
    (folder / "journal.sqlite3").write_bytes(damaged)
    reopen(driver, folder)
    app = driver.app
    kept = app.damaged_journal
    assert kept is not None and kept.parent == folder and kept.read_bytes() == damaged
    assert kept.name.startswith("journal-damaged-")
    assert app.journal.games() == []  # a fresh journal took its place
    text = tr("storage.damaged", name=kept.name)
    assert text in driver.visible_texts()
    driver.screenshot("storage/damaged_journal_notice")
    monkeypatch.setenv("TABLE_COMPANION_EXPORT", str(tmp_path / "export"))
    driver.tap(app.screen("picker").ids.export_button)
    assert (tmp_path / "export" / kept.name).read_bytes() == damaged
    assert app.root.ids.toast.message == tr("storage.exported", path=tmp_path / "export" / kept.name)
    driver.tap(app.screen("picker").ids.notice_ok)
    assert text not in driver.visible_texts()
    # and the fresh journal plays
    driver.start_game("masks", MASKS)
    assert app.session is not None


def test_a_data_folder_that_cannot_be_created_is_one_line_and_the_app_plays_on(clean_picker, tmp_path):
    driver = clean_picker
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    reopen(driver, blocker / "data")
    app = driver.app
    line = app.storage_notice[0]
    assert "cannot be created" in line and "\n" not in line
    assert line in driver.visible_texts()
    driver.screenshot("storage/unwritable_folder_notice")
    driver.start_game("masks", MASKS)  # in memory: the table can still play
    assert app.send("start_hidden_phase")


def test_a_data_folder_that_cannot_be_created_is_said_in_the_tables_language(clean_picker, tmp_path):
    """Issue 17: the journal's error reaches the screen in French, not only the words around it."""
    from companion.core import i18n
    driver = clean_picker
    app = driver.app
    app.settings.language = "fr"
    app.save_settings()   # the screens are made again in French
    try:
        blocker = tmp_path / "a-file"
        blocker.write_text("not a folder")
        reopen(driver, blocker / "data")
        line = app.storage_notice[0]
        assert line.startswith(f"Le dossier de données {blocker / 'data'} ne peut pas être créé (Ce n'est pas un dossier)")
        assert line.endswith(": les parties ne seront pas conservées tant qu'il ne pourra pas être écrit.")
        assert "cannot" not in line.replace(str(blocker), "") and line in driver.visible_texts()
        driver.screenshot("storage/unwritable_folder_notice_fr")
    finally:
        app.settings.language = "en"
        i18n.set_language("en")
        app._rebuild_screens()


def test_abandon_asks_and_an_abandoned_game_is_resumed_from_past_games(clean_picker, tmp_path):
    driver = clean_picker
    reopen(driver, tmp_path / "data")
    app = driver.app
    driver.start_game("masks", MASKS)
    app.send("start_hidden_phase")
    game_id = app.session.game_id
    restart(driver)
    picker = app.screen("picker")
    driver.tap(picker.ids.abandon_button)
    assert app.journal.game(game_id).status == "playing"  # one tap abandons nothing
    assert any(t.startswith("Abandon the game of") for t in driver.visible_texts())
    driver.screenshot("storage/abandon_asks")
    driver.tap(picker.ids.abandon_no)
    assert "resume_button" in picker.ids and picker.resume_record.id == game_id
    driver.tap(picker.ids.abandon_button)
    driver.tap(picker.ids.abandon_yes)
    assert app.journal.game(game_id).status == "abandoned"
    app.goto("past_games")
    driver.pump(4)
    row = driver.find(cls="PastGameRow", game_id=game_id)
    assert tr("past.status.abandoned") in row.ids.text.text and row.ids.resume.opacity == 1
    driver.screenshot("storage/past_games_abandoned")
    driver.tap(row.ids.resume)
    assert app.session is not None and app.session.game_id == game_id
    assert app.journal.game(game_id).status == "playing"
    assert app.view["phase"] == "hidden"


def test_undo_names_the_ballot_it_took_back_and_redo_puts_it_back(clean_picker, tmp_path):
    driver = clean_picker
    reopen(driver, tmp_path / "data")
    app = driver.app
    driver.start_game("masks", MASKS)
    for kind in ("start_hidden_phase", "end_hidden_phase", "end_discussion"):
        assert app.send(kind)
    assert app.send("cast_ballot", voter="Ann", choice="Ben")
    assert app.send("cast_ballot", voter="Cat", choice="Ben")
    driver.pump(4)
    driver.tap(driver.find(root=app.root, text=tr("app.undo")))
    assert app.view["vote"]["voted"] == ["Ann"]
    toast = app.action_toast
    assert toast.message == "Undone: Cat's ballot" and toast.action_text == tr("undo.redo")
    assert "Ben" not in toast.message  # never what the ballot was
    driver.screenshot("storage/undo_toast")
    driver.tap(toast.ids.action)
    assert sorted(app.view["vote"]["voted"]) == ["Ann", "Cat"]
    assert app.root.ids.toast.message == "Redone: Cat's ballot"
    assert not toast.message


def _resume_same_game(driver):
    app = driver.app
    game_id = app.session.game_id
    restart(driver)
    assert app.screen("picker").resume_record.id == game_id
    driver.tap(app.screen("picker").ids.resume_button)
    driver.advance(0.25)
    return app


def _masks_discussion(driver, tmp_path):
    reopen(driver, tmp_path / "data")
    app = driver.app
    driver.start_game("masks", MASKS)
    app.send("start_hidden_phase")
    app.send("end_hidden_phase")
    return app


def test_masks_discussion_paused_at_1_50_resumes_paused_at_1_50(clean_picker, tmp_path):
    driver = clean_picker
    app = _masks_discussion(driver, tmp_path)
    driver.advance(310)
    screen = app.screen("masks.discussion")
    assert app.sm.current == "masks.discussion" and screen.remaining == "1:50"
    driver.tap(driver.find(text=tr("masks.discussion.pause")))
    assert screen.timer_paused
    driver.advance(20)
    app = _resume_same_game(driver)
    screen = app.screen("masks.discussion")
    assert app.sm.current == "masks.discussion"
    assert screen.remaining == "1:50" and screen.timer_paused
    driver.screenshot("storage/masks_resumed_paused")
    driver.advance(30)
    assert screen.remaining == "1:50"
    driver.tap(driver.find(text=tr("masks.discussion.resume")))
    driver.advance(10)
    assert screen.remaining == "1:40" and not screen.timer_paused


def test_masks_discussion_running_resumes_running_from_where_it_was(clean_picker, tmp_path):
    driver = clean_picker
    app = _masks_discussion(driver, tmp_path)
    driver.tap(driver.find(text=tr("masks.discussion.more_time")))  # 8:00
    driver.advance(125)
    assert app.screen("masks.discussion").remaining == "5:55"
    app = _resume_same_game(driver)
    screen = app.screen("masks.discussion")
    assert screen.remaining == "5:55" and not screen.timer_paused
    driver.advance(15)
    assert screen.remaining == "5:40"


def test_cicero_debate_resumes_with_its_time(clean_picker, tmp_path):
    from tests.app.test_cicero_app import AGES, PLAYERS, quick
    driver = clean_picker
    reopen(driver, tmp_path / "data")
    app = driver.app
    driver.start_game("cicero", PLAYERS, seat_values=AGES)
    quick(driver, "debate")
    driver.advance(30)
    screen = app.screen("cicero.election")
    assert app.sm.current == "cicero.election"
    shown = screen.ids.timer.text
    assert shown not in ("", "0:00")
    app = _resume_same_game(driver)
    screen = app.screen("cicero.election")
    assert app.sm.current == "cicero.election" and screen.ids.timer.text == shown
    driver.screenshot("storage/cicero_debate_resumed")
    driver.advance(10)
    minutes, seconds = map(int, shown.split(":"))
    left = minutes * 60 + seconds - 10
    assert screen.ids.timer.text == f"{left // 60}:{left % 60:02d}"


def test_knives23_bribe_resumes_with_its_time(clean_picker, tmp_path):
    driver = clean_picker
    reopen(driver, tmp_path / "data")
    app = driver.app
    driver.start_game("knives23", ["Ann", "Bo", "Cy", "Di"], first="Ann",
                      options={"quid_pro_quo": True, "bribe_seconds": 30})
    for step in ("I", "II", "III", "IV", "V", "VI", "VII"):
        app.send("tick_setup", step=step)
    app.send("begin_play")
    app.send("move", location="forum")
    app.send("call_exile", target="Cy")
    assert app.view["phase"] == "exile_called"
    driver.pump(2)  # the board's tick starts the bribe timer
    driver.advance(21)
    assert app.screen("knives23.board").bribe_label.text == "Cy may bribe the table: 0:09"
    app = _resume_same_game(driver)
    board = app.screen("knives23.board")
    assert app.sm.current == "knives23.board"
    assert board.bribe_label.text == "Cy may bribe the table: 0:09"
    driver.screenshot("storage/knives23_bribe_resumed")
    driver.advance(10)
    assert "Time is up." in [e.text for e in app.narrator.history]


def test_a_finished_game_left_playing_by_an_old_version_is_not_offered_to_resume(clean_picker, tmp_path):
    """Issue 16, 5.: a kill between the last event and the end used to leave "Caesar is dead"
    offered on every launch. The app mends it on open: finished, with its winners."""
    from companion.core.journal import Journal
    from companion.core.session import GameSession
    from companion.games.knives23 import demo as script
    from companion.games.knives23.rules import Knives23Rules
    data = tmp_path / "data"
    j = Journal(data / "journal.sqlite3")
    s = GameSession.start(j, Knives23Rules(), script.SETUP)
    for cmd in script.commands():
        try:
            s.execute(cmd)
        except Exception:
            pass  # the script's deliberate refusals
    winners = list(j.game(s.game_id).winners)
    assert winners and j.game(s.game_id).status == "finished"
    j._db.execute("UPDATE games SET status='playing', finished_at=NULL, winners='[]' WHERE id=?", (s.game_id,))
    j.close()
    reopen(clean_picker, data)
    app = clean_picker.app
    assert app.screen("picker").resume_record is None
    record = app.journal.game(s.game_id)
    assert record.status == "finished" and list(record.winners) == winners


def test_a_discussion_that_ran_out_as_the_app_stopped_goes_to_the_vote_on_resume(clean_picker, tmp_path):
    driver = clean_picker
    app = _masks_discussion(driver, tmp_path)
    countdown = app.game_ui.countdown
    countdown.on_end = lambda: None  # the app stopped right as the time ran out
    driver.advance(421)
    assert countdown.ended and app.view["phase"] == "discussion"
    app = _resume_same_game(driver)
    driver.pump(4)
    assert app.view["phase"] == "voting" and app.sm.current == "vote"


def test_resuming_a_game_two_copies_wrote_is_a_message_not_a_crash(clean_picker, tmp_path):
    """Issue 16, 3. and 4.: a vote revealed and decided twice (two copies on one journal) made
    Resume crash the app every time; now the table reads why, and the app stays."""
    from tests.core.faults import written_by_two_copies
    data = tmp_path / "data"
    data.mkdir()
    game_id = written_by_two_copies(data / "journal.sqlite3")
    driver = clean_picker
    reopen(driver, data)
    app = driver.app
    driver.tap(app.screen("picker").ids.resume_button)
    assert app.session is None and app.sm.current == "picker"
    assert app.root.ids.toast.message == f"Game {game_id} cannot be replayed: AssertionError: an Exile decided with no Exile called"
    driver.screenshot("storage/resume_refused")


@pytest.mark.parametrize("kind,data,said", [
    ("arrow_corrected", {"looker": "Ed", "at": "Cy"}, "the correction of Ed's Arrow"),
    ("senate_votes_corrected", {"player": "Marcus", "after": 4}, "the correction of Marcus's Senate votes"),
    ("majority_cards_corrected", {"what": "guild"}, "the correction of the majority cards"),
    ("board_corrected", {"what": "location", "player": "Ann"}, "the correction of the board"),
    ("pointing_corrected", {"voter": "Ann", "choice": "Cat"}, "the correction of Ann's pointing"),
])
def test_the_undo_toast_names_each_correction_in_words(kind, data, said):
    # Before, "Undone: arrow corrected (...)": the event's kind with its underscores taken out.
    from companion.app.main import CompanionApp
    from companion.core.events import Event
    assert CompanionApp.describe_event(Event(1, kind, data)) == said
