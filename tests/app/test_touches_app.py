"""Fewer touches and reveals that say it (issue #18), in the real app under X: a 23 Knives turn
ended in one tap, a pass-and-play ballot in one hold and one tap that hides itself, choices in a
fresh order for each voter, Issues with no names typed, the count-in before every reveal and
the outcome as its headline with each ballot under its choice. Screenshots go to
test-artifacts/touches/."""
from __future__ import annotations

import time

import pytest

from companion.app.screens import vote as vote_screen_module
from companion.core.i18n import tr

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed"]


class Fingers:
    """Counts what a person's fingers do through the driver."""

    def __init__(self, driver):
        self.d, self.touches = driver, 0

    def tap(self, widget):
        self.touches += 1
        self.d.tap(widget)

    def hold(self, widget):
        self.touches += 1
        self.d.hold(widget)


def knives23_at_play(driver, names=NAMES):
    driver.start_game("knives23", names, first=names[0])
    driver.through_knives23_checklist()
    return driver.app.view["tribune"]


def button(driver, text):
    found = [b for b in driver.find_all(root=driver.screen, cls="K23Button", text=text) if not b.disabled]
    assert found, f"no {text!r} button on {driver.app.sm.current}"
    return found[0]


def turn(driver):
    return driver.app.view["turn"]


def vote_by_hand(driver, fingers, ballots, wait_for_hide=True):
    """One hold and one tap per voter; the "vote recorded" screen goes by itself."""
    app = driver.app
    screen = app.screen("vote")
    for voter, choice in ballots.items():
        assert app.sm.current == "vote", app.sm.current
        end = time.monotonic() + 10
        while screen.mode == "done" and time.monotonic() < end:   # the last voter's "vote is in"
            driver.wait(0.1)
        fingers.hold(driver.find(cls="VoterButton", voter=voter))
        assert screen.mode == "choose" and app.private
        fingers.tap(driver.find(cls="ChoiceButton", option=choice))
        if app.sm.current != "vote":
            break
        if wait_for_hide:
            end = time.monotonic() + 10
            while screen.mode == "done" and time.monotonic() < end:
                driver.wait(0.1)
            assert screen.mode == "list" and not app.private   # by itself, no tap
        else:
            screen._hide_done()


def headline_and_groups(driver):
    reveal = driver.app.screen("reveal")
    groups = {col.children[-1].text: [w.text for w in reversed(col.children[:-1]) if getattr(w, "text", "")]
              for col in reveal.ids.groups.children}
    return reveal.headline, groups


@pytest.mark.app
def test_an_ordinary_turn_is_the_move_and_one_end_turn_and_the_tribune_goes_to_the_issue_in_one(driver):
    tribune = knives23_at_play(driver)
    fingers = Fingers(driver)
    assert turn(driver)["player"] == "Ann" and tribune != "Ann"
    fingers.tap(button(driver, tr("knives23.location.baths")))
    assert turn(driver)["step"] == "action"
    driver.screenshot("touches/1_board_end_turn")
    fingers.tap(button(driver, tr("knives23.ui.end_turn")))
    assert turn(driver)["player"] == "Bo" and turn(driver)["step"] == "move"
    assert fingers.touches == 2
    # The steps are still there one by one when something is recorded at the Sway step.
    fingers.tap(button(driver, tr("knives23.location.gardens")))
    fingers.tap(button(driver, tr("knives23.ui.next_step")))
    assert turn(driver)["step"] == "sway"
    fingers.tap(button(driver, tr("knives23.ui.end_turn")))
    assert turn(driver)["player"] == "Cy"
    while turn(driver)["player"] != tribune:
        driver.tap(button(driver, tr("knives23.location.tiber")))
        driver.tap(button(driver, tr("knives23.ui.end_turn")))
    # The Tribune: the move and one tap to the Issue step (which they must resolve).
    before = fingers.touches
    fingers.tap(button(driver, tr("knives23.location.baths")))
    assert not driver.find_all(root=driver.screen, cls="K23Button", text=tr("knives23.ui.end_turn"))
    fingers.tap(button(driver, tr("touches.k23.to_issue")))
    assert turn(driver)["player"] == tribune and turn(driver)["step"] == "issue"
    assert fingers.touches - before == 2
    # undo takes back the last step only: nothing is lost, the table is one step back
    driver.app.undo()
    assert turn(driver)["step"] == "discard"


@pytest.mark.app
def test_an_exile_vote_is_one_hold_and_one_tap_each_then_a_count_in_and_the_outcome_in_words(driver):
    knives23_at_play(driver)
    app = driver.app
    driver.tap(button(driver, tr("knives23.location.baths")))
    driver.tap(button(driver, tr("knives23.ui.end_turn")))
    driver.tap(button(driver, tr("knives23.location.forum")))
    fingers = Fingers(driver)
    fingers.tap(button(driver, tr("knives23.ui.call_exile")))
    fingers.tap(button(driver, "Cy"))
    assert app.sm.current == "vote"
    screen = app.screen("vote")
    # 23 Knives never takes a reveal with ballots missing: the narrator's button is not there.
    force = screen.ids.force_reveal
    assert not screen.can_force and force.opacity == 0 and force.disabled and force.height == 0
    assert tr("vote.force_reveal") not in driver.visible_texts()
    driver.screenshot("touches/2_vote_list")
    # Each voter's button says its name (this module imports the vote screen before the app
    # starts: its .kv once came before app.kv, whose <-BigButton> dropped the buttons' rule).
    voters = driver.find_all(root=screen, cls="VoterButton")
    assert voters and all(b.text.startswith(f"[b]{b.voter}[/b]") for b in voters), [b.text for b in voters]
    assert all(tr("vote.hold_to_vote") in b.text and b.texture_size[0] > 0 for b in voters)
    fingers.hold(driver.find(cls="VoterButton", voter="Ann"))
    driver.screenshot("touches/3_vote_choices")
    fingers.tap(driver.find(cls="ChoiceButton", option="exile"))
    assert not screen.ids.choices.children   # the choices are gone with the tap
    if screen.mode == "done":   # it stays a moment (unless the machine was slower than that)
        driver.screenshot("touches/4_vote_recorded")
    vote_by_hand(driver, fingers, {"Bo": "exile"}, wait_for_hide=True)   # then goes by itself
    vote_by_hand(driver, fingers, {"Cy": "remain", "Di": "exile", "Ed": "remain"}, wait_for_hide=False)
    assert fingers.touches == 2 + 2 * 5
    # The last tap shows no ballot in the last voter's hands: the count-in comes first.
    assert app.sm.current == "reveal"
    reveal = app.screen("reveal")
    assert reveal.mode == "count_in" and reveal.count == "3"
    texts = driver.visible_texts()
    assert tr("touches.reveal.count_in") in texts and "Ann" not in " ".join(texts)
    driver.screenshot("touches/5_reveal_count_in")
    driver.advance(1.0)
    driver.wait(0.3)
    assert reveal.mode == "count_in" and reveal.count in ("3", "2")
    driver.count_in()
    headline, groups = headline_and_groups(driver)
    assert headline == "Cy is exiled"
    assert groups == {"Exile: 3": ["Ann", "Bo", "Di"], "Remain: 2": ["Cy", "Ed"]}
    driver.screenshot("touches/6_reveal_exiled")
    driver.advance(30)   # the voice: the count-in first, then the game's words on the result
    lines = [e.text for e in app.narrator.history]
    assert lines.index(tr("touches.reveal.count_in_say")) < next(i for i, t in enumerate(lines) if "Cy is exiled" in t)
    fingers.tap(reveal.ids.continue_button)
    assert app.sm.current == "knives23.board" and fingers.touches == 13
    driver.set_size(800, 1280)
    app.sm.current = "reveal"
    driver.count_in()
    driver.screenshot("touches/6b_reveal_exiled_portrait")
    driver.set_size(1280, 800)


@pytest.mark.app
def test_issues_need_no_names_typed(driver):
    tribune = knives23_at_play(driver)
    app = driver.app
    while turn(driver)["player"] != tribune:
        driver.tap(button(driver, tr("knives23.location.tiber")))
        driver.tap(button(driver, tr("knives23.ui.end_turn")))
    driver.tap(button(driver, tr("knives23.location.baths")))
    driver.tap(button(driver, tr("touches.k23.to_issue")))
    driver.screenshot("touches/7_issue_step_names_optional")
    assert tr("touches.k23.names_optional") in driver.visible_texts()
    driver.tap(button(driver, tr("knives23.ui.place_issues")))   # no names typed
    assert app.sm.current == "vote", app.root.ids.toast.message
    assert app.view["issues"]["red"] == "" and app.view["issues"]["grey"] == ""
    assert app.screen("vote").question == tr("knives23.vote.issue_question_unnamed")
    fingers = Fingers(driver)
    vote_by_hand(driver, fingers, {"Ann": "red", "Bo": "grey", "Cy": "red", "Di": "grey", "Ed": "red"},
                 wait_for_hide=False)
    driver.count_in()
    headline, groups = headline_and_groups(driver)
    assert headline == tr("touches.k23.passes_red") == "The red Issue passes"
    assert groups == {"Red: 3": ["Ann", "Cy", "Ed"], "Grey: 2": ["Bo", "Di"]}
    driver.screenshot("touches/8_reveal_issue")
    driver.continue_reveal()
    assert app.sm.current == "knives23.issue"
    assert app.view["prompt"] == "Resolve the red Issue. Does it show the Kalends icon?"


@pytest.mark.app
def test_a_remain_names_who_is_shamed_and_a_tie_says_the_tribune_decides(driver):
    knives23_at_play(driver, NAMES[:4])
    app = driver.app
    fingers = Fingers(driver)
    driver.tap(button(driver, tr("knives23.location.forum")))
    driver.tap(button(driver, tr("knives23.ui.call_exile")))
    driver.tap(button(driver, "Bo"))
    vote_by_hand(driver, fingers, {"Ann": "exile", "Bo": "remain", "Cy": "remain", "Di": "remain"},
                 wait_for_hide=False)
    driver.count_in()
    headline, groups = headline_and_groups(driver)
    assert headline == "Bo stays, and Ann is shamed"
    assert groups == {"Exile: 1": ["Ann"], "Remain: 3": ["Bo", "Cy", "Di"]}
    driver.continue_reveal()
    driver.tap(button(driver, tr("knives23.ui.end_turn")))
    tribune = app.view["tribune"]
    while turn(driver)["player"] != tribune:
        driver.tap(button(driver, tr("knives23.location.tiber")))
        driver.tap(button(driver, tr("knives23.ui.end_turn")))
    driver.tap(button(driver, tr("knives23.location.baths")))
    driver.tap(button(driver, tr("touches.k23.to_issue")))
    driver.type_into(driver.screen.red, "Ides of March")   # one name typed, the other not
    driver.tap(button(driver, tr("knives23.ui.place_issues")))
    assert app.view["issues"]["red"] == "Ides of March" and app.view["issues"]["grey"] == ""
    assert "the grey Issue" in app.screen("vote").question
    vote_by_hand(driver, fingers, {"Ann": "red", "Bo": "grey", "Cy": "red", "Di": "grey"}, wait_for_hide=False)
    driver.count_in()
    headline, groups = headline_and_groups(driver)
    assert headline == f"A tie: the Tribune, {tribune}, decides"
    assert groups == {"Red: 2": ["Ann", "Cy"], "Grey: 2": ["Bo", "Di"]}
    driver.screenshot("touches/9_reveal_tie")
    driver.continue_reveal()
    assert app.sm.current == "knives23.decision"
    assert tr("knives23.ui.choose_grey", issue="the grey Issue") in driver.visible_texts()


def test_the_choices_come_in_a_fresh_order_drawn_from_os_urandom_and_kept_nowhere(monkeypatch):
    options = ["a", "b", "c", "d", "e"]
    seen = {tuple(vote_screen_module.shuffled(options)) for _ in range(40)}
    assert len(seen) > 5   # 120 orders: 40 draws from os.urandom give many
    drawn = []
    real = vote_screen_module.os.urandom
    monkeypatch.setattr(vote_screen_module.os, "urandom", lambda n: drawn.append(n) or real(n))
    vote_screen_module.shuffled(options)
    assert drawn == [16]   # each order is seeded afresh from the OS, never from a game's seed


def test_an_issue_with_no_name_is_the_red_or_the_grey_issue_in_every_language():
    from companion.core import i18n
    from companion.core.events import BadInput, Command, Event
    from companion.games.knives23 import RULES
    from companion.games.knives23.rules import issue_name

    state = RULES.initial_state({"players": ["Ann", "Bo", "Cy", "Di"], "start_player": "Ann"})
    for cmd in [Command("confirm_board", {"spaces": 9, "black_spaces": 2, "dagger_start": 2,
                                          "forum": {"spaces": ["either"] * 5, "extra": "either"}}, "tablet")] + \
            [Command("tick_setup", {"step": s}, "tablet") for s in ("II", "III", "IV", "V", "VI", "VII")] + \
            [Command("begin_play", {}, "tablet")]:
        for kind, data in RULES.decide(state, cmd):
            state = RULES.evolve(state, Event(0, kind, data, "tablet"))
    while state.turn.player != state.tribune or state.turn.step != "issue":
        cmd = Command("move", {"location": "tiber" if state.locations[state.turn.player] != "tiber" else "baths"},
                      "tablet") if state.turn.step == "move" else Command("next_step", {}, "tablet")
        for kind, data in RULES.decide(state, cmd):
            state = RULES.evolve(state, Event(0, kind, data, "tablet"))
    with pytest.raises(BadInput):   # a name still has to be one line
        RULES.decide(state, Command("place_issues", {"red": "two\nlines"}, "tablet"))
    events = RULES.decide(state, Command("place_issues", {"grey": "Comet"}, "tablet"))
    assert events[0][1]["red"] == "" and events[0][1]["grey"] == "Comet"   # a value, not a sentence
    question = events[1][1]["question"]
    for lang, red in (("en", "the red Issue"), ("fr", "la Motion rouge"), ("de", "der rote Antrag")):
        assert red in i18n.text_of(question, lang)
    assert i18n.text_of(issue_name({"red": "", "grey": "Comet"}, "grey")) == "Comet"
