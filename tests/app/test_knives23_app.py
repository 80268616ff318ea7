"""23 Knives on the tablet, setup to winner, in the real app under X (1280x800), with
pass-and-play votes through the shell's vote screen. The game is the scripted demo game
(companion/games/knives23/demo.py), entered by taps; the final state must equal the state the
rules reach from the same commands. Screenshots go to test-artifacts/knives23/."""
from __future__ import annotations

import pytest

from companion.core.i18n import tr
from companion.games.knives23 import RULES, demo

NAMES = demo.SETUP["players"]
OPTIONS = {"curia_knowledge": True, "kalends_spaces": 4, "dagger_start": 2}


def phase(driver):
    return driver.app.view.get("phase", "")


def tap_text(driver, text, cls="K23Button"):
    driver.tap(driver.find(cls=cls, text=text))


def card_label(card):
    (kind, value), = card.items()
    return tr(f"knives23.card.{kind}_one") if value == 1 else tr(f"knives23.card.{kind}", value=value)


def expected_state():
    state = RULES.initial_state(demo.SETUP)
    from companion.core.events import Event
    for cmd in demo.commands():
        for kind, data in RULES.decide(state, cmd):
            state = RULES.evolve(state, Event(0, kind, data, cmd.source))
    return state


def hold(driver, widget, limit=6.0):
    """A real press held until the button acts (at most ``limit`` seconds): on a loaded 2-core
    machine a frame can take 0.4 s, so a fixed hold time is either flaky or slow."""
    import time

    from kivy.base import EventLoop
    from kivy.tests.common import UnitTestTouch
    fired = []
    widget.bind(on_hold=lambda *_: fired.append(1))
    driver.pump(2)
    touch = UnitTestTouch(*widget.to_window(*widget.center))
    touch.touch_down()
    end = time.monotonic() + limit
    while not fired and time.monotonic() < end:
        EventLoop.idle()
    touch.touch_up()
    driver.pump(3)
    assert fired, "the hold never completed"


def vote(driver, ballots):
    """Pass-and-play through the shell's real vote screen (as Driver.vote, with longer holds)."""
    app = driver.app
    vote_screen = app.screen("vote")
    for voter, choice in ballots.items():
        assert app.sm.current == "vote", f"expected the vote screen, on {app.sm.current}"
        hold(driver, driver.find(cls="VoterButton", voter=voter))
        assert vote_screen.mode == "private"
        hold(driver, vote_screen.ids.show_choices)
        assert vote_screen.mode == "choose"
        driver.tap(driver.find(cls="ChoiceButton", option=choice))
        if app.sm.current == "vote" and vote_screen.mode == "done":
            driver.tap(vote_screen.ids.done_button)


# Entered by taps in every round; the other turn steps are tapped in round 1 and sent directly
# after (the same commands the buttons send), to keep the test quick.
ALWAYS_TAPPED = {"cast_ballot", "tie_break", "curia_card", "tableau", "opportunist_play", "abilities_done",
                 "eyes_closed", "eyes_open", "issue_resolved"}


def play(driver, commands, shots, tap_until=None):
    """Enter each scripted command the way the table would: taps, holds, pass-and-play votes,
    a phone posting Curia cards to the app's command queue."""
    app = driver.app
    if tap_until is None:  # round 1 up to the Tribune's Issues, by taps
        tap_until = next(n for n, c in enumerate(commands) if c.kind == "place_issues") + 1
    i = 0
    while i < len(commands):
        cmd = commands[i]
        k, d = cmd.kind, cmd.data
        screen = driver.screen
        if i >= tap_until and k not in ALWAYS_TAPPED:
            assert app.send_command(cmd), (i, cmd, app.root.ids.toast.message)
            if k == "play_fate" and app.view["forum"]["count"] == 4:
                driver.pump(3)
                shots.setdefault("board2", driver.screenshot("knives23/2b_board_black_space"))
        elif k == "tick_setup":
            driver.tap(driver.find(cls="K23CheckButton", step=d["step"]))
        elif k == "begin_play":
            driver.tap(screen.ids.begin_button)
        elif k == "move":
            tap_text(driver, tr(f"knives23.location.{d['location']}"))
        elif k == "play_fate":
            tap_text(driver, tr("knives23.card.facedown") if d.get("facedown") else card_label(d["card"]))
            if shots.get("board") is None and app.view["forum"]["count"] == 2:
                shots["board"] = driver.screenshot("knives23/2_board_forum_kalends")
        elif k == "call_exile":
            tap_text(driver, tr("knives23.ui.call_exile"))
            tap_text(driver, d["target"])
        elif k == "sway":
            tap_text(driver, tr("knives23.ui.sway", player=d["target"]))
        elif k == "next_step":
            turn = app.view["turn"]
            end = turn["step"] == "discard" and not turn["is_tribune"]
            tap_text(driver, tr("knives23.ui.end_turn" if end else "knives23.ui.next_step"))
        elif k == "place_issues":
            driver.type_into(screen.red, d["red"])
            driver.type_into(screen.grey, d["grey"])
            tap_text(driver, tr("knives23.ui.place_issues"))
        elif k == "cast_ballot":
            ballots = {}
            while i < len(commands) and commands[i].kind == "cast_ballot":
                ballots[commands[i].data["voter"]] = commands[i].data["choice"]
                i += 1
            assert app.sm.current == "vote"
            assert "ballots" not in app.view["vote"]       # the table never sees a ballot early
            vote(driver, ballots)
            assert app.sm.current == "reveal"
            if shots.get("reveal") is None:
                shots["reveal"] = driver.screenshot("knives23/3_exile_vote_reveal")
            driver.tap(driver.screen.ids.continue_button)
            continue
        elif k == "tie_break":
            assert app.sm.current == "knives23.decision"
            shots.setdefault("tie", driver.screenshot("knives23/4_issue_tie"))
            hold(driver, driver.find(cls="K23Hold", choice=d["choice"]))
        elif k == "eyes_closed":
            shots.setdefault("issue", driver.screenshot("knives23/4b_issue_resolve"))
            tap_text(driver, tr(f"knives23.group.{d['group']}"))
            assert phase(driver) == "eyes_closed"
            driver.advance(14)
            shots.setdefault("eyes", driver.screenshot("knives23/5_eyes_closed"))
        elif k == "eyes_open":
            spent = 0
            while phase(driver) == "eyes_closed" and spent < 400:
                driver.advance(5)
                spent += 5
            assert phase(driver) == "issue_resolve", "the narration never reopened everyone's eyes"
        elif k == "issue_resolved":
            driver.tap(screen.ids.kalends_yes if d["kalends"] else screen.ids.kalends_no)
        elif k == "abilities_done":
            shots.setdefault("abilities", driver.screenshot("knives23/6_end_abilities"))
            driver.tap(screen.abilities_button)
        elif k == "curia_card":
            if cmd.source.startswith("phone:"):
                app.commands.post(cmd)   # the phone server's thread posts; the main thread drains
                driver.wait(0.2)
            else:
                tap_text(driver, card_label(d["card"]))
            if app.view.get("end", {}).get("revealed_count") == 6:
                driver.advance(3)
                shots.setdefault("curia", driver.screenshot("knives23/7_curia_reveal"))
            if app.view.get("phase") == "tableaux" and app.sm.current == "knives23.curia":
                # the verdict's screen waits until the voice has said the last total
                spent = 0
                while app.sm.current == "knives23.curia" and spent < 60:
                    driver.advance(1)
                    spent += 1
                assert any(f"The total is {app.view['end']['running_total']}." in e.text
                           for e in app.narrator.history)
        elif k == "tableau":
            if d["player"] == "Ann":   # one tableau by its real buttons, the rest set directly
                for _ in range(d["citizen"].get("blood", 0)):
                    driver.tap(driver.find(cls="K23Button", bump=("blood", 1)))
                for card in d["sway"]:
                    (kind, n), = card.items()
                    tap_text(driver, "+ " + tr(f"knives23.ui.sway_{kind}", n=n))
            else:
                screen.enter_tableau(d["player"], d["citizen"], d["sway"])
            if d["player"] == "Cy":
                shots.setdefault("tableaux", driver.screenshot("knives23/8_tableaux"))
            driver.tap(screen.confirm_button)
        elif k == "opportunist_play":
            for card in d["cards"]:
                tap_text(driver, card_label(card))
            driver.tap(screen.play_button)
        else:
            raise AssertionError(f"no way to enter {k} on the tablet")
        i += 1


@pytest.mark.app
def test_a_whole_game_from_setup_to_winner_on_the_tablet(driver):
    driver.start_game("knives23", NAMES, first="Ann", options=OPTIONS)
    app = driver.app
    assert app.sm.current == "knives23.checklist"
    assert driver.find(contains="Place the Dagger on space 2 of 4 (4 players)")
    assert driver.find(contains="remove the Issues with the 5+ icon")
    driver.screenshot("knives23/1_setup_checklist")
    shots = {}
    play(driver, demo.commands(), shots)

    assert app.sm.current == "knives23.result"
    view = app.view
    assert view["end"]["result"]["winners"] == ["Bo", "Di"] and view["end"]["result"]["opportunists_win"]
    assert driver.screen.winners == "The Opportunists win: Bo, Di"
    # the same state as the rules reach from the scripted commands (ballot sources aside: the
    # script names vote boxes and phones, the test voted on the tablet)
    from dataclasses import replace
    expected = expected_state()
    assert replace(app.session.state, book=None) == replace(expected, book=None)
    assert [v.choices() for v in app.session.state.book.history] == [v.choices() for v in expected.book.history]
    assert app.journal.game(app.session.game_id).status == "finished"
    spent = 0
    while app.narrator.busy and spent < 1500:   # let the narrator catch up (engines' clock)
        driver.advance(60, step=0.5)
        spent += 60
    driver.screenshot("knives23/9_result")
    spoken = [e.text for e in app.narrator.history]
    assert "Revealed Liberators, open your eyes and look around." in spoken
    assert any(t.endswith("The total is 22.") for t in spoken)
    assert set(shots) >= {"board", "reveal", "tie", "eyes", "curia", "tableaux"}


@pytest.mark.app
def test_refusals_show_one_line_and_change_nothing(driver):
    driver.start_game("knives23", NAMES, first="Ann", options={"kalends_spaces": 4, "dagger_start": 3})
    app = driver.app
    for step in ("I", "II", "III", "IV", "V", "VI", "VII"):
        app.send("tick_setup", step=step)
    app.send("begin_play")
    driver.pump(4)
    tap_text(driver, tr("knives23.location.forum"))
    assert app.view["kalends"]["on_black"]
    exile = driver.find(cls="K23Button", text=tr("knives23.ui.call_exile"))
    assert exile.disabled   # the Dagger is on a black space
    before = len(app.session.events)
    assert not app.send("call_exile", target="Bo")
    toast = app.root.ids.toast.message
    assert "final 2 black spaces" in toast and "\n" not in toast
    assert len(app.session.events) == before
    tap_text(driver, card_label({"knives": 5}))
    tap_text(driver, card_label({"knives": 3}))
    assert all(b.disabled for b in driver.find_all(root=driver.screen, cls="K23Button", text=card_label({"knives": 1})))


@pytest.mark.app
def test_an_interrupted_game_resumes_where_it_was(driver):
    driver.start_game("knives23", NAMES, first="Ann", options=OPTIONS)
    app = driver.app
    commands = demo.commands()
    n = next(i for i, c in enumerate(commands) if c.kind == "place_issues") + 3   # 2 ballots in
    for cmd in commands[:n]:
        assert app.send_command(cmd), cmd
    game_id = app.session.game_id
    state = app.session.state
    app.leave_game()
    driver.pump(4)
    assert app.resume_game(game_id)
    driver.pump(4)
    assert app.session.state == state
    assert app.sm.current == "vote" and app.view["vote"]["voted"] == ["Ann", "Bo"]
    vote(driver, {"Cy": "red", "Di": "grey"})
    driver.tap(driver.screen.ids.continue_button)
    assert app.sm.current == "knives23.decision" and app.view["phase"] == "issue_tie"


@pytest.mark.app
def test_quid_pro_quo_bribe_timer_then_the_vote(driver):
    """Quid Pro Quo: "you may take a moment to attempt to bribe the other Citizens" — a timer on
    the engines' clock, spoken warnings, then the table opens the vote."""
    driver.start_game("knives23", NAMES, first="Ann",
                      options={"quid_pro_quo": True, "bribe_seconds": 30})
    app = driver.app
    for step in ("I", "II", "III", "IV", "V", "VI", "VII"):
        app.send("tick_setup", step=step)
    app.send("begin_play")
    app.send("move", location="forum")
    driver.pump(3)
    tap_text(driver, tr("knives23.ui.call_exile"))
    tap_text(driver, "Cy")
    assert app.view["phase"] == "exile_called" and app.sm.current == "knives23.board"
    driver.advance(21)
    board = driver.screen
    assert board.bribe_label.text == "Cy may bribe the table: 0:09"
    driver.screenshot("knives23/10_quid_pro_quo_bribe")
    driver.advance(10)
    spoken = [e.text for e in app.narrator.history]
    assert "Ten seconds." in spoken and "Time is up." in spoken
    driver.tap(board.open_vote_button)
    assert app.sm.current == "vote" and app.view["vote"]["vote_id"] == "exile-1"
