"""Cicero on the tablet, in the real app under X: a whole 3-player game from the draft to the
winner (pass-and-play Princeps elections, a tie the outgoing Princeps breaks, majorities with the
Princeps' tie-breaks by touch), and a 2-player game with the Automatii. Screenshots go to
test-artifacts/cicero/."""
import pytest

from companion.core.i18n import tr
from companion.games.cicero.demo import execute_breaking_ties, table_move

PLAYERS = ["Livia", "Marcus", "Octavia"]
AGES = {"Livia": {"age": 34}, "Marcus": {"age": 41}, "Octavia": {"age": 29}}


def on(driver, screen):
    driver.pump(4)
    assert driver.app.sm.current == screen, f"on {driver.app.sm.current}, expected {screen}"
    return driver.screen


def tap_text(driver, text, root=None):
    driver.tap(driver.find(root=root, cls="CButton", text=text))


def tap_value(driver, value, root=None):
    driver.tap(driver.find(root=root, cls="CButton", value=value))


def set_steppers(driver, values: dict, root=None):
    """Sets each stepper (by its key) to the number: the first one's last step by a real tap on
    + or −, the rest directly (every tap draws frames; the suite must stay fast)."""
    for i, (key, n) in enumerate(values.items()):
        stepper = driver.find(root=root, cls="CStepper", key=key)
        if i > 0:
            stepper.number = n
            continue
        plus = [b for b in stepper.walk(restrict=True) if getattr(b, "text", "") == "+"][0]
        minus = [b for b in stepper.walk(restrict=True) if getattr(b, "text", "") == "−"][0]
        if n > stepper.minimum:
            stepper.number = n - stepper.step
            driver.tap(plus)
        else:
            stepper.number = n + stepper.step
            driver.tap(minus)
        assert stepper.number == n


def quick(driver, until_phase, until_round=None):
    """The scripted table through app.send, for the steps that are not the point here."""
    app = driver.app
    for _ in range(500):
        v = app.view
        if v["phase"] == until_phase and (until_round is None or v["round"] == until_round):
            return
        if app.sm.current == "reveal":
            driver.continue_reveal()
            continue
        execute_breaking_ties(lambda c: _sent(app, c), table_move(v))
    raise AssertionError(f"never reached {until_phase}")


def _sent(app, command):
    session = app.session
    session.rules.decide(session.state, command)  # a tie raises NeedsTieBreak for the Princeps
    assert app.send_command(command), app.root.ids.toast.message


def enter_cicero_card(driver):
    """Cicero's card by touch: its 4 influences and its 2 Senator Castes."""
    for c in ("Insidiator", "Mercatores", "Belligerator", "Belligerator"):
        tap_value(driver, c, root=driver.find(cls="GridLayout", role="influences"))
    for c in ("Mercatores", "Pontifex"):
        tap_value(driver, c, root=driver.find(cls="GridLayout", role="senator_castes"))


def shot(driver, name):
    """A screenshot without the caption of narration queued long ago: the engines' FakeClock only
    moves when a test advances it, so the narrator is still on the game's first lines."""
    driver.app.narrator.cancel()
    return driver.screenshot(f"cicero/{name}")


def no_secret_on_table(driver):
    """While the vote is open, the table's screens show who has voted, never what."""
    vote = driver.app.view["vote"]
    assert vote is not None and "ballots" not in vote and "counts" not in vote


@pytest.mark.app
def test_a_whole_three_player_game_on_the_tablet(driver):
    app = driver.app
    driver.start_game("cicero", PLAYERS, first="Octavia", seat_values=AGES)
    screen = on(driver, "cicero.start")
    assert app.view["draft"]["player"] == "Octavia"
    assert app.caption  # the narrator opens the draft
    # the physical set-up, from the rulebook, before the first card is drawn
    assert driver.find(cls="CLine", contains="Triumvirate deck grouped by round")
    assert driver.find(cls="CLine", contains="Separate the 12 white-backed Senators from the red-backed")
    assert driver.find(cls="CLine", contains="3 Servants")
    shot(driver, "01_draft")
    driver.tap(screen.ids.draft_button)
    assert app.view["draft"]["player"] == "Livia"
    for _ in range(4):
        assert app.send("draft_pick")
    assert app.view["phase"] == "first_princeps"
    set_steppers(driver, {"votes:Livia": 5, "votes:Marcus": 5, "votes:Octavia": 3,
                          "oratores:Livia": 2, "oratores:Marcus": 2, "oratores:Octavia": 1})
    shot(driver, "02_first_princeps")
    driver.tap(screen.ids.elect_button)
    assert app.view["princeps"] == "Marcus"  # tied on votes and Oratores: the oldest

    # Round 1: no election. Cicero's card, then the Servants on the board by touch.
    screen = on(driver, "cicero.board")
    enter_cicero_card(driver)
    shot(driver, "03_cicero_card")
    tap_text(driver, tr("cicero.ui.reveal_card"))
    assert app.view["cicero"]["influences"] == ["Insidiator", "Mercatores", "Belligerator", "Belligerator"]
    assert "What the spaces give" in screen.ids.effect_heading.text  # before the first Servant
    assert "Each other player: either +1 in that Caste or draw one Action card of that Caste" in screen.ids.effect.text
    tap_value(driver, "senate_1")
    assert "Marcus: draw 4 Senator cards from pile 1 and recruit up to 2" in screen.ids.effect.text
    assert "Each other player: draw 2 from that pile and may recruit 1" in screen.ids.effect.text
    tap_value(driver, "Oratores_1")
    assert "+X Oratores influence" in screen.ids.effect.text
    shot(driver, "04a_space_effect")
    tap_value(driver, "Pontifex_2")
    assert "+1 Pontifex influence and draw the first Pontifex Action card" in screen.ids.effect.text
    for space in ("Insidiator_1", "senate_2"):
        assert app.send("place_servant", space=space)
    assert [p for p, _ in app.view["placements"]] == ["Marcus", "Octavia", "Livia", "Marcus", "Octavia"]
    shot(driver, "04_servants")
    quick(driver, "tribute", 1)

    screen = on(driver, "cicero.tribute")
    tap_value(driver, "prestige", root=driver.find(cls="CSeatRow", player="Livia"))
    tap_value(driver, "influences", root=driver.find(cls="CSeatRow", player="Marcus"))
    shot(driver, "05_tribute")
    tap_value(driver, "senator", root=driver.find(cls="CSeatRow", player="Octavia"))
    assert app.view["prestige"]["Livia"] == 0
    tap_value(driver, "Pompey")
    tap_text(driver, tr("cicero.ui.not_satisfied"))
    assert app.view["phase"] == "second_tribute"
    # "in a different way from the first time": Livia paid -10 PP, Octavia a Senator
    livia, octavia = (driver.find(cls="CSeatRow", player=p) for p in ("Livia", "Octavia"))
    assert driver.find(root=livia, cls="CButton", value="prestige").disabled
    assert driver.find(root=octavia, cls="CButton", value="senator").disabled
    assert not driver.find(root=livia, cls="CButton", value="senator").disabled
    shot(driver, "05a_second_tribute")
    tap_value(driver, "influences", root=driver.find(cls="CSeatRow", player="Livia"))
    for p, how in zip(PLAYERS[1:], ("senator", "influences")):  # "in a different way from the first time"
        assert app.send("pay_tribute", player=p, how=how)

    # VI. Majorities by touch: a tie for the Oratores Primus is the Princeps' (Marcus) to break.
    screen = on(driver, "cicero.majorities")
    set_steppers(driver, {"Livia": 4, "Marcus": 1, "Octavia": 4})
    tap_text(driver, tr("cicero.ui.count"))
    assert "tied for the Oratores Primus" in driver.find(cls="CLine", contains="tied").text
    shot(driver, "06_majority_tie")
    tap_value(driver, "Octavia")
    castes = {c["caste"]: c for c in app.view["castes"]}
    assert (castes["Oratores"]["primus"], castes["Oratores"]["secundus"]) == ("Octavia", "Livia")
    quick(driver, "guilds", 1)
    set_steppers(driver, {"Livia": 2, "Marcus": 0, "Octavia": 1})
    tap_text(driver, tr("cicero.ui.count"))
    on(driver, "cicero.majorities")
    shot(driver, "07_guild_choice")
    tap_text(driver, tr("cicero.ui.score_pp"))
    quick(driver, "prestige", 1)
    screen = on(driver, "cicero.majorities" if app.view["phase"] != "prestige" else "cicero.prestige")
    set_steppers(driver, {"Marcus": 2})
    shot(driver, "08_prestige")
    tap_text(driver, tr("cicero.ui.score"))
    tap_text(driver, tr("cicero.ui.next_round", round=2))

    # Round 2: the election. Senate votes announced, debate timer, pass-and-play vote, reveal.
    screen = on(driver, "cicero.election")
    set_steppers(driver, {"Livia": 6, "Marcus": 4, "Octavia": 5})
    shot(driver, "09_announce")
    tap_text(driver, tr("cicero.ui.start_debate"))
    assert app.view["phase"] == "debate"
    driver.advance(30)
    on(driver, "cicero.election")
    assert screen.ids.timer.text == "1:30"
    tap_text(driver, tr("cicero.ui.more_time"))
    driver.advance(1)
    assert screen.ids.timer.text == "1:59"
    shot(driver, "10_debate")
    tap_text(driver, tr("cicero.ui.open_ballot"))
    on(driver, "vote")
    no_secret_on_table(driver)
    driver.vote({"Livia": "Livia", "Marcus": "Octavia", "Octavia": "Octavia"})
    on(driver, "reveal")
    shot(driver, "11_election_reveal")
    assert app.view["princeps"] == "Octavia"
    driver.continue_reveal()
    screen = on(driver, "cicero.board")
    assert "Octavia is Princeps (Octavia 9, Livia 6)" in screen.ids.election.text
    shot(driver, "12_after_election")

    # Round 2's counts start from round 1's: only a change needs a tap.
    quick(driver, "castes", 2)
    screen = on(driver, "cicero.majorities")
    shown = {p: driver.find(root=screen, cls="CStepper", key=p).number for p in PLAYERS}
    assert shown == {"Livia": 4, "Marcus": 1, "Octavia": 4}
    shot(driver, "12a_counts_carried")
    # Nothing changed since round 1: one tap counts the rest, stopping only where the Princeps
    # must break a tie or a Guild card's holder must choose.
    before = len(app.session.events)
    tap_value(driver, "count_rest")
    ties = 0
    for _ in range(20):
        if app.view["phase"] != "castes" or screen.tie is None:
            break
        assert "the Princeps, decides" in driver.find(cls="CLine", contains="tied").text
        tap_value(driver, screen.tie.among[0])  # the Princeps' decision: the only other taps
        ties += 1
    assert all(c["votes"] is not None for c in app.view["castes"])
    assert app.view["phase"] == "guilds" and app.view["pending_guild"] == "Artisans"
    assert len(app.session.events) - before == 6 + 1  # 6 Castes and the first Guild, from 1 + {ties} taps
    assert ties >= 1
    quick(driver, "prestige", 2)
    screen = on(driver, "cicero.prestige")
    assert driver.find(root=screen, cls="CStepper", key="Marcus").number == 2

    # Round 3: everyone votes for themselves with 5 votes: the outgoing Princeps decides.
    quick(driver, "election", 3)
    screen = on(driver, "cicero.election")
    set_steppers(driver, {"Livia": 5, "Marcus": 5, "Octavia": 5})
    tap_text(driver, tr("cicero.ui.start_debate"))
    tap_text(driver, tr("cicero.ui.open_ballot"))
    on(driver, "vote")
    for p in PLAYERS:  # the pass-and-play screen was shown in round 2: here, the vote boxes' way
        assert app.send("cast_ballot", source=f"box:{p}", voter=p, choice=p)
    on(driver, "reveal")
    driver.continue_reveal()
    screen = on(driver, "cicero.election")
    assert app.view["phase"] == "election_tie"
    shot(driver, "13_election_tie")
    tap_value(driver, "Livia")
    assert app.view["princeps"] == "Livia"

    quick(driver, "game_over")
    screen = on(driver, "cicero.prestige")
    assert app.view["winners"] and screen.ids.winner.text
    shot(driver, "14_winner")
    record = app.journal.game(app.session.game_id)
    assert record.status == "finished" and list(record.winners) == app.view["winners"]


@pytest.mark.app
def test_two_players_with_the_automatii(driver):
    app = driver.app
    driver.start_game("cicero", ["Livia", "Marcus"], first="Livia", seat_values={"Livia": {"age": 34},
                                                                                  "Marcus": {"age": 41}})
    quick(driver, "automatii", 1)
    screen = on(driver, "cicero.election")
    for i, caste in enumerate(("Mercatores", "Mercatores", "Insidiator")):
        tap_value(driver, caste, root=driver.find(cls="GridLayout", role=f"revealed_{i + 1}"))
    shot(driver, "20_automatii")
    tap_text(driver, tr("cicero.ui.place_automatii"))
    assert app.view["automatii"]["doubled"] == "Mercatores"
    assert "On Emporium, both players each recover an influence AND draw an Action card" in app.view["prompt"]
    tap_text(driver, tr("cicero.ui.automatii_done"))
    quick(driver, "servants", 1)
    screen = on(driver, "cicero.board")
    taken = driver.find(cls="CButton", value="Mercatores_2")
    assert taken.disabled and "Automatii" in taken.text
    shot(driver, "21_board_automatii")
    quick(driver, "election", 2)
    assert app.send("adjust_prestige", player="Livia", delta=40, note="test: far ahead")
    screen = on(driver, "cicero.election")
    set_steppers(driver, {"Livia": 7, "Marcus": 3})
    assert "5 votes to Marcus" in driver.find(cls="CLine", contains="Automatii").text
    tap_text(driver, tr("cicero.ui.start_debate"))
    tap_text(driver, tr("cicero.ui.open_ballot"))
    on(driver, "vote")
    driver.vote({"Livia": "Livia", "Marcus": "Marcus"})
    on(driver, "reveal")
    # The reveal shows the players' ballots and the totals the rules decided by.
    assert driver.screen.note == "With the Automatii's 5 votes to Marcus: Marcus 8, Livia 7"
    shot(driver, "22a_automatii_reveal")
    driver.continue_reveal()
    assert app.view["princeps"] == "Marcus"  # 3 + the Automatii's 5 beat 7
    screen = on(driver, "cicero.board")
    assert "The Automatii gave 5 votes to Marcus" in screen.ids.election.text
    shot(driver, "22_automatii_election")
    # The rest of the game, to the winner: the scripted table's moves through the app's own
    # command path (the screens are the 3-player test's; here the point is the 2-player end).
    from companion.games.cicero import demo as cicero_demo
    for _ in range(3000):
        if app.session.rules.outcome(app.session.state) is not None:
            break
        cicero_demo.execute_breaking_ties(app.execute_from_device, cicero_demo.table_move(app.view))
    outcome = app.session.rules.outcome(app.session.state)
    assert outcome is not None and app.view["round"] == 5  # 5 rounds with 2 players
    assert app.journal.game(app.session.game_id).status == "finished"
    app.reveal_seen()  # the table has looked at the last election's reveal
    driver.pump(6)
    assert driver.app.sm.current.startswith("cicero.")
    shot(driver, "23_automatii_game_winner")


@pytest.mark.app
def test_players_of_the_same_age_the_table_says_who_is_older(driver):
    """"If there is still a tie, the oldest of the tied players is designated." Born the same year,
    the table says who is older; the youngest tied start the draft from the table's first player."""
    app = driver.app
    driver.start_game("cicero", ["Livia", "Marcus", "Octavia"], first="Marcus",
                      seat_values={"Livia": {"age": 40}, "Marcus": {"age": 40}, "Octavia": {"age": 40}})
    assert app.view["draft"]["player"] == "Marcus"
    for _ in range(5):
        assert app.send("draft_pick")
    screen = on(driver, "cicero.start")
    set_steppers(driver, {"votes:Livia": 4, "votes:Marcus": 4, "votes:Octavia": 2,
                          "oratores:Livia": 1, "oratores:Marcus": 1, "oratores:Octavia": 0})
    driver.tap(screen.ids.elect_button)
    assert app.view["phase"] == "first_princeps"  # nothing recorded: the table is asked
    assert "say who is the oldest" in driver.find(root=screen.ids.oldest, cls="CLine").text
    shot(driver, "02b_who_is_oldest")
    tap_value(driver, "Livia", root=screen.ids.oldest)
    assert app.view["princeps"] == "Livia" and app.view["first_princeps"]["decided_by"] == "age"


@pytest.mark.app
def test_the_economy_option_tracks_influence_within_the_limits(driver):
    """Off by default; turned on at the table's setup, a panel reached from every screen's side
    records one tap per change, within the rulebook's limits."""
    app = driver.app
    driver.start_game("cicero", PLAYERS, first="Octavia", seat_values=AGES)
    on(driver, "cicero.start")
    assert app.view["economy"] is None and driver.screen.ids.side.ids.economy_button.disabled
    app.leave_game()
    driver.pump(4)
    driver.start_game("cicero", PLAYERS, first="Octavia", seat_values=AGES, options={"economy": True})
    screen = on(driver, "cicero.start")
    for _ in range(5):  # the draft: the cenacles fill with the white-backed Senators
        assert app.send("draft_pick")
    assert {p: f["cenacle"] for p, f in app.view["economy"]["families"].items()} == {p: 2 for p in PLAYERS}
    button = screen.ids.side.ids.economy_button
    assert not button.disabled
    driver.tap(button)
    driver.pump(4)
    panel = next(w for w in app.root_window.children if type(w).__name__ == "EconomyPanel")
    cell = panel.cell("Livia", "influence", "Pontifex")
    plus = [b for b in cell.walk(restrict=True) if getattr(b, "text", "") == "+"][0]
    before = len(app.session.events)
    driver.tap(plus)
    assert cell.value == "1" and len(app.session.events) == before + 1  # one tap, one event
    app.send("economy", player="Livia", item="influence", caste="Pontifex", delta=9)
    driver.pump(2)
    assert cell.value == "10"
    driver.tap(plus)
    assert "can never exceed 10" in app.root.ids.toast.message and cell.value == "10"
    assert "Livia's Pontifex influence is 10: it can never exceed 10" in panel.ids.message.text  # seen on the panel
    assert "\n" not in panel.ids.message.text
    shot(driver, "29_economy_limit")
    driver.tap([b for b in panel.cell("Marcus", "actions").walk(restrict=True) if getattr(b, "text", "") == "+"][0])
    driver.tap([b for b in panel.cell(None, "legions").walk(restrict=True) if getattr(b, "text", "") == "+"][0])
    assert app.view["economy"]["families"]["Marcus"]["actions"] == 1 and app.view["economy"]["legions"] == 1
    shot(driver, "30_economy")
    driver.tap(panel.ids.close_button)
    driver.pump(4)
    assert not any(type(w).__name__ == "EconomyPanel" for w in app.root_window.children)


@pytest.mark.app
def test_a_senate_total_entered_wrong_is_corrected_after_the_reveal(driver):
    """The audit's round 2: Marcus announced 4, the narrator entered 14, and the reveal made Marcus
    Princeps. From the board's election result the narrator corrects Marcus's total with a reason;
    Octavia, the true winner, becomes Princeps and places first. After a Servant, it is refused."""
    app = driver.app
    driver.start_game("cicero", PLAYERS, seat_values=AGES)
    quick(driver, "election", 2)
    on(driver, "cicero.election")
    set_steppers(driver, {"Livia": 6, "Marcus": 14, "Octavia": 7})
    tap_text(driver, tr("cicero.ui.start_debate"))
    tap_text(driver, tr("cicero.ui.open_ballot"))
    driver.pump(4)
    driver.vote({"Livia": "Livia", "Marcus": "Marcus", "Octavia": "Octavia"})
    driver.continue_reveal()
    screen = on(driver, "cicero.board")
    assert app.view["princeps"] == "Marcus"
    assert "Marcus is Princeps (Marcus 14, Octavia 7, Livia 6)" in screen.ids.election.text
    assert not app.session.can_undo()  # the reveal cannot be taken back: the correction is the way

    button = screen.ids.correct_votes_button
    assert not button.disabled and button.text == "Correct the announced votes"
    shot(driver, "correct_senate_votes_board")
    driver.tap(button)
    panel = next(w for w in driver.app.root_window.children if type(w).__name__ == "VotesCorrection")
    assert "Marcus is Princeps" in panel.ids.now.text
    tap_value(driver, "Marcus", root=panel)
    stepper = panel.ids.true_total
    assert stepper.number == 14 and stepper.label == "Marcus announced"
    stepper.number = 5
    minus = [b for b in stepper.walk(restrict=True) if getattr(b, "text", "") == "−"][0]
    driver.tap(minus)
    assert stepper.number == 4
    driver.tap(panel.ids.record_button)       # no reason yet: asked for, nothing recorded
    assert panel.message == tr("cicero.ui.reason_needed") and app.view["princeps"] == "Marcus"
    driver.type_into(panel.ids.reason, "Marcus said 4, not 14")
    shot(driver, "correct_senate_votes_entered")
    driver.tap(panel.ids.record_button)
    assert app.view["princeps"] == "Octavia"
    assert "Octavia is Princeps (Octavia 7, Livia 6, Marcus 4)" in panel.ids.now.text
    assert "Corrected: Marcus announced 4, not 14 (Marcus said 4, not 14)" in panel.ids.now.text
    shot(driver, "correct_senate_votes")
    driver.tap(panel.ids.close_button)
    assert panel.get_parent_window() is None
    assert "Octavia is Princeps" in screen.ids.election.text

    # Cicero's card, then Octavia places first: the turn order follows the corrected Princeps
    enter_cicero_card(driver)
    tap_text(driver, tr("cicero.ui.reveal_card"))
    assert app.view["next_to_place"] == "Octavia"
    assert "Marcus: draw" not in screen.ids.effect.text and "from that space's pile" in screen.ids.effect.text
    assert "pile its pile" not in screen.ids.effect.text and "the the" not in screen.ids.effect.text
    assert not screen.ids.correct_votes_button.disabled   # still: nobody has placed
    tap_value(driver, "Oratores_1")
    assert app.view["placements"] == [["Octavia", "Oratores_1"]]
    assert screen.ids.correct_votes_button.disabled        # the table has played in Octavia's order
    refused = app.send("correct_senate_votes", player="Livia", votes=9, reason="late")
    assert not refused and "Undo them first" in app.root.ids.toast.message
    # undone, the placement can be corrected again: the correction itself is undoable too
    app.undo()
    driver.pump(4)
    assert app.view["placements"] == [] and not screen.ids.correct_votes_button.disabled


@pytest.mark.app
def test_a_wrong_majority_card_holder_is_corrected_on_the_prestige_screen(driver):
    app = driver.app
    driver.start_game("cicero", PLAYERS, seat_values=AGES)
    quick(driver, "prestige", 1)
    on(driver, "cicero.prestige")
    held = dict(app.view["castes"][0])
    tap_text(driver, tr("cicero.ui.correct_cards"))
    panel = next(w for w in driver.app.root_window.children if type(w).__name__ == "CardsCorrection")
    card = driver.find(root=panel, cls="CButton", value="Oratores:primus")
    order = [None] + PLAYERS
    want = order[(order.index(held["primus"]) + 1) % len(order)]
    driver.tap(card)
    if want is not None and want == held["secundus"]:   # one player never holds both: pass it on
        driver.tap(driver.find(root=panel, cls="CButton", value="Oratores:primus"))
        want = order[(order.index(want) + 1) % len(order)]
    if want is None and held["secundus"] is not None:
        driver.tap(driver.find(root=panel, cls="CButton", value="Oratores:primus"))
        want = order[1] if order[1] != held["secundus"] else order[2]
    driver.type_into(panel.ids.reason, "the Primus card went elsewhere")
    driver.tap(panel.ids.record_button)
    assert app.view["castes"][0]["primus"] == want, panel.message
    assert "the Primus card went elsewhere" in panel.ids.last.text
    shot(driver, "correct_majority_cards")
    driver.tap(panel.ids.close_button)


def first_princeps_by_touch(driver, ages, **livia):
    """A game to its first Princeps, entered on the start screen (Senate votes Livia 5 or as
    given, Marcus 5, Octavia 3; Oratores 2, 2, 1); returns the board screen."""
    driver.start_game("cicero", PLAYERS, first="Octavia", seat_values=ages)
    quick(driver, "first_princeps")
    screen = on(driver, "cicero.start")
    set_steppers(driver, {"votes:Livia": livia.get("Livia", 5), "votes:Marcus": 5, "votes:Octavia": 3,
                          "oratores:Livia": 2, "oratores:Marcus": 2, "oratores:Octavia": 1})
    driver.tap(screen.ids.elect_button)
    return on(driver, "cicero.board")


def _panel(driver, name):
    driver.pump(4)
    return next(w for w in driver.app.root_window.children if type(w).__name__ == name)


@pytest.mark.app
def test_the_first_princeps_is_corrected_from_the_board_until_the_first_servant(driver):
    """Issue 33: the first Princeps, decided from the starting Senators, set right from the board
    (Livia's Senators had 6 votes, not 5): Livia becomes Princeps and places first. After the first
    Servant the button is gone and the command refused; undone, it is back."""
    app = driver.app
    screen = first_princeps_by_touch(driver, AGES, Livia=5)
    assert app.view["princeps"] == "Marcus"
    assert "Marcus is the first Princeps, as the oldest (Senate votes: Livia 5, Marcus 5, Octavia 3" \
        in screen.ids.election.text
    button = screen.ids.correct_first_button
    assert not button.disabled and button.text == "Correct the first Princeps"
    assert screen.ids.correct_votes_button.disabled   # no election in round 1
    shot(driver, "correct_first_princeps_board")
    driver.tap(button)
    panel = _panel(driver, "FirstPrincepsCorrection")
    assert "Marcus is the first Princeps" in panel.ids.now.text
    assert panel.ids.rule.text.startswith("Rule applied: The most Senate votes makes the first Princeps")
    set_steppers(driver, {"votes:Livia": 6}, root=panel)
    driver.tap(panel.ids.record_button)         # no reason: asked for, nothing recorded
    assert panel.message == tr("cicero.ui.reason_needed") and app.view["princeps"] == "Marcus"
    driver.type_into(panel.ids.reason, "Livia's Senators make 6")
    shot(driver, "correct_first_princeps_entered")
    driver.tap(panel.ids.record_button)
    assert app.view["princeps"] == "Livia", panel.message
    assert "Livia is the first Princeps, by Senate votes (Senate votes: Livia 6, Marcus 5" in panel.ids.now.text
    assert "Corrected (Livia's Senators make 6): it was Marcus" in panel.ids.now.text
    shot(driver, "correct_first_princeps")
    driver.tap(panel.ids.close_button)
    driver.pump(4)
    assert "Livia is the first Princeps" in screen.ids.election.text
    enter_cicero_card(driver)
    tap_text(driver, tr("cicero.ui.reveal_card"))
    assert app.view["next_to_place"] == "Livia" and not screen.ids.correct_first_button.disabled
    tap_value(driver, "Oratores_1")
    assert screen.ids.correct_first_button.disabled
    refused = app.send("correct_first_princeps", votes={"Livia": 2, "Marcus": 5, "Octavia": 3},
                       oratores={"Livia": 2, "Marcus": 2, "Octavia": 1}, reason="late")
    assert not refused and "Undo them first" in app.root.ids.toast.message
    app.undo()
    driver.pump(4)
    assert app.view["placements"] == [] and not screen.ids.correct_first_button.disabled


@pytest.mark.app
def test_the_house_rules_are_shown_where_they_decide_and_change_the_outcome(driver):
    """Issue 33's readings, chosen as house rules on the setup screen: Livia has 5 of 12 Senate
    votes, the most but not more than half, so the Oratores decide (Marcus); the start screen says
    which reading applies in the rulebook's words. The majorities screen says the no-votes reading."""
    app = driver.app
    app.goto("picker")
    driver.pump(4)
    driver.tap(driver.find(cls="GameCard", game_id="cicero"))
    readings = driver.screen._house_rule_buttons     # the shell's setup screen lists Cicero's
    assert [b.text for b in readings["no_votes"].values()] == [
        "A Caste or Guild in which nobody has a vote: its cards stay with the players who hold them.",
        "A Caste or Guild in which nobody has a vote: its cards go back to the supply."]
    driver.scroll_into_view(readings["no_votes"]["supply"])
    shot(driver, "house_rules_setup")
    chosen = {"first_princeps_majority": "more_than_half", "no_votes": "supply"}
    driver.start_game("cicero", PLAYERS, first="Octavia", seat_values=AGES, house_rules=chosen)
    # chosen on the shell's setup screen, recorded in the game's setup (the real journal)
    assert app.journal.game(app.session.game_id).setup["house_rules"] == chosen
    quick(driver, "first_princeps")
    screen = on(driver, "cicero.start")
    assert screen.ids.first_rule.text == tr("cicero.ui.first_princeps_rule_half")
    assert screen.ids.first_applies.text.startswith("House rule: More than half of all the Senate votes makes")
    assert "(the rulebook: “If one player has a strict majority, they become Princeps" \
        in screen.ids.first_applies.text
    set_steppers(driver, {"votes:Livia": 5, "votes:Marcus": 4, "votes:Octavia": 3,
                          "oratores:Livia": 0, "oratores:Marcus": 3, "oratores:Octavia": 1})
    shot(driver, "house_rule_first_princeps")
    driver.tap(screen.ids.elect_button)
    assert app.view["princeps"] == "Marcus" and app.view["first_princeps"]["decided_by"] == "oratores"
    quick(driver, "castes", 1)
    screen = on(driver, "cicero.majorities")
    line = driver.find(root=screen, cls="CLine", role="house_rule")
    assert line.text.startswith("House rule: A Caste or Guild in which nobody has a vote: its cards go back to the "
                                "supply. (the rulebook: “The Primus and")
    shot(driver, "house_rule_no_votes")


@pytest.mark.app
def test_the_default_readings_are_shown_as_the_rule_applied_in_french_and_german(driver, tmp_path, monkeypatch):
    from tests.app.test_languages_app import choose_language
    from tests.languages import use_french_and_german
    from companion.core import i18n
    use_french_and_german(tmp_path, monkeypatch)
    app = driver.app
    driver.start_game("cicero", PLAYERS, first="Octavia", seat_values=AGES)
    quick(driver, "first_princeps")
    screen = on(driver, "cicero.start")
    assert screen.ids.first_applies.text.startswith("Rule applied: The most Senate votes makes the first Princeps")
    try:
        for name, words in (("Français", "Le plus de voix au Sénat fait le premier Princeps"),
                            ("Deutsch", "Die meisten Senatsstimmen machen den ersten Princeps")):
            choose_language(driver, name)
            app.go_home()
            screen = on(driver, "cicero.start")
            assert words in screen.ids.first_applies.text, screen.ids.first_applies.text
            shot(driver, f"house_rule_first_princeps_{i18n.language()}")
    finally:
        choose_language(driver, "English")


@pytest.mark.app
def test_a_corrected_first_princeps_count_tied_on_age_asks_who_is_older(driver):
    """Livia and Marcus are both 41: the corrected count ties them on Senate and Oratores votes, so
    the panel asks the table who is the oldest before anything is recorded."""
    app = driver.app
    screen = first_princeps_by_touch(driver, {"Livia": {"age": 41}, "Marcus": {"age": 41}, "Octavia": {"age": 29}},
                                     Livia=6)
    assert app.view["princeps"] == "Livia"
    driver.tap(screen.ids.correct_first_button)
    panel = _panel(driver, "FirstPrincepsCorrection")
    set_steppers(driver, {"votes:Livia": 5}, root=panel)
    driver.type_into(panel.ids.reason, "Livia has 5")
    n = len(app.session.events)
    driver.tap(panel.ids.record_button)
    assert len(app.session.events) == n and app.view["princeps"] == "Livia"   # asked first
    assert "say who is the oldest" in panel.ids.ties.children[-1].text
    shot(driver, "correct_first_princeps_oldest")
    driver.tap(driver.find(root=panel, cls="CButton", value="Marcus"))
    assert app.view["princeps"] == "Marcus" and app.view["first_princeps"]["decided_by"] == "age"
    assert not panel.ids.ties.children
