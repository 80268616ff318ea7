"""Issue 18 for the people at the table, through the real app under X: settings that keep
(Home and back, and a fresh app on the same data folder), words for people in Settings,
remembered player groups chosen in one tap, and Past games in full with its export."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kivy.tests.common import UnitTestTouch

from companion import export
from companion.core.events import Command
from companion.core.i18n import tr
from tests.games.test_masks_journal import PLAYERS, ROUND

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Ann", "Bo", "Cy", "Di", "Ed"]


def top(driver, key):
    return driver.find(root=driver.app.root.ids.topbar, cls="TopButton", text=tr(key))


def slide(driver, slider, value):
    """A finger put down on the slider where ``value`` lies, and lifted."""
    driver.settle(slider)
    frac = (value - slider.min) / (slider.max - slider.min)
    x = slider.x + slider.padding + frac * (slider.width - 2 * slider.padding)
    wx, wy = slider.to_window(x, slider.center_y)
    touch = UnitTestTouch(wx, wy)
    touch.touch_down()
    touch.touch_up()
    driver.pump(2)


def saved(app):
    return json.loads((app.data_dir / "settings.json").read_text())


@pytest.mark.app
def test_a_change_in_settings_is_kept_through_home_and_a_fresh_app(driver):
    app = driver.app
    driver.tap(top(driver, "app.settings"))
    screen = app.screen("settings")
    ids = screen.ids
    assert app.sm.current == "settings"
    # Words for people: the language by its own name, no device path, the recorded voice explained.
    assert ids.language.text == "English"
    texts = driver.visible_texts(screen)
    assert tr("settings.recorded_voice") in texts and ids.voice_pack.text == tr("settings.no_folder")
    assert not any("/dev/" in t or "<" in t or ".wav" in t for t in texts), texts
    slide(driver, ids.pace, 1.88)
    pace = round(ids.pace.value, 2)
    assert abs(pace - 1.88) <= 0.01, pace
    driver.tap(ids.masking)                       # on -> off
    assert ids.masking.state == "normal"
    driver.screenshot("people/settings_changed")
    # Home at once (before the slider's rest): nothing thrown away.
    driver.tap(top(driver, "app.home"))
    assert app.sm.current == "picker"
    assert app.settings.pace == pace and app.settings.masking_loop is False
    assert saved(app)["pace"] == pace and saved(app)["masking_loop"] is False
    assert app.narrator.pace == pytest.approx(pace)          # applied, not only written
    driver.tap(top(driver, "app.settings"))
    assert round(ids.pace.value, 2) == pace and ids.masking.state == "normal"
    assert tr("settings.pace", value=f"{pace:.2f}") in driver.visible_texts(screen)
    # A slider left to rest is saved without leaving the screen.
    slide(driver, ids.caption_size, 40)
    driver.wait(1.0)
    assert saved(app)["caption_size"] == int(ids.caption_size.value) == app.settings.caption_size

    # A fresh app on the same data folder (another process: one window per process), with a
    # group this app's setup screen remembered.
    driver.tap(top(driver, "app.home"))
    from companion.core.groups import Groups
    group = Groups.load(app.data_dir).remember(NAMES, ["red", "blue", "green", "yellow", "purple"])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "tests.app.people_app_child", str(app.data_dir)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["pace_slider"] == seen["pace"] == pace and seen["masking"] == "normal"
    assert seen["caption_size"] == saved(app)["caption_size"]
    assert seen["groups"] == [tr("setup.group_choice", name=group.name, players=", ".join(NAMES))]


@pytest.mark.app
def test_the_recorded_voice_is_chosen_with_a_folder_chooser(driver, tmp_path):
    app = driver.app
    pack = tmp_path / "Narrator recordings"
    pack.mkdir()
    subprocess.run(["espeak-ng", "-w", str(pack / "settings.test.wav"), "Recorded voice"], check=True)
    driver.tap(top(driver, "app.settings"))
    screen = app.screen("settings")
    scroll = screen.ids.voice_pack.parent
    while type(scroll).__name__ != "ScrollView":
        scroll = scroll.parent
    scroll.scroll_to(screen.ids.voice_pack, animate=False)
    driver.tap(screen.ids.voice_pack)
    popup = screen._popup
    assert popup is not None
    chooser = popup.content
    assert chooser.folder == str(Path.home())
    screen.open_folder(chooser, tmp_path)            # (the test's folder, as if walked to)
    driver.wait(0.5)
    driver.screenshot("people/settings_folder_chooser")
    rows = [w.text for w in reversed(chooser.ids.folders.children)]
    assert rows == [tr("settings.folder_up", folder=tmp_path.parent.name), "Narrator recordings"]
    driver.tap(driver.find(root=chooser, cls="FolderRow", text="Narrator recordings"))   # opened
    assert chooser.folder == str(pack)
    driver.tap(chooser.ids.use)
    try:
        assert screen._popup is None
        assert app.settings.voice == "voicepack" and app.settings.voice_pack == str(pack)
        assert saved(app)["voice_pack"] == str(pack)
        assert screen.ids.voice_pack.text == "Narrator recordings"
        assert type(app.narrator.speaker).__name__ == "VoicePackSpeaker"
        driver.screenshot("people/settings_voice_chosen")
    finally:
        app.settings.voice, app.settings.voice_pack = "captions", ""
        app.save_settings()


def open_setup(driver, game="masks"):
    driver.app.goto("picker")
    driver.pump(3)
    driver.tap(driver.find(cls="GameCard", game_id=game))
    assert driver.app.sm.current == "setup"
    return driver.app.screen("setup")


def group_rows(setup):
    return list(reversed(setup.ids.groups.children))


@pytest.mark.app
def test_a_group_is_remembered_when_its_game_starts_and_chosen_again_in_one_tap(driver):
    app = driver.app
    setup = open_setup(driver)
    for row in setup.ids.seats.children:   # a table typed for the first time
        row.ids.name.text = ""
    assert group_rows(setup) == []
    driver.start_game("masks", NAMES)
    colours = list(app.session.setup["colours"])
    app.leave_game()
    day = tr(f"groups.day.{time.localtime().tm_wday}")

    setup = open_setup(driver)
    setup.ids.count_spinner.text = "7"           # the last table's names and seats put aside
    for row in setup.ids.seats.children:
        row.ids.name.text = ""
    driver.pump(2)
    [row] = group_rows(setup)
    assert row.ids.choose.text == tr("setup.group_choice", name=day, players="Ann, Bo, Cy, Di, Ed")
    driver.screenshot("people/setup_group_offered")
    driver.tap(row.ids.choose)                   # tap 1: the group
    assert setup.names() == NAMES
    assert [r.colour for r in setup._rows()] == colours
    driver.tap(setup.ids.start_button)           # tap 2: the start
    assert app.session is not None and list(app.session.setup["players"]) == NAMES
    assert list(app.session.setup["colours"]) == colours
    app.leave_game()

    # Rename and forget, each in a popup; forgetting is asked first.
    setup = open_setup(driver)
    [row] = group_rows(setup)
    driver.tap(row.ids.rename)
    box = setup.rename_popup.content
    box.ids.name.text = "Thursday club"
    driver.screenshot("people/setup_group_rename")
    driver.tap(box.ids.ok)
    [row] = group_rows(setup)
    assert row.ids.choose.text.startswith("Thursday club")
    driver.tap(row.ids.forget)
    driver.screenshot("people/setup_group_forget_asked")
    driver.tap(setup.forget_popup.content.ids.cancel)      # Keep
    assert len(group_rows(setup)) == 1
    [row] = group_rows(setup)
    driver.tap(row.ids.forget)
    driver.tap(setup.forget_popup.content.ids.ok)
    assert group_rows(setup) == []
    assert json.loads((app.data_dir / "groups.json").read_text()) == {"groups": []}


def finish_masks_game(driver):
    driver.start_game("masks", PLAYERS)
    app = driver.app
    for command in ROUND:
        app.commands.post(command)
        app._drain(0)
    driver.pump(4)
    game_id = app.session.game_id
    assert app.journal.game(game_id).status == "finished"
    app.leave_game()
    return game_id


@pytest.mark.app
def test_past_games_shows_a_finished_game_in_full_and_exports_it(driver):
    app = driver.app
    game_id = finish_masks_game(driver)
    app.goto("picker")
    driver.pump(3)
    driver.tap(driver.find(text=tr("picker.past_games")))
    screen = app.screen("past_games")
    assert app.sm.current == "past_games"
    row = [r for r in screen.ids.entries.children if getattr(r, "game_id", None) == game_id][0]
    driver.screenshot("people/past_games_list")
    driver.tap(row.ids.details)
    assert screen.shown == game_id
    report = export.game_report(app.journal, game_id)
    texts = "\n".join(driver.visible_texts(screen))
    vote = report["votes"][0]
    assert tr("past.vote", n=1, question=vote["question"]) in texts
    assert tr("past.ballots_for", choice="Eve", n=2, names="Ann, Cat") in texts   # grouped by choice
    assert export.vote_result(vote) in texts
    assert tr("past.won_by", names=", ".join(report["winners"])) in texts
    assert tr("past.duration", time=export.duration_text(report["duration_seconds"])) in texts
    driver.screenshot("people/past_game_details")

    driver.tap(screen.ids.export_json)
    path = app.data_dir / "exports" / f"masks-{game_id}.json"
    assert app.root.ids.toast.message == tr("past.exported", file=f"exports/{path.name}")
    assert json.loads(path.read_text(encoding="utf-8"))["votes"][0]["ballots"]["Ann"] == "Eve"
    driver.screenshot("people/past_game_exported")
    driver.tap(screen.ids.export_csv)
    assert (app.data_dir / "exports" / f"masks-{game_id}.csv").read_text(encoding="utf-8").startswith("game_id,")

    # A file that cannot be written (here its place is taken by a folder, which stops root as
    # well): one line, the file from before whole, the app goes on.
    before = path.read_bytes()
    blocker = path.with_name(path.name + ".tmp")
    blocker.mkdir()
    try:
        driver.tap(screen.ids.export_json)
        message = app.root.ids.toast.message
        assert "\n" not in message and message.startswith(
            tr("export.unwritable", folder=str(path.parent), problem="X").split("X")[0])
    finally:
        blocker.rmdir()
    assert path.read_bytes() == before and app.sm.current == "past_games"
    driver.screenshot("people/past_game_export_refused")
    driver.tap(screen.ids.back)
    assert screen.shown == 0 and app.sm.current == "past_games"


@pytest.mark.app
def test_people_screens_in_portrait(driver):
    """The same screens on a portrait tablet, for the eyes."""
    driver.reset(size=(800, 1280))
    try:
        game_id = finish_masks_game(driver)
        setup = open_setup(driver)
        driver.screenshot("people/portrait_setup_group")
        app = driver.app
        app.goto("past_games")
        driver.pump(3)
        app.screen("past_games").show_game(game_id)
        driver.screenshot("people/portrait_past_game")
        app.goto("settings")
        driver.screenshot("people/portrait_settings")
        assert group_rows(setup)
    finally:
        driver.set_size(1280, 800)


@pytest.mark.app
def test_the_devices_setting_is_kept_when_the_table_leaves_without_applying(driver):
    app = driver.app
    driver.tap(top(driver, "app.devices"))
    panel = app.screen("devices")
    try:
        driver.tap(panel.ids.boxes_on)                  # boxes off, Apply not tapped
        assert panel.ids.boxes_on.state == "normal"
        driver.tap(top(driver, "app.home"))
        assert app.settings.boxes_enabled is False and saved(app)["boxes_enabled"] is False
        assert app.box_source is None
        driver.tap(top(driver, "app.devices"))
        assert panel.ids.boxes_on.state == "normal"
    finally:
        app.settings.boxes_enabled, app.settings.box_ports = True, "auto"
        app.save_settings()
