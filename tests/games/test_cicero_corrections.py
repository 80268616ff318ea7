"""Setting Cicero's tablet right when the table knows better: an announced Senate total entered
wrong (the Princeps decided again by the election's own rule, until the first Servant), and who
holds the majority cards. Each correction is one event with its reason, undoable."""
from __future__ import annotations

import pytest

from companion.core.events import BadInput, Command, NeedsTieBreak, RuleError
from companion.core.i18n import texts
from companion.games.cicero import CiceroRules, logic
from companion.games.cicero import rules as cicero_rules
from companion.games.cicero.demo import THREE_PLAYERS, TWO_PLAYERS, execute_breaking_ties, table_move
from tests.games.test_cicero_rules import Table

RULES = CiceroRules()


def wrong_total(votes=None, ballots=None):
    """The audit's round 2: Marcus announced 4, the narrator entered 14; each votes for themself."""
    t = Table(THREE_PLAYERS).until("election", 2)
    t.do("senate_votes", votes=votes or {"Livia": 6, "Marcus": 14, "Octavia": 7})
    t.do("open_ballot")
    for voter, choice in (ballots or {p: p for p in t.state.players}).items():
        t.do("cast_ballot", voter=voter, choice=choice)
    return t


def test_a_wrong_total_corrected_after_the_reveal_decides_the_princeps_again():
    """"The player who receives the most votes becomes Princeps." — with the total announced aloud."""
    t = wrong_total()
    assert t.state.princeps == "Marcus" and t.state.phase == "accusation"
    (ev,) = t.do("correct_senate_votes", player="Marcus", votes=4, reason="Marcus said 4, not 14")
    assert ev.kind == "senate_votes_corrected"
    assert ev.data["before"] == 14 and ev.data["after"] == 4 and ev.data["princeps_before"] == "Marcus"
    assert ev.data["reason"] == "Marcus said 4, not 14"   # the table's words, not a sentence of ours
    assert t.state.princeps == "Octavia" and t.state.senate_votes[2]["Marcus"] == 4
    result = t.view()["election"]["result"]
    assert result["princeps"] == "Octavia" and result["tally"] == {"Livia": 6, "Marcus": 4, "Octavia": 7}
    assert result["corrections"] == [{"player": "Marcus", "before": 14, "after": 4,
                                      "reason": "Marcus said 4, not 14"}]
    # the revealed vote's weights follow: the vote history counts the announced totals
    assert t.view()["vote_history"][-1]["counts"] == {"Livia": 6, "Marcus": 4, "Octavia": 7}


def test_the_corrected_princeps_places_first_and_breaks_the_majority_ties():
    """"Starting with the Princeps, each player in turn sends one of their Servants" and "In case of
    a tie, the Princeps breaks the tie"."""
    t = wrong_total()
    t.do("correct_senate_votes", player="Marcus", votes=4, reason="misheard")
    t.until("servants", 2)
    assert t.state.next_to_place() == "Octavia"
    with pytest.raises(RuleError, match="it is Octavia's turn"):
        t.do("place_servant", player="Marcus", space="Oratores_1")
    t.do("place_servant", player="Octavia", space="Oratores_1")
    t.until("castes", 2)
    with pytest.raises(NeedsTieBreak) as tie:
        t.do("count_caste", votes={"Livia": 3, "Marcus": 3, "Octavia": 0})
    assert tie.value.chooser == "Octavia"


def test_the_correction_uses_the_elections_own_rule():
    """Not a copy: the correction calls logic.elect_princeps, as the reveal does."""
    t = wrong_total()
    calls = []
    real = logic.elect_princeps

    def spy(*a, **k):
        calls.append((a, k))
        return real(*a, **k)

    logic.elect_princeps = spy
    try:
        t.do("correct_senate_votes", player="Marcus", votes=4, reason="misheard")
    finally:
        logic.elect_princeps = real
    (args, kw), = calls
    assert args[1] == {"Livia": 6, "Marcus": 4, "Octavia": 7} and args[3] == "Marcus"  # the outgoing


def test_a_correction_that_ties_is_the_outgoing_princeps_to_decide():
    """"In case of a tie, the outgoing Princeps decides the winner from among the tied players.\""""
    t = wrong_total()
    outgoing = t.state.elections[2]["outgoing"]
    with pytest.raises(NeedsTieBreak) as tie:
        t.do("correct_senate_votes", player="Marcus", votes=7, reason="said 7")
    assert tie.value.chooser == outgoing and set(tie.value.among) == {"Marcus", "Octavia"}
    assert tie.value.field == "choice" and tie.value.rule == logic.R_ELECTION_TIE
    with pytest.raises(BadInput):
        t.do("correct_senate_votes", player="Marcus", votes=7, reason="said 7", choice="Livia")
    ev, = t.do("correct_senate_votes", player="Marcus", votes=7, reason="said 7", choice="Octavia")
    assert ev.data["tie"] is True and t.state.princeps == "Octavia"
    # correcting Livia's total leaves the same tie: the outgoing Princeps' choice stands
    t.do("correct_senate_votes", player="Livia", votes=5, reason="said 5")
    assert t.state.princeps == "Octavia" and t.state.elections[2]["tie"] is True


def test_the_correction_is_allowed_until_the_first_servant_then_refused_with_the_rule():
    t = wrong_total()
    t.do("cicero_card", influences=["Oratores"] * 4, senator_castes=["Oratores", "Pontifex"])
    assert t.view()["election"]["correctable"] is True        # phase III, nobody placed yet
    t.do("place_servant", space="Oratores_1")
    assert t.view()["election"]["correctable"] is False
    with pytest.raises(RuleError, match="Servants have been placed starting with Marcus") as refused:
        t.do("correct_senate_votes", player="Marcus", votes=4, reason="misheard")
    assert refused.value.rule == cicero_rules.R_PLACE_ORDER
    assert refused.value.key == "cicero.err.correct_after_servants"


def test_no_correction_before_the_reveal_nor_in_round_1():
    t = Table(THREE_PLAYERS).until("accusation", 1)
    with pytest.raises(RuleError) as refused:
        t.do("correct_senate_votes", player="Livia", votes=3, reason="x")
    assert refused.value.key == "cicero.err.correct_no_election"
    t = Table(THREE_PLAYERS).until("election", 2)
    t.do("senate_votes", votes={"Livia": 6, "Marcus": 14, "Octavia": 7})
    t.do("open_ballot")
    with pytest.raises(RuleError) as refused:
        t.do("correct_senate_votes", player="Marcus", votes=4, reason="x")
    assert refused.value.key == "cicero.err.correct_no_election"


@pytest.mark.parametrize("data, key", [
    ({"player": "Marcus", "votes": 4}, "refusals.cmd.missing_arg"),   # the command table's check
    ({"player": "Marcus", "votes": 4, "reason": "  "}, "schema.text"),
    ({"player": "Marcus", "votes": 4, "reason": "x" * 81}, "cicero.err.reason"),
    ({"player": "Marcus", "votes": 4, "reason": "a\nb"}, "cicero.err.reason"),
    ({"player": "Nero", "votes": 4, "reason": "x"}, "cicero.err.unknown_name"),
    ({"player": "Marcus", "votes": -1, "reason": "x"}, "cicero.err.not_whole"),
])
def test_a_correction_needs_a_known_player_a_whole_total_and_a_reason(data, key):
    t = wrong_total()
    with pytest.raises(BadInput) as bad:
        t.do("correct_senate_votes", **data)
    assert bad.value.key == key


def test_the_same_total_again_is_refused():
    t = wrong_total()
    with pytest.raises(RuleError) as refused:
        t.do("correct_senate_votes", player="Marcus", votes=14, reason="x")
    assert refused.value.key == "cicero.err.correct_same"


def test_a_correction_is_undone_like_any_table_action():
    from companion.core.journal import Journal
    from companion.core.session import GameSession
    s = GameSession.start(Journal(":memory:"), CiceroRules(), THREE_PLAYERS)
    while not (s.state.phase == "election" and s.state.round == 2):
        execute_breaking_ties(s.execute, table_move(s.view("table")))
    s.execute(Command("senate_votes", {"votes": {"Livia": 6, "Marcus": 14, "Octavia": 7}}))
    s.execute(Command("open_ballot", {}))
    for p in s.state.players:
        s.execute(Command("cast_ballot", {"voter": p, "choice": p}))
    s.execute(Command("correct_senate_votes", {"player": "Marcus", "votes": 4, "reason": "misheard"}))
    assert s.state.princeps == "Octavia"
    s.undo()
    assert s.state.princeps == "Marcus" and s.state.senate_votes[2]["Marcus"] == 14
    s.redo()
    assert s.state.princeps == "Octavia"
    resumed = GameSession.resume(s.journal, s.game_id, CiceroRules())
    assert resumed.state == s.state


def test_two_players_the_automatii_give_their_votes_as_at_the_election():
    """"the Automatii Family systematically gives 5 votes to whichever of the players has the fewest
    PP": the beneficiary decided at the election stays, even if PP moved by hand since."""
    t = Table(TWO_PLAYERS).until("election", 2)
    t.do("adjust_prestige", player="Livia", delta=100, note="far ahead")
    t.do("senate_votes", votes={"Livia": 17, "Marcus": 3})
    t.do("open_ballot")
    t.do("cast_ballot", voter="Livia", choice="Livia")
    t.do("cast_ballot", voter="Marcus", choice="Marcus")
    assert t.state.princeps == "Livia" and t.state.elections[2]["automatii_to"] == "Marcus"
    t.do("adjust_prestige", player="Marcus", delta=200, note="by hand")   # Livia now has fewer PP
    ev, = t.do("correct_senate_votes", player="Livia", votes=7, reason="said 7")
    assert ev.data["automatii_to"] == "Marcus" and ev.data["tally"] == {"Livia": 7, "Marcus": 8}
    assert t.state.princeps == "Marcus"


def test_narration_names_the_new_princeps():
    from companion.games.cicero import event_cues as cues
    t = wrong_total()
    before = t.state
    events = t.do("correct_senate_votes", player="Marcus", votes=4, reason="misheard")
    lines = cues(before, t.state, events)
    assert any(ctx.get("princeps") == "Octavia" and ctx.get("votes") == 7 for _s, ctx in lines)


# -- the majority cards ---------------------------------------------------------------------------

def counted_round(t):
    return t.until("prestige", 1)


def test_a_wrong_primus_holder_is_corrected_and_scores_from_then_on():
    """"The Primus and Secundus cards remain the property of the players who acquired them" and
    "A Primus card is worth 6 PP; a Secundus card is worth only 3 PP.\""""
    t = counted_round(Table(THREE_PLAYERS))
    held = t.state.caste_cards["Oratores"]
    points = cicero_rules.card_points(t.state)
    primus, secundus = "Octavia", "Livia"
    ev, = t.do("correct_caste_cards", caste="Oratores", primus=primus, secundus=secundus, reason="cards swapped")
    assert ev.kind == "majority_cards_corrected" and ev.data["before"] == list(held)
    assert t.state.caste_cards["Oratores"] == (primus, secundus)
    after = cicero_rules.card_points(t.state)
    assert after[primus]["primus"] == points[primus]["primus"] + 6 * (held[0] != primus)
    assert t.view()["castes"][0]["primus"] == primus
    assert t.view()["card_corrections"][-1]["reason"] == "cards swapped"


@pytest.mark.parametrize("data, key", [
    ({"primus": "Livia", "secundus": "Livia"}, "cicero.err.both_cards"),
    ({"primus": None, "secundus": "Livia"}, "cicero.err.secundus_alone"),
])
def test_a_player_holds_one_card_of_a_caste_and_secundus_needs_a_primus(data, key):
    t = counted_round(Table(THREE_PLAYERS))
    with pytest.raises(RuleError) as refused:
        t.do("correct_caste_cards", caste="Mercatores", reason="x", **data)
    assert refused.value.key == key and refused.value.rule == logic.R_PRIMUS


def test_a_guild_card_holder_is_corrected_and_refused_while_its_holder_chooses():
    t = Table(THREE_PLAYERS).until("guilds", 1)
    while t.state.pending_guild is None:
        t.move()
    pending = t.state.pending_guild
    with pytest.raises(RuleError) as refused:
        t.do("correct_guild_card", guild=pending, holder=None, reason="x")
    assert refused.value.key == "cicero.err.guild_choice_first"
    t.until("prestige", 1)
    ev, = t.do("correct_guild_card", guild="Artisans", holder="Livia"
               if t.state.guild_cards.get("Artisans") != "Livia" else "Marcus", reason="misread")
    assert t.state.guild_cards["Artisans"] == ev.data["after"]
    if t.state.pending_guild == "Artisans":   # its real winner chooses (the next test)
        t.do("guild_use", use="prestige")
    with pytest.raises(RuleError) as refused:
        t.do("correct_guild_card", guild="Artisans", holder=ev.data["after"], reason="x")
    assert refused.value.key == "cicero.err.correct_cards_same"


# -- the legend of the board's spaces ------------------------------------------------------------

def test_what_the_spaces_give_reads_as_sentences():
    kinds = [texts(k) for k in logic.space_kind_texts()]
    whole = " ".join(k["placer"] + " " + k["others"] for k in kinds)
    assert "from that space's pile" in whole and "pile its pile" not in whole
    assert "the the" not in whole and "{" not in whole
    assert "+X influence in the zone's Caste" in kinds[1]["placer"]


def test_a_guild_card_given_to_its_real_winner_is_chosen_by_them():
    """"The winner reads their card and must immediately choose whether to use the power of the
    Guild for the next round, or to score the Prestige Points": before, the new holder silently
    kept the wrong holder's choice (Marcus scored 3 PP Livia had chosen)."""
    t = Table(THREE_PLAYERS).until("guilds", 2)
    g = t.state.count_next()
    t.do("count_guild", guild=g, symbols={"Livia": 3, "Marcus": 1, "Octavia": 0})
    t.do("guild_use", use="prestige")
    t.do("correct_guild_card", guild=g, holder="Marcus", reason="Marcus had 3 symbols, not Livia")
    assert t.state.guild_cards[g] == "Marcus" and t.state.pending_guild == g and g not in t.state.guild_use
    assert {p: v["guilds"] for p, v in cicero_rules.card_points(t.state).items()} == {"Livia": 0, "Marcus": 0, "Octavia": 0}
    t.do("guild_use", use="power")     # Marcus chooses
    assert t.state.guild_use[g] == "power" and t.state.pending_guild is None


# -- the first Princeps (issue 33): decided from the starting Senators, set right until the first Servant --

FIRST = {"votes": {"Livia": 5, "Marcus": 5, "Octavia": 3}, "oratores": {"Livia": 2, "Marcus": 2, "Octavia": 1}}


def first_princeps_table(setup=THREE_PLAYERS, first=FIRST):
    t = Table(setup).until("first_princeps")
    t.do("first_princeps", **first)
    return t


def test_the_first_princeps_corrected_is_decided_again_by_the_same_rule():
    """"Each player adds up the total votes in the Senate of their 2 Senators. If one player has a
    strict majority, they become Princeps": Livia's second Senator had 3 votes, not 5."""
    t = first_princeps_table()
    assert t.state.princeps == "Marcus" and t.state.first_princeps["decided_by"] == "age"
    (ev,) = t.do("correct_first_princeps", votes={"Livia": 3, "Marcus": 5, "Octavia": 3},
                 oratores=FIRST["oratores"], reason="Livia's Senator has 1 vote")
    assert ev.kind == "first_princeps_corrected"
    assert ev.data["princeps"] == "Marcus" and ev.data["decided_by"] == "votes"
    assert ev.data["before"] == {"princeps": "Marcus", **FIRST} and ev.data["reason"] == "Livia's Senator has 1 vote"
    (ev,) = t.do("correct_first_princeps", votes={"Livia": 6, "Marcus": 5, "Octavia": 3},
                 oratores=FIRST["oratores"], reason="Livia has 6")
    assert t.state.princeps == "Livia" and t.state.phase == "accusation" and t.state.round == 1
    first = t.view()["first_princeps"]
    assert first["princeps"] == "Livia" and first["votes"]["Livia"] == 6
    assert [c["reason"] for c in first["corrections"]] == ["Livia's Senator has 1 vote", "Livia has 6"]
    # "In the first round, the Princeps is the first player": Livia places first
    t.do("cicero_card", influences=["Oratores"] * 4, senator_castes=["Oratores", "Pontifex"])
    assert t.state.next_to_place() == "Livia"


def test_the_first_princeps_correction_asks_the_oldest_when_the_corrected_count_ties_on_age():
    t = first_princeps_table(dict(THREE_PLAYERS, ages={"Livia": 41, "Marcus": 41, "Octavia": 29}),
                             {"votes": {"Livia": 6, "Marcus": 5, "Octavia": 3}, "oratores": FIRST["oratores"]})
    assert t.state.princeps == "Livia"
    with pytest.raises(NeedsTieBreak) as tie:
        t.do("correct_first_princeps", reason="Livia has 5", **FIRST)
    assert tie.value.field == "oldest" and set(tie.value.among) == {"Livia", "Marcus"}
    t.do("correct_first_princeps", reason="Livia has 5", oldest="Marcus", **FIRST)
    assert t.state.princeps == "Marcus"


def test_the_first_princeps_is_refused_a_correction_after_the_first_servant_and_in_later_rounds():
    t = first_princeps_table()
    with pytest.raises(RuleError) as same:
        t.do("correct_first_princeps", reason="nothing changes", **FIRST)
    assert "already the recorded votes" in str(same.value)
    with pytest.raises(BadInput):
        t.do("correct_first_princeps", reason="", **FIRST)
    t.do("cicero_card", influences=["Oratores"] * 4, senator_castes=["Oratores", "Pontifex"])
    t.do("place_servant", space="senate_1")
    fixed = dict(FIRST, votes={"Livia": 6, "Marcus": 5, "Octavia": 3})
    with pytest.raises(RuleError) as late:
        t.do("correct_first_princeps", reason="too late", **fixed)
    assert "Undo them first" in str(late.value) and late.value.rule == cicero_rules.R_FIRST_PLAYER
    t.until("election", 2)
    with pytest.raises(RuleError) as later:
        t.do("correct_first_princeps", reason="round 2", **fixed)
    assert "round 2" in str(later.value)
    before = Table(THREE_PLAYERS)
    with pytest.raises(RuleError) as none:
        before.do("correct_first_princeps", reason="no Princeps yet", **fixed)
    assert "no first Princeps" in str(none.value)


def test_the_first_princeps_correction_in_the_two_player_game_before_the_automatii_act():
    t = first_princeps_table(TWO_PLAYERS, {"votes": {"Livia": 5, "Marcus": 4}, "oratores": {"Livia": 1, "Marcus": 1}})
    assert t.state.phase == "automatii" and t.state.princeps == "Livia"
    t.do("correct_first_princeps", votes={"Livia": 3, "Marcus": 4}, oratores={"Livia": 1, "Marcus": 1},
         reason="Livia has 3")
    assert t.state.princeps == "Marcus" and t.state.phase == "automatii"


def test_the_narrator_says_the_corrected_first_princeps_as_a_report_that_replaces_the_waiting_one():
    from companion.games.cicero import event_cues as cues
    t = first_princeps_table()
    before = t.state
    events = t.do("correct_first_princeps", votes={"Livia": 6, "Marcus": 5, "Octavia": 3},
                  oratores=FIRST["oratores"], reason="Livia has 6")
    said = [(s.steps, ctx) for s, ctx in cues(before, t.state, events)]
    (steps, ctx), = said
    (line,) = [s for s in steps if hasattr(s, "key")]
    assert line.is_report and line.key == "first_princeps_named" and ctx["princeps"] == "Livia"
    # the same counts' Princeps (a correction that changes nobody): nothing said
    before = t.state
    events = t.do("correct_first_princeps", votes={"Livia": 7, "Marcus": 5, "Octavia": 3},
                  oratores=FIRST["oratores"], reason="Livia has 7")
    assert cues(before, t.state, events) == []


def test_the_election_result_is_a_report_a_correction_replaces_while_it_waits(tmp_path):
    """Issue 33: "Princeps elected" and "tied" are reports keyed by the fact. The reveal's "Marcus is
    Princeps" still waits behind a line being spoken when the total is corrected: the narrator
    says only "Octavia is Princeps", never the result that is no longer true."""
    from companion.core.speakers import CaptionSpeaker
    from companion.games.cicero import event_cues as cues
    from tests.test_narration import Table as Voice
    voice = Voice(CaptionSpeaker(), tmp_path)
    voice.narrator.say("busy", "A long line the table is hearing while the ballots are revealed, still going on.")
    t = wrong_total(ballots={"Livia": "Livia", "Marcus": "Marcus"})
    before = t.state
    revealed = t.do("cast_ballot", voter="Octavia", choice="Octavia")
    assert revealed[-1].kind == "princeps_elected"
    for script, ctx in cues(before, t.state, revealed):
        voice.narrator.enqueue_script(script, ctx)
    waiting = [s for s in voice.narrator.pending() if getattr(s, "key", None)]
    assert [(s.key, s.text) for s in waiting] == [("princeps_elected", "Marcus is Princeps, with 14 votes.")]
    before = t.state
    corrected = t.do("correct_senate_votes", player="Marcus", votes=4, reason="Marcus said 4")
    for script, ctx in cues(before, t.state, corrected):
        voice.narrator.enqueue_script(script, ctx)
    voice.run_until_idle()
    said = [e.text for e in voice.narrator.history]
    assert "Octavia is Princeps, with 7 votes." in said
    assert not any(text.startswith("Marcus is Princeps") for text in said)
    assert [d.text for d in voice.narrator.dropped] == ["Marcus is Princeps, with 14 votes."]


def test_a_tie_is_a_report_too_keyed_by_its_fact():
    from companion.games.cicero import event_cues as cues
    t = wrong_total(votes={"Livia": 6, "Marcus": 7, "Octavia": 7})
    assert t.state.phase == "election_tie"
    (script, ctx), = [(s, c) for s, c in cues(t.state, t.state, t.events[-1:])]
    (line,) = script.resolve(ctx)
    assert line.is_report and line.key == "princeps_tied" and "Marcus and Octavia" in line.text
