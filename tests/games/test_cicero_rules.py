"""Cicero's rules, each test named after the rulebook sentence it checks (quoted in the docstring)."""
from __future__ import annotations

import json

import pytest

from companion.core.i18n import text_of, texts
from companion.core.events import BadInput, Command, Event, NeedsTieBreak, RuleError
from companion.core.rules import fold_step
from companion.games.cicero import CiceroRules
from companion.games.cicero import logic
from companion.games.cicero.demo import THREE_PLAYERS, TWO_PLAYERS, execute_breaking_ties, table_move

RULES = CiceroRules()


class Table:
    """Commands -> decide -> events -> evolve, in memory (the journal has its own test)."""

    def __init__(self, setup):
        self.state = RULES.initial_state(setup)
        self.events: list[Event] = []

    def do(self, kind, source="tablet", **data):
        items = RULES.decide(self.state, Command(kind, data, source))
        new = []
        for k, d in items:
            ev = Event(len(self.events) + 1, k, json.loads(json.dumps(d)), source)
            self.state = fold_step(RULES, self.state, ev)
            self.events.append(ev)
            new.append(ev)
        return new

    def view(self, viewer="table"):
        return texts(RULES.view(self.state, viewer))  # as a screen shows it

    def move(self):
        """One move of the scripted table, the Princeps breaking any tie."""
        execute_breaking_ties(lambda c: self.do(c.kind, c.source, **c.data), table_move(self.view()))

    def until(self, phase, round_=None):
        """Let the scripted table play until ``phase`` (in ``round_``) is reached."""
        for _ in range(3000):
            s = self.state
            if s.phase == phase and (round_ is None or s.round == round_):
                return self
            self.move()
        raise AssertionError(f"never reached {phase} in round {round_}")


def setup_for(n):
    names = ["Ann", "Ben", "Cy", "Di", "Ed"][:n]
    return {"players": names, "ages": {p: 20 + i for i, p in enumerate(names)}}


# -- setup ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n, servants, rounds", [(2, 3, 5), (3, 3, 5), (4, 2, 5), (5, 2, 4)])
def test_servants_3_for_2_or_3_players_2_for_4_or_5_and_5_rounds_or_4_with_5_players(n, servants, rounds):
    """"They take their Servants (3 for a 2- or 3-player game, 2 for a 4- or 5-player game)." and
    "A game lasts 5 rounds with 2, 3 or 4 players, or 4 rounds with 5 players.\""""
    s = RULES.initial_state(setup_for(n))
    assert (s.servants, s.rounds) == (servants, rounds)


def test_they_then_place_their_family_disc_on_space_10_of_the_prestige_track():
    assert set(RULES.initial_state(setup_for(4)).prestige.values()) == {10}


@pytest.mark.parametrize("setup, words", [
    (setup_for(1), "2 to 5 players"),
    ({"players": ["A", "B", "C", "D", "E", "F"], "ages": dict.fromkeys("ABCDEF", 30)}, "2 to 5 players"),
    ({"players": ["A", "A"], "ages": {"A": 3}}, "listed twice"),
    ({"players": ["A", "Automatii"], "ages": {"A": 3, "Automatii": 4}}, "third Family"),
    ({"players": ["A", "B"], "ages": {"A": 3}}, "age missing for B"),
    ({"players": ["A", "B"], "ages": {"A": 3, "B": -3}}, "age of B"),
    ({"players": ["A", "B"], "ages": {"A": 3, "B": 3}}, "both the youngest"),
    ("A,B", "must be an object"),
])
def test_a_bad_setup_is_refused_with_one_line_naming_it(setup, words):
    with pytest.raises(BadInput, match=words) as e:
        RULES.initial_state(setup)
    assert "\n" not in str(e.value)


# -- the opening draft ----------------------------------------------------------------------

def test_the_youngest_chooses_first_passing_left_and_the_last_player_takes_two_and_passes_right():
    """"They then choose one Senator card and pass the remaining cards to their left-hand
    neighbour. [...] Once the pack reaches the last player, that player immediately chooses two
    cards and passes the pack to their right-hand neighbour." Each ends with 2 Senators."""
    t = Table({"players": ["Ann", "Ben", "Cy", "Di"], "ages": {"Ann": 40, "Ben": 30, "Cy": 19, "Di": 50}})
    order = t.view()["draft"]["order"]
    assert order == [["Cy", 1], ["Di", 1], ["Ann", 1], ["Ben", 2], ["Ann", 1], ["Di", 1], ["Cy", 1]]
    assert t.view()["draft"]["pack"] == 8
    taken = {}
    for who, n in order:
        t.do("draft_pick", player=who)
        taken[who] = taken.get(who, 0) + n
    assert taken == dict.fromkeys(["Ann", "Ben", "Cy", "Di"], 2)
    assert t.state.phase == "first_princeps"


def test_only_the_player_holding_the_pack_chooses():
    t = Table(THREE_PLAYERS)
    with pytest.raises(RuleError, match="Livia does not choose now: it is Octavia's turn") as e:
        t.do("draft_pick", player="Livia")
    assert "left-hand neighbour" in str(e.value)
    assert t.events == []


def test_youngest_players_of_the_same_age_say_who_starts():
    s = RULES.initial_state({"players": ["A", "B", "C"], "ages": {"A": 9, "B": 9, "C": 40}, "youngest": "B"})
    assert s.draft[0] == ("B", 1)


# -- the first Princeps ---------------------------------------------------------------------

def first_princeps_table(votes, oratores, ages=(34, 41, 29), oldest=None):
    setup = {"players": ["Livia", "Marcus", "Octavia"], "ages": dict(zip(["Livia", "Marcus", "Octavia"], ages))}
    t = Table(setup).until("first_princeps")
    data = {"votes": dict(zip(setup["players"], votes)), "oratores": dict(zip(setup["players"], oratores))}
    if oldest:
        data["oldest"] = oldest
    t.do("first_princeps", **data)
    return t


def test_first_princeps_the_most_votes_becomes_princeps_and_is_the_first_player():
    """"If one player has a strict majority, they become Princeps" and "In the first round, the
    Princeps is the first player.\""""
    t = first_princeps_table((3, 6, 5), (0, 0, 4))
    assert t.state.princeps == "Marcus" and t.state.round == 1
    t.until("servants", 1)
    assert t.view()["next_to_place"] == "Marcus"


def test_first_princeps_in_case_of_a_tie_the_most_votes_in_the_oratores_caste():
    assert first_princeps_table((6, 6, 5), (3, 1, 9)).state.princeps == "Livia"


def test_first_princeps_if_there_is_still_a_tie_the_oldest_of_the_tied_players_is_designated():
    t = first_princeps_table((6, 6, 6), (2, 2, 1))
    assert t.state.princeps == "Marcus" and t.state.first_princeps["decided_by"] == "age"


def test_first_princeps_tied_on_age_too_is_told_who_is_older():
    with pytest.raises(NeedsTieBreak, match="say who is the oldest") as e:
        first_princeps_table((6, 6, 6), (2, 2, 2), ages=(40, 40, 20))
    assert e.value.among == ("Livia", "Marcus") and e.value.field == "oldest"
    assert first_princeps_table((6, 6, 6), (2, 2, 2), ages=(40, 40, 20), oldest="Livia").state.princeps == "Livia"


def test_first_princeps_needs_every_players_votes():
    t = Table(THREE_PLAYERS).until("first_princeps")
    with pytest.raises(BadInput, match="Senate votes missing for Octavia"):
        t.do("first_princeps", votes={"Livia": 2, "Marcus": 3}, oratores={"Livia": 0, "Marcus": 0, "Octavia": 0})


# -- round structure ------------------------------------------------------------------------

def test_electing_the_princeps_except_in_the_first_round():
    """"I. Electing the Princeps (except in the first round)\""""
    t = Table(THREE_PLAYERS).until("accusation", 1)
    assert [c["status"] for c in t.view()["checklist"]][:2] == ["skipped", "now"]
    t.until("round_end", 1)
    t.do("next_step")
    assert t.state.phase == "election" and t.state.round == 2


def test_the_seven_phases_come_in_order():
    """"A round is played in 7 successive phases.\""""
    t = Table(THREE_PLAYERS).until("election", 2)
    seen = []
    while t.state.round == 2:
        if t.state.phase not in seen:
            seen.append(t.state.phase)
        t.move()
    assert seen == ["election", "debate", "ballot", "accusation", "servants", "tribute", "triumvirate",
                    "second_tribute", "castes", "guilds", "prestige", "round_end"]


def test_a_command_out_of_its_phase_is_refused_and_records_nothing():
    t = Table(THREE_PLAYERS).until("accusation", 1)
    before = t.state
    with pytest.raises(RuleError, match="Not now: the table is at II. Accusation of Cicero"):
        t.do("place_servant", space="senate_1")
    assert t.state == before


# -- I. Electing the Princeps ---------------------------------------------------------------

def at_ballot(setup=THREE_PLAYERS, votes=None):
    t = Table(setup).until("election", 2)
    votes = votes or {"Livia": 6, "Marcus": 4, "Octavia": 5}
    t.do("senate_votes", votes=votes)
    t.do("start_debate", seconds=90)
    t.do("open_ballot")
    return t


def test_each_player_announces_their_votes_before_the_vote_and_they_are_kept_per_round():
    """"To vote, each player announces aloud the total number of votes they hold in the Senate\""""
    t = Table(THREE_PLAYERS).until("election", 2)
    t.do("senate_votes", votes={"Livia": 6})
    with pytest.raises(RuleError, match="missing: Marcus, Octavia"):
        t.do("open_ballot")
    t.do("senate_votes", votes={"Marcus": 4, "Octavia": 5, "Livia": 7})
    t.do("start_debate", seconds=90)
    assert t.view()["prompt"].startswith("Debate") and "1:30" in t.view()["prompt"]
    t.do("open_ballot")
    assert t.state.senate_votes[2] == {"Livia": 7, "Marcus": 4, "Octavia": 5}
    assert t.state.book.current.spec.weights == {"Livia": 7, "Marcus": 4, "Octavia": 5}


def test_negative_senate_votes_are_bad_input():
    t = Table(THREE_PLAYERS).until("election", 2)
    with pytest.raises(BadInput, match="Senate votes of Livia must be a whole number from 0"):
        t.do("senate_votes", votes={"Livia": -2})


def test_the_ballots_stay_secret_until_all_are_revealed_at_once():
    t = at_ballot()
    t.do("cast_ballot", voter="Livia", choice="Octavia", source="box:1")
    table = t.view("table")
    assert table["vote"]["voted"] == ["Livia"] and "ballots" not in table["vote"]
    assert "counts" not in table["vote"] and "sources" not in table["vote"]
    assert t.view("Livia")["my_ballot"] == "Octavia"
    assert t.view("Marcus")["my_ballot"] is None
    assert "my_ballot" not in table
    t.do("cast_ballot", voter="Marcus", choice="Octavia")
    t.do("cast_ballot", voter="Octavia", choice="Octavia", source="phone:ab")
    revealed = t.view()["vote_history"][-1]
    assert revealed["ballots"] == {"Livia": "Octavia", "Marcus": "Octavia", "Octavia": "Octavia"}
    assert revealed["counts"]["Octavia"] == 15


def test_the_player_who_receives_the_most_votes_becomes_princeps():
    """"The player who receives the most votes becomes Princeps.\" (weighted by Senate votes)"""
    t = at_ballot()
    t.do("cast_ballot", voter="Livia", choice="Livia")
    t.do("cast_ballot", voter="Marcus", choice="Octavia")
    events = t.do("cast_ballot", voter="Octavia", choice="Octavia")
    assert [e.kind for e in events] == ["ballot_cast", "vote_revealed", "princeps_elected"]
    assert events[-1].data["tally"] == {"Livia": 6, "Octavia": 9}
    assert t.state.princeps == "Octavia" and t.state.phase == "accusation"
    assert t.view()["election"]["result"]["tally"] == {"Livia": 6, "Octavia": 9}


def test_in_case_of_a_tie_the_outgoing_princeps_decides_the_winner_from_among_the_tied_players():
    t = at_ballot(votes={"Livia": 5, "Marcus": 3, "Octavia": 5})
    outgoing = t.state.princeps
    for p in ("Livia", "Marcus", "Octavia"):
        t.do("cast_ballot", voter=p, choice=p)
    assert t.state.phase == "election_tie" and t.state.tied == ("Livia", "Octavia")
    assert outgoing in t.view()["prompt"] and "outgoing Princeps" in t.view()["prompt"]
    with pytest.raises(BadInput, match="not one of the tied players"):
        t.do("tie_break", choice="Marcus")
    t.do("tie_break", choice="Octavia")
    assert t.state.princeps == "Octavia"
    assert t.state.elections[2]["tie"] is True and t.state.elections[2]["outgoing"] == outgoing


def test_a_revealed_election_cannot_be_undone_back_into_a_secret():
    from companion.core.journal import Journal
    from companion.core.session import GameSession
    s = GameSession.start(Journal(":memory:"), CiceroRules(), THREE_PLAYERS)
    while s.state.phase != "ballot":
        execute_breaking_ties(s.execute, table_move(s.view("table")))
    for p in s.state.players:
        s.execute(Command("cast_ballot", {"voter": p, "choice": p}))
    with pytest.raises(RuleError, match="revealed vote"):
        s.undo()


def test_the_election_is_never_revealed_with_a_ballot_missing():
    """"Then each player raises a finger and ... clearly indicates the player to whom they give all
    of their votes": nobody abstains, so not even the narrator forces a reveal (the referee's
    question refuses a missing or null ballot the same way)."""
    t = at_ballot()
    t.do("cast_ballot", voter="Marcus", choice="Marcus")
    with pytest.raises(RuleError, match="Livia and Octavia") as refused:
        t.do("reveal_vote", force=True)
    assert refused.value.rule == logic.R_VOTE
    assert t.state.phase == "ballot"  # still open: the missing ballots can come
    with pytest.raises(RuleError, match="Livia"):
        logic.elect_princeps(["Livia", "Marcus", "Octavia"], {"Livia": 6, "Marcus": 5, "Octavia": 2},
                             {"Octavia": "Octavia", "Livia": None}, "Livia")


# -- the 2-player game ----------------------------------------------------------------------

def test_two_players_the_automatii_give_5_votes_to_the_player_with_the_fewest_pp():
    """"When the Princeps is elected, the Automatii Family systematically gives 5 votes to
    whichever of the players has the fewest PP.\""""
    assert logic.automatii_beneficiary({"A": 12, "B": 30}, "A") == "A"
    assert logic.automatii_beneficiary({"A": -5, "B": -4}, "A") == "A"


def test_two_players_on_equal_pp_the_5_votes_go_to_the_opponent_of_the_current_princeps():
    assert logic.automatii_beneficiary({"A": 12, "B": 12}, "A") == "B"
    assert logic.automatii_beneficiary({"A": 12, "B": 12}, "B") == "A"


def test_two_players_the_automatii_votes_decide_the_election_in_the_game():
    t = Table(TWO_PLAYERS).until("election", 2)
    t.do("adjust_prestige", player="Livia", delta=100, note="far ahead")
    t.do("senate_votes", votes={"Livia": 7, "Marcus": 3})
    t.do("open_ballot")
    t.do("cast_ballot", voter="Livia", choice="Livia")
    ev = t.do("cast_ballot", voter="Marcus", choice="Marcus")[-1]
    assert ev.kind == "princeps_elected" and ev.data["tally"] == {"Livia": 7, "Marcus": 8}
    assert ev.data["automatii_to"] == "Marcus"
    assert t.state.princeps == "Marcus" and t.state.elections[2]["tally"] == {"Livia": 7, "Marcus": 8}


def test_two_players_the_automatii_servants_go_on_the_second_spaces_at_the_start_of_each_round():
    """"At the start of each round, before electing the Princeps, reveal the top card of each of the
    3 Senator decks. Place one Servant on the second space of the zone corresponding to the Castes
    of the 3 revealed Senators.\""""
    t = Table(TWO_PLAYERS).until("automatii", 1)
    t.do("automatii_reveal", castes=["Oratores", "Pontifex", "Plebeius"])
    assert t.state.automatii["spaces"] == ("Oratores_2", "Pontifex_2", "Plebeius_2")
    assert "Curia Hostilia, Temple of Jupiter, Circus Maximus" in t.view()["prompt"]
    t.do("next_step")
    assert t.state.phase == "accusation"  # round 1: no election
    t.until("servants", 1)
    with pytest.raises(RuleError, match="occupied by Automatii"):
        t.do("place_servant", space="Pontifex_2")
    t.until("automatii", 2)
    assert t.state.automatii is None and t.state.placements == ()
    t.do("automatii_reveal", castes=["Oratores", "Insidiator", "Plebeius"])
    t.do("next_step")
    assert t.state.phase == "election"


def test_two_players_if_2_revealed_senators_share_a_caste_only_2_servants_and_both_actions_there():
    """"If 2 of the revealed Senators belong to the same Caste, place only 2 of the 3 Servants.
    However, the 2 players then each recover an influence and draw an Action card on that space.\""""
    t = Table(TWO_PLAYERS).until("automatii", 1)
    t.do("automatii_reveal", castes=["Mercatores", "Insidiator", "Mercatores"])
    assert t.state.automatii["spaces"] == ("Mercatores_2", "Insidiator_2")
    assert t.state.automatii["doubled"] == "Mercatores"
    assert "On Emporium, both players each recover an influence AND draw an Action card" in t.view()["prompt"]


def test_two_players_if_all_3_revealed_senators_belong_to_the_same_caste_draw_again():
    t = Table(TWO_PLAYERS).until("automatii", 1)
    with pytest.raises(RuleError, match="draw again") as e:
        t.do("automatii_reveal", castes=["Plebeius"] * 3)
    assert "If all 3 revealed Senators belong to the same Caste, draw again." in str(e.value)
    with pytest.raises(BadInput, match="not a Caste"):
        t.do("automatii_reveal", castes=["Plebeius", "Senate", "Oratores"])
    assert t.state.automatii is None


def test_two_players_the_automatii_are_not_in_the_three_player_game():
    t = Table(THREE_PLAYERS).until("accusation", 1)
    assert t.view()["automatii"] is None and not any(c["key"] == "automatii" for c in t.view()["checklist"])
    t.until("election", 2)
    assert t.view()["election"]["automatii_votes"] == 0


# -- II. Cicero and III. Servants -----------------------------------------------------------

def test_the_cicero_card_shows_4_influences_and_2_castes():
    t = Table(THREE_PLAYERS).until("accusation", 1)
    with pytest.raises(BadInput, match="4 influences"):
        t.do("cicero_card", influences=["Oratores"], senator_castes=["Mercatores", "Pontifex"])
    with pytest.raises(BadInput, match="2 different Castes"):
        t.do("cicero_card", influences=["Oratores"] * 4, senator_castes=["Pontifex", "Pontifex"])
    t.do("cicero_card", influences=["Insidiator", "Mercatores", "Belligerator", "Belligerator"],
         senator_castes=["Mercatores", "Pontifex"])
    assert t.view()["cicero"]["senator_castes"] == ["Mercatores", "Pontifex"]
    assert t.view()["prompt"].startswith("Each player increases their influence in their origin Caste by 2.")


def test_starting_with_the_princeps_each_player_in_turn_places_one_servant_until_all_are_placed():
    """"Starting with the Princeps, each player in turn sends one of their Servants [...] until all
    players have placed all of their Servants.\""""
    t = Table(THREE_PLAYERS).until("servants", 1)
    assert t.state.princeps == "Marcus"
    turns = []
    free = ["senate_1", "senate_2", "senate_3", "Oratores_1", "Oratores_2", "Pontifex_1", "Pontifex_2",
            "Plebeius_1", "Plebeius_2"]
    for space in free:
        turns.append(t.view()["next_to_place"])
        t.do("place_servant", space=space)
    assert turns == ["Marcus", "Octavia", "Livia"] * 3
    assert t.state.phase == "tribute" and t.view()["servants_left"] == {"Livia": 0, "Marcus": 0, "Octavia": 0}


def test_a_servant_cannot_be_placed_on_an_occupied_space():
    t = Table(THREE_PLAYERS).until("servants", 1)
    t.do("place_servant", space="Insidiator_1")
    with pytest.raises(RuleError, match=r"Subure \(first space\) is already occupied by Marcus") as e:
        t.do("place_servant", space="Insidiator_1")
    assert "A Servant cannot be placed on an occupied space." in str(e.value)
    with pytest.raises(RuleError, match="it is Octavia's turn"):
        t.do("place_servant", player="Livia", space="senate_2")
    with pytest.raises(BadInput, match="not a space"):
        t.do("place_servant", space="Forum")


# -- IV. Tribute and V. Triumvirate ---------------------------------------------------------

def test_a_player_who_does_not_pay_the_tribute_loses_10_prestige_and_may_go_negative():
    """"If you cannot, or do not wish to, pay either of these tributes, you immediately lose 10
    Prestige Points (-10 PP)." and "It is unfortunately possible for a negative Prestige to be shown\""""
    t = Table(THREE_PLAYERS).until("tribute", 1)
    t.do("adjust_prestige", player="Livia", delta=-15, note="a costly Action card")
    t.do("pay_tribute", player="Livia", how="prestige")
    t.do("pay_tribute", player="Marcus", how="influences")
    with pytest.raises(RuleError, match="already paid"):
        t.do("pay_tribute", player="Marcus", how="senator")
    t.do("pay_tribute", player="Octavia", how="senator")
    assert t.state.prestige == {"Livia": -15, "Marcus": 10, "Octavia": 10}
    assert [(e["delta"], e["reason"]) for e in t.view()["prestige_log"]] == [(-15, "table"), (-10, "tribute")]
    assert t.state.phase == "triumvirate"


def test_if_the_general_is_satisfied_the_game_moves_on_otherwise_the_tribute_is_paid_again():
    """"If the general's request is satisfied, the game immediately moves on to the next phase.
    Otherwise, the players must complete the payment of their tribute to Cicero in a different way
    from the first time\""""
    t = Table(THREE_PLAYERS).until("triumvirate", 1)
    t.do("triumvirate", general="Caesar", satisfied=True)
    assert t.state.phase == "castes"
    t = Table(THREE_PLAYERS).until("triumvirate", 1)
    with pytest.raises(BadInput, match="not a general"):
        t.do("triumvirate", general="Cicero", satisfied=False)
    t.do("triumvirate", general="Pompey", satisfied=False)
    assert t.state.phase == "second_tribute"
    before = dict(t.state.prestige)
    first = dict(t.state.tribute)
    ways = {p: next(w for w in ("prestige", "senator") if w != first[p]) for p in first}
    for p in ("Livia", "Marcus", "Octavia"):
        t.do("pay_tribute", player=p, how=ways[p])
    for p in first:
        assert t.state.prestige[p] == before[p] - (10 if ways[p] == "prestige" else 0)
    assert t.state.phase == "castes" and t.view()["second_tribute"] == ways


def test_the_second_tribute_is_paid_in_a_different_way_from_the_first_time():
    """"the players must complete the payment of their tribute to Cicero in a different way from the
    first time: by paying the other 2 influences, by discarding 1 Senator [...], or by losing 10 PP."
    Prestige twice (10 -> -10 PP) is refused; influences twice are "the other 2 influences"."""
    t = Table(THREE_PLAYERS).until("tribute", 1)
    for p, how in (("Livia", "prestige"), ("Marcus", "influences"), ("Octavia", "senator")):
        t.do("pay_tribute", player=p, how=how)
    t.do("triumvirate", general="Pompey", satisfied=False)
    for p, how in (("Livia", "prestige"), ("Octavia", "senator")):
        with pytest.raises(RuleError, match=f"{p} paid the first tribute with") as err:
            t.do("pay_tribute", player=p, how=how)
        assert "in a different way from the first time" in err.value.rule
    t.do("pay_tribute", player="Marcus", how="influences")  # the other 2 influences
    t.do("pay_tribute", player="Livia", how="senator")
    t.do("pay_tribute", player="Octavia", how="prestige")
    assert t.state.prestige["Livia"] == 0 and t.state.phase == "castes"


# -- VI. Majorities -------------------------------------------------------------------------

def test_the_most_influential_takes_the_primus_card_the_second_the_secundus():
    r = logic.caste_majority("ABC", {"A": 2, "B": 5, "C": 3}, "A")
    assert (r.primus, r.secundus) == ("B", "C")


def test_in_case_of_a_tie_the_princeps_decides_even_in_their_own_favour():
    """"In case of a tie, the Princeps breaks the tie and decides which player wins the majority
    (the Princeps may choose to break the tie in their own favour).\""""
    with pytest.raises(NeedsTieBreak) as e:
        logic.caste_majority("ABC", {"A": 4, "B": 4, "C": 1}, "A", caste="Pontifex")
    assert e.value.chooser == "A" and e.value.among == ("A", "B") and e.value.field == "primus"
    assert "tied for the Pontifex Primus" in str(e.value)
    r = logic.caste_majority("ABC", {"A": 4, "B": 4, "C": 1}, "A", primus_choice="A")
    assert (r.primus, r.secundus) == ("A", "B")
    with pytest.raises(BadInput, match="not one of the tied"):
        logic.caste_majority("ABC", {"A": 4, "B": 4, "C": 1}, "A", primus_choice="C")


def test_a_tie_for_second_place_is_the_princeps_to_break_too():
    with pytest.raises(NeedsTieBreak) as e:
        logic.caste_majority("ABC", {"A": 5, "B": 3, "C": 3}, "A")
    assert e.value.field == "secundus" and e.value.among == ("B", "C")
    r = logic.caste_majority("ABC", {"A": 5, "B": 3, "C": 3}, "A", secundus_choice="C")
    assert (r.primus, r.secundus) == ("A", "C")
    # A three-way tie: the Princeps names the Primus, then the Secundus.
    r = logic.caste_majority("ABC", {"A": 2, "B": 2, "C": 2}, "B", primus_choice="C", secundus_choice="A")
    assert (r.primus, r.secundus) == ("C", "A")


def test_majority_cards_remain_with_their_holders_until_lost_at_a_later_count():
    """"The Primus and Secundus cards remain the property of the players who acquired them until
    they lose their majority at a later count. The majority card that is lost is then transferred to
    the player who took it.\""""
    r = logic.caste_majority("ABC", {"A": 0, "B": 0, "C": 0}, "A", held=("B", "C"))
    assert (r.primus, r.secundus, r.taken) == ("B", "C", ())
    r = logic.caste_majority("ABC", {"A": 3, "B": 0, "C": 0}, "A", held=("B", "C"))
    assert (r.primus, r.secundus, r.taken) == ("A", "C", ("primus",))
    # The Secundus holder takes the Primus with nobody to take Secundus: one player, one card.
    r = logic.caste_majority("ABC", {"A": 0, "B": 0, "C": 3}, "A", held=("B", "C"))
    assert (r.primus, r.secundus) == ("C", None)


def test_the_count_calls_out_the_castes_then_the_guilds_in_the_aid_sheets_order_and_keeps_holders():
    t = Table(THREE_PLAYERS).until("castes", 1)
    with pytest.raises(RuleError, match="calls out Oratores now, not Pontifex"):
        t.do("count_caste", caste="Pontifex", votes={"Livia": 1, "Marcus": 2, "Octavia": 3})
    with pytest.raises(NeedsTieBreak) as e:
        t.do("count_caste", votes={"Livia": 4, "Marcus": 1, "Octavia": 4})
    assert e.value.chooser == t.state.princeps == "Marcus"
    t.do("count_caste", votes={"Livia": 4, "Marcus": 1, "Octavia": 4}, primus="Octavia")
    assert t.view()["castes"][0] == {"caste": "Oratores", "zone": "Curia Hostilia", "primus": "Octavia",
                                     "secundus": "Livia", "votes": {"Livia": 4, "Marcus": 1, "Octavia": 4}}
    t.until("castes", 2)
    assert t.view()["castes"][0]["primus"] == "Octavia" and t.view()["castes"][0]["votes"] is None


def test_guilds_the_most_influential_takes_the_card_no_second_place_ties_to_the_princeps():
    """"The most influential player takes the card of that Guild (there is no second place, unlike
    with the Castes). In case of a tie, the Princeps again breaks the tie.\""""
    assert logic.guild_majority("ABC", {"A": 1, "B": 3, "C": 2}, "A") == ("B", True)
    with pytest.raises(NeedsTieBreak) as e:
        logic.guild_majority("ABC", {"A": 1, "B": 3, "C": 3}, "A", guild="Priests")
    assert e.value.among == ("B", "C") and "tied for the Priests card" in str(e.value)
    assert logic.guild_majority("ABC", {"A": 1, "B": 3, "C": 3}, "A", choice="C") == ("C", True)
    assert logic.guild_majority("ABC", {"A": 0, "B": 0, "C": 0}, "A", held="B") == ("B", False)


def test_the_guild_winner_chooses_the_power_or_3_pp():
    """"The winner reads their card and must immediately choose whether to use the power of the
    Guild for the next round, or to score the Prestige Points of that card during the next phase.\""""
    t = Table(THREE_PLAYERS).until("guilds", 1)
    t.do("count_guild", symbols={"Livia": 2, "Marcus": 0, "Octavia": 1})
    assert t.state.pending_guild == "Artisans" and "Livia holds the Artisans card" in t.view()["prompt"]
    with pytest.raises(RuleError, match="must first choose"):
        t.do("count_guild", symbols={"Livia": 2, "Marcus": 0, "Octavia": 1})
    t.do("guild_use", use="power")
    t.do("count_guild", symbols={"Livia": 0, "Marcus": 0, "Octavia": 0})
    assert t.state.pending_guild is None and t.view()["guilds"][1]["holder"] is None


# -- VII. Prestige and the end ----------------------------------------------------------------

def test_primus_6_secundus_3_guild_3_if_its_power_is_not_used_plus_the_senators_pp():
    """"A Primus card is worth 6 PP; a Secundus card is worth only 3 PP." "3 PP for each card whose
    power they chose not to use." "certain Senators also earn PP\""""
    t = Table(THREE_PLAYERS).until("castes", 1)
    for _ in range(6):  # Livia Primus, Marcus Secundus everywhere
        t.do("count_caste", votes={"Livia": 5, "Marcus": 3, "Octavia": 0})
    for i in range(6):  # Octavia takes every Guild; uses the power of the first two
        t.do("count_guild", symbols={"Livia": 0, "Marcus": 0, "Octavia": 1})
        t.do("guild_use", use="power" if i < 2 else "prestige")
    before = dict(t.state.prestige)
    t.do("score_prestige", senators={"Marcus": 4})
    gained = {p: t.state.prestige[p] - before[p] for p in before}
    assert gained == {"Livia": 36, "Marcus": 18 + 4, "Octavia": 12}
    assert t.state.phase == "round_end"


def test_after_the_last_prestige_phase_of_the_last_round_the_most_prestigious_family_wins():
    t = Table(setup_for(5)).until("prestige", 4)
    assert t.state.rounds == 4
    t.do("score_prestige", senators={"Ed": 50})
    assert t.state.phase == "game_over" and t.state.winners == ("Ed",)
    assert RULES.outcome(t.state)["winners"] == ["Ed"]
    with pytest.raises(RuleError, match="The game is over"):
        t.do("adjust_prestige", player="Ann", delta=3)


def test_every_prestige_change_is_journalled_as_an_event():
    t = Table(THREE_PLAYERS).until("servants", 1)
    with pytest.raises(BadInput, match="whole number"):
        t.do("adjust_prestige", player="Livia", delta="2")
    with pytest.raises(RuleError, match="changes nothing"):
        t.do("adjust_prestige", player="Livia", delta=0)
    ev = t.do("adjust_prestige", player="Livia", delta=2, note="Legion in Corsica")[0]
    assert ev.kind == "prestige_changed" and ev.data == {"player": "Livia", "delta": 2, "reason": "table",
                                                          "note": "Legion in Corsica"}


# -- views ----------------------------------------------------------------------------------

def test_every_view_is_json_and_carries_phase_prompt_and_votes():
    t = Table(TWO_PLAYERS)
    for _ in range(400):
        if t.state.phase == "game_over":
            break
        for viewer in ("table", "narrator", "Livia"):
            v = t.view(viewer)
            json.dumps(v)
            assert {"phase", "prompt", "vote", "vote_history"} <= set(v) and v["prompt"]
        t.move()
    assert t.state.phase == "game_over"


def test_unknown_commands_are_bad_input():
    with pytest.raises(BadInput, match="has no command “bribe”"):
        Table(THREE_PLAYERS).do("bribe")


# -- at the real table: what a space gives, counts carried, the box's set-up ---------------------

def test_each_space_says_what_it_gives_the_player_and_the_others():
    """"Placing a Servant immediately triggers an action for the player who placed it, and also an
    action for each of the other players." """
    senate = texts(logic.space_effect_text("senate_2", "Livia"))
    assert "Livia: draw 4 Senator cards from pile 2 and recruit up to 2" in senate["placer"]
    assert "draw 2 from that pile and may recruit 1" in senate["others"]
    first = texts(logic.space_effect_text("Pontifex_1", "Livia"))
    assert "+X Pontifex influence" in first["placer"] and "Action card" in first["placer"]
    assert first["others"].startswith("Each other player: either +X Pontifex influence")
    second = texts(logic.space_effect_text("Plebeius_2", "Livia"))
    assert "+1 Plebeius influence and draw the first Plebeius Action card" in second["placer"]
    assert "either +1 Plebeius influence or draw one Plebeius Action card" in second["others"]
    with pytest.raises(BadInput):
        logic.space_effect("Forum_1")
    t = Table(THREE_PLAYERS).until("servants", 1)
    assert t.view()["last_effect"] is None and len(t.view()["space_kinds"]) == 3
    space = next(b["space"] for b in t.view()["board"] if b["holder"] is None and b["space"].endswith("_2"))
    t.do("place_servant", space=space)
    assert t.view()["last_effect"] == texts(logic.space_effect_text(space, t.view()["placements"][-1][0]))


def test_counts_carry_over_to_the_next_round():
    """A round needs a tap per change, not per count: the last Caste, Guild and Senators' counts
    stay in the view for the next round's screens."""
    t = Table(THREE_PLAYERS).until("election", 2)
    carried = t.view()["carried"]
    assert set(carried) == {*logic.CASTES, *logic.GUILDS, "senators"}
    assert carried["Oratores"] == t.state.carried["Oratores"] and set(carried["senators"]) == set(THREE_PLAYERS["players"])


def test_the_set_up_checklist_follows_the_rulebook():
    """The Triumvirate deck ordered by round, the white and red Senators apart, Servants by count."""
    three = dict(logic.setup_checklist(3))
    assert three["families"] == {"servants": 3} and three["triumvirate"] == {"rounds": 5}
    assert dict(logic.setup_checklist(5))["families"] == {"servants": 2}
    assert "automatii" in dict(logic.setup_checklist(2)) and "automatii" not in three
    texts = Table(THREE_PLAYERS).view()["setup_checklist"]
    assert any("white-backed Senators from the red-backed" in t for t in texts)
    assert any("Triumvirate deck grouped by round" in t and "round I on top" in t for t in texts)


# -- the tracked economy (a table option, off by default) -----------------------------------------

ECONOMY = {**THREE_PLAYERS, "options": {"economy": True}}


def test_the_economy_is_off_by_default():
    t = Table(THREE_PLAYERS)
    assert t.view()["economy"] is None
    with pytest.raises(RuleError, match="option is off"):
        t.do("economy", player="Livia", item="actions", delta=1)


def test_influence_can_never_exceed_10():
    """"Influence limit: a Family's influence in a Caste can never exceed 10.\""""
    t = Table(ECONOMY)
    t.do("economy", player="Livia", item="influence", caste="Pontifex", delta=10)
    with pytest.raises(RuleError, match="Livia's Pontifex influence is 10: it can never exceed 10") as err:
        t.do("economy", player="Livia", item="influence", caste="Pontifex", delta=1)
    assert err.value.rule == "Influence limit: a Family's influence in a Caste can never exceed 10."
    with pytest.raises(RuleError, match="cannot go below 0"):
        t.do("economy", player="Marcus", item="influence", caste="Pontifex", delta=-1)
    with pytest.raises(BadInput, match="'Senate' is not a Caste|Senate"):
        t.do("economy", player="Marcus", item="influence", caste="Senate", delta=1)


def test_the_cenacle_holds_the_drafted_senators_and_at_most_its_limit():
    """"At the start of the game, the cenacle of each player contains at most 4 Senators. This limit
    may be raised during the game." and "Take care not to exceed the current limit of your cenacle.\""""
    t = Table(ECONOMY).until("first_princeps")
    families = t.view()["economy"]["families"]
    assert {p: f["cenacle"] for p, f in families.items()} == {"Livia": 2, "Marcus": 2, "Octavia": 2}
    t.do("economy", player="Livia", item="cenacle", delta=2)
    with pytest.raises(RuleError, match="cenacle is full") as err:
        t.do("economy", player="Livia", item="cenacle", delta=1)
    assert "not to exceed the current limit" in err.value.rule
    t.do("economy", player="Livia", item="cenacle_limit", delta=1)  # a rare Senator raises it
    t.do("economy", player="Livia", item="cenacle", delta=1)
    t.do("economy", player="Livia", item="cenacle_limit", delta=-2)  # lowered: a discard is due
    assert t.view()["economy_warnings"] == ["Livia's cenacle is over its limit: discard 2 Senator(s)."]


def test_action_cards_have_no_limit_and_the_box_has_15_legions():
    """"there is no limit to the number of Action cards a player may hold in hand" and "15 Roman
    Legions (SPQR)"."""
    t = Table(ECONOMY)
    t.do("economy", player="Octavia", item="actions", delta=40)
    t.do("economy", item="legions", delta=15)
    with pytest.raises(RuleError, match="all 15 Legions"):
        t.do("economy", item="legions", delta=1)
    assert t.view()["economy"]["families"]["Octavia"]["actions"] == 40 and t.view()["economy"]["legions"] == 15
    with pytest.raises(BadInput, match="whole number other than 0"):
        t.do("economy", item="legions", delta=0)


# -- house rules (issue 33) ------------------------------------------------------------------------

@pytest.mark.parametrize("reading, primus, guild", [("kept", True, True), ("supply", False, False)])
def test_house_rule_no_votes_a_count_with_no_votes_at_all_keeps_or_returns_the_cards(reading, primus, guild):
    """Round 2's counts with nobody's votes: the cards of round 1 stay (kept) or go back (supply)."""
    from companion.games.cicero.demo import THREE_PLAYERS
    t = Table({**THREE_PLAYERS, "house_rules": {"no_votes": reading}})
    assert t.state.house_rules == {"first_princeps_majority": "most_votes", "no_votes": reading}
    t.until("castes", 2)
    held = t.state.caste_cards["Oratores"]
    assert held[0] is not None
    t.do("count_caste", caste="Oratores", votes={p: 0 for p in t.state.players})
    assert (t.state.caste_cards["Oratores"] == held) is primus
    assert t.view()["house_rules"]["no_votes"] == reading
    while t.state.phase == "castes":
        t.move()
    while t.state.count_next() != "Priests" or t.state.pending_guild:
        t.move()
    before = t.state.guild_cards.get("Priests")
    assert before is not None  # Octavia took it in round 1
    t.do("count_guild", guild="Priests", symbols={p: 0 for p in t.state.players})
    assert t.state.guild_cards.get("Priests") == (before if guild else None)


def test_a_setup_with_an_unknown_house_rule_is_refused_in_one_line():
    from companion.core.events import BadInput
    with pytest.raises(BadInput) as bad:
        RULES.initial_state({**setup_for(3), "house_rules": {"no_vote": "kept"}})
    assert "no house rule no_vote" in str(bad.value) and "\n" not in str(bad.value)


def test_the_view_gives_the_totals_announced_at_the_last_election_for_the_screens_to_start_from():
    """The election screen's steppers start from them (the screen reads the view, not the state)."""
    from companion.games.cicero.demo import THREE_PLAYERS
    t = Table(THREE_PLAYERS).until("election", 2)
    assert t.view()["election"]["last_announced"] == {}
    t.until("election", 3)
    assert t.view()["election"]["last_announced"] == dict(t.state.senate_votes[2])
    t.do("senate_votes", votes={"Livia": 9})
    assert t.view()["election"]["last_announced"] == dict(t.state.senate_votes[2])
