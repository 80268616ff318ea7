"""The referee CLI for Seven Knights, run for real: `python -m companion.referee sevenknights ...`."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable


def referee(question, payload, game="sevenknights"):
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run([PYTHON, "-m", "companion.referee", game, question], input=text,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def ok(question, payload):
    p = referee(question, payload)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return json.loads(p.stdout)


def bad(question, payload):
    p = referee(question, payload)
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


FIVE = ["A", "B", "C", "D", "E"]


def recs(s, players=FIVE):
    return dict(zip(players, s))


def captain(data) -> dict:
    a = ok("captain", data)
    return {"captain": a["captain"], "tie": a["tie"]}


def test_the_issue_example():
    """A->B B->C C->C D->B E->E: B and C tie with 2; C recommended themself, B did not."""
    a = ok("captain", {"players": FIVE, "first": "A", "recommendations": recs("BCCBE")})
    assert a == {"captain": "B", "tie": True, "decided_by": "did not recommend themself",
                 "recommendations": {"A": 0, "B": 2, "C": 2, "D": 0, "E": 1}}


@pytest.mark.parametrize("first, r, answer", [
    ("A", "BBBAE", {"captain": "B", "tie": False}),   # most recommendations
    ("A", "ABCDE", {"captain": "E", "tie": True}),    # all recommended themselves: farthest from A
    ("C", "ABCDE", {"captain": "B", "tie": True}),    # ... farthest from C
    ("A", "CABED", {"captain": "E", "tie": True}),    # nobody recommended themselves
    ("D", "CABED", {"captain": "C", "tie": True}),
])
def test_captain_paths(first, r, answer):
    assert captain({"players": FIVE, "first": first, "recommendations": recs(r)}) == answer


def test_several_tied_who_did_not_recommend_themselves():
    six = list("ABCDEF")
    data = {"players": six, "first": "A", "recommendations": recs("BCCABA", six)}
    assert captain(data) == {"captain": "B", "tie": True}
    data["first"] = "B"
    assert captain(data) == {"captain": "A", "tie": True}


@pytest.mark.parametrize("payload, words", [
    ({"players": FIVE, "first": "Z", "recommendations": recs("BCCBE")}, "first: 'Z' is not a player at this table"),
    ({"players": FIVE, "first": "A", "recommendations": recs("BCCB")}, "No recommendation yet from E"),
    ({"players": FIVE, "first": "A", "recommendations": {**recs("BCCBE"), "Q": "A"}}, "recommendations: 'Q' is not a player"),
    ({"players": FIVE, "first": "A", "recommendations": recs("BCCBQ")}, "recommendations.E: 'Q' is not a player"),
    ({"players": FIVE, "first": "A", "recommendations": {**recs("BCCB"), "E": 3}}, "recommendations.E: 3 is not a player"),
    ({"players": FIVE, "first": "A"}, "input has no recommendations"),
    ({"players": ["A", "A", "B"], "first": "A", "recommendations": {"A": "A"}}, "names 'A' twice"),
    ({"players": ["A", "B"], "first": "A", "recommendations": {"A": "A"}}, "3 to 8 players, got 2"),
    ({"players": list("ABCDEFGHIJK"), "first": "A", "recommendations": {}}, "3 to 8 players, got 11"),
    ({"players": "ABCDE", "first": "A", "recommendations": {}}, "players: must be a list"),
    ({"players": FIVE, "first": "A", "recommendations": ["B"]}, "recommendations: must be an object"),
    ({"players": FIVE, "first": "A", "recommendations": recs("BCCBE"), "First": "A"}, "unknown key 'First'"),
])
def test_bad_input_exits_2_with_one_line(payload, words):
    assert words in bad("captain", payload)


def test_malformed_json_and_unknown_question():
    assert "not valid JSON" in bad("captain", "{players")
    assert "input must be one JSON object" in bad("captain", "[1, 2]")
    assert "no question “mayor”" in bad("mayor", {})


def test_setup_question_uses_the_same_tables():
    assert ok("setup", {"players": FIVE, "mode": "basic"}) == {
        "mode": "basic", "players": 5, "first": "A", "rounds": 3, "tiles": [1, 2, 3, 4, 5, "witch"],
        "center": 1, "set_aside": 0, "unused_knights": [6, 7], "player_cards": 2}
    assert ok("setup", {"players": ["A", "B", "C"], "mode": "groping"})["set_aside"] == 2
    assert "not 3" in bad("setup", {"players": ["A", "B", "C"], "mode": "unity"})


# -- a round's result, with TORIKO, and the 3-round scoring ------------------------------------

ARROWS = [{"looker": "A", "at": "C"}, {"looker": "B", "at": "center"}, {"looker": "C", "at": "D"},
          {"looker": "D", "at": "C"}, {"looker": "E", "at": "A"}]


def test_round_result_names_toriko_and_scores_the_round():
    """Rule: "If you see Witch Myrmamius, you immediately become TORIKO (join the Witch Team)." """
    q = {"players": FIVE, "round": 1, "captain": "B", "captain_tile": 2, "arrows": ARROWS,
         "witch": "C", "in_order": False}
    a = ok("round", q)
    assert (a["winner"], a["decided_by"], a["toriko"]) == ("witch", "out_of_order", ["A", "D"])
    assert a["points"] == {"A": 3, "B": 0, "C": 3, "D": 3, "E": 0} and a["flags"] == []
    a = ok("round", {**q, "in_order": True, "round": 3})
    assert (a["winner"], a["points"]) == ("knights", {"A": 0, "B": 7, "C": 0, "D": 0, "E": 7})


def test_a_toriko_captain_is_a_witch_victory():
    """FAQ: "What happens if the Captain is TORIKO? A: It's a victory for the Witch Team." """
    a = ok("round", {"players": FIVE, "captain": "A", "arrows": ARROWS, "witch": "C", "in_order": True})
    assert (a["winner"], a["decided_by"]) == ("witch", "captain_toriko")


def test_the_captain_revealing_the_witch_wins_at_once():
    a = ok("round", {"players": FIVE, "captain": "C", "captain_tile": "witch", "arrows": ARROWS})
    assert (a["winner"], a["decided_by"], a["witch"], a["toriko"]) == ("witch", "captain_witch", "C", ["A", "D"])


def test_broken_recommendations_and_a_wrong_first_player_are_flagged_with_the_rules_words():
    q = {"players": FIVE, "captain": "B", "captain_tile": 4, "arrows": ARROWS, "witch": "C",
         "in_order": True, "recommendations": dict(zip(FIVE, "BBACB")), "next_first": "B"}
    flags = ok("round", q)["flags"]
    assert [f["flag"] for f in flags] == ["witch_recommended_toriko", "toriko_recommended_witch",
                                         "smaller_tile_at_table"]
    assert flags[0]["rule"] == "Witch Myrmamius cannot recommend TORIKO."
    assert flags[1]["rule"] == "TORIKO cannot recommend Witch Myrmamius."
    assert '"1 Eins"' in flags[2]["rule"]
    # tile 2 with one center tile: tile 1 may be in the center, so B may be the smallest
    assert ok("round", {**q, "captain_tile": 2, "recommendations": {}})["flags"] == []
    flags = ok("round", {**q, "captain_tile": 1, "next_first": "A", "recommendations": {}})["flags"]
    assert [f["flag"] for f in flags] == ["captain_had_one"]


def test_three_rounds_scored_and_the_winners():
    """Rule: "The player(s) with the highest total score after 3 rounds are the winners." """
    r1 = {"captain": "B", "arrows": ARROWS, "witch": "C", "in_order": False}       # witch: A C D 3
    r2 = {"captain": "E", "arrows": ARROWS, "witch": "center", "in_order": True}   # knights 2; B saw her: TORIKO
    r3 = {"captain": "E", "arrows": ARROWS, "witch": "B", "in_order": True}        # knights except B: 7
    a = ok("score", {"players": FIVE, "rounds": [r1, r2, r3]})
    assert [r["winner"] for r in a["rounds"]] == ["witch", "knights", "knights"]
    assert a["rounds"][1]["toriko"] == ["B"]
    assert a["totals"] == {"A": 12, "B": 0, "C": 12, "D": 12, "E": 9}
    # a TORIKO Captain: the Witch team wins whatever the formation
    assert ok("score", {"players": FIVE, "rounds": [{**r2, "captain": "B"}]})["rounds"][0]["decided_by"] == "captain_toriko"
    assert a["complete"] and a["winners"] == ["A", "C", "D"]
    part = ok("score", {"players": FIVE, "rounds": [r1]})
    assert part["complete"] is False and part["winners"] is None


@pytest.mark.parametrize("question, payload, words", [
    ("round", {"players": FIVE, "captain": "B", "arrows": ARROWS, "witch": "Q", "in_order": True},
     "the Witch “Q” must be one of"),
    ("round", {"players": FIVE, "captain": "B", "arrows": ARROWS, "witch": "B", "in_order": True},
     "B was the Captain and revealed a Knight"),
    ("round", {"players": FIVE, "captain": "B", "arrows": ARROWS, "witch": "C"}, "in_order"),
    ("round", {"players": FIVE, "captain": "B", "arrows": ARROWS, "witch": "C", "in_order": True,
               "round": 4}, "round: must be 1 to 3"),
    ("round", {"players": FIVE, "captain": "B", "arrows": ARROWS, "witch": "C", "in_order": "yes"},
     "in_order: must be true or false"),
    ("round", {"players": FIVE, "captain": "B", "arrows": ARROWS, "witch": "C", "in_order": True,
               "captain_tile": 9}, "a Knight number 1-7"),
    ("round", {"players": FIVE, "captain": "B", "arrows": ARROWS, "witch": "C", "in_order": True,
               "captain_tile": 7}, "tile 7 is not prepared with 5 players"),
    ("round", {"players": FIVE, "captain": "B", "arrows": [{"looker": "A", "at": "A"}], "witch": "C",
               "in_order": True}, "A looked at “A”"),
    ("score", {"players": FIVE, "rounds": [{"captain": "B", "arrows": [], "witch": "C", "in_order": True}] * 4},
     "rounds: must hold 1 to 3 entries"),
    ("score", {"players": FIVE, "mode": "unity", "rounds": [{"captain": "B", "arrows": [], "in_order": True}] * 2},
     "This mode ends after round 1, but 2 rounds are given"),
])
def test_bad_round_input_is_one_line(question, payload, words):
    assert words in bad(question, payload)


def test_round_arrows_must_be_one_look_in_each_search_pass():
    """Basic: "each player looks at one face-down tile of another player" (one Arrow); Groping in
    the Dark: "In the first round ... a tile of another player. In the second round, look at one
    face-down tile in the center". Arrows the Search cannot make changed TORIKO and the points."""
    two = {"players": FIVE, "captain": "B", "witch": "C", "in_order": True,
           "arrows": [{"looker": "A", "at": "D"}, {"looker": "A", "at": "C"}, {"looker": "B", "at": "A"}]}
    assert "A's arrows (D, C) are not one look in each Search pass (1 in this mode)" in bad("round", two)
    groping = {"players": ["A", "B", "C"], "mode": "groping", "captain": "B", "witch": "center 1", "in_order": True}
    both_players = [{"looker": "A", "at": "B"}, {"looker": "A", "at": "C"}]
    assert "In the second round, look at one face-down tile in the center" in bad("round", {**groping, "arrows": both_players})
    fine = [{"looker": "A", "at": "center 2"}, {"looker": "A", "at": "B"}, {"looker": "B", "at": "C"}]
    assert ok("round", {**groping, "arrows": fine})["toriko"] == []


def test_the_captain_who_showed_the_witch_is_the_witch_whatever_witch_says():
    r = {"players": FIVE, "captain": "B", "captain_tile": "witch", "arrows": []}
    assert ok("round", r)["witch"] == "B"
    assert "so the Witch was B, not “D”" in bad("round", {**r, "witch": "D"})


# -- Issue 33: the house rule on the Scoring Cards, in the setup JSON ------------------------------

def test_the_scoring_cards_house_rule_changes_the_points_both_readings():
    """"16 Scoring Cards (front 0/2 points, back 0/3 points)": by_team (the app's reading so far)
    gives the Knights 2 and the Witch's side 3 in rounds 1 and 2; by_round gives the winners 2 in
    round 1 and 3 in round 2. The referee takes the choice as the setup records it."""
    r1 = {"captain": "B", "arrows": ARROWS, "witch": "C", "in_order": False}      # the Witch team wins
    r2 = {"captain": "E", "arrows": ARROWS, "witch": "B", "in_order": True}       # the Knights win
    game = {"players": FIVE, "rounds": [r1, r2]}
    default = ok("score", game)
    assert default == ok("score", {**game, "house_rules": {"round_points": "by_team"}})
    by_round = ok("score", {**game, "house_rules": {"round_points": "by_round"}})
    assert [r["points"]["A"] for r in default["rounds"]] == [3, 2]     # Witch team, then Knight
    assert [r["points"]["A"] for r in by_round["rounds"]] == [2, 3]
    assert default["totals"] == {"A": 5, "B": 0, "C": 5, "D": 5, "E": 2}
    assert by_round["totals"] == {"A": 5, "B": 0, "C": 5, "D": 5, "E": 3}
    one = ok("round", {"players": FIVE, "round": 2, **r2, "house_rules": {"round_points": "by_round"}})
    assert one["points"]["E"] == 3


def test_the_house_rule_through_a_played_game():
    """``referee sevenknights play`` takes the setup with its house rules, as the journal records it."""
    def play(reading):
        cmds = [{"command": "look", "at": a} for a in ["B", "C", "D", "center", "A"]]
        cmds += [{"command": "ask_question", "target": t, "template": "free", "text": "Odd?", "answer": "no"}
                 for t in ["B", "C", "D", "E", "A"]]
        cmds += [{"command": "open_recommendation"}]
        cmds += [{"command": "cast_ballot", "voter": p, "choice": "B"} for p in FIVE]
        cmds += [{"command": "skip_captain_question"}, {"command": "reveal_captain_tile", "tile": 2},
                 {"command": "enter_result", "in_order": False, "witch": "E"}]
        setup = {"players": FIVE, "mode": "basic", "house_rules": {"round_points": reading}}
        p = referee("play", {"setup": setup, "commands": cmds})
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    by_team, by_round = play("by_team"), play("by_round")   # round 1 won by the Witch, E
    assert by_team["view"]["totals"]["E"] == 3 and by_round["view"]["totals"]["E"] == 2
    assert by_team["view"]["house_rules"] == {"round_points": "by_team"}
    assert by_round["view"]["points_rule"].startswith("House rule: ")
