"""23 Knives on the tablet, setup to winner, in the real app under X (1280x800), with
pass-and-play votes through the shell's vote screen. The game is the scripted demo game
(companion/games/knives23/demo.py), entered by taps; the final state must equal the state the
rules reach from the same commands. Screenshots go to test-artifacts/knives23/."""
from __future__ import annotations

import pytest

from companion.core.i18n import tr
from companion.games.knives23 import RULES, demo, rules as k23rules

NAMES = demo.SETUP["players"]
K, D = demo.K, demo.D
OPTIONS = {"curia_knowledge": True, "kalends_spaces": 4, "dagger_start": 2}


def phase(driver):
    return driver.app.view.get("phase", "")


def tap_text(driver, text, cls="K23Button"):
    button = driver.find(cls=cls, text=text)
    driver.scroll_into_view(button)   # the Curia's cards sit in a list that scrolls
    driver.tap(button)


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

    from kivy.tests.common import UnitTestTouch

    from tests.app.driver import frame
    fired = []
    widget.bind(on_hold=lambda *_: fired.append(1))
    driver.pump(2)
    touch = UnitTestTouch(*widget.to_window(*widget.center))
    touch.touch_down()
    end = time.monotonic() + limit
    while not fired and time.monotonic() < end:
        frame()
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
        assert vote_screen.mode == "choose"
        driver.tap(driver.find(cls="ChoiceButton", option=choice))
        if app.sm.current == "vote" and vote_screen.mode == "done":
            vote_screen._hide_done()   # it hides itself after a moment (test_touches_app waits)


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
        elif k == "confirm_board":
            assert screen.board["spaces"] == d["spaces"] and screen.board["dagger_start"]["4"] == d["dagger_start"]
            driver.tap(screen.ids.confirm_button)
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
            driver.count_in()
            if shots.get("reveal") is None:
                shots["reveal"] = driver.screenshot("knives23/3_exile_vote_reveal")
            driver.continue_reveal()
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
                if d.get("another"):   # a phone scanned a card of this value: the tablet asks
                    assert screen.asking == d["card"]
                    shots.setdefault("another", driver.screenshot("knives23/7a_curia_scanned_or_another"))
                    driver.tap(screen.another_button)
                assert screen.asking is None
            if app.view.get("end", {}).get("revealed_count") == 6:
                driver.advance(3)
                shots.setdefault("curia", driver.screenshot("knives23/7_curia_reveal"))
            if app.view.get("phase") == "tableaux" and app.sm.current == "knives23.curia":
                # the verdict's screen waits until the voice has said the last total
                voice_says_the_verdict(driver)
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



def voice_says_the_verdict(driver, limit: float = 900):
    """The verdict's screen waits until the voice has said the last Curia total: on the test's
    clock the narrator says what it still has queued first (only what the test advances)."""
    spent = 0
    while driver.app.sm.current == "knives23.curia" and spent < limit:
        driver.advance(5)
        spent += 5

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


def begin_by_commands(app):
    """The setup ticked (the board as drawn) and play begun, by the commands the buttons send."""
    for step in k23rules.SETUP_STEPS:
        assert app.send("tick_setup", step=step)
    assert app.send("begin_play")


@pytest.mark.app
def test_refusals_show_one_line_and_change_nothing(driver):
    driver.start_game("knives23", NAMES, first="Ann", options={"kalends_spaces": 4, "dagger_start": 3})
    app = driver.app
    begin_by_commands(app)
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
    driver.continue_reveal()
    assert app.sm.current == "knives23.decision" and app.view["phase"] == "issue_tie"


@pytest.mark.app
def test_quid_pro_quo_bribe_timer_then_the_vote(driver):
    """Quid Pro Quo: "you may take a moment to attempt to bribe the other Citizens" — a timer on
    the engines' clock, spoken warnings, then the table opens the vote."""
    driver.start_game("knives23", NAMES, first="Ann",
                      options={"quid_pro_quo": True, "bribe_seconds": 30})
    app = driver.app
    begin_by_commands(app)
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


@pytest.mark.app
def test_a_sway_a_citizens_ability_calls_for_is_entered_from_the_effects_panel(driver):
    """Issue 33: Sempronia's Sway "must be resolved if a player gives a Fate card" — at the Baths
    (no Gardens, not the Sway step) and during a bribe, from the effects panel by taps."""
    driver.start_game("knives23", NAMES, first="Ann", options={"quid_pro_quo": True, "bribe_seconds": 30})
    app = driver.app
    begin_by_commands(app)
    app.send("move", location="baths")
    driver.pump(3)
    driver.tap(driver.screen.ids.effects_button)
    effects = driver.screen
    assert effects.name == "knives23.effects"
    driver.type_into(effects.ids.source, "Sempronia")
    assert effects.ability_line == "Ann Sways, by a Citizen's ability:"
    assert sorted(b.target for b in effects.ids.sway_targets.children) == ["Bo", "Cy", "Di"]
    driver.tap(next(b for b in effects.ids.sway_targets.children if b.target == "Bo"))
    assert app.session.events[-1].kind == "ability_swayed"
    assert effects.last_note == "Recorded: Sempronia: Ann Swayed Bo (a Citizen's ability)"
    assert app.view["turn"]["step"] == "action"     # the turn's own steps are still to come
    driver.screenshot("knives23/19_ability_sway")
    driver.tap(effects.ids.back_button)
    finish_turn(app, "Ann")
    # Bo calls a Vote to Exile on Cy; Di gives Cy a Fate card as a bribe: Sempronia Sways again
    app.send("move", location="forum")
    driver.pump(3)
    tap_text(driver, tr("knives23.ui.call_exile"))
    tap_text(driver, "Cy")
    assert app.view["phase"] == "exile_called"
    driver.tap(driver.screen.ids.effects_button)
    effects = driver.screen
    assert effects.name == "knives23.effects" and effects.ids.forum_effects.disabled
    driver.tap(next(b for b in effects.ids.players.children if b.player == "Di"))
    driver.type_into(effects.ids.source, "Sempronia")
    driver.tap(next(b for b in effects.ids.sway_targets.children if b.target == "Cy"))
    assert effects.last_note == "Recorded: Sempronia: Di Swayed Cy (a Citizen's ability)"
    driver.screenshot("knives23/20_ability_sway_bribe")
    driver.tap(effects.ids.back_button)
    assert app.sm.current == "knives23.board" and app.view["phase"] == "exile_called"
    app.goto("history")
    driver.pump(4)
    texts = driver.visible_texts()
    assert "Sempronia: Ann Swayed Bo (a Citizen's ability)" in texts
    assert "Sempronia: Di Swayed Cy (a Citizen's ability)" in texts


@pytest.mark.app
@pytest.mark.parametrize("house, lang", [(None, "en"), ({"tie_break": "net"}, "en"), ({"tie_break": "net"}, "fr"),
                                         ({"tie_break": "net"}, "de")])
def test_the_result_screen_names_the_tie_break_reading_that_decided(driver, house, lang):
    """Issue 33: the tie-break "fewest Laurels/Blood ... on their Citizen card" is shown on the
    result screen that it decides, with the rulebook's words; the group's house rule (the setup's
    ``house_rules``) changes the winner."""
    from companion.app import games as game_registry
    from companion.core import i18n
    from companion.core.events import Command
    from tests.games.test_knives23_referee import _demo_game_with_tied_loyalists
    app = driver.app
    game = _demo_game_with_tied_loyalists(house)
    if lang != "en":   # as Settings does (the driver's reset puts English back)
        i18n.set_language(lang)
        app._rebuild_screens()
    assert app.start_game(game_registry.load_ui("knives23"), game["setup"])
    driver.pump(3)
    for entry in game["commands"]:
        assert app.send_command(Command(entry["command"], {k: v for k, v in entry.items() if k != "command"},
                                        "tablet")), (entry, app.root.ids.toast.message)
    if app.sm.current == "reveal":   # the last vote's reveal, still on screen: its count-in waits
        driver.continue_reveal(most=900)   # for the whole game's lines queued before it
    voice_says_the_verdict(driver)
    driver.pump(3)
    assert app.sm.current == "knives23.result"
    screen = driver.screen
    assert app.view["end"]["result"]["winners"] == (["Ann"] if house else ["Ann", "Bo"])
    reading = "net" if house else "icons"
    assert screen.tie_break == i18n.tr("houserules.applies_house" if house else "houserules.applies",
                                       reading=i18n.tr(f"knives23.house.tie_break.{reading}"),
                                       words=i18n.tr("knives23.house.tie_break.rule"))
    assert screen.ids.tie_break.height > 0
    driver.screenshot(f"knives23/21_result_tie_break_{reading}_{lang}")


@pytest.mark.app
def test_a_card_a_phone_scanned_then_tapped_is_counted_once(driver):
    """Issue 32, hole 4: scan, then tap, counted the card twice. The tap asks whether it is the
    scanned card (counted once) or another card of that value; a value no phone scanned is
    counted at once."""
    from companion.core.events import Command
    driver.start_game("knives23", NAMES, first="Ann", options=OPTIONS)
    app = driver.app
    for cmd in demo.commands():
        assert app.send_command(cmd), (cmd, app.root.ids.toast.message)
        if cmd.kind == "abilities_done":
            break
    app.reveal_seen()
    driver.pump(4)
    assert app.sm.current == "knives23.curia"
    assert app.send_command(Command("curia_card", {"card": K(5), "serial": "080"}, "phone:p1"))
    driver.pump(2)
    screen = driver.screen
    tap_text(driver, card_label(K(5)))                 # the narrator taps the card just scanned
    assert screen.asking == K(5) and len(app.view["end"]["revealed"]) == 1
    assert screen.side_heading == "A phone scanned 5 Knives as card 1. Is this that card?"
    driver.screenshot("knives23/22_curia_scanned_then_tapped")
    driver.tap(screen.that_card_button)
    assert app.view["end"]["running_total"] == 5 and app.session.events[-1].kind == "curia_card_tapped"
    tap_text(driver, card_label(K(5)))                 # a second 5 Knives: nothing left to name
    assert screen.asking is None and app.view["end"]["running_total"] == 10
    assert app.send_command(Command("curia_card", {"card": K(3), "serial": "081"}, "phone:p1"))
    driver.pump(2)
    tap_text(driver, card_label(K(3)))
    driver.tap(screen.cancel_button)                   # cancelled: nothing sent
    assert app.view["end"]["running_total"] == 13 and screen.asking is None
    tap_text(driver, card_label(K(3)))
    driver.tap(screen.another_button)                  # really a second 3 Knives
    assert app.view["end"]["running_total"] == 16 and app.view["end"]["revealed_count"] == 4


# -- a game with card effects, a Servilia swap, a Sabinus Dove and a miscount put right ----------

class RealBoard:
    """What lies on the real table, kept by the test apart from the tablet: the Forum's cards in
    its 5 spaces (Doves on Knives with them) and the Curia's cards."""

    def __init__(self):
        self.forum = [[] for _ in range(5)]
        self.extra = []
        self.curia = []

    def play(self, card):
        for space in self.forum:
            if not space:
                space.append(card)
                return
        self.extra.append(card)

    def flush(self):
        for space in self.forum:
            self.curia += space
            space.clear()
        self.curia += self.extra
        self.extra = []

    def filled(self):
        return sum(1 for s in self.forum if s) + len(self.extra)


def send_turn(app, location, *cards):
    assert app.send("move", location=location), app.root.ids.toast.message
    for card in cards:
        assert app.send("play_fate", card=card), app.root.ids.toast.message


def table_turn(app, real, player, location, *cards):
    """A whole turn entered on the tablet while the same cards go onto the real board."""
    send_turn(app, location, *cards)
    for card in cards:
        real.play(card)
    finish_turn(app, player)


def finish_turn(app, player):
    while app.view["phase"] == "turn" and app.view["turn"]["player"] == player and app.view["turn"]["step"] != "issue":
        assert app.send("next_step"), app.root.ids.toast.message


def issue_vote(driver, red, grey, choice):
    app = driver.app
    assert app.send("place_issues", red=red, grey=grey)
    for i, p in enumerate(NAMES):
        assert app.send("cast_ballot", f"box:{i + 1}", voter=p, choice=choice)
    assert app.sm.current == "reveal"
    driver.continue_reveal()
    assert app.sm.current == "knives23.issue", app.sm.current


def tap_forum_space(driver, screen, space):
    driver.tap(next(c for c in screen.ids.forum.children if getattr(c, "space", None) == space))


@pytest.mark.app
def test_card_effects_and_a_corrected_miscount_keep_the_curia_equal_to_the_board(driver):
    """Two Issue effects (extra Fate cards; a Forum card discarded), Servilia's swap, Sabinus' Dove
    on a Knife, an Issue that puts a card into the Curia (no command exists for it: the correction
    panel), entered first as a miscount and put right. The tablet's Curia count ends equal to the
    real one and the reveal takes every real card."""
    driver.start_game("knives23", NAMES, first="Ann", options={"kalends_spaces": 4, "dagger_start": 2})
    app = driver.app
    heard_before = len(app.narrator.history)   # the app (and its narrator) is shared by the app tests
    real = RealBoard()
    checklist = driver.screen
    driver.tap(checklist.ids.spaces_more)          # the drawing shows 5 spaces: our board has 4
    driver.tap(checklist.ids.spaces_less)
    driver.tap(next(b for b in checklist.ids.forum_icons.children if b.icon == 0))   # space 1: faceup only
    assert checklist.board["forum"]["spaces"][0] == "faceup"
    driver.screenshot("knives23/11_setup_board_check")
    driver.tap(checklist.ids.confirm_button)
    assert app.view["board"]["confirmed"] and app.view["forum"]["spaces"][0]["kind"] == "faceup"
    from companion.games.knives23.tables import load_group_board
    assert load_group_board(app.data_dir)["forum"]["spaces"][0] == "faceup"   # remembered for the group
    for step in k23rules.SETUP_STEPS[1:]:
        driver.tap(driver.find(cls="K23CheckButton", step=step))
    driver.tap(checklist.ids.begin_button)
    assert app.sm.current == "knives23.board"

    # round 1 --------------------------------------------------------------------------------
    table_turn(app, real, "Ann", "forum", K(5), K(3))
    # Bo reveals Servilia: swaps the faceup 5 Knives for a Dove from hand, facedown
    send_turn(app, "forum")
    board = driver.screen
    driver.tap(board.ids.effects_button)
    effects = driver.screen
    assert effects.name == "knives23.effects"
    tap_forum_space(driver, effects, 1)
    driver.screenshot("knives23/12_effects_servilia")
    driver.tap(effects.ids.servilia_button)
    real.forum[0] = [D(1)]
    assert app.view["forum"]["spaces"][0]["card"] == {"faceup": False, "card": None}
    driver.tap(effects.ids.back_button)
    finish_turn(app, "Bo")
    table_turn(app, real, "Cy", "baths")
    # Di reveals Sabinus: 2 Knives into the Forum, then 2 Doves onto them
    send_turn(app, "forum", K(2))
    real.play(K(2))
    driver.tap(driver.screen.ids.effects_button)
    effects = driver.screen
    tap_forum_space(driver, effects, 3)
    driver.tap(next(b for b in effects.ids.doves.children if b.card == D(2)))
    real.forum[2].append(D(2))
    assert app.view["forum"]["count"] == 3 and app.view["forum"]["cards"] == 4
    driver.screenshot("knives23/13_effects_sabinus")
    driver.tap(effects.ids.back_button)
    finish_turn(app, "Di")
    issue_vote(driver, "Lupercalia", "Triumph", "red")
    # Issue effect 1: the Tribune plays 2 more Fate cards into the Forum
    driver.tap(driver.screen.ids.effects_button)
    effects = driver.screen
    assert effects.ids.source.text == "Lupercalia"       # the Issue being resolved is the source
    driver.tap(next(b for b in effects.ids.players.children if b.player == "Bo"))   # "each player…"
    driver.tap(next(b for b in effects.ids.extra_cards.children if b.card is None))   # facedown
    assert effects.last_note == "Recorded: Lupercalia: Bo played facedown on Forum space 4"
    driver.tap(next(b for b in effects.ids.players.children if b.player == "Di"))
    driver.tap(next(b for b in effects.ids.extra_cards.children if b.card == K(1)))
    real.play(K(2)), real.play(K(1))                     # the facedown one was 2 Knives
    assert effects.last_note == "Recorded: Lupercalia: Di played 1 Knife on Forum space 5"
    driver.tap(effects.ids.back_button)
    driver.tap(driver.screen.ids.kalends_no)
    real.flush()
    assert app.view["curia"]["count"] == len(real.curia) == 6     # the Dove went in with its Knife
    assert app.view["kalends"]["dagger"] == 3
    board = driver.screen
    assert board.name == "knives23.board"
    assert "Flip the Forum's 6 cards facedown" in board.told and "pass the Issue deck" in board.told
    driver.screenshot("knives23/14_board_told_steps")

    # round 2 (Tribune Cy) --------------------------------------------------------------------
    table_turn(app, real, "Ann", "temple")
    table_turn(app, real, "Bo", "baths")
    table_turn(app, real, "Cy", "forum", K(3), K(2))
    issue_vote(driver, "Proscriptions", "Clemency", "red")
    # Issue effect 2: discard the card on Forum space 1 ...
    driver.tap(driver.screen.ids.effects_button)
    effects = driver.screen
    tap_forum_space(driver, effects, 1)
    driver.tap(effects.ids.discard_button)
    real.forum[0] = []
    driver.tap(effects.ids.back_button)
    # ... and put the top Fate card facedown into the Curia: no command for that, so the
    # correction panel; the table miscounts first (8) ...
    real.curia.append(K(3))
    driver.tap(driver.screen.ids.correct_button)
    correct = driver.screen
    assert correct.name == "knives23.correct"
    driver.tap(correct.ids.curia_more)
    driver.tap(correct.ids.curia_more)
    driver.type_into(correct.ids.reason, "Proscriptions: top Fate card into the Curia")
    driver.screenshot("knives23/15_correct_miscount")
    driver.tap(correct.ids.record_button)
    assert app.view["curia"]["count"] == 8 != len(real.curia)
    driver.tap(correct.ids.back_button)
    driver.tap(driver.screen.ids.kalends_yes)
    assert app.view["kalends"]["dagger"] == 4
    # ... then counts the real Curia again and puts it right
    driver.tap(driver.screen.ids.correct_button)
    correct = driver.screen
    driver.tap(correct.ids.curia_less)
    driver.type_into(correct.ids.reason, "recounted the Curia: 7")
    driver.tap(correct.ids.record_button)
    assert app.view["curia"]["count"] == len(real.curia) == 7
    driver.tap(correct.ids.back_button)
    app.goto("history")
    driver.pump(4)
    texts = driver.visible_texts()
    assert "Curia count corrected (recounted the Curia: 7): from 8 to 7 cards" in texts
    assert "Proscriptions: the card on Forum space 1 discarded" in texts
    assert "Servilia: Bo swapped Forum spaces 1, now facedown" in texts
    assert "Sabinus: Di played 2 Doves onto the Knife card on space 3" in texts
    driver.screenshot("knives23/16_history_effects_corrections")
    app.go_home()
    table_turn(app, real, "Di", "tiber")

    # round 3 (Tribune Bo): the Forum fills, the Dagger enters the Curia ----------------------
    table_turn(app, real, "Ann", "forum", D(1), K(5))
    table_turn(app, real, "Bo", "forum", K(3), K(1))
    issue_vote(driver, "Caesar's Triumph", "Comet", "grey")
    driver.tap(driver.screen.ids.kalends_no)
    real.flush()
    assert app.view["phase"] == "end_abilities"
    assert app.view["curia"]["count"] == len(real.curia) == 12      # the tablet equals the board
    driver.tap(driver.screen.abilities_button)
    for card in real.curia:                                          # every real card is taken
        tap_text(driver, card_label(card))
    assert app.view["phase"] == "tableaux"
    voice_says_the_verdict(driver)
    assert app.view["end"]["running_total"] == sum(c.get("knives", 0) - c.get("doves", 0) for c in real.curia)
    # the tableaux, Cy's Citizen being Cicero (2 Sway sets)
    screen = driver.screen
    for p, t in (("Ann", {"laurels": 2}), ("Bo", {"blood": 1})):
        screen.enter_tableau(p, t, [])
        driver.tap(screen.confirm_button)
    for _ in range(2):
        driver.tap(driver.find(cls="K23Button", bump=("laurels", 1)))
    driver.tap(screen.cicero_button)
    tap_text(driver, "+ " + tr("knives23.ui.sway_blood", n=2))          # into set 1
    driver.tap(driver.find(cls="K23Button", fill_set=1))
    tap_text(driver, "+ " + tr("knives23.ui.sway_laurels", n=1))        # into set 2
    driver.tap(screen.claim_button)                                     # Cy claims set 2
    assert "Set 2 (claimed): 1 Laurels = Loyalist 3" in driver.find(contains="Set 1:").text
    driver.screenshot("knives23/17_tableaux_cicero")
    driver.tap(screen.confirm_button)
    screen.enter_tableau("Di", {"blood": 2}, [])
    driver.tap(screen.confirm_button)
    driver.tap(screen.play_button)
    assert app.view["end"]["result"]["winners"] == ["Cy"]     # Cicero's claimed set: 3 Laurels
    # every correction and effect is in the journal, undoable one at a time
    kinds = [e.kind for e in app.session.events]
    assert kinds.count("board_corrected") == 2 and "forum_swapped" in kinds and "dove_on_knife" in kinds
    # the physical steps were spoken too: each flush, each Dagger move (one line per space), the deck
    spent = 0
    while app.narrator.busy and spent < 1500:
        driver.advance(60, step=0.5)
        spent += 60
    spoken = [e.text for e in app.narrator.history[heard_before:]]
    flush = "The Forum is full. Flip its cards face down, shuffle them, and put them into the Curia."
    assert spoken.count(flush) == 2
    assert sum(1 for line in spoken if "Move the Dagger one space" in line) == 2   # to 3, then to 4 (Kalends)
    assert "Di, pass the Issue deck and the Voting board counterclockwise, to Cy." in spoken
    assert "The Dagger has entered the Curia. The game is over." in spoken
    assert "There are 12 cards in the Curia." in spoken


@pytest.mark.app
def test_the_correction_panel_changes_the_forum_and_the_dagger_and_undo_takes_it_back(driver):
    driver.start_game("knives23", NAMES, first="Ann", options={"kalends_spaces": 6, "dagger_start": 2})
    app = driver.app
    begin_by_commands(app)
    send_turn(app, "forum", K(5))
    driver.pump(3)
    driver.tap(driver.screen.ids.correct_button)
    correct = driver.screen
    tap_forum_space(driver, correct, 2)
    tap_text(driver, tr("knives23.ui.value_facedown"))
    driver.tap(correct.ids.dagger_more)
    driver.tap(correct.ids.record_button)
    assert app.view["curia"]["count"] == 0 and app.view["forum"]["count"] == 1   # no reason, nothing
    assert "Say why first" in app.root.ids.toast.message
    driver.type_into(correct.ids.reason, "a card was played while the tablet was away")
    driver.tap(correct.ids.record_button)
    assert app.view["forum"]["count"] == 2 and app.view["kalends"]["dagger"] == 3
    driver.screenshot("knives23/18_correct_forum_dagger")
    app.undo()
    assert app.view["kalends"]["dagger"] == 2 and app.view["forum"]["count"] == 2
    app.undo()
    assert app.view["forum"]["count"] == 1


@pytest.mark.app
def test_the_curia_reveal_takes_the_real_last_card_after_a_correction(driver):
    """The tablet counted 2 cards, the real Curia holds 3: after the 2nd card the reveal is
    over on the tablet; the table corrects the count from the tableaux screen and reveals the 3rd."""
    driver.start_game("knives23", NAMES, first="Ann", options={"kalends_spaces": 2, "dagger_start": 2,
                                                              "simplicitas": True})
    app = driver.app
    begin_by_commands(app)
    send_turn(app, "forum", K(5), K(5))
    finish_turn(app, "Ann")
    for p, where in (("Bo", "baths"), ("Cy", "tiber")):
        send_turn(app, where)
        finish_turn(app, p)
    send_turn(app, "gardens")
    finish_turn(app, "Di")
    assert app.send("place_issues", red="Comet", grey="Omens")
    for p in NAMES:
        assert app.send("cast_ballot", voter=p, choice="red")
    driver.continue_reveal()
    driver.tap(driver.screen.ids.kalends_yes)
    assert app.view["phase"] == "curia_reveal" and app.view["curia"]["count"] == 2
    for card in (K(5), K(5)):
        tap_text(driver, card_label(card))
    voice_says_the_verdict(driver)
    assert app.sm.current == "knives23.tableaux"
    driver.tap(driver.screen.ids.correct_button)
    correct = driver.screen
    assert correct.ids.forum_box.disabled and correct.ids.dagger_box.disabled   # the game is over
    driver.tap(correct.ids.curia_more)
    driver.type_into(correct.ids.reason, "a third card was in the Curia")
    driver.tap(correct.ids.record_button)
    assert app.view["phase"] == "curia_reveal"
    driver.tap(correct.ids.back_button)
    assert app.sm.current == "knives23.curia"
    driver.screenshot("knives23/19_curia_after_correction")
    tap_text(driver, card_label(K(3)))
    assert app.view["phase"] == "tableaux" and app.view["end"]["revealed_count"] == 3
    assert app.view["end"]["running_total"] == 13


def round_one_with_ann_tapped_on_the_forum(driver):
    """The audit's table: Ann's pawn goes to the Baths but the narrator's finger hits "Forum";
    the round's Issue vote is revealed (undo never goes past it) and round 2 begins with Ann."""
    driver.start_game("knives23", NAMES, first="Ann", options={"kalends_spaces": 4, "dagger_start": 2})
    app = driver.app
    begin_by_commands(app)
    driver.pump(4)
    tap_text(driver, tr("knives23.location.forum"))
    assert app.view["locations"]["Ann"] == "forum"
    finish_turn(app, "Ann")
    for p, where in (("Bo", "baths"), ("Cy", "tiber"), ("Di", "gardens")):
        send_turn(app, where)
        finish_turn(app, p)
    issue_vote(driver, "Ides of March", "Vestal Virgins", "red")
    driver.tap(driver.screen.ids.kalends_no)
    assert app.view["round"] == 2 and app.view["turn"]["player"] == "Ann"
    assert app.sm.current == "knives23.board"
    return app


def seat_button(screen, text):
    return next(b for b in screen.ids.who.children if b.text == text)


def where_button(screen, text):
    return next(b for b in screen.ids.where.children if b.text == text)


@pytest.mark.app
def test_a_pawn_tapped_on_the_wrong_location_is_corrected_from_the_screen(driver):
    """Round 2: Ann (really on the Baths) may move to the Forum only once the tablet knows where
    her pawn stands; "Correct the board" sets it, with a reason, past the revealed vote."""
    app = round_one_with_ann_tapped_on_the_forum(driver)
    board = driver.screen
    forum = driver.find(cls="K23Button", text=tr("knives23.location.forum"))
    assert forum.disabled                                 # "You MUST move to a new Location"
    assert "Ann · Forum" in board.player_line
    driver.tap(board.ids.correct_button)
    correct = driver.screen
    assert correct.name == "knives23.correct"
    assert "Turn: Ann · Tribune: Cy" in correct.summary
    driver.tap(seat_button(correct, "Ann\nForum"))
    assert where_button(correct, "Forum").selected
    driver.tap(where_button(correct, "Baths"))
    assert seat_button(correct, "Ann\nBaths").selected and where_button(correct, "Baths").selected
    assert app.view["locations"]["Ann"] == "forum"        # nothing sent before the record
    driver.type_into(correct.ids.reason, "Ann went to the Baths")
    driver.screenshot("knives23/20_correct_location")
    driver.tap(correct.ids.record_button)
    assert app.view["locations"]["Ann"] == "baths"
    assert correct.last_note == "Recorded: Ann's pawn corrected (Ann went to the Baths): from Forum to Baths"
    driver.tap(correct.ids.back_button)
    board = driver.screen
    assert board.name == "knives23.board" and "Ann · Baths" in board.player_line   # shown on the board
    assert driver.find(cls="K23Button", text=tr("knives23.location.baths")).disabled
    tap_text(driver, tr("knives23.location.forum"))      # the legal move, accepted
    assert app.view["locations"]["Ann"] == "forum" and app.view["turn"]["step"] == "action"
    kinds = [e.kind for e in app.session.events]
    assert kinds.count("board_corrected") == 1 and kinds[-1] == "moved"


@pytest.mark.app
def test_the_turn_and_the_tribune_are_put_right_from_the_correction_screen(driver):
    """Cy played out of turn and the Issue deck went to Bo: both set from the screen, then undone."""
    app = round_one_with_ann_tapped_on_the_forum(driver)
    driver.tap(driver.screen.ids.correct_button)
    correct = driver.screen
    driver.tap(seat_button(correct, "Cy\nTiber River"))
    driver.tap(correct.turn_button)
    assert correct.turn_button.text == "Cy's turn" and correct.turn_button.selected
    driver.tap(seat_button(correct, "Bo\nBaths"))
    assert not correct.turn_button.selected and correct.tribune_button.text == "Bo is Tribune"
    driver.tap(correct.tribune_button)
    driver.tap(correct.ids.record_button)
    assert "Say why first" in app.root.ids.toast.message and app.view["tribune"] == "Cy"   # no reason, nothing
    driver.type_into(correct.ids.reason, "Cy played before Ann")
    driver.tap(correct.ids.record_button)
    assert app.view["turn"]["player"] == "Cy" and app.view["turn"]["step"] == "move"
    assert app.view["tribune"] == "Bo"
    assert "Turn: Cy · Tribune: Bo" in correct.summary
    app.undo()
    assert app.view["turn"]["player"] == "Ann" and app.view["tribune"] == "Bo"
    app.undo()
    assert app.view["tribune"] == "Cy"
