"""The mask game on the tablet, from deal to winner, in the real app under X (1280x800).

Screenshots go to test-artifacts/masks/. The narration runs on the engines' FakeClock with the
caption speaker (the espeak recording of the Hidden Phase is tests/games/test_masks_narration.py).
"""
from __future__ import annotations

import pytest

import time

from kivy.tests.common import UnitTestTouch

from companion.core.i18n import tr

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve"]


def phase(driver) -> str:
    return driver.app.view.get("phase", "")


def run_hidden_phase(driver, limit=600):
    spent = 0
    while phase(driver) == "hidden" and spent < limit:
        driver.advance(30, step=0.25)
        spent += 30
    assert phase(driver) == "discussion", f"still {phase(driver)} after {spent} s"


def hold(driver, widget, limit: float = 20.0):
    """Press a HoldButton until it acts, then let go. (The driver's fixed-length hold can let
    go a frame too early when frames are slow on a loaded machine.)"""
    fired = []
    widget.bind(on_hold=lambda *_: fired.append(True))
    x, y = widget.to_window(*widget.center)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    end = time.monotonic() + limit
    while not fired and time.monotonic() < end:
        driver.pump(1)
    touch.touch_up()
    driver.pump(3)
    assert fired, "the hold never completed"


def cast_votes(driver, ballots: dict):
    """Pass-and-play through the real vote screen: each voter holds their name and taps a
    choice; the screen goes opaque and is passed on."""
    screen = driver.app.screen("vote")
    for voter, choice in ballots.items():
        assert driver.app.sm.current == "vote"
        hold(driver, driver.find(cls="VoterButton", voter=voter))
        assert screen.mode == "choose"
        offered = {b.option for b in driver.find_all(root=screen, cls="ChoiceButton")}
        assert voter not in offered and "center" in offered  # never oneself; the Bystanders
        driver.tap(driver.find(cls="ChoiceButton", option=choice))
        if driver.app.sm.current == "vote" and screen.mode == "done":
            screen._hide_done()   # it hides itself after a moment (test_touches_app waits)
        driver.pump(4)   # the list laid out again before the next hold


def send_votes(driver, ballots: dict):
    """Votes as commands, where the vote screen is not the point of the test."""
    for voter, choice in ballots.items():
        assert driver.app.send("cast_ballot", voter=voter, choice=choice)
    driver.pump(4)
    assert driver.app.sm.current == "reveal"


def start_at_the_vote(driver):
    """A new game, on to its pointing vote (no Vanguard used)."""
    driver.start_game("masks", NAMES)
    app = driver.app
    for kind in ("start_hidden_phase", "end_hidden_phase", "end_discussion"):
        app.send(kind)
    driver.pump(4)
    return app


def switch_language(driver, name: str):
    """Through the real settings screen, then back to play (the driver's reset puts English back)."""
    app = driver.app
    driver.tap(driver.find(root=app.root, text=tr("app.settings")))
    app.screen("settings").ids.language.text = name
    driver.pump(2)
    driver.tap(app.screen("settings").ids.save)
    driver.pump(6)
    app.go_home()
    driver.pump(4)


def spoken(driver) -> list[str]:
    return [e.text for e in driver.app.narrator.history]


@pytest.mark.app
def test_a_whole_round_from_deal_to_winner(driver):
    driver.start_game("masks", NAMES)
    app = driver.app
    assert app.sm.current == "masks.deal"
    assert driver.find(contains=tr("masks.deal.bystanders"))
    driver.screenshot("masks/1_deal")
    driver.tap(driver.screen.ids.start_button)

    # --- the Hidden Phase, narrated
    assert app.sm.current == "masks.hidden"
    driver.advance(32)  # step 3's action line is being said
    hidden = driver.screen
    assert hidden.step == 3 and "Spy, open your eyes." in hidden.step_text
    assert app.caption  # the spoken line is captioned at the bottom
    driver.screenshot("masks/2_hidden_phase")
    driver.tap(hidden.ids.repeat_button)  # "a step can be repeated if the table asks"
    driver.advance(1)
    assert spoken(driver).count("Spy, open your eyes.") == 2
    driver.tap(hidden.ids.pause_button)
    assert app.narrator.paused and hidden.paused
    driver.advance(20)  # the table talks; the narrator waits
    assert hidden.step == 3
    driver.tap(hidden.ids.pause_button)
    assert not app.narrator.paused
    driver.tap(hidden.ids.slower_button)
    assert app.narrator.pace == pytest.approx(0.9)
    driver.tap(hidden.ids.faster_button)
    run_hidden_phase(driver)
    for step_words in ("Everyone, close your eyes.", "Harlot, stick out your thumb.",
                       "Martyr, stick out your thumb.", "King, close your eyes."):
        assert step_words in spoken(driver)
    assert any("move your Identity card around slightly" in t for t in spoken(driver))

    # --- the Discussion: 7 minutes, warnings, the Mask card, the Vanguard
    assert app.sm.current == "masks.discussion"
    discussion = driver.screen
    assert discussion.remaining == "7:00"
    assert any("You have 7 minutes to talk." in t for t in spoken(driver))
    driver.advance(30)
    assert discussion.remaining == "6:30"
    hold(driver, driver.find(cls="MasksVanguardButton", text="Cat"))
    assert app.view["vanguard"] == "Cat"
    assert driver.find(contains="Cat used the Vanguard")
    assert driver.find(contains="Mendicant: cannot speak")
    assert driver.find(contains="cannot be used by its new owner")
    driver.advance(2)
    driver.screenshot("masks/3_discussion_timer")
    driver.advance(390 - 60 + 1)  # into the last minute
    assert "One minute left." in spoken(driver)
    assert discussion.urgent
    driver.advance(61)  # time is up: straight to the vote
    assert phase(driver) == "voting" and app.sm.current == "vote"
    driver.advance(20)
    assert any(t.startswith("Time is up. On the count of three") for t in spoken(driver))
    assert ["One.", "Two.", "Three. Vote!"] == [t for t in spoken(driver) if t in ("One.", "Two.", "Three. Vote!")]

    # --- the secret vote, pass and play; the Vanguard already abstained
    vote = app.view["vote"]
    assert vote["voted"] == ["Cat"] and "ballots" not in vote
    cast_votes(driver, {"Ann": "Dan", "Ben": "Dan", "Dan": "Ann", "Eve": "Dan"})
    assert app.sm.current == "reveal"
    driver.count_in()
    driver.screenshot("masks/4_vote_reveal")
    driver.continue_reveal()

    # --- the rulebook's order: the most-voted player checks their own card; the Executioner
    # shows it alone and chooses; only then is every Identity turned over
    assert app.sm.current == "masks.executioner"
    check = driver.screen
    assert phase(driver) == "executioner_check" and "identities" not in app.view
    assert "Most votes: Dan" in check.prompt and "show that card alone" in check.prompt
    driver.advance(10)   # the reveal's count-in line is said before the game's own words
    assert any("Only the Executioner with the most votes shows their card" in t for t in spoken(driver))
    driver.screenshot("masks/5_executioner_check")
    hold(driver, driver.find(cls="MasksTargetButton", player="Dan"))
    assert phase(driver) == "executioner" and app.sm.current == "masks.executioner"
    assert "Dan holds the Executioner" in app.view["prompt"]
    driver.advance(20)  # the narrator finishes the line before
    assert app.view["prompt"] in spoken(driver)  # said aloud too
    assert "identities" not in app.view  # nobody else's card is face up yet
    driver.screenshot("masks/6_executioner")
    assert not driver.find_all(root=driver.screen, cls="MasksTargetButton", text="Dan")
    hold(driver, driver.find(cls="MasksTargetButton", text="Ann"))

    assert app.sm.current == "masks.identities"
    ids = driver.screen
    driver.advance(20)
    assert "Dan (the Executioner) chose Ann" in ids.prompt and ids.prompt in spoken(driver)
    assert ids.chosen == {"Dan": "Executioner"}  # the card already shown
    final = {"Ann": "Queen", "Ben": "Spy", "Cat": "Harlot", "Eve": "Martyr"}
    for name, identity in final.items():
        driver.tap(driver.find(cls="MasksCardToggle", player=name, identity=identity))
    assert ids.center() == ["Pamphleteer", "Fugitive", "King"]
    assert "Pamphleteer, Fugitive, King" in ids.center_text
    # a Royalist the rule would not allow is warned about, in the rule's words; not refused
    driver.tap(driver.find(cls="MasksRoyalistToggle", player="Cat"))
    assert "does not sit next to Ann" in ids.warnings and "adjacent player to their left or right" in ids.warnings
    driver.tap(driver.find(cls="MasksRoyalistToggle", player="Eve"))
    assert "The Martyr cannot be selected as a Royalist." in ids.ids.warnings.text
    driver.screenshot("masks/7_identities_royalist_warning")
    driver.tap(driver.find(cls="MasksRoyalistToggle", player="Ben"))
    assert ids.warnings == ""
    driver.screenshot("masks/8_identities")
    driver.tap(ids.ids.submit_button)

    # --- the result
    assert app.sm.current == "masks.result"
    view = app.view
    assert (view["eliminated"], view["result"], view["winners"]) == (["Ann"], "people", ["Cat", "Dan"])
    result = driver.screen
    assert result.headline == "The People win"
    assert "Dan holds the Executioner and chose Ann instead" in result.detail
    driver.advance(10)
    driver.screenshot("masks/9_result")
    assert app.journal.game(app.session.game_id).status == "finished"


@pytest.mark.app
def test_the_app_tells_the_table_which_reading_it_applied(driver):
    driver.start_game("masks", NAMES, options={"discussion_minutes": 3})
    app = driver.app
    app.send("start_hidden_phase")
    app.send("end_hidden_phase")
    assert driver.screen.remaining == "3:00"
    app.send("end_discussion")
    driver.pump(4)
    send_votes(driver, {"Ann": "Cat", "Ben": "Cat", "Cat": "center", "Dan": "center", "Eve": "Ann"})
    driver.continue_reveal()
    assert driver.app.sm.current == "masks.executioner"
    hold(driver, driver.find(cls="MasksTargetButton", player=""))  # Cat does not hold it
    assert driver.app.sm.current == "masks.identities"
    ids = driver.screen
    for name, identity in zip(NAMES, ["Queen", "King", "Spy", "Pamphleteer", "Martyr"]):
        ids.pick(name, identity)
    ids.submit()
    driver.pump(4)
    assert driver.app.sm.current == "masks.result"
    assert "center cannot be eliminated" in driver.screen.readings
    assert driver.screen.headline == "The Royals win"
    driver.screenshot("masks/10_result_center_tie")


@pytest.mark.app
def test_an_interrupted_round_resumes_in_the_discussion(driver):
    driver.start_game("masks", NAMES)
    app = driver.app
    app.send("start_hidden_phase")
    app.send("end_hidden_phase")
    app.send("use_vanguard", player="Eve")
    game_id = app.session.game_id
    app.leave_game()
    driver.pump(4)
    assert app.sm.current == "picker"
    assert app.resume_game(game_id)
    driver.advance(1)
    assert app.sm.current == "masks.discussion"
    assert app.view["vanguard"] == "Eve"
    assert driver.screen.remaining.startswith(("7:", "6:"))
    app.send("end_discussion")
    driver.pump(4)
    assert app.sm.current == "vote" and app.view["vote"]["voted"] == ["Eve"]


@pytest.mark.app
def test_a_refused_entry_is_one_line_and_changes_nothing(driver):
    app = start_at_the_vote(driver)
    send_votes(driver, {"Ann": "Ben", "Ben": "Ann", "Cat": "Ann", "Dan": "Ann", "Eve": "Ann"})
    driver.continue_reveal()
    app.send("executioner_check", player=None)
    driver.pump(4)
    before = len(app.session.events)
    ids = driver.screen
    for name in NAMES[:4]:
        ids.pick(name, "Spy")  # the same card for four players: the rules refuse it
    ids.pick("Eve", "Queen")
    ids.submit()
    driver.pump(4)
    toast = app.root.ids.toast.message
    assert "Spy appears twice" in toast and "\n" not in toast
    assert len(app.session.events) == before and app.sm.current == "masks.identities"


@pytest.mark.app
def test_undo_in_a_secret_vote_never_brings_back_a_ballot_that_was_changed(driver):
    # Found by the secrecy audit: Ann voted Ben, changed to Cat; Undo on the top bar (enabled on
    # the public voter list) brought "Ben" back and the reveal showed it as hers.
    app = start_at_the_vote(driver)
    cast_votes(driver, {"Ann": "Ben"})
    cast_votes(driver, {"Ann": "Cat"})   # changed in secret
    undo = app.root.ids.undo_button       # the top bar's
    assert not undo.disabled
    driver.tap(undo)
    driver.pump(4)
    assert app.view["vote"]["voted"] == []  # she is back to not having voted
    assert "Ann" not in app.session.state.book.current.ballots
    cast_votes(driver, {"Ann": "Dan"})
    send_votes(driver, {"Ben": "Ann", "Cat": "Ann", "Dan": "Ann", "Eve": "Ann"})
    assert app.view["vote_history"][-1]["ballots"]["Ann"] == "Dan"


@pytest.mark.app
def test_a_mistapped_pointing_is_corrected_after_the_reveal_through_the_screens(driver):
    # Found by the corrections audit: Ann meant Cat but tapped Ben; the reveal showed "A tie: Ben,
    # Cat", both were eliminated, and Undo could not help ("a revealed vote cannot be taken back
    # into a secret"). The pointing is public, so the table sets it right after the reveal.
    app = start_at_the_vote(driver)
    cast_votes(driver, {"Ann": "Ben", "Ben": "Cat", "Cat": "Ben", "Dan": "Cat", "Eve": "Dan"})
    assert app.sm.current == "reveal"
    driver.continue_reveal()
    assert app.sm.current == "masks.executioner" and app.view["most_voted"] == ["Ben", "Cat"]
    check = driver.screen
    button = check.ids.correct_button
    assert not button.disabled and button.opacity == 1 and button.text == "Correct a pointing"
    driver.tap(button)

    # --- the correct screen: whose pointing, what they really pointed at, why
    assert app.sm.current == "masks.correct"
    correct = driver.screen
    voters = {b.value: b.text for b in driver.find_all(root=correct, cls="MasksCorrectToggle")}
    assert voters == {"Ann": "Ann: Ben", "Ben": "Ben: Cat", "Cat": "Cat: Ben", "Dan": "Dan: Cat",
                      "Eve": "Eve: Dan"}   # as the tablet has them
    driver.tap(correct.ids.record_button)   # nothing picked yet: said, nothing recorded
    assert app.root.ids.toast.message == "First tap whose pointing is wrong."
    driver.tap(driver.find(root=correct.ids.voters, cls="MasksCorrectToggle", value="Ann"))
    assert correct.really == "What did Ann really point at?"
    offered = [b.value for b in driver.find_all(root=correct.ids.choices, cls="MasksCorrectToggle")]
    assert sorted(offered) == sorted(["Cat", "Dan", "Eve", "center"])   # not herself, not Ben again
    assert driver.find(root=correct.ids.choices, cls="MasksCorrectToggle", value="center").text == "Bystanders"
    driver.tap(driver.find(root=correct.ids.choices, cls="MasksCorrectToggle", value="Cat"))
    before = len(app.session.events)
    driver.tap(correct.ids.record_button)   # no reason yet: asked for, nothing recorded
    assert app.root.ids.toast.message == "Say why first (one line)."
    assert len(app.session.events) == before and app.sm.current == "masks.correct"
    driver.type_into(correct.ids.reason, "Ann tapped Ben by mistake")
    app.root.ids.toast.message = ""   # the toast fades by itself after a few seconds
    driver.screenshot("masks/11_correct_a_pointing")
    driver.tap(correct.ids.record_button)

    # --- back on the check, decided again: Cat alone has the most votes
    assert app.sm.current == "masks.executioner"
    view = app.view
    assert view["most_voted"] == ["Cat"] and view["vote_history"][-1]["ballots"]["Ann"] == "Cat"
    assert "Most votes: Cat." in check.prompt and "Ben" not in check.prompt
    assert check.corrections == "Corrected: Ann pointed at Cat, not Ben (Ann tapped Ben by mistake)."
    assert driver.find(contains="Corrected: Ann pointed at Cat")
    assert [b.player for b in driver.find_all(root=check, cls="MasksTargetButton")] == ["Cat", ""]
    for _ in range(12):   # said after the lines queued before it (the vote's script, the count-in)
        if any(t.startswith("Correction: Ann pointed at Cat.") for t in spoken(driver)):
            break
        driver.advance(10)
    said = [t for t in spoken(driver) if t.startswith("Correction: Ann pointed at Cat.")]
    assert said and "Most votes: Cat." in said[0], spoken(driver)
    driver.screenshot("masks/12_corrected_check")

    # the correction is a table action: Undo names it and takes it back, Redo puts it back
    assert app.can_undo
    driver.tap(app.root.ids.undo_button)
    assert app.view["most_voted"] == ["Ben", "Cat"]
    app.redo()
    driver.pump(4)
    assert app.view["most_voted"] == ["Cat"]

    # --- once the check is answered the count is settled: the button is gone
    hold(driver, driver.find(cls="MasksTargetButton", player=""))   # Cat does not hold it
    assert app.sm.current == "masks.identities"
    ids = driver.screen
    assert not ids.can_correct and ids.ids.correct_button.opacity == 0
    assert not app.send("correct_pointing", voter="Eve", choice="Cat", reason="late")
    assert "Too late to correct a pointing" in app.root.ids.toast.message
    for name, identity in zip(NAMES, ["Queen", "King", "Spy", "Pamphleteer", "Martyr"]):
        ids.pick(name, identity)
    ids.submit()
    driver.pump(4)
    assert app.sm.current == "masks.result"
    assert app.view["eliminated"] == ["Cat"]   # not "Ben, Cat": the tie was a mis-tap
    assert "Corrected: Ann pointed at Cat, not Ben" in driver.screen.readings
    app.root.ids.toast.message = ""   # the "too late" toast fades by itself
    driver.screenshot("masks/13_result_after_correction")


@pytest.mark.app
def test_the_correction_is_offered_on_the_identities_screen_when_nobody_checks(driver):
    app = start_at_the_vote(driver)
    send_votes(driver, {"Ann": "center", "Ben": "center", "Cat": "Dan", "Dan": "Ann", "Eve": "center"})
    driver.continue_reveal()
    assert app.sm.current == "masks.identities"
    ids = driver.screen
    assert ids.can_correct and ids.ids.correct_button.opacity == 1
    driver.tap(ids.ids.correct_button)
    assert app.sm.current == "masks.correct"
    correct = driver.screen
    driver.tap(correct.ids.back_button)   # Back: nothing changed
    assert app.sm.current == "masks.identities"
    driver.tap(driver.screen.ids.correct_button)
    driver.tap(driver.find(root=correct.ids.voters, cls="MasksCorrectToggle", value="Eve"))
    driver.tap(driver.find(root=correct.ids.choices, cls="MasksCorrectToggle", value="Dan"))
    driver.type_into(correct.ids.reason, "Eve pointed at Dan")
    driver.tap(correct.ids.record_button)
    # Dan is now on top with the center: Dan looks for the Executioner first
    assert app.sm.current == "masks.executioner" and app.view["top_players"] == ["Dan"]


@pytest.mark.app
def test_a_pointing_is_corrected_from_the_reveal_where_the_table_notices_it(driver):
    # Issue 33: the reveal shows every pointing under its choice; the table sees there that Ann's
    # went to Ben, not Cat. "Correct a pointing" is on the reveal itself.
    app = start_at_the_vote(driver)
    send_votes(driver, {"Ann": "Ben", "Ben": "Cat", "Cat": "Ben", "Dan": "Cat", "Eve": "Dan"})
    reveal = app.screen("reveal")
    button = reveal.ids.correct_button
    assert button.disabled   # not during the count-in: the ballots are not face up yet
    driver.count_in()
    assert not button.disabled and button.opacity == 1 and button.text == "Correct a pointing"
    driver.screenshot("masks/16_reveal_correct_a_pointing")
    driver.tap(button)
    assert app.sm.current == "masks.correct"
    correct = driver.screen
    driver.tap(driver.find(root=correct.ids.voters, cls="MasksCorrectToggle", value="Ann"))
    driver.tap(driver.find(root=correct.ids.choices, cls="MasksCorrectToggle", value="Cat"))
    driver.type_into(correct.ids.reason, "Ann tapped Ben by mistake")
    driver.tap(correct.ids.record_button)
    # the reveal counts as seen: back to play, decided again (Cat alone on top)
    assert app.sm.current == "masks.executioner"
    assert app.view["most_voted"] == ["Cat"] and app.view["vote_history"][-1]["ballots"]["Ann"] == "Cat"
    assert driver.screen.corrections == "Corrected: Ann pointed at Cat, not Ben (Ann tapped Ben by mistake)."
    driver.screenshot("masks/17_after_correction_from_reveal")
    # a game whose view allows no correction shows no button on its reveal
    assert app.game_ui.reveal_correction({"can_correct": False}) == ""


@pytest.mark.app
def test_the_correct_screen_in_german_fits(driver):
    # (the driver's reset puts the app back in English for the next test)
    app = start_at_the_vote(driver)
    send_votes(driver, {"Ann": "Ben", "Ben": "Cat", "Cat": "Ben", "Dan": "Cat", "Eve": "Dan"})
    driver.continue_reveal()
    switch_language(driver, "Deutsch")
    assert app.sm.current == "masks.executioner"
    driver.tap(driver.screen.ids.correct_button)
    correct = driver.screen
    assert app.sm.current == "masks.correct"
    driver.tap(driver.find(root=correct.ids.voters, cls="MasksCorrectToggle", value="Ann"))
    driver.tap(driver.find(root=correct.ids.choices, cls="MasksCorrectToggle", value="center"))
    assert "Eine Stimme korrigieren" in driver.visible_texts()
    assert "Worauf hat Ann wirklich gezeigt?" in driver.visible_texts()
    driver.screenshot("masks/14_correct_a_pointing_de")
    driver.set_size(800, 1280)   # a portrait tablet: 3 buttons a row
    driver.pump(6)
    assert correct.ids.voters.cols == 3
    driver.screenshot("masks/15_correct_a_pointing_de_portrait")
    switch_language(driver, "English")   # not left behind for the next test in this process


def start_with_house_rules(driver, house: dict):
    """A new game whose house rules are tapped on the table-setup screen (the shell lists the
    game's ``HOUSE_RULES``), on to the vote."""
    app = driver.app
    driver.start_game("masks", NAMES, house_rules=house)
    assert app.session.setup["house_rules"] == {**{h.name: h.default for h in app.game_ui.rules.house_rules}, **house}
    for kind in ("start_hidden_phase", "end_hidden_phase", "end_discussion"):
        app.send(kind)
    driver.pump(4)
    return app


@pytest.mark.app
def test_a_house_rule_is_shown_on_the_screens_that_decide(driver):
    # Issue 33: "a tie for most votes between the center and a player" -- this group reads it as
    # eliminating nobody. Cat ties with the center: nobody looks for the Executioner; the Identities
    # screen and the result say which rule applied, with the rulebook's words.
    app = start_with_house_rules(driver, {"center_tie": "nobody_out"})
    send_votes(driver, {"Ann": "Cat", "Ben": "Cat", "Cat": "center", "Dan": "center", "Eve": "Ann"})
    driver.continue_reveal()
    assert app.sm.current == "masks.identities"   # no check: nobody is eliminated
    ids = driver.screen
    assert ids.house == ("House rule: A tie with the center eliminates nobody. (the rulebook: "
                         "“If multiple people tie for the most votes, they all are eliminated.”)")
    assert driver.find(contains="House rule: A tie with the center eliminates nobody.")
    driver.screenshot("masks/18_house_rule_identities")
    for name, identity in zip(NAMES, ["Spy", "King", "Queen", "Pamphleteer", "Martyr"]):
        ids.pick(name, identity)
    ids.submit()
    driver.pump(4)
    assert app.sm.current == "masks.result"
    assert app.view["eliminated"] == [] and driver.screen.headline == "The Royals win"
    assert "House rule: A tie with the center eliminates nobody." in driver.screen.readings
    driver.screenshot("masks/19_house_rule_result")
    driver.screen.ids.readings.parent.parent.scroll_y = 0   # the readings, under the rows
    driver.screenshot("masks/19b_house_rule_result_readings")


@pytest.mark.app
@pytest.mark.parametrize("house, language, screen, applied, words, shot", [
    # the Executioner tie at its default reading, on the check screen, in French
    ({}, "Français", "masks.executioner", "Règle appliquée : Le Bourreau à égalité en tête choisit",
     "« Si vous recevez le plus de votes", "20_rule_applied_check_fr"),
    # all_out: players tied at the top are all eliminated, the Executioner gets no choice, so
    # nobody looks for the card: the Identities come next, with the rule applied, in German
    ({"executioner_tie": "all_out"}, "Deutsch", "masks.identities",
     "Hausregel: Nur die meisten Stimmen allein lassen den Henker wählen",
     "„Erhältst du in der Abstimmungsphase die meisten Stimmen", "21_house_rule_identities_de"),
], ids=["default-fr", "all_out-de"])
def test_the_executioner_tie_reading_is_shown_in_french_and_german(driver, house, language, screen, applied,
                                                                    words, shot):
    app = start_with_house_rules(driver, house)
    send_votes(driver, {"Ann": "Cat", "Ben": "Cat", "Cat": "Ann", "Dan": "Ann", "Eve": "Ben"})
    driver.continue_reveal()
    switch_language(driver, language)
    assert app.sm.current == screen
    assert driver.screen.house.startswith(applied) and words in driver.screen.house
    driver.screenshot(f"masks/{shot}")
    switch_language(driver, "English")   # not left behind for the next test in this process

