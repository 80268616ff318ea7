"""Seven Knights Bewitched: each rule a test, citing the rulebook
(/work/shared/rules/seven-knights-bewitched.txt)."""
import pytest

from companion.core.events import BadInput, RuleError
from companion.core.i18n import texts
from companion.games.sevenknights.tables import POINTS
try:  # tests/games is a package (tests/games/__init__.py) ...
    from tests.games.test_sevenknights_driver import RULES, Table
except ImportError:  # ... or a plain folder on sys.path
    from test_sevenknights_driver import RULES, Table


def setup_of(mode, n):
    return texts(RULES.view(RULES.initial_state({"players": [f"P{i}" for i in range(n)], "mode": mode}), "table")["setup"])


# -- Game Setup ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n, tiles, center, unused", [
    (4, "1 2 3 4 witch", ["center"], [5, 6, 7]),
    (5, "1 2 3 4 5 witch", ["center"], [6, 7]),
    (6, "1 2 3 4 5 witch", [], [6, 7]),
    (7, "1 2 3 4 5 6 witch", [], [7]),
    (8, "1 2 3 4 5 6 7 witch", [], []),
])
def test_basic_tiles_to_prepare_by_number_of_players(n, tiles, center, unused):
    """Basic "Suspicion and Distrust": "| 4 | 1-4 + Witch | 5 | 1-5 + Witch | 6 | 1-5 + Witch |
    7 | 1-6 + Witch | 8 | 1-7 + Witch |"; "(In games with 4 or 5 players, place the extra tile
    face-down in the center of the table.)"; "Arrange the remaining Knight Tiles in ascending order"."""
    s = setup_of("basic", n)
    assert s["tiles"] == tiles.split()
    assert s["center"] == center and s["set_aside"] == 0
    assert s["unused_knights"] == unused
    assert s["player_cards"] == 2 and s["arrow_cards"] == 1


@pytest.mark.parametrize("n, aside", [(3, 2), (4, 1)])
def test_groping_in_the_dark_all_tiles_three_in_center(n, aside):
    """"Prepare all Knight Tiles and the Witch Tile." ... "lay three of them in the center of the
    table. Set aside the rest (2 tiles in a 3-player game; 1 tile in a 4-player game)." and "3
    Player Cards (turn two cards arrow side up)"."""
    s = setup_of("groping", n)
    assert s["tiles"] == "1 2 3 4 5 6 7 witch".split()
    assert s["center"] == ["center 1", "center 2", "center 3"]
    assert s["set_aside"] == aside and s["player_cards"] == 3 and s["arrow_cards"] == 2
    assert s["only_knights_dealt"]


@pytest.mark.parametrize("n, center, aside", [(4, 1, 3), (5, 1, 2), (6, 0, 2), (7, 0, 1)])
def test_challenging_path_deals_from_all_tiles(n, center, aside):
    """Advanced: "Shuffle all Knight Tiles and the Witch Tile. Deal one tile face-down to each
    player ... (For 4 or 5 players, place one of the leftover tiles face down in the center of the
    table.) Set aside the remaining tiles without looking at them for this round.\""""
    s = setup_of("advanced", n)
    assert s["tiles"] == "1 2 3 4 5 6 7 witch".split()
    assert len(s["center"]) == center and s["set_aside"] == aside and s["unused_knights"] == []


@pytest.mark.parametrize("n, tiles, center", [(4, "12345", 1), (5, "123456", 1), (6, "123456", 0), (7, "1234567", 0)])
def test_unity_tiles_without_witch(n, tiles, center):
    """Tutorial "Unity": "| 4 | 5 | 6 | 7 | ... | 1-5 | 1-6 | 1-6 | 1-7 |" "Do not use the Witch
    Tile. For 4 or 5 players, place one of the leftover tiles face down in the center.\""""
    s = setup_of("unity", n)
    assert s["tiles"] == list(tiles) and len(s["center"]) == center and s["set_aside"] == 0


@pytest.mark.parametrize("mode, n", [("basic", 3), ("basic", 9), ("groping", 5), ("groping", 2),
                                     ("advanced", 8), ("advanced", 3), ("unity", 8)])
def test_each_mode_has_its_player_counts(mode, n):
    """"Basic Rules (4-8 Players)", "Groping in the Dark (3-4 Players)", "Challenging Path (up to
    4-7 players)", "Unity (up to 4-7 players)"."""
    with pytest.raises(BadInput, match=rf"not {n}\.$"):
        RULES.initial_state({"players": [f"P{i}" for i in range(n)], "mode": mode})


@pytest.mark.parametrize("setup, words", [
    ({"players": ["A", "B", "C", "D"], "first": "Z"}, "Z is not at the table, so cannot be First player"),
    ({"players": ["A", "B", "A", "D"]}, "Two players have the same name"),
    ({"players": ["A", "B", "center", "D"]}, "“center” cannot be a player's name here: it names a place for the tiles"),
    ({"players": ["A", "B", "C", "D"], "mode": "chaos"}, "There is no mode “chaos”; the modes are Suspicion and Distrust, Groping in the Dark"),
    ({"players": "ABCD"}, "Name every player, in clockwise seat order"),
])
def test_bad_setup_is_one_line_bad_input(setup, words):
    with pytest.raises(BadInput, match=words) as e:
        RULES.initial_state(setup)
    assert "\n" not in str(e.value)


def test_first_player_starts_the_game():
    """"The player who was most recently tempted (or chosen randomly) takes the Start Player Token.
    This player is henceforth called the First player.\""""
    t = Table("ABCDE", first="C")
    v = t.view()
    assert v["first"] == "C" and v["order"] == list("CDEAB") and v["turn"] == "C" and v["phase"] == "search"


# -- Search Phase -----------------------------------------------------------------------------

def test_search_goes_clockwise_from_the_first_player():
    """"Starting with the First player and moving clockwise, each player looks at one face-down
    tile of another player.\""""
    t = Table("ABCDE", first="D")
    with pytest.raises(RuleError, match="D's turn"):
        t.do("look", looker="A", at="B")
    seen = []
    for target in ["A", "B", "C", "D", "E"]:
        seen.append(t.view()["turn"])
        t.do("look", at=target)
    assert seen == list("DEABC")
    assert t.view()["phase"] == "questions"


def test_search_not_your_own_tile():
    """"each player looks at one face-down tile of another player\""""
    t = Table("ABCDE")
    with pytest.raises(RuleError, match="not your own") as e:
        t.do("look", at="A")
    assert "another player" in e.value.rule


def test_center_tile_allowed_with_4_or_5_players_only():
    """"(In a 4- or 5-player game, looking at the tile in the center is also allowed.)\""""
    t = Table("ABCDE")
    t.do("look", at="center")
    assert t.view()["arrows"] == [{"looker": "A", "at": "center", "search": 1}]
    t6 = Table("ABCDEF")
    assert "center" not in t6.view()["look_options"]
    with pytest.raises(RuleError, match="center is not a tile you may look at"):
        t6.do("look", at="center")


def test_unknown_tile_names_what_was_wrong():
    t = Table("ABCDE")
    with pytest.raises(RuleError, match="Zed is not a tile you may look at now \\(choose from: B, C, D, E, center\\)"):
        t.do("look", at="Zed")
    with pytest.raises(BadInput, match="look.at: must be a non-empty text"):
        t.do("look", at=3)


def test_groping_in_the_dark_two_passes_the_second_at_the_center():
    """"Two rounds are conducted. In the first round, starting with the First player and moving
    clockwise, each player looks at one face-down tile of another player. In the second round,
    look at one face-down tile in the center of the table.\""""
    t = Table("ABC", mode="groping", first="B")
    with pytest.raises(RuleError):
        t.do("look", at="center 1")  # first pass: another player's tile
    t.search(["C", "A", "B"])
    v = t.view()
    assert (v["phase"], v["search"], v["turn"]) == ("search", 2, "B")
    assert v["look_options"] == ["center 1", "center 2", "center 3"]
    with pytest.raises(RuleError, match="A is not a tile you may look at") as e:
        t.do("look", at="A")
    assert e.value.rule.startswith("In the second round")
    t.search(["center 1", "center 3", "center 1"])
    v = t.view()
    assert v["phase"] == "questions"
    assert [(a["looker"], a["at"], a["search"]) for a in v["arrows"]] == [
        ("B", "C", 1), ("C", "A", 1), ("A", "B", 1), ("B", "center 1", 2), ("C", "center 3", 2), ("A", "center 1", 2)]


def test_arrows_are_public():
    """"Place your Player Card (Arrow) pointing at the tile you've looked at so that everyone
    knows which tile you saw.\""""
    t = Table("ABCDE")
    t.search(["C", "A"])
    for viewer in ("table", "narrator", "E"):
        assert [(a["looker"], a["at"]) for a in t.view(viewer)["arrows"]] == [("A", "C"), ("B", "A")]


# -- Question Phase ---------------------------------------------------------------------------

def searched(players="ABCDE", targets="BCDEA", first=None, mode="basic"):
    t = Table(players, first=first, mode=mode)
    t.search(list(targets))
    return t


def test_questions_one_each_clockwise_from_the_first_player():
    """"Starting with the First player and moving clockwise, each player asks any other player
    one question about the numbers, which can be answered either "Yes" or "No.\"\""""
    t = searched(first="C", targets="DEABC")
    with pytest.raises(RuleError, match="C's turn to ask"):
        t.do("ask_question", asker="A", target="B", template="odd", answer="yes")
    askers = []
    for _ in range(5):
        askers.append(t.view()["turn"])
        t.do("ask_question", target="A" if t.view()["turn"] != "A" else "B", template="free", text="Are you the Witch?", answer="no")
    assert askers == list("CDEAB")
    assert t.view()["phase"] == "recommendation"


def test_question_to_another_player_not_oneself():
    """"each player asks any other player one question\""""
    t = searched()
    with pytest.raises(RuleError, match="not yourself"):
        t.do("ask_question", target="A", template="odd", answer="no")


def test_question_log_is_shared_with_templates():
    """"Writing down questions and sharing them with everyone is one way to go." Example Questions:
    "Are you an odd number?", "Are you 3 or more?", "Are you 1?", "Are you a larger number than
    (the person you saw) Mr./Ms. XX?", "Is Mr./Ms. XX (whom you saw) 1?\""""
    t = searched(targets="BCDEA")  # A->B, B->C, C->D, D->E, E->A
    t.do("ask_question", target="C", template="odd", answer="yes")                 # A
    t.do("ask_question", target="D", template="at_least", n=3, answer="no")        # B
    t.do("ask_question", target="E", template="larger_than", other="D", answer="yes")  # C saw D only
    t.do("ask_question", target="C", template="other_is", other="A", n=1, answer="no")  # D saw E
    t.do("ask_question", target="B", template="is_number", n=1, answer="yes")      # E saw A
    log = t.view("A")["questions"]
    assert [(q["asker"], q["target"], q["text"], q["answer_text"]) for q in log] == [
        ("A", "C", "Are you an odd number?", "Yes"),
        ("B", "D", "Are you 3 or more?", "No"),
        ("C", "E", "Are you a larger number than D?", "Yes"),
        ("D", "C", "Is A 1?", "No"),
        ("E", "B", "Are you 1?", "Yes"),
    ]


def test_forbidden_question_to_someone_whose_tile_you_saw():
    """"You cannot ask questions to spread information you already know. (For example, asking a
    player you know has the number 2, "Are you 2?"\""""
    t = searched(targets="BCDEA")  # A looked at B
    for template, extra in [("is_number", {"n": 2}), ("odd", {}), ("at_least", {"n": 4})]:
        with pytest.raises(RuleError, match="A already knows the answer") as e:
            t.do("ask_question", target="B", template=template, answer="yes", **extra)
        assert e.value.rule == "You cannot ask questions to spread information you already know."
    # Comparing B (seen) with C (not seen) teaches A something: allowed.
    t.do("ask_question", target="B", template="larger_than", other="C", answer="no")


def test_forbidden_question_about_a_tile_you_know():
    """"(To someone who has seen you and knows you are 2) "Am I 2?"": asking about your own tile or
    about one you saw spreads what you already know."""
    t = searched(targets="BCDEA")  # A looked at B
    with pytest.raises(RuleError, match="already knows"):
        t.do("ask_question", target="E", template="other_is", other="A", n=2, answer="yes")  # "Is A 2?"
    with pytest.raises(RuleError, match="already knows"):
        t.do("ask_question", target="E", template="other_is", other="B", n=2, answer="yes")
    with pytest.raises(RuleError, match="already knows"):
        t.do("ask_question", target="B", template="larger_than", other="A", answer="yes")  # saw B, knows self
    t.do("ask_question", target="B", template="other_is", other="C", n=2, answer="no")


@pytest.mark.parametrize("data, words", [
    ({"target": "B", "template": "odd", "answer": "maybe"}, "ask_question.answer: 'maybe' is not one of yes, no"),
    ({"target": "B", "template": "is_number", "n": 9, "answer": "no"}, "ask_question.n: must be 1 to 7, got 9"),
    ({"target": "B", "template": "is_number", "answer": "no"}, "A question names a Knight by a number from 1 to 7"),
    ({"target": "B", "template": "trick", "answer": "no"}, "ask_question.template: 'trick' is not one of"),
    ({"target": "Q", "template": "odd", "answer": "no"}, "ask_question.target: 'Q' is not a player at this table"),
    ({"target": "B", "template": "free", "text": "two\nlines", "answer": "no"}, "one line"),
    ({"target": "B", "template": "free", "text": "  ", "answer": "no"}, "ask_question.text: must be a non-empty text"),
    ({"target": "B", "template": "larger_than", "other": "B", "answer": "no"}, "names B twice"),
])
def test_bad_question_input_names_what_was_wrong(data, words):
    t = searched(targets="CDEAB")
    with pytest.raises(BadInput, match=words):
        t.do("ask_question", **data)
    assert t.view()["questions"] == []  # nothing recorded


# -- Recommendation Phase ---------------------------------------------------------------------

def questioned(players="ABCDE", first=None, mode="basic", targets=None):
    t = Table(players, first=first, mode=mode)
    if targets is None:
        targets = [t.state.players[(t.state.players.index(p) + 1) % len(players)] for p in t.state.order]
    t.search(targets)
    if mode == "groping":
        t.search(["center 1"] * len(players))
    t.ask_all()
    return t


def test_recommendation_is_secret_until_everyone_is_in():
    """"all players simultaneously place their second Player Token in front of the player they
    think should be the Captain, saying "ready, set, go!\"\""""
    t = questioned()
    t.do("open_recommendation")
    t.do("cast_ballot", voter="A", choice="C")
    t.do("cast_ballot", voter="B", choice="B")
    table = t.view("table")["vote"]
    assert table["voted"] == ["A", "B"] and "ballots" not in table
    assert t.view("A")["my_recommendation"] == "C"
    assert "my_recommendation" not in t.view("C") and "my_recommendation" not in t.view("narrator")
    with pytest.raises(RuleError, match="Still waiting for a recommendation from C, D, E"):
        t.do("reveal_vote", force=True)
    t.do("cast_ballot", voter="A", choice="D")  # changed before the reveal
    for v in "CDE":
        t.do("cast_ballot", voter=v, choice="D")
    view = t.view()
    assert view["vote"] is None and view["vote_history"][-1]["ballots"]["A"] == "D"
    assert view["captain"] == "D" and view["phase"] == "order_question"


def test_you_may_recommend_yourself_but_must_recommend():
    """"You may recommend yourself." — and every player places a token."""
    t = questioned()
    t.do("open_recommendation")
    t.do("cast_ballot", voter="A", choice="A")
    with pytest.raises(RuleError, match="Every player recommends"):
        t.do("cast_ballot", voter="B", choice=None)


def test_recommendation_through_any_input_seat_and_option():
    """Vote boxes send seat and option numbers; the option list is the players in seat order."""
    t = questioned()
    t.do("open_recommendation")
    for seat in range(1, 6):
        t.do("cast_ballot", source=f"box:{seat}", seat=seat, option=1)  # everyone picks B
    v = t.view()
    assert v["captain"] == "B" and not v["tie"]
    assert v["vote_history"][-1]["sources"]["C"] == "box:3"


CAPTAIN_CASES = [
    # (first, recommendations A..E, captain, tie, how)
    ("A", "BBBAE", "B", False, "how_most"),                       # most recommendations
    ("A", "BCCBE", "B", True, "how_humble"),                      # B and C tied; C recommended themself
    ("A", "ABCDE", "E", True, "how_farthest"),                    # everyone recommended themselves
    ("C", "ABCDE", "B", True, "how_farthest"),                    # ...counted clockwise from C: B is farthest
    ("A", "BADCD", "D", False, "how_most"),
    ("A", "CABED", "E", True, "how_farthest"),                    # all tied, no one recommended themself
    ("B", "CABED", "A", True, "how_farthest"),
]


@pytest.mark.parametrize("first, recs, captain, tie, how", CAPTAIN_CASES)
def test_the_captain_rule(first, recs, captain, tie, how):
    """"The person with the most recommendations becomes the Captain. In case of a tie for most
    recommendations, the person who did not recommend themselves becomes Captain. If everyone is
    still tied (either everyone recommended themselves or no one did), then the person farthest
    from the First player, counting clockwise, becomes the Captain.\""""
    t = questioned(first=first)
    t.recommend(dict(zip("ABCDE", recs)))
    v = t.view()
    assert (v["captain"], v["tie"]) == (captain, tie)
    from companion.core.i18n import tr
    assert v["captain_how"] == tr(f"sevenknights.say.{how}")


def test_captain_tie_among_several_who_did_not_recommend_themselves():
    """The rulebook's open case: three tied at 2, two of them did not recommend themselves. Our
    reading (CaptainRule): those two are "still tied", and the farthest of them clockwise from the
    First player is Captain — never the one who recommended themself."""
    # A->B B->C C->C D->A E->B F->A: A2 B2 C2; C recommended themself; A, B did not.
    t = questioned(players="ABCDEF", first="A")
    t.recommend(dict(zip("ABCDEF", "BCCABA")))
    v = t.view()
    assert v["recommendations"] == {"A": 2, "B": 2, "C": 2} and (v["captain"], v["tie"]) == ("B", True)
    # From First player B, A is the farthest of A and B clockwise (B C D E F A).
    t = questioned(players="ABCDEF", first="B")
    t.recommend(dict(zip("ABCDEF", "BCCABA")))
    assert t.view()["captain"] == "A"


def test_first_player_counts_as_nearest_for_the_farthest_rule():
    """"the person farthest from the First player, counting clockwise": the First player is at
    distance 0, so when the First player ties with the player to their right, that player wins."""
    t = questioned(first="B")
    t.recommend(dict(zip("ABCDE", "ABCDE")))
    assert t.view()["captain"] == "A"  # B C D E A: A is last


def test_witch_and_toriko_recommendation_rule_is_a_reminder():
    """"Witch Myrmamius cannot recommend TORIKO. TORIKO cannot recommend Witch Myrmamius." The
    tablet cannot know who they are while the vote is secret: the rule is shown, not enforced."""
    t = questioned()
    assert "Witch Myrmamius cannot recommend TORIKO." in " ".join(t.view()["reminders"])


# -- Order Phase ------------------------------------------------------------------------------

def captained(players="ABCDE", first=None, mode="basic", targets=None, captain="C"):
    t = questioned(players, first, mode, targets)
    t.recommend({p: captain for p in players})
    return t


def test_captain_asks_one_additional_question():
    """"The Captain asks one more question, following the same rules as in the Question Phase.\""""
    t = captained(targets="BCDEA")  # C looked at D
    with pytest.raises(RuleError, match="C's turn to ask"):
        t.do("ask_question", asker="A", target="B", template="odd", answer="no")
    with pytest.raises(RuleError, match="already knows"):
        t.do("ask_question", target="D", template="odd", answer="no")
    t.do("ask_question", target="E", template="at_least", n=4, answer="yes")
    v = t.view()
    assert v["questions"][-1]["by_captain"] and v["phase"] == "captain_reveal"


def test_captain_reveals_witch_and_the_witch_team_wins_at_once():
    """"The Captain reveals their own tile. If it's Witch Myrmamius, Witch Myrmamius and TORIKO win
    immediately! Proceed directly to the Cleanup Phase.\""""
    t = captained(targets="BCDEA", captain="C")  # B looked at C: B is TORIKO
    t.do("ask_question", target="E", template="odd", answer="yes")
    t.do("reveal_captain_tile", tile="witch")
    v = t.view()
    assert v["phase"] == "cleanup"
    assert v["result"]["winner"] == "witch" and v["result"]["toriko"] == ["B"]
    assert v["totals"] == {"A": 0, "B": 3, "C": 3, "D": 0, "E": 0}


@pytest.mark.parametrize("mode, players, tile, words", [
    ("groping", "ABC", "witch", "only Knight Tiles are dealt"),
    ("unity", "ABCD", "witch", "no Witch Tile"),
    ("basic", "ABCDEF", 6, "Tile 6 is not prepared for 6 players"),
    ("unity", "ABCD", 6, "Tile 6 is not prepared for 4 players"),
])
def test_captain_tile_must_be_one_that_was_dealt(mode, players, tile, words):
    """Groping: "Shuffle only the Knight Tiles (excluding the Witch Tile) and deal"; Unity: "Do not
    use the Witch Tile."; the tables of tiles to prepare."""
    t = captained(players, mode=mode, captain="A")
    t.do("ask_question", target="B", template="free", text="Is the center tile you saw 7?", answer="no")
    with pytest.raises(RuleError, match=words):
        t.do("reveal_captain_tile", tile=tile)
    with pytest.raises(BadInput, match="reveal_captain_tile.tile: must be a Knight number"):
        t.do("reveal_captain_tile", tile="seven")


def revealed(tile=3, **kw):
    t = captained(**kw)
    captain = t.state.round.captain
    target = next(p for p in t.state.players if p != captain and
                  p not in {a.at for a in t.state.round.arrows if a.looker == captain})
    t.do("ask_question", target=target, template="free", text="Are you 7?", answer="no")
    t.do("reveal_captain_tile", tile=tile)
    return t


def test_knights_win_when_in_ascending_order():
    """"If the tiles are in ascending order, the Knights of Stlute win! (The victory is shared by
    everyone except Witch Myrmamius and TORIKO.)" Rounds 1-2: Knights score 2 (front 0/2)."""
    t = revealed(targets="BCDEA", captain="C")  # E looked at A
    t.do("enter_result", in_order=True, witch="A")
    r = t.view()["result"]
    assert (r["winner"], r["toriko"]) == ("knights", ["E"])
    assert r["points"] == {"A": 0, "B": 2, "C": 2, "D": 2, "E": 0}


def test_witch_team_wins_when_out_of_order():
    """"If not, Witch Myrmamius and TORIKO win!" Rounds 1-2: the Witch team scores 3 (back 0/3)."""
    t = revealed(targets="BCDEA", captain="C")
    t.do("enter_result", in_order=False, witch="A")
    assert t.view()["result"]["points"] == {"A": 3, "B": 0, "C": 0, "D": 0, "E": 3}


def test_captain_who_is_toriko_loses_the_round_for_the_knights():
    """FAQ: "What happens if the Captain is TORIKO? A: It's a victory for the Witch Team.\""""
    t = revealed(targets="BCDEA", captain="C")  # C looked at D
    t.do("enter_result", in_order=True, witch="D")
    r = t.view()["result"]
    assert (r["winner"], r["why"], r["toriko"]) == ("witch", "captain_toriko", ["C"])


def test_witch_in_the_center_makes_its_lookers_toriko():
    """4-5 players: the center tile may be the Witch; "If you see Witch Myrmamius, you immediately
    become TORIKO (join the Witch Team).\""""
    t = revealed(targets=["center", "C", "D", "E", "A"], captain="C")
    t.do("enter_result", in_order=False, witch="center")
    r = t.view()["result"]
    assert (r["winner"], r["toriko"]) == ("witch", ["A"])
    assert r["points"] == {"A": 3, "B": 0, "C": 0, "D": 0, "E": 0}


def test_no_witch_and_out_of_order_nobody_scores():
    """FAQ: "What happens if the Witch is missing and the formation is not in ascending order? A:
    All players receive zero points as knights.\""""
    t = revealed(mode="advanced", players="ABCDEF", captain="C")
    assert "set_aside" in t.view()["witch_places"]
    t.do("enter_result", in_order=False, witch="set_aside")
    r = t.view()["result"]
    assert r["winner"] == "none" and set(r["points"].values()) == {0}


def test_groping_witch_is_in_the_center_or_set_aside():
    t = revealed(mode="groping", players="ABC", captain="A", tile=5)
    assert t.view()["witch_places"] == ["center 1", "center 2", "center 3", "set_aside"]
    with pytest.raises(RuleError, match="only Knight Tiles are dealt"):
        t.do("enter_result", in_order=False, witch="B")
    t.do("enter_result", in_order=False, witch="center 1")  # everyone looked at center 1
    r = t.view()["result"]
    assert r["toriko"] == ["A", "B", "C"] and r["why"] == "captain_toriko"


def test_result_cannot_name_the_captain_as_the_witch():
    t = revealed(captain="C")
    with pytest.raises(RuleError, match="C revealed a Knight"):
        t.do("enter_result", in_order=True, witch="C")
    with pytest.raises(BadInput, match="Where was Witch Myrmamius\\? “moon” is not a place"):
        t.do("enter_result", in_order=True, witch="moon")
    with pytest.raises(BadInput, match="enter_result.in_order: must be true or false"):
        t.do("enter_result", in_order="yes", witch="A")


# -- Cleanup Phase and the end ----------------------------------------------------------------

def play_round(t, *, captain, witch, in_order, next_first=None, tile=3, targets=None):
    n = len(t.state.players)
    order = t.state.order
    if targets is None:
        targets = [t.state.players[(t.state.players.index(p) + 1) % n] for p in order]
    t.search(targets)
    if t.state.rules_mode.searches[-1] == "center" and t.state.phase == "search":
        t.search(["center 2"] * n)
    t.ask_all()
    t.recommend({p: captain for p in t.state.players})
    t.do("ask_question", target=next(p for p in t.state.players if p != captain), template="free",
         text="Did you see a Knight?", answer="yes")
    if tile == "witch":
        t.do("reveal_captain_tile", tile="witch")
    else:
        t.do("reveal_captain_tile", tile=tile)
        t.do("enter_result", in_order=in_order, **({"witch": witch} if witch else {}))
    if next_first:
        t.do("start_next_round", first=next_first)


def test_three_rounds_third_worth_seven_and_shared_wins():
    """"The 1st and 2nd Rounds and the 3rd Round repeat this sequence, and the game ends after 3
    rounds." 3rd Round Scoring Cards are 0/7. "The player(s) with the highest total score after 3
    rounds are the winners.\""""
    t = Table("ABCDE")
    # Round 1: E (looked at A, the Witch) is TORIKO; in order -> Knights B C D score 2.
    play_round(t, captain="C", witch="A", in_order=True, next_first="B")
    assert t.view()["totals"] == {"A": 0, "B": 2, "C": 2, "D": 2, "E": 0}
    assert (t.view()["round"], t.view()["first"], t.view()["turn"]) == (2, "B", "B")
    assert t.view()["arrows"] == [] and t.view()["questions"] == []
    # Round 2: Captain B is the Witch: the Witch team (B and A, who looked at B) scores 3.
    play_round(t, captain="B", witch=None, in_order=None, tile="witch", next_first="D")
    assert t.view()["totals"] == {"A": 3, "B": 5, "C": 2, "D": 2, "E": 0}
    # Round 3 (D first; C looked at D): the Witch is D; out of order: D and C score 7.
    play_round(t, captain="E", witch="D", in_order=False)
    v = t.view()
    assert v["phase"] == "game_over"
    assert v["totals"] == {"A": 3, "B": 5, "C": 9, "D": 9, "E": 0}
    assert v["winners"] == ["C", "D"]
    assert [r["player"] for r in v["standings"]][:2] == ["C", "D"]
    assert RULES.outcome(t.state)["winners"] == ["C", "D"]
    with pytest.raises(RuleError, match="The game is over") as e:
        t.do("start_next_round", first="A")
    assert e.value.rule == "The game ends after 3 rounds."


def test_points_are_data():
    assert POINTS == {1: {"knights": 2, "witch": 3}, 2: {"knights": 2, "witch": 3}, 3: {"knights": 7, "witch": 7}}


def test_next_first_player_had_tile_one_or_the_smallest():
    """"the player who had the "1 Eins" tile (or, if none, the player having the tile with the
    smallest number) takes the Start Player Marker\""""
    t = Table("ABCDE")
    play_round(t, captain="C", witch="A", in_order=True, tile=1)
    with pytest.raises(RuleError, match="C revealed tile 1"):
        t.do("start_next_round", first="B")
    with pytest.raises(RuleError, match="A had Witch Myrmamius, who has no number"):
        t.do("start_next_round", first="A")
    with pytest.raises(BadInput, match="start_next_round.first: 'Q' is not a player at this table"):
        t.do("start_next_round", first="Q")
    t.do("start_next_round", first="C")
    assert t.view()["first"] == "C" and t.view()["past_rounds"][0]["captain"] == "C"


def test_unity_is_one_round_without_points():
    """"When playing as a tutorial, it ends after one round, and there are no points.\""""
    t = Table("ABCD", mode="unity")
    assert t.view()["rounds"] == 1
    play_round(t, captain="B", witch=None, in_order=True)
    v = t.view()
    assert v["phase"] == "game_over" and set(v["totals"].values()) == {0}
    assert v["winners"] == list("ABCD")  # cooperative: shared by everyone
    with pytest.raises(RuleError) as e:
        t.do("start_next_round", first="A")
    assert "tutorial" in e.value.rule
    t2 = Table("ABCD", mode="unity")
    play_round(t2, captain="B", witch=None, in_order=False)
    assert t2.view()["winners"] == [] and t2.view()["result"]["winner"] == "none"


def test_commands_out_of_phase_are_refused_with_the_phase():
    t = Table("ABCDE")
    with pytest.raises(RuleError, match="Not now: this is the Search Phase"):
        t.do("open_recommendation")
    with pytest.raises(RuleError, match="Search Phase"):
        t.do("reveal_captain_tile", tile=1)
    with pytest.raises(BadInput, match="has no command “dance”"):
        t.do("dance")


def test_every_view_is_json_safe_and_names_phase_and_prompt():
    import json
    t = Table("ABCDE")
    views = []
    for step in range(3):
        views.append(t.view())
        play_round(t, captain="C", witch="A", in_order=bool(step % 2), next_first="B" if step < 2 else None)
    views.append(t.view("A"))
    for v in views:
        json.dumps(v)
        assert v["phase"] and v["prompt"] and "vote" in v and "vote_history" in v


# -- Issue 33: what a table could not enter -------------------------------------------------------

def _to_formation(looks=("Bo", "Cy", "Di", "center", "Ann"), captain="Bo", tile=2):
    t = Table(["Ann", "Bo", "Cy", "Di", "Ed"])
    t.search(list(looks))
    t.ask_all()
    t.recommend({p: captain for p in t.state.players})
    t.do("skip_captain_question")
    t.do("reveal_captain_tile", tile=tile)
    assert t.state.phase == "formation"
    return t


def test_the_captains_additional_question_can_be_skipped():
    """"The Captain asks one more question, following the same rules as in the Question Phase."
    The question is the Captain's: skipped, the Captain reveals their own tile next."""
    t = Table(["Ann", "Bo", "Cy", "Di", "Ed"])
    t.search(["Bo", "Cy", "Di", "center", "Ann"])
    t.ask_all()
    t.recommend({p: "Bo" for p in t.state.players})
    asked = len(t.state.round.questions)
    assert t.do("skip_captain_question") == [("captain_question_skipped", {"round": 1, "captain": "Bo"})]
    assert t.state.phase == "captain_reveal" and len(t.state.round.questions) == asked
    with pytest.raises(RuleError) as e:       # once skipped (or asked), there is none to skip
        t.do("skip_captain_question")
    assert e.value.rule.startswith("The Captain asks one more question")


def test_the_skip_is_refused_outside_the_order_phase():
    t = Table("ABCDE")
    with pytest.raises(RuleError, match="Search Phase"):
        t.do("skip_captain_question")


def test_a_toriko_captain_reveals_it_and_the_witch_team_wins():
    """FAQ: "What happens if the Captain is TORIKO? A: It's a victory for the Witch Team. The
    Captain can either arrange the beloved Myrmamius in the formation or reveal their TORIKO
    status and move on to the Cleanup Phase." Bo (Captain, tile 2) looked at Cy, the Witch."""
    t = _to_formation()
    assert t.view()["toriko_places"] == ["Cy"]          # where the Captain's Arrow points
    [(kind, data)] = t.do("reveal_toriko")
    assert kind == "toriko_revealed" and data["witch"] == "Cy" and data["captain"] == "Bo"
    v = t.view()
    assert v["phase"] == "cleanup"                     # "move on to the Cleanup Phase"
    r = v["result"]
    assert (r["winner"], r["why"], r["witch"], r["toriko"], r["in_order"]) == ("witch", "captain_toriko", "Cy",
                                                                              ["Bo"], None)
    assert r["points"] == {"Ann": 0, "Bo": 3, "Cy": 3, "Di": 0, "Ed": 0}   # "Witch scores, Knight does not"


def test_the_toriko_reveal_names_where_the_captains_arrow_points():
    """The Captain became TORIKO by seeing the Witch: "If you see Witch Myrmamius, you immediately
    become TORIKO". Witch Myrmamius elsewhere than the Captain's Arrow is refused."""
    t = _to_formation()
    with pytest.raises(RuleError, match="Bo's Arrow does not point at Di") as e:
        t.do("reveal_toriko", witch="Di")
    assert e.value.rule == "If you see Witch Myrmamius, you immediately become TORIKO (join the Witch Team)."
    t.do("reveal_toriko", witch="Cy")
    assert t.view()["result"]["witch"] == "Cy"


def test_the_toriko_reveal_is_refused_before_the_captains_tile_and_in_unity():
    """The Captain reveals their own tile first ("If it's Witch Myrmamius, ... win immediately");
    Unity: "Do not use the Witch Tile." (nobody becomes TORIKO)."""
    t = Table(["Ann", "Bo", "Cy", "Di", "Ed"])
    t.search(["Bo", "Cy", "Di", "center", "Ann"])
    t.ask_all()
    t.recommend({p: "Bo" for p in t.state.players})
    with pytest.raises(RuleError) as e:
        t.do("reveal_toriko")
    assert e.value.rule.startswith("The Captain can either arrange")
    u = Table("ABCD", mode="unity")
    u.search(["B", "C", "D", "center"])
    u.ask_all()
    u.recommend({p: "B" for p in "ABCD"})
    u.do("skip_captain_question")
    u.do("reveal_captain_tile", tile=2)
    with pytest.raises(RuleError) as e:
        u.do("reveal_toriko")
    assert e.value.rule == "Do not use the Witch Tile."


def test_groping_the_toriko_captain_saw_the_witch_in_the_center():
    """"In the second round, look at one face-down tile in the center of the table.": in Groping in
    the Dark only Knights are dealt, so the Witch a TORIKO Captain saw is at their second Arrow."""
    t = Table("ABC", mode="groping", first="A")
    t.search(["B", "C", "A", "center 2", "center 1", "center 3"])
    t.ask_all()
    t.recommend({"A": "A", "B": "A", "C": "A"})
    t.do("skip_captain_question")
    t.do("reveal_captain_tile", tile=4)
    assert t.view()["toriko_places"] == ["center 2"]
    t.do("reveal_toriko")
    r = t.view()["result"]
    assert (r["witch"], r["toriko"], r["points"]) == ("center 2", ["A"], {"A": 3, "B": 0, "C": 0})


# -- Issue 33: the house rule on the Scoring Cards' points ---------------------------------------

def _scored(house_rules=None, round_no=1):
    players = ["Ann", "Bo", "Cy", "Di", "Ed"]
    setup = {"players": players, "mode": "basic"}
    if house_rules is not None:
        setup["house_rules"] = house_rules
    t = Table(players)
    t.state = RULES.initial_state(setup)
    for rnd in range(round_no):
        t.search(["Bo", "Cy", "Di", "center", "Ann"])
        t.ask_all()
        t.recommend({p: "Bo" for p in players})
        t.do("skip_captain_question")
        t.do("reveal_captain_tile", tile=2)
        t.do("enter_result", in_order=rnd % 2 == 0, witch="Di")   # round 1 Knights, round 2 Witch
        if rnd + 1 < round_no:
            t.do("start_next_round", first="Ann")
    return t


def test_the_readings_differ_where_the_witch_wins_round_1_and_the_knights_round_2():
    """The reading changes the outcome: a Witch victory in round 1 scores 3 (by_team) or 2
    (by_round); a Knights' victory in round 2 scores 2 or 3."""
    def play(reading):
        players = ["Ann", "Bo", "Cy", "Di", "Ed"]
        t = Table(players)
        t.state = RULES.initial_state({"players": players, "mode": "basic", "house_rules": {"round_points": reading}})
        for rnd in range(2):
            t.search(["Bo", "Cy", "Di", "center", "Ann"])
            t.ask_all()
            t.recommend({p: "Bo" for p in players})
            t.do("skip_captain_question")
            t.do("reveal_captain_tile", tile=2)
            t.do("enter_result", in_order=rnd == 1, witch="Ed")   # nobody looked at Ed: no TORIKO
            if rnd == 0:
                t.do("start_next_round", first="Ann")
        return t.view()
    by_team, by_round = play("by_team"), play("by_round")
    assert by_team["past_rounds"][0]["result"]["points"]["Ed"] == 3
    assert by_round["past_rounds"][0]["result"]["points"]["Ed"] == 2
    assert by_team["result"]["points"]["Ann"] == 2 and by_round["result"]["points"]["Ann"] == 3
    assert by_team["totals"] == {"Ann": 2, "Bo": 2, "Cy": 2, "Di": 2, "Ed": 3}
    assert by_round["totals"] == {"Ann": 3, "Bo": 3, "Cy": 3, "Di": 3, "Ed": 2}


def test_the_scoring_screen_is_told_which_reading_applies():
    default = _scored().view()
    assert default["house_rules"] == {"round_points": "by_team"}
    assert default["points_rule"] == ("Rule applied: The Knights score 2 (front) and the Witch's side 3 (back) in "
                                      "rounds 1 and 2 (the rulebook: “16 Scoring Cards (front 0/2 points, back 0/3 "
                                      "points)”)")
    chosen = _scored({"round_points": "by_round"}).view()
    assert chosen["points_rule"].startswith("House rule: The winners score 2 in round 1")
    assert _scored(round_no=3).view()["points_rule"] is None    # the 3rd round: 7 either way


@pytest.mark.parametrize("house_rules, words", [
    ({"points": "by_team"}, "no house rule points"),
    ({"round_points": "both"}, "no reading both"),
    ("by_round", "must name each rule"),
])
def test_a_bad_house_rule_is_one_line(house_rules, words):
    with pytest.raises(BadInput, match=words):
        RULES.initial_state({"players": ["A", "B", "C", "D"], "house_rules": house_rules})
