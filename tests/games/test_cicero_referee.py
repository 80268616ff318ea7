"""`python -m companion.referee cicero princeps|first_princeps`: the real CLI, by subprocess."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
if not PYTHON.exists():  # a checkout whose venv lives elsewhere
    PYTHON = Path(sys.executable)


def referee(payload, question="princeps") -> subprocess.CompletedProcess:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run([str(PYTHON), "-m", "companion.referee", "cicero", question],
                          input=text, capture_output=True, text=True, cwd=ROOT, timeout=60)


def full(payload, question="princeps") -> dict:
    done = referee(payload, question)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return json.loads(done.stdout)


CORE = {"princeps": ("princeps", "tally", "tie"), "first_princeps": ("princeps",)}


def answer(payload, question="princeps") -> dict:
    """The answer's deciding keys (the reasons are checked by their own tests)."""
    a = full(payload, question)
    return {k: a[k] for k in CORE[question]} if question in CORE else a


def refused(payload, question="princeps") -> str:
    done = referee(payload, question)
    assert done.returncode == 2, done.stdout
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def election(votes="A6 B4 C5", ballots="AA BC CC", outgoing="A", **over) -> dict:
    q = {"players": [{"name": w[0], "votes": int(w[1:])} for w in votes.split()],
         "ballots": {w[0]: w[1] for w in ballots.split()}, "outgoing": outgoing}
    q.update(over)
    return q


# -- princeps -------------------------------------------------------------------------------

def test_the_issue_example_the_player_who_receives_the_most_votes_becomes_princeps():
    assert answer(election()) == {"princeps": "C", "tally": {"A": 6, "C": 9}, "tie": False}


def test_they_may_of_course_vote_for_themselves():
    assert answer(election(ballots="AA BB CC")) == {"princeps": "A", "tally": {"A": 6, "B": 4, "C": 5}, "tie": False}


def test_in_case_of_a_tie_the_outgoing_princeps_decides_the_winner_from_among_the_tied_players():
    q = election(votes="A6 B4 C6", ballots="AA BB CC", outgoing="B", outgoing_choice="C")
    assert answer(q) == {"princeps": "C", "tally": {"A": 6, "B": 4, "C": 6}, "tie": True}
    q["outgoing_choice"] = "A"
    assert answer(q)["princeps"] == "A"


def test_the_outgoing_princeps_may_pick_themself_when_tied_and_a_choice_without_a_tie_changes_nothing():
    q = election(votes="A5 B5 C2", ballots="AA BB CA", outgoing="B", outgoing_choice="B")
    assert answer(q) == {"princeps": "A", "tally": {"A": 7, "B": 5}, "tie": False}
    q = election(votes="A5 B7 C2", ballots="AA BB CA", outgoing="B", outgoing_choice="B")
    assert answer(q) == {"princeps": "B", "tally": {"A": 7, "B": 7}, "tie": True}


def test_the_automatii_give_5_votes_to_the_player_with_the_fewest_pp():
    q = {"players": [{"name": "A", "votes": 6, "prestige": 20}, {"name": "B", "votes": 4, "prestige": 12}],
         "ballots": {"A": "A", "B": "B"}, "outgoing": "A", "automatii": True}
    assert answer(q) == {"princeps": "B", "tally": {"A": 6, "B": 9}, "tie": False}


def test_on_equal_pp_the_automatii_votes_go_to_the_opponent_of_the_current_princeps():
    q = {"players": [{"name": "A", "votes": 6, "prestige": 15}, {"name": "B", "votes": 4, "prestige": 15}],
         "ballots": {"A": "A", "B": "B"}, "outgoing": "B", "automatii": True}
    assert answer(q) == {"princeps": "A", "tally": {"A": 11, "B": 4}, "tie": False}
    q["outgoing"] = "A"
    assert answer(q) == {"princeps": "B", "tally": {"A": 6, "B": 9}, "tie": False}


def test_a_tie_made_by_the_automatii_is_still_the_outgoing_princeps_to_break():
    q = {"players": [{"name": "A", "votes": 3, "prestige": 10}, {"name": "B", "votes": 8, "prestige": 30}],
         "ballots": {"A": "A", "B": "B"}, "outgoing": "B", "automatii": True}
    assert "outgoing_choice" in refused(q)
    q["outgoing_choice"] = "A"
    assert answer(q) == {"princeps": "A", "tally": {"A": 8, "B": 8}, "tie": True}


@pytest.mark.parametrize("payload, words", [
    (election(ballots="AA BZ CC"), "'Z' is not a player"),
    (election(ballots="AA BB CC ZA"), "'Z' is not a player"),
    (election(outgoing="Z"), "outgoing: 'Z' is not a player"),
    (election(votes="A6 B-4 C5"), "players[1].votes: must be 0 to"),
    ({**election(), "players": [{"name": "A", "votes": 6}, {"name": "B", "votes": 4.5}]},
     "players[1].votes: must be a whole number"),
    (election(votes="A6 B200000 C5"), "120 Senator cards in the box"),
    ({**election(), "Ballots": {}}, "unknown key 'Ballots'"),
    (election(votes="A6 B4 C6", ballots="AA BB CC", outgoing="B"), "outgoing_choice"),
    (election(votes="A6 B4 C6", ballots="AA BB CC", outgoing="B", outgoing_choice="B"), "not one of the tied"),
    (election(votes="A6 B4 C6", ballots="AA BB CC", outgoing="B", outgoing_choice="Q"), "'Q' is not a player"),
    (election(votes="A6 A4 C5", ballots="AA CC"), "names 'A' twice"),
    (election(automatii=True), "The Automatii vote in every 2-player election and in no other"),
    ({"players": [{"name": "A", "votes": 1, "prestige": 1}, {"name": "B", "votes": 1, "prestige": 2}],
      "ballots": {"A": "A", "B": "A"}, "outgoing": "A", "automatii": False}, "automatii is false with 2 players"),
    ({"players": [{"name": c, "votes": 1} for c in "ABCDEF"], "ballots": {}, "outgoing": "A"},
     "2 to 5 players, got 6"),
    ({"players": [{"name": "A", "votes": 1}], "ballots": {}, "outgoing": "A"}, "2 to 5 players, got 1"),
    ({"players": [{"name": "A", "votes": 1}, {"name": "B", "votes": 1}], "ballots": {"A": "A", "B": "A"},
      "outgoing": "A"}, "needs a whole-number 'prestige'"),
    (election(ballots=""), "no ballot yet from A, B and C"),
        (election(ballots="AA"), "no ballot yet from B and C"),
    ({"players": "ABC", "ballots": {}, "outgoing": "A"}, "players: must be a list"),
])
def test_malformed_elections_exit_2_with_one_line(payload, words):
    assert words in refused(payload)


def test_not_json_and_unknown_question_exit_2():
    assert "not valid JSON" in refused("{nope")
    assert "no question" in refused({}, question="consul")
    assert "one JSON object" in refused("[1, 2]")


# -- first_princeps ---------------------------------------------------------------------------

def first(rows: str, **over) -> dict:
    """rows: 'A:votes/oratores/age ...'"""
    q = {"players": []}
    for w in rows.split():
        name, nums = w.split(":")
        v, o, a = (int(x) for x in nums.split("/"))
        q["players"].append({"name": name, "votes": v, "oratores_votes": o, "age": a})
    q.update(over)
    return q


def test_first_princeps_the_most_votes_in_the_senate():
    assert answer(first("A:6/0/30 B:5/3/70 C:4/0/20"), "first_princeps") == {"princeps": "A"}


def test_first_princeps_in_case_of_a_tie_the_most_votes_in_the_oratores_caste():
    assert answer(first("A:6/1/80 B:6/3/20 C:7/0/20"), "first_princeps") == {"princeps": "C"}
    assert answer(first("A:6/1/80 B:6/3/20 C:2/9/20"), "first_princeps") == {"princeps": "B"}


def test_first_princeps_if_there_is_still_a_tie_the_oldest_of_the_tied_players():
    # C is the oldest at the table but not among the tied.
    assert answer(first("A:6/2/40 B:6/2/45 C:2/9/90"), "first_princeps") == {"princeps": "B"}


def test_first_princeps_tied_even_on_age_needs_to_be_told_who_is_older():
    q = first("A:6/2/40 B:6/2/40")
    assert "say who is the oldest" in refused(q, "first_princeps")
    q["oldest"] = "A"
    assert answer(q, "first_princeps") == {"princeps": "A"}


@pytest.mark.parametrize("payload, words", [
    (first("A:6/2/40 B:-1/2/40"), "players[1].votes: must be 0 to"),
    (first("A:6/2/40 B:6/-2/40"), "players[1].oratores_votes"),
    (first("A:6/2/40"), "2 to 5 players"),
    (first("A:6/2/40 B:1/1/1 C:1/1/1 D:1/1/1 E:1/1/1 F:1/1/1"), "2 to 5 players"),
    ({"players": [{"name": "A", "votes": 1, "oratores_votes": 1}, {"name": "B", "votes": 1,
                                                                   "oratores_votes": 1, "age": 3}]}, "players[0] has no age"),
    (first("A:6/2/40 B:6/2/40", oldest="C"), "'C' is not a player"),
])
def test_malformed_first_princeps_exit_2_with_one_line(payload, words):
    assert words in refused(payload, "first_princeps")


# -- the reasons in every answer ---------------------------------------------------------------

def test_the_2_player_election_always_includes_the_automatii_and_says_to_whom():
    """"When the Princeps is elected, the Automatii Family systematically gives 5 votes to whichever
    of the players has the fewest PP." — without being asked."""
    q = {"players": [{"name": "A", "votes": 6, "prestige": 20}, {"name": "B", "votes": 4, "prestige": 12}],
         "ballots": {"A": "A", "B": "B"}, "outgoing": "A"}
    a = full(q)
    assert (a["princeps"], a["automatii_to"], a["automatii_votes"], a["tally"]) == ("B", "B", 5, {"A": 6, "B": 9})
    assert a["decided_by"] == "most_votes" and a["tie"] is False


def test_the_election_says_who_decided_a_tie():
    a = full(election(votes="A6 B4 C6", ballots="AA BB CC", outgoing="B", outgoing_choice="C"))
    assert (a["decided_by"], a["tied"]) == ("outgoing_choice", ["A", "C"]) and "automatii_to" not in a


def test_first_princeps_says_what_decided():
    assert full(first("A:6/0/30 B:5/3/70"), "first_princeps")["decided_by"] == "votes"
    assert full(first("A:6/1/80 B:6/3/20"), "first_princeps")["decided_by"] == "oratores"
    assert full(first("A:6/2/40 B:6/2/45"), "first_princeps")["decided_by"] == "age"


# -- majorities --------------------------------------------------------------------------------

THREE = [{"name": n} for n in "ABC"]


def test_caste_primus_and_secundus_and_their_ties():
    """"The player who is most influential in a Caste takes the Primus card of that Caste; the second
    player takes the Secundus card. In case of a tie, the Princeps breaks the tie"."""
    q = {"players": THREE, "princeps": "A", "caste": "Pontifex", "votes": {"A": 3, "B": 5, "C": 3}}
    assert "give secundus_choice, one of A, C" in refused(q, "caste_majority")
    a = answer({**q, "secundus_choice": "C"}, "caste_majority")
    assert a == {"caste": "Pontifex", "primus": "B", "secundus": "C", "taken": ["primus", "secundus"],
                 "decided_by": {"primus": "most", "secundus": "princeps"}}
    a = answer({**q, "votes": {"A": 4, "B": 4, "C": 1}, "primus_choice": "A"}, "caste_majority")
    assert (a["primus"], a["secundus"], a["decided_by"]) == ("A", "B", {"primus": "princeps", "secundus": "most"})


def test_a_caste_card_stays_with_its_holder_until_someone_takes_it():
    """"The Primus and Secundus cards remain the property of the players who acquired them until they
    lose their majority at a later count." """
    q = {"players": THREE, "princeps": "A", "caste": "Oratores", "votes": {"A": 0, "B": 0, "C": 0},
         "held": {"primus": "C", "secundus": "B"}}
    a = answer(q, "caste_majority")
    assert (a["primus"], a["secundus"], a["taken"]) == ("C", "B", [])


def test_guild_majority_no_second_place_and_the_princeps_breaks_ties():
    q = {"players": THREE, "princeps": "B", "guild": "Priests", "symbols": {"A": 2, "B": 2, "C": 0}}
    assert "give choice, one of A, B" in refused(q, "guild_majority")
    assert answer({**q, "choice": "B"}, "guild_majority") == {"guild": "Priests", "holder": "B", "taken": True,
                                                              "decided_by": "princeps"}
    assert answer({**q, "symbols": {"A": 0, "B": 0, "C": 0}, "held": "C"}, "guild_majority")["decided_by"] == "kept"


# -- tribute and Prestige ----------------------------------------------------------------------

def test_the_tribute_and_the_second_tribute_in_a_different_way():
    q = {"players": [{"name": "A", "prestige": 10, "first": "prestige", "second": "senator"},
                     {"name": "B", "prestige": 10, "first": "influences", "second": "influences"}],
         "triumvirate_satisfied": False}
    assert answer(q, "tribute") == {"players": {"A": {"prestige_change": -10, "prestige": 0},
                                                "B": {"prestige_change": 0, "prestige": 10}}, "second_needed": True}
    q["players"][0]["second"] = "prestige"  # 10 -> -10 PP: the same way twice
    assert "in a different way from the first time" in refused(q, "tribute")
    q = {"players": [{"name": "A", "prestige": 10, "first": "prestige"}, {"name": "B", "prestige": 3,
                                                                          "first": "senator"}],
         "triumvirate_satisfied": True}
    assert answer(q, "tribute")["players"]["A"]["prestige"] == 0


def test_prestige_phase_and_the_end_of_the_game():
    """"A Primus card is worth 6 PP; a Secundus card is worth only 3 PP." "3 PP for each card whose power
    they chose not to use." "the most prestigious Family is declared the winner" """
    q = {"players": [{"name": "A", "prestige": 10, "senators": 4}, {"name": "B", "prestige": 12}],
         "castes": {"Pontifex": {"primus": "A", "secundus": "B"}},
         "guilds": {"Priests": {"holder": "B", "use": "prestige"}, "Artisans": {"holder": "A", "use": "power"}},
         "last": True}
    a = answer(q, "prestige")
    assert a["cards"]["A"] == {"primus": 6, "secundus": 0, "guilds": 0, "total": 6}
    assert a["cards"]["B"]["total"] == 6 and a["prestige"] == {"A": 20, "B": 18} and a["winners"] == ["A"]
    assert "winners" not in answer({**q, "last": False}, "prestige")


@pytest.mark.parametrize("question, payload, words", [
    ("caste_majority", {"players": THREE, "princeps": "A", "caste": "Senate", "votes": {}}, "'Senate' is not one of"),
    ("caste_majority", {"players": THREE, "princeps": "A", "caste": "Pontifex", "votes": {"A": 1}},
     "votes: has nothing for B"),
    ("guild_majority", {"players": THREE, "princeps": "Z", "guild": "Priests", "symbols": {}}, "princeps: 'Z'"),
    ("tribute", {"players": [{"name": "A", "prestige": 1, "first": "gold"}, {"name": "B", "prestige": 1,
                                                                            "first": "senator"}],
                 "triumvirate_satisfied": True}, "'gold' is not one of influences, senator, prestige"),
    ("tribute", {"players": [{"name": "A", "prestige": 1, "first": "senator", "second": "prestige"},
                             {"name": "B", "prestige": 1, "first": "senator"}], "triumvirate_satisfied": True},
     "the general was satisfied"),
    ("prestige", {"players": [{"name": "A", "prestige": 1}, {"name": "B", "prestige": 1}],
                  "castes": {"Pontifex": {"primus": "A", "secundus": "A"}}}, "both the Primus and the Secundus"),
    ("prestige", {"players": [{"name": "A", "prestige": 1}, {"name": "B", "prestige": 1}],
                  "guilds": {"Priests": {"holder": "A", "use": "gold"}}}, "guilds.Priests.use"),
])
def test_bad_input_for_the_new_questions_is_one_line(question, payload, words):
    assert words in refused(payload, question)


@pytest.mark.parametrize("setup, words", [
    ({"players": ["Ada", "Bo"], "ages": {"Ada": 40, "Bo": 30}, "optoins": {"economy": True}}, "does not know: optoins"),
    ({"players": ["Ada", "Bo"], "ages": {"Ada": 40, "Bo": 30}, "options": {"econmy": True}}, "does not know: econmy"),
    ({"players": ["Ada", "Bo"], "ages": {"Ada": 40, "Bo": 30}, "options": {"economy": "yes"}}, "“economy” is true or false"),
])
def test_a_misspelt_setup_is_refused_not_played_without(setup, words):
    """A setup entry the game does not read was dropped silently: a table that asked for the
    economy (misspelt) played without it."""
    done = subprocess.run([str(PYTHON), "-m", "companion.referee", "cicero", "play"],
                          input=json.dumps({"setup": setup, "commands": []}), capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2 and done.stdout == "" and words in done.stderr


def test_a_guild_card_without_its_use_is_named():
    line = refused({"players": [{"name": "A", "prestige": 10}, {"name": "B", "prestige": 10}],
                    "castes": {}, "guilds": {"Artisans": {"holder": "A"}}}, "prestige")
    assert "guilds.Artisans has no use" in line


# -- house rules (issue 33): the readings the rulebook leaves open, each changing the outcome -------

def test_house_rule_first_princeps_strict_majority_as_most_votes_or_more_than_half():
    """"If one player has a strict majority, they become Princeps [...] In case of a tie, the player
    with the most votes in the Oratores Caste becomes Princeps." A has 5 of 12: the most, not more
    than half."""
    q = first("A:5/0/30 B:4/3/40 C:3/1/50")
    assert full(q, "first_princeps") == {"princeps": "A", "decided_by": "votes"}   # today's reading
    most = {"house_rules": {"first_princeps_majority": "most_votes"}}
    assert full({**q, **most}, "first_princeps") == {"princeps": "A", "decided_by": "votes"}
    half = {"house_rules": {"first_princeps_majority": "more_than_half"}}
    assert full({**q, **half}, "first_princeps") == {"princeps": "B", "decided_by": "oratores"}
    # with more than half the readings agree; without, the Oratores tie goes to the oldest
    assert full({**first("A:7/0/30 B:4/3/40 C:1/1/50"), **half}, "first_princeps")["princeps"] == "A"
    assert full({**first("A:5/3/30 B:4/3/40 C:3/1/50"), **half}, "first_princeps") == {"princeps": "B",
                                                                                      "decided_by": "age"}
    assert "has no reading most" in refused({**q, "house_rules": {"first_princeps_majority": "most"}},
                                            "first_princeps")


def test_house_rule_a_caste_with_no_votes_at_all_keeps_its_cards_or_returns_them():
    """"The Primus and Secundus cards remain the property of the players who acquired them until they
    lose their majority at a later count." Nobody has a vote: kept, or back to the supply."""
    q = {"players": THREE, "princeps": "A", "caste": "Oratores", "votes": {"A": 0, "B": 0, "C": 0},
         "held": {"primus": "C", "secundus": "B"}}
    kept = answer({**q, "house_rules": {"no_votes": "kept"}}, "caste_majority")
    assert (kept["primus"], kept["secundus"], kept["taken"]) == ("C", "B", [])
    back = answer({**q, "house_rules": {"no_votes": "supply"}}, "caste_majority")
    assert (back["primus"], back["secundus"], back["taken"]) == (None, None, [])
    # with a vote somewhere, both readings take the cards the same way
    some = {**q, "votes": {"A": 0, "B": 2, "C": 0}}
    assert answer({**some, "house_rules": {"no_votes": "supply"}}, "caste_majority") == answer(some, "caste_majority")


def test_house_rule_a_guild_with_no_symbols_at_all_keeps_its_card_or_returns_it():
    q = {"players": THREE, "princeps": "B", "guild": "Priests", "symbols": {"A": 0, "B": 0, "C": 0}, "held": "C"}
    assert answer({**q, "house_rules": {"no_votes": "kept"}}, "guild_majority")["holder"] == "C"
    a = answer({**q, "house_rules": {"no_votes": "supply"}}, "guild_majority")
    assert (a["holder"], a["taken"]) == (None, False)


def test_house_rules_in_a_played_game_come_from_the_setup():
    """`referee cicero play`: the setup's house_rules decide as the tablet does."""
    draft = [{"command": "draft_pick"}] * 5
    first_princeps = {"command": "first_princeps", "votes": {"A": 5, "B": 4, "C": 3},
                      "oratores": {"A": 0, "B": 3, "C": 1}}
    setup = {"players": ["A", "B", "C"], "ages": {"A": 30, "B": 40, "C": 50}}
    for reading, princeps in (("most_votes", "A"), ("more_than_half", "B")):
        game = {"setup": {**setup, "house_rules": {"first_princeps_majority": reading}},
                "commands": draft + [first_princeps]}
        view = full(game, "play")["view"]
        assert view["princeps"] == princeps and view["house_rules"]["first_princeps_majority"] == reading
