"""The shell's screens in the real app: game picker, table setup, settings, devices, and the
pass-and-play vote with its reveal (through a tiny test game plugged in like a real one)."""
import pytest

from companion.core.i18n import tr


@pytest.mark.app
def test_the_app_opens_on_the_game_picker(driver):
    assert driver.app.sm.current == "picker"
    titles = {c.game_id: c.title for c in driver.find_all(cls="GameCard")}
    assert list(titles) == ["knives23", "masks", "sevenknights", "cicero"]
    assert titles["knives23"] == "23 Knives"
    shot = driver.screenshot("app/game_picker")
    assert shot.stat().st_size > 10_000  # a real picture, not an empty frame


@pytest.mark.app
def test_the_picker_in_portrait(driver):
    driver.set_size(800, 1280)
    assert driver.find_all(cls="GameCard")
    driver.screenshot("app/game_picker_portrait")


@pytest.mark.app
def test_settings_and_devices_screens(driver):
    driver.tap(driver.find(root=driver.app.root, text=tr("app.settings")))
    assert driver.app.sm.current == "settings"
    driver.screenshot("app/settings")
    driver.tap(driver.find(root=driver.app.root, text=tr("app.devices")))
    assert driver.app.sm.current == "devices"
    assert driver.find(cls="DeviceLine", contains=tr("devices.tablet"))
    driver.screenshot("app/devices")


def _start_toy(driver, names=("Ann", "Ben", "Cy", "Dee")):
    from .toy_ui import UI
    driver.app.screen("setup").prepare(UI)
    driver.app.goto("setup")
    driver.pump(4)
    setup = driver.screen
    setup.ids.count_spinner.text = str(len(names))
    driver.pump(3)
    for row, name in zip(sorted(setup.ids.seats.children, key=lambda r: r.seat), names):
        driver.type_into(row.ids.name, name)
    return setup


@pytest.mark.app
def test_table_setup_screen(driver):
    setup = _start_toy(driver, ("Ann", "Ben", "Cy", "Dee", "Eve", "Fay"))
    setup.ids.first_spinner.text = "Ben"
    driver.screenshot("app/table_setup")
    table = setup.table()
    assert table["players"] == ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"]
    assert table["first"] == "Ben" and len(table["colours"]) == 6
    driver.set_size(800, 1280)
    driver.screenshot("app/table_setup_portrait")


@pytest.mark.app
def test_setup_refuses_two_players_with_one_name(driver):
    setup = _start_toy(driver, ("Ann", "ann", "Cy"))
    driver.tap(setup.ids.start_button)
    assert driver.app.session is None
    assert "same name" in driver.app.root.ids.toast.message


@pytest.mark.app
def test_pass_and_play_vote_shows_who_voted_never_what(driver):
    setup = _start_toy(driver)
    driver.tap(setup.ids.start_button)
    app = driver.app
    assert app.sm.current == "toy.board"
    driver.tap(driver.find(text="Call a Vote to Exile Cy"))
    assert app.sm.current == "vote"
    vote = app.screen("vote")
    # Ann and Ben vote; the table screen then lists them as voted, with no choice anywhere.
    driver.vote({"Ann": "exile", "Ben": "remain"})
    driver.screenshot("app/vote_in_progress")
    shown = " ".join(driver.visible_texts())
    assert tr("vote.option.remain") not in shown  # Ben's ballot is nowhere on screen
    assert shown.count(tr("vote.option.exile")) == 1  # only in the question, "Exile Cy?"
    assert [b.voter for b in driver.find_all(cls="VoterButton") if b.voted] == ["Ann", "Ben"]
    # A stray tap on a name does nothing; only a hold opens the choices.
    driver.tap(driver.find(cls="VoterButton", voter="Cy"))
    assert vote.mode == "list"
    driver.hold(driver.find(cls="VoterButton", voter="Cy"))
    assert vote.mode == "choose"
    driver.screenshot("app/vote_choices")
    assert app.root.ids.topbar.disabled  # no undo or history while a player votes in private
    driver.tap(driver.find(cls="ChoiceButton", option="exile"))
    assert not vote.ids.choices.children   # gone with the tap
    if vote.mode == "done":   # it hides itself after a moment: a slow machine may be past it
        driver.screenshot("app/vote_recorded")
        vote._hide_done()
    driver.vote({"Dee": "exile"})
    # All four in: a count-in, then revealed at once, each ballot under its choice.
    assert app.sm.current == "reveal"
    driver.count_in()
    driver.screenshot("app/vote_reveal")
    groups = {col.children[-1].text: [w.text for w in reversed(col.children[:-1]) if getattr(w, "text", "")]
              for col in app.screen("reveal").ids.groups.children}
    assert groups == {"Exile: 3": ["Ann", "Cy", "Dee"], "Remain: 1": ["Ben"]}
    driver.continue_reveal()
    assert app.sm.current == "toy.board"
    driver.tap(driver.find(root=app.root, text=tr("app.vote_history")))
    driver.screenshot("app/vote_history")
    assert "Ben: Remain" in driver.find(cls="HistoryEntry").text


@pytest.mark.app
def test_forced_reveal_lists_the_missing_and_undo_cannot_unreveal(driver):
    setup = _start_toy(driver)
    driver.tap(setup.ids.start_button)
    app = driver.app
    app.send("add", n=3)
    assert app.can_undo
    driver.tap(driver.find(root=app.root, text=tr("app.undo")))
    assert app.view["counter"] == 0
    driver.tap(driver.find(text="Call a Vote to Exile Cy"))
    driver.vote({"Ann": "remain"})
    driver.tap(app.screen("vote").ids.force_reveal)  # a tap is not enough
    assert app.sm.current == "vote"
    driver.hold(app.screen("vote").ids.force_reveal)
    assert app.sm.current == "reveal"
    assert app.view["vote_history"][-1]["missing"] == ["Ben", "Cy", "Dee"]
    driver.screenshot("app/vote_forced_reveal")
    app.undo()
    assert "revealed vote" in app.root.ids.toast.message
    assert len(app.view["vote_history"]) == 1


@pytest.mark.app
def test_an_unfinished_game_is_offered_for_resume(driver):
    setup = _start_toy(driver)
    driver.tap(setup.ids.start_button)
    app = driver.app
    app.send("add", n=5)
    game_id = app.session.game_id
    app.leave_game()
    picker = app.screen("picker")
    picker.offer_resume(app.journal.unfinished()[0])
    driver.pump(4)
    driver.screenshot("app/resume_offer")
    from .toy_ui import UI
    from companion.app import games
    original = games.load_ui
    games.load_ui = lambda gid: UI if gid == "toy" else original(gid)
    try:
        driver.tap(picker.ids.resume_button)
    finally:
        games.load_ui = original
    assert app.session.game_id == game_id and app.view["counter"] == 5


@pytest.mark.app
def test_narration_is_captioned_and_the_table_can_pause_repeat_and_skip(driver):
    setup = _start_toy(driver)
    driver.tap(setup.ids.start_button)
    app = driver.app
    app.say("toy.one", "Everyone, close your eyes.")
    app.say("toy.two", "Everyone, open your eyes.")
    driver.advance(0.1)
    assert app.caption == "Everyone, close your eyes."
    driver.screenshot("app/caption_and_narration_controls")
    driver.tap(app.root.ids.narration_pause)
    assert app.narrator.paused and app.narration_paused
    driver.advance(30)
    assert app.caption in ("", "Everyone, close your eyes.")  # nothing new while paused
    driver.tap(app.root.ids.narration_pause)
    assert not app.narrator.paused
    driver.advance(0.1)
    driver.tap(app.root.ids.narration_skip)
    driver.advance(0.1)
    assert app.caption == "Everyone, open your eyes."
    driver.tap(app.root.ids.narration_repeat)
    driver.advance(30)
    spoken = [h.line_id for h in app.narrator.history]
    assert spoken[-2:] == ["toy.two", "toy.two"]


@pytest.mark.app
def test_settings_voice_pack_missing_is_refused_in_one_line_and_captions_go_on(driver, tmp_path):
    app = driver.app
    app.goto("settings")
    driver.pump(4)
    screen = app.screen("settings")
    screen.ids.voice.text = tr("settings.voice.voicepack")
    screen.choose_voice_pack(str(tmp_path / "no-such-pack"))   # the folder chooser's choice
    driver.tap(screen.ids.save)
    assert "cannot be used" in app.root.ids.toast.message
    assert type(app.narrator.speaker).__name__ == "CaptionSpeaker"
    # A real pack: one recorded clip keyed by its line id.
    import subprocess
    pack = tmp_path / "pack"
    pack.mkdir()
    subprocess.run(["espeak-ng", "-w", str(pack / "settings.test.wav"), "Recorded voice"], check=True)
    app.goto("settings")
    driver.pump(4)
    screen.ids.voice.text = tr("settings.voice.voicepack")
    screen.choose_voice_pack(str(pack))
    driver.screenshot("app/settings_voice_pack")
    driver.tap(screen.ids.save)
    assert type(app.narrator.speaker).__name__ == "VoicePackSpeaker"
    app.settings.voice = "captions"  # leave the shared app as the other tests expect
    app.settings.voice_pack = ""
    app.save_settings()


@pytest.mark.app
def test_home_during_a_game_offers_back_or_leave_and_the_game_stays_resumable(driver):
    setup = _start_toy(driver)
    driver.tap(setup.ids.start_button)
    app = driver.app
    app.send("add", n=2)
    driver.tap(app.root.ids.home_button)
    assert app.sm.current == "picker"
    picker = app.screen("picker")
    driver.screenshot("app/picker_game_on")
    driver.tap(picker.ids.back_button)
    assert app.sm.current == "toy.board"
    driver.tap(app.root.ids.home_button)
    driver.tap(app.screen("picker").ids.leave_button)
    assert app.session is None and app.sm.current == "picker"
    assert [g.status for g in app.journal.games()] == ["playing"]
    # The game cards take touches again (no hidden banner in the way).
    driver.tap(driver.find(cls="GameCard", game_id="masks"))
    assert app.sm.current == "setup"


def _readings(setup) -> dict:
    """{rule name: {reading: its button}} as the setup screen shows them."""
    return {name: dict(buttons) for name, buttons in setup._house_rule_buttons.items()}


@pytest.mark.app
def test_house_rules_are_chosen_at_setup_recorded_in_the_setup_and_remembered_for_the_group(driver):
    """Issue 33: the game's house rules listed on the setup screen (question, the rulebook's
    words, each reading), the default chosen; the reading chosen goes into the journal's setup
    and groups.json, and choosing the group next time brings it back (en, fr, de)."""
    import json

    from companion.core import i18n
    from companion.core.groups import FILE

    from .toy_ui import UI, add_words
    add_words()
    app = driver.app
    setup = _start_toy(driver)
    tie = _readings(setup)["tie"]
    driver.scroll_into_view(tie["exile"])
    texts = driver.visible_texts()
    assert tr("setup.house_rules") in texts and "A tied Exile vote" in texts, texts
    assert any("The Tribune settles a tie." in t for t in texts), texts
    assert [b.text for b in tie.values()] == ["A tie: the target remains", "A tie: the target is exiled"]
    assert tie["remain"].state == "down" and tie["exile"].state == "normal"   # the app's reading so far
    driver.screenshot("app/house_rules_setup_default")
    driver.tap(tie["exile"])
    assert setup.house_rule_values() == {"tie": "exile"}
    driver.screenshot("app/house_rules_setup_chosen")
    driver.tap(setup.ids.start_button)
    assert app.session is not None
    # recorded in the game's setup (the real SQLite journal), so a replay decides the same way
    assert app.journal.game(app.session.game_id).setup["house_rules"] == {"tie": "exile"}
    assert app.view["house_rules"] == {"tie": "exile"}
    # ... and the rule is the one that decides: a 2-2 Exile vote exiles Cy
    driver.tap(driver.find(text="Call a Vote to Exile Cy"))
    driver.vote({"Ann": "exile", "Ben": "exile", "Cy": "remain", "Dee": "remain"})
    assert app.session.state.exiled == ("Exile Cy?",)
    saved = json.loads((app.data_dir / FILE).read_text())["groups"]
    assert [g["house_rules"] for g in saved] == [{"toy": {"tie": "exile"}}]
    app.leave_game()

    # Next time: a fresh screen has the default; choosing the group brings its choice back.
    setup = _start_toy(driver, ("Zed", "Yan"))
    assert _readings(setup)["tie"]["remain"].state == "down"
    row = next(r for r in setup.ids.groups.children)
    driver.tap(row.ids.choose)
    assert setup.names() == ["Ann", "Ben", "Cy", "Dee"]
    assert setup.house_rule_values() == {"tie": "exile"}
    assert _readings(setup)["tie"]["exile"].state == "down"
    driver.scroll_into_view(_readings(setup)["tie"]["exile"])
    driver.screenshot("app/house_rules_group_brings_them_back")
    driver.set_size(800, 1280)   # portrait: each reading wraps in its button, never cut
    driver.scroll_into_view(_readings(setup)["tie"]["exile"])
    driver.screenshot("app/house_rules_portrait")
    driver.set_size(1280, 800)
    driver.tap(setup.ids.start_button)
    assert app.journal.game(app.session.game_id).setup["house_rules"] == {"tie": "exile"}
    app.leave_game()

    # The screen in French and German: the toy's words and the shell's heading in each.
    try:
        for lang in ("fr", "de"):
            i18n.set_language(lang)
            add_words()
            app._rebuild_screens()
            setup = _start_toy(driver)
            driver.scroll_into_view(_readings(setup)["tie"]["exile"])
            texts = driver.visible_texts()
            assert i18n.tr("setup.house_rules") in texts and i18n.tr("toy.house.tie") in texts, texts
            assert i18n.tr("setup.house_rules") != "House rules"
            driver.screenshot(f"app/house_rules_setup_{lang}")
    finally:
        i18n.set_language("en")
        app._rebuild_screens()


@pytest.mark.app
def test_a_game_without_house_rules_shows_none_and_records_none(driver, monkeypatch):
    from .toy_ui import UI
    monkeypatch.setattr(UI.rules, "house_rules", ())
    setup = _start_toy(driver)
    assert not setup.ids.house_rules.children and tr("setup.house_rules") not in driver.visible_texts()
    driver.tap(setup.ids.start_button)
    app = driver.app
    assert "house_rules" not in app.journal.game(app.session.game_id).setup
