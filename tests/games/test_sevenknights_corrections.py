"""Seven Knights Bewitched: correcting an Arrow the tablet has wrong (a look tapped against the
wrong tile). The Player Cards (Arrow) lie face up: "Place your Player Card (Arrow) pointing at
the tile you've looked at so that everyone knows which tile you saw." A correction reveals
nothing; it is allowed until the round's result is entered, needs a reason, is undoable, and
TORIKO ("If you see Witch Myrmamius, you immediately become TORIKO") and the points follow it."""
import pytest

from companion.core.events import BadInput, Command, RuleError
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.sevenknights import SevenKnightsRules
from companion.games.sevenknights.commands import COMMANDS
from companion.games.sevenknights.rules import R_ARROW
try:  # tests/games is a package (tests/games/__init__.py) ...
    from tests.games.test_sevenknights_driver import Table
except ImportError:  # ... or a plain folder on sys.path
    from test_sevenknights_driver import Table

P = ["Ann", "Bo", "Cy", "Di", "Ed"]
# The audit's round: Ed looked at Cy (the Witch) but the narrator tapped Ann.
LOOKS = ["Bo", "Di", "Di", "center", "Ann"]
REASON = "Ed's card points at Cy"


def to_captain(t, looks=LOOKS, captain="Bo"):
    t.search(looks)
    t.ask_all()
    t.recommend({p: captain for p in P})
    assert t.state.phase == "order_question" and t.state.round.captain == captain


def finish(t, tile=2, witch="Cy", in_order=True):
    t.do("ask_question", target="Ann", template="odd", answer="no")  # the Captain Bo never saw Ann
    t.do("reveal_captain_tile", tile=tile)
    t.do("enter_result", in_order=in_order, witch=witch)
    return t.view()["result"]


def test_uncorrected_the_wrong_look_scores_ed_as_a_knight():
    """The audit's gap, kept as the baseline: with the wrong Arrow, no TORIKO and Ed scores 2."""
    t = Table(P)
    to_captain(t)
    r = finish(t)
    assert r["toriko"] == [] and r["points"]["Ed"] == 2


def test_a_corrected_arrow_makes_ed_toriko_and_he_scores_nothing():
    """"If you see Witch Myrmamius, you immediately become TORIKO"; "Victory for the Knights
    (excluding TORIKO)": once Ed's Arrow points at Cy, the Knights' victory gives him 0."""
    t = Table(P)
    to_captain(t)
    items = t.do("correct_arrow", looker="Ed", at="Cy", reason=REASON)
    assert items == [("arrow_corrected", {"round": 1, "looker": "Ed", "search": 1, "before": "Ann",
                                          "after": "Cy", "reason": REASON})]
    v = t.view()
    assert v["phase"] == "order_question" and v["captain"] == "Bo"   # nothing else moved
    assert {a["looker"]: a["at"] for a in v["arrows"]}["Ed"] == "Cy"
    assert [a["looker"] for a in v["arrows"]] == P                     # the order of the looks kept
    assert v["corrections"] == ["Ed's Arrow corrected: it points at Cy, not Ann (Ed's card points at Cy)"]
    assert v["history_notes"] == ["Round 1: Ed's Arrow corrected: it points at Cy, not Ann (Ed's card points at Cy)"]
    r = finish(t)
    assert r["winner"] == "knights" and r["toriko"] == ["Ed"]
    assert r["points"] == {"Ann": 2, "Bo": 2, "Cy": 0, "Di": 2, "Ed": 0}
    assert t.view()["totals"]["Ed"] == 0


def test_a_mis_tapped_captains_arrow_corrected_gives_the_witch_team_the_round():
    """FAQ: "What happens if the Captain is TORIKO? A: It's a victory for the Witch Team." Bo
    looked at Cy (the Witch) but the tablet has Bo -> Di; corrected, Bo becomes Captain TORIKO."""
    t = Table(P)
    to_captain(t)
    before = Table(P)
    to_captain(before)
    assert finish(before)["why"] == "in_order"   # the wrong Arrow: a Knights' victory
    t.do("correct_arrow", looker="Bo", at="Cy", reason="Bo's card points at Cy")
    r = finish(t)
    assert (r["winner"], r["why"], r["toriko"]) == ("witch", "captain_toriko", ["Bo"])
    assert r["points"] == {"Ann": 0, "Bo": 3, "Cy": 3, "Di": 0, "Ed": 0}


def test_a_correction_can_also_take_toriko_away():
    """The other way: the tablet has Ed -> Cy (the Witch) but Ed's card points at Ann."""
    t = Table(P)
    to_captain(t, looks=["Bo", "Di", "Di", "center", "Cy"])
    t.do("correct_arrow", looker="Ed", at="Ann", reason="wrong tile tapped")
    r = finish(t)
    assert r["toriko"] == [] and r["points"]["Ed"] == 2


def test_correcting_during_the_search_keeps_the_turn():
    """An Arrow already placed may be corrected during the Search; the one not yet placed may not."""
    t = Table(P)
    t.search(["Bo", "Di"])
    t.do("correct_arrow", looker="Bo", at="Cy", reason="mis-tap")
    v = t.view()
    assert (v["phase"], v["turn"]) == ("search", "Cy")
    assert v["arrows"][1] == {"looker": "Bo", "at": "Cy", "search": 1}
    with pytest.raises(RuleError, match="Cy has not placed this Arrow yet") as e:
        t.do("correct_arrow", looker="Cy", at="Ann", reason="mis-tap")
    assert e.value.rule.startswith("Starting with the First player")
    assert [a["looker"] for a in v["correctable_arrows"]] == ["Ann", "Bo"]


@pytest.mark.parametrize("data, words", [
    ({"looker": "Ed", "at": "Ed", "reason": "x"}, "Ed's Arrow cannot point at their own tile"),
    ({"looker": "Ed", "at": "set_aside", "reason": "x"}, "Ed's Arrow cannot point at set_aside"),
    ({"looker": "Ed", "at": "Ann", "reason": "x"}, "Ed's Arrow already points at Ann"),
])
def test_the_corrected_arrow_follows_the_search_rules(data, words):
    """As a look: "each player looks at one face-down tile of another player. (In a 4- or
    5-player game, looking at the tile in the center is also allowed.)\""""
    t = Table(P)
    to_captain(t)
    with pytest.raises(RuleError, match=words):
        t.do("correct_arrow", **data)
    assert t.view()["arrows"][4]["at"] == "Ann"
    t.do("correct_arrow", looker="Ed", at="center", reason="the center tile")   # allowed at 5 players
    assert t.view()["arrows"][4]["at"] == "center"


@pytest.mark.parametrize("reason", [None, "", "   ", "two\nlines", "x" * 81])
def test_a_reason_is_required(reason):
    t = Table(P)
    to_captain(t)
    data = {"looker": "Ed", "at": "Cy"}
    if reason is not None:
        data["reason"] = reason
    with pytest.raises(BadInput):
        t.do("correct_arrow", **data)


def test_groping_in_the_dark_corrects_each_arrow_by_its_own_search():
    """"In the first round ... each player looks at one face-down tile of another player. In the
    second round, look at one face-down tile in the center of the table.\""""
    t = Table("ABC", mode="groping", first="A")
    t.search(["B", "C", "A", "center 1", "center 2", "center 3"])
    with pytest.raises(RuleError, match="cannot point at center 2") as e:
        t.do("correct_arrow", looker="A", at="center 2", reason="x")        # Arrow 1: a player's tile
    assert e.value.rule.startswith("Two rounds are conducted")
    with pytest.raises(RuleError, match="cannot point at B") as e:
        t.do("correct_arrow", looker="A", search=2, at="B", reason="x")     # Arrow 2: the center
    assert e.value.rule.startswith("In the second round")
    t.do("correct_arrow", looker="A", search=2, at="center 3", reason="second card")
    t.do("correct_arrow", looker="A", at="C", reason="first card")
    v = t.view()
    assert [(a["looker"], a["at"], a["search"]) for a in v["arrows"]] == [
        ("A", "C", 1), ("B", "C", 1), ("C", "A", 1), ("A", "center 3", 2), ("B", "center 2", 2), ("C", "center 3", 2)]
    assert v["corrections"][0] == "A's Arrow 2 corrected: it points at Center 3, not Center 1 (second card)"
    options = {(a["looker"], a["search"]): a["options"] for a in v["correctable_arrows"]}
    assert options[("A", 1)] == ["B", "C"] and options[("A", 2)] == ["center 1", "center 2", "center 3"]
    # The Witch in center 3: A and C saw her (their second Arrows).
    t.ask_all()
    t.recommend({"A": "B", "B": "B", "C": "B"})
    t.do("ask_question", target="A", template="odd", answer="no")
    t.do("reveal_captain_tile", tile=4)
    t.do("enter_result", in_order=True, witch="center 3")
    r = t.view()["result"]
    assert r["toriko"] == ["A", "C"] and r["points"] == {"A": 0, "B": 2, "C": 0}


def test_basic_has_no_second_arrow():
    t = Table(P)
    to_captain(t)
    with pytest.raises(BadInput, match="no Search 2"):
        t.do("correct_arrow", looker="Ed", search=2, at="Cy", reason="x")


def test_unity_corrects_arrows_too():
    """Unity: "Do not use the Witch Tile." The Arrows are still the table's record."""
    t = Table("ABCD", mode="unity")
    t.search(["B", "C", "D", "center"])
    t.do("correct_arrow", looker="D", at="A", reason="mis-tap")
    assert t.view()["arrows"][3]["at"] == "A"


def test_after_the_result_the_correction_carries_the_result_the_corrected_arrows_give():
    """Found once the round's result is in (issue 30: no Undo of the result first): TORIKO and
    the points follow the corrected Arrow ("Victory for the Knights (excluding TORIKO)"), the
    witch place and the formation stay as entered, and the new result is recorded with the
    correction (never worked out on replay)."""
    t = Table(P)
    to_captain(t)
    assert finish(t)["points"]["Ed"] == 2 and t.view()["totals"]["Ed"] == 2
    [(kind, data)] = t.do("correct_arrow", looker="Ed", at="Cy", reason=REASON)
    assert kind == "arrow_corrected" and data["last"] is False
    assert data["result"]["toriko"] == ["Ed"] and data["result"]["points"]["Ed"] == 0
    v = t.view()
    assert v["phase"] == "cleanup" and v["result"]["toriko"] == ["Ed"]
    assert v["totals"] == {"Ann": 2, "Bo": 2, "Cy": 0, "Di": 2, "Ed": 0}   # the old points taken off
    assert v["correctable_arrows"] and v["can_correct"]


def test_after_the_result_a_corrected_captains_arrow_turns_the_round():
    """FAQ: "What happens if the Captain is TORIKO? A: It's a victory for the Witch Team." The
    Captain Bo's Arrow corrected to Cy (the Witch) after a Knights' victory: the Witch team wins."""
    t = Table(P)
    to_captain(t)
    finish(t)
    t.do("correct_arrow", looker="Bo", at="Cy", reason="Bo's card points at Cy")
    r = t.view()["result"]
    assert (r["winner"], r["why"], r["toriko"]) == ("witch", "captain_toriko", ["Bo"])
    assert t.view()["totals"] == {"Ann": 0, "Bo": 3, "Cy": 3, "Di": 0, "Ed": 0}


def test_after_the_last_round_the_winners_follow_the_correction():
    """"The player(s) with the highest total score after 3 rounds are the winners.": a correction
    in the last round records the winners the corrected totals give."""
    t = Table(P)
    for rnd in range(3):
        to_captain(t)
        finish(t)
        if rnd < 2:
            t.do("start_next_round", first="Ann")
    assert t.view()["phase"] == "game_over"
    assert set(t.view()["winners"]) == {"Ann", "Bo", "Di", "Ed"}
    t.do("correct_arrow", looker="Ed", at="Cy", reason=REASON)
    v = t.view()
    assert v["phase"] == "game_over" and v["totals"]["Ed"] == 4 and v["winners"] == ["Ann", "Bo", "Di"]


def test_a_toriko_reveal_whose_arrow_is_corrected_away_reopens_the_formation():
    """FAQ: a TORIKO Captain may "reveal their TORIKO status and move on to the Cleanup Phase".
    If the Captain's Arrow is then corrected away from where the Witch was, the Captain was no
    TORIKO: the reveal is taken back (recorded: ``reopened``) and the formation is entered."""
    t = Table(P)
    to_captain(t, looks=["Bo", "Cy", "Di", "center", "Ann"])   # the Captain Bo looked at Cy
    t.do("skip_captain_question")
    t.do("reveal_captain_tile", tile=2)
    t.do("reveal_toriko")
    assert t.view()["totals"]["Bo"] == 3
    [(_kind, data)] = t.do("correct_arrow", looker="Bo", at="Di", reason="Bo's card points at Di")
    assert data["reopened"] == "formation" and "result" not in data
    v = t.view()
    assert v["phase"] == "formation" and v["result"] is None and set(v["totals"].values()) == {0}
    t.do("enter_result", in_order=True, witch="Cy")
    assert t.view()["result"]["why"] == "in_order"


def test_the_questions_already_asked_are_checked_again_when_an_arrow_is_corrected():
    """"You cannot ask questions to spread information you already know. (For example, asking a
    player you know has the number 2, "Are you 2?" ...)": Ed asked Cy "Are you odd?" (allowed: the
    tablet had Ed -> Ann); Ed's Arrow corrected to Cy shows Ed had seen Cy. The table is told
    which question the rule forbade (the answer stands, nothing else changes), and the flag
    goes when the Arrow is corrected back."""
    t = Table(P)
    t.search(LOOKS)
    for target in ["Cy", "Ed", "Ann", "Ed", "Cy"]:   # Ed (5th) asks Cy "odd?"
        t.do("ask_question", target=target, template="odd", answer="no")
    assert t.view()["header_flags"] == []
    [(_k, data)] = t.do("correct_arrow", looker="Ed", at="Cy", reason=REASON)
    assert data["forbidden"] == [5]
    v = t.view()
    assert v["header_flags"] == v["flags"] == [
        "Check question 5 (Ed to Cy: Are you an odd number?): with the corrected Arrow, Ed had seen that tile, and "
        "the rules forbid the question. Its answer stands. (rule: \"You cannot ask questions to spread information "
        "you already know.\")"]
    assert [q["answer"] for q in v["questions"]] == ["no"] * 5      # nothing else changes
    [(_k, data)] = t.do("correct_arrow", looker="Ed", at="Ann", reason="it was Ann after all")
    assert data["forbidden"] == [] and t.view()["header_flags"] == []
    # a correction that changes no question's check records nothing about them
    [(_k, data)] = t.do("correct_arrow", looker="Di", at="Ann", reason="mis-tap")
    assert "forbidden" not in data


def test_corrections_of_past_rounds_stay_in_the_history():
    t = Table(P)
    to_captain(t)
    t.do("correct_arrow", looker="Ed", at="Cy", reason=REASON)
    finish(t)
    t.do("start_next_round", first="Ann")
    v = t.view()
    assert v["corrections"] == [] and v["history_notes"] == [
        "Round 1: Ed's Arrow corrected: it points at Cy, not Ann (Ed's card points at Cy)"]


def test_the_command_is_in_the_table():
    spec = COMMANDS.spec_for("correct_arrow")
    assert [a.name for a in spec.args] == ["looker", "at", "search", "reason"]


# -- through the real GameSession and journal: undo the result, correct, enter it again -----------

def C(kind, **data):
    return Command(kind, data, "tablet")


def _to_the_captains_tile(journal, recommended: str, asked: str) -> GameSession:
    """A basic round on the real session up to the Captain's tile: everyone recommends
    ``recommended``, the Captain's additional question goes to ``asked``."""
    s = GameSession.start(journal, SevenKnightsRules(), {"players": P, "first": "Ann", "mode": "basic"})
    for at in LOOKS:
        s.execute(C("look", at=at))
    for target in ["Cy", "Ed", "Ann", "Ed", "Bo"]:
        s.execute(C("ask_question", target=target, template="odd", answer="no"))
    s.execute(C("open_recommendation"))
    for p in P:
        s.execute(C("cast_ballot", voter=p, choice=recommended))
    s.execute(C("ask_question", target=asked, template="odd", answer="no"))
    return s


@pytest.fixture
def session(memory_journal):
    s = _to_the_captains_tile(memory_journal, "Bo", "Cy")
    s.execute(C("reveal_captain_tile", tile=2))
    return s, memory_journal


def test_found_after_the_result_corrected_without_undo_and_replayed_the_same(session):
    s, journal = session
    s.execute(C("enter_result", in_order=True, witch="Cy"))
    assert s.view("table")["result"]["points"]["Ed"] == 2 and s.state.phase == "cleanup"
    s.execute(C("correct_arrow", looker="Ed", at="Cy", reason=REASON))   # no Undo of the result
    assert s.state.phase == "cleanup"
    v = s.view("table")
    assert v["result"]["toriko"] == ["Ed"] and v["totals"] == {"Ann": 2, "Bo": 2, "Cy": 0, "Di": 2, "Ed": 0}
    # the journal replays to the same state
    again = GameSession.resume(journal, s.game_id, SevenKnightsRules())
    assert again.state == s.state


def test_a_correction_is_undoable(session):
    s, _ = session
    s.execute(C("correct_arrow", looker="Ed", at="Cy", reason=REASON))
    assert s.state.round.arrows[4].at == "Cy"
    s.undo()
    assert s.state.round.arrows[4].at == "Ann" and s.state.round.corrections == ()
    assert s.state.phase == "formation"


def test_a_captain_revealed_as_the_witch_after_a_correction():
    """"If it's Witch Myrmamius, Witch Myrmamius and TORIKO win immediately!" — found after the
    Captain's tile: Undo takes the tile back, the Arrow is corrected, the tile revealed again."""
    journal = Journal(":memory:")
    s = _to_the_captains_tile(journal, "Cy", "Ann")
    s.execute(C("reveal_captain_tile", tile="witch"))
    assert s.view("table")["result"]["toriko"] == []
    s.undo()
    assert s.state.phase == "captain_reveal"
    s.execute(C("correct_arrow", looker="Ed", at="Cy", reason=REASON))
    s.execute(C("reveal_captain_tile", tile="witch"))
    r = s.view("table")["result"]
    assert (r["why"], r["toriko"]) == ("captain_witch", ["Ed"])
    assert r["points"] == {"Ann": 0, "Bo": 0, "Cy": 3, "Di": 0, "Ed": 3}
    journal.close()



class SessionTable(Table):
    """The same table, every command recorded through a real GameSession (journal in memory)."""

    def __init__(self, journal, players):
        super().__init__(players)
        self.session = GameSession.start(journal, SevenKnightsRules(), self.setup)

    def do(self, kind, source="tablet", **data):
        events = self.session.execute(Command(kind, data, source))
        self.state = self.session.state
        return [(ev.kind, ev.data) for ev in events]


def test_after_the_last_round_the_journal_records_the_corrected_winners(memory_journal):
    """The games table (past games, export) says the winners the correction gives, not those of the
    first entry: the session rewrites a finished game's record when its result changes."""
    t = SessionTable(memory_journal, P)
    for rnd in range(3):
        to_captain(t)
        finish(t)
        if rnd < 2:
            t.do("start_next_round", first="Ann")
    record = memory_journal.game(t.session.game_id)
    assert record.status == "finished" and set(record.winners) == {"Ann", "Bo", "Di", "Ed"}
    t.do("correct_arrow", looker="Ed", at="Cy", reason=REASON)
    record = memory_journal.game(t.session.game_id)
    assert record.status == "finished" and list(record.winners) == ["Ann", "Bo", "Di"]
