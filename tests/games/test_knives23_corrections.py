"""23 Knives: putting the tablet right when the table did something it could not know — a pawn's
Location tapped wrong, a turn played out of order, the Issue deck in other hands. Each correction
is one event with its reason, undoable, listed in the history; the rules check the corrected board
from then on. Each test cites the rulebook (../shared/rules/23-knives.txt).
Played through a real GameSession on a real SQLite journal."""
from __future__ import annotations

import pytest

from companion.core.commands import legal_values
from companion.core.events import BadInput, RuleError
from companion.core.i18n import error_text, speaking
from companion.core.session import GameSession
from companion.games.knives23 import RULES, rules as k23rules

from .test_knives23_rules import K, Table

WHY = "Ann's pawn went to the Baths"


def wrong_forum_then_revealed_vote(t):
    """Ann's pawn goes to the Baths but the tablet records the Forum; the round's Issue vote is
    revealed (undo never goes past it) and round 2 begins with Ann."""
    t("move", location="forum")
    for who, where in (("Ann", None), ("Bo", "baths"), ("Cy", "tiber"), ("Di", "gardens")):
        if where:
            t("move", location=where)
        while t.state.turn.player == who and t.state.turn.step != "issue":
            t("next_step")
    t.issue()
    assert t.state.turn.player == "Ann" and t.state.round == 2
    return t


def test_a_location_tapped_wrong_is_corrected_after_a_revealed_vote(tmp_path):
    """"I. MOVE: You MUST move to a new Location." — Ann really stands on the Baths: once the
    tablet is told, her move to the Forum is the legal move it is."""
    t = wrong_forum_then_revealed_vote(Table(tmp_path).begin())
    with pytest.raises(RuleError) as err:
        t("move", location="forum")
    assert err.value.rule == k23rules.R_MOVE
    with pytest.raises(BadInput, match="reason"):
        t("correct_location", player="Ann", location="baths")
    t("correct_location", player="Ann", location="baths", reason=WHY)
    assert t.state.locations["Ann"] == "baths"
    view = t.view()
    assert view["locations"]["Ann"] == "baths" and view["turn"]["location_name"] == "Baths"
    assert view["history_notes"][-1] == "Ann's pawn corrected (Ann's pawn went to the Baths): from Forum to Baths"
    assert "forum" in legal_values(RULES, t.state, "move", "location")
    assert "baths" not in legal_values(RULES, t.state, "move", "location")
    t("move", location="forum")
    t("play_fate", card=K(2))             # the Forum's action checks the corrected Location
    assert t.view()["forum"]["count"] == 1


def test_the_forum_action_and_the_sway_step_follow_a_corrected_location(tmp_path):
    """"Play up to 2 Fate cards into the Forum" is for the player at the Forum; "you may Sway any
    one colocated player" — both read the Location the table corrected."""
    t = Table(tmp_path).begin()
    t("move", location="baths")               # tapped wrong: Ann went to the Forum
    with pytest.raises(RuleError, match="Only a player at the Forum"):
        t("play_fate", card=K(1))
    t("correct_location", player="Ann", location="forum", reason="tapped the Baths by mistake")
    t("play_fate", card=K(1))
    t("next_step")                            # the Sway step
    with pytest.raises(RuleError, match="Bo"):
        t("sway", target="Bo")                # Bo is on the Temple
    t("correct_location", player="Bo", location="forum", reason="Bo's pawn was knocked over")
    t("sway", target="Bo")


def test_a_location_correction_refuses_an_unknown_player_or_location_in_every_language(tmp_path):
    t = Table(tmp_path).begin()
    with pytest.raises(BadInput) as who:
        t("correct_location", player="Zed", location="baths", reason=WHY)
    with pytest.raises(BadInput) as where:
        t("correct_location", player="Ann", location="circus", reason=WHY)
    said = {}
    for lang in ("en", "fr", "de"):
        with speaking(lang):
            said[lang] = (error_text(who.value), error_text(where.value))
        assert "Zed" in said[lang][0] and "Ann, Bo, Cy, Di" in said[lang][0]
        assert "circus" in said[lang][1] and "{" not in "".join(said[lang])
    assert said["en"][0].startswith("There is no player “Zed”")
    assert said["en"][1] == ("There is no Location “circus”; the Locations are Gardens, Baths, Tiber River, "
                             "Temple, Forum.")
    assert said["fr"][1].startswith("Il n'y a pas de Lieu « circus »") and "Thermes" in said["fr"][1]
    assert said["de"][0].startswith("Am Tisch sitzt niemand namens „Zed“")
    with pytest.raises(RuleError, match="nothing to correct"):
        t("correct_location", player="Bo", location="temple", reason=WHY)
    assert t.kinds().count("board_corrected") == 0


def test_a_location_correction_is_undone_and_survives_a_resume(tmp_path):
    t = wrong_forum_then_revealed_vote(Table(tmp_path).begin())
    t("correct_location", player="Ann", location="baths", reason=WHY)
    again = GameSession.resume(t.journal, t.s.game_id, RULES)
    assert again.state == t.state and again.state.locations["Ann"] == "baths"
    t.s.undo()
    assert t.state.locations["Ann"] == "forum"          # back to what the tablet had
    assert t.kinds().count("board_corrected") == 1 and t.kinds()[-1] == "undo"   # history stays
    t.s.redo()
    assert t.state.locations["Ann"] == "baths"


def test_no_location_is_corrected_before_play_or_after_the_game_ends(tmp_path):
    t = Table(tmp_path)
    with pytest.raises(RuleError, match="Not now"):
        t("correct_location", player="Ann", location="baths", reason=WHY)


def test_the_turn_played_out_of_order_is_corrected_and_starts_at_its_move(tmp_path):
    """"The game plays out continuously as players take turns": Cy played while the tablet had
    Bo's turn — the tablet gives Cy the turn, from the Move."""
    t = Table(tmp_path).begin()
    t.turn("forum", K(1))                       # Ann's turn; the tablet now says Bo
    assert t.state.turn.player == "Bo"
    with pytest.raises(BadInput, match="Zed"):
        t("correct_turn", player="Zed", reason="Cy played first")
    with pytest.raises(RuleError, match="nothing to correct"):
        t("correct_turn", player="Bo", reason="Cy played first")
    t("correct_turn", player="Cy", reason="Cy played first")
    view = t.view()
    assert view["turn"]["player"] == "Cy" and view["turn"]["step"] == "move"
    assert view["history_notes"][-1] == "Turn corrected (Cy played first): from Bo to Cy"
    t("move", location="baths")
    while t.state.turn.player == "Cy":
        t("next_step")
    assert t.state.turn.player == "Di"            # clockwise from the corrected turn
    t.s.undo()
    t.s.undo()
    assert t.state.turn.player == "Cy"


def test_the_tribune_is_who_holds_the_issue_deck(tmp_path):
    """"If you have the Issue deck, you are the Tribune and must resolve an Issue Vote.\""""
    t = Table(tmp_path).begin()
    assert t.state.tribune == "Di"
    with pytest.raises(BadInput, match="Zed"):
        t("correct_tribune", player="Zed", reason="the deck went astray")
    t("correct_tribune", player="Ann", reason="the deck went to Ann")
    assert t.view()["tribune"] == "Ann" and t.view()["turn"]["is_tribune"]
    assert t.view()["history_notes"][-1] == "Tribune corrected (the deck went to Ann): from Di to Ann"
    t("move", location="forum")
    for _ in range(3):
        t("next_step")
    assert t.state.turn.step == "issue"           # Ann, the Tribune, resolves the Issue Vote
    t.issue()
    assert t.state.tribune == "Di"                # and passes the deck counterclockwise from Ann


def test_a_tribune_taken_away_at_the_issue_step_ends_the_turn_at_its_last_step(tmp_path):
    t = Table(tmp_path).begin()
    t("correct_tribune", player="Ann", reason="the deck went to Ann")
    t("move", location="forum")
    for _ in range(3):
        t("next_step")
    assert t.state.turn.step == "issue"
    t("correct_tribune", player="Di", reason="Di had the deck after all")
    assert t.state.turn.step == "discard" and t.view()["turn"]["steps"][-1] == "discard"
    t("next_step")
    assert t.state.turn.player == "Bo"


def test_turn_and_tribune_wait_while_the_issues_are_on_the_voting_board(tmp_path):
    """Tria Ludio: "read and place 2 Issues on the Voting board, and then continue the round as
    normal without a Vote" — the deck and its Issues move together, but not mid-placement."""
    t = Table(tmp_path, players=["Ann", "Bo", "Cy"]).begin()
    tribune = t.state.tribune
    while t.state.turn.player != tribune:
        t.turn("forum" if t.state.locations[t.state.turn.player] != "forum" else "baths")
    t.turn("gardens")
    t("place_issues", red="Ides", grey="Games")
    for command in ("correct_turn", "correct_tribune"):
        with pytest.raises(RuleError, match="Voting board") as err:
            t(command, player="Ann" if tribune != "Ann" else "Bo", reason="out of turn")
        assert err.value.rule == k23rules.R_TRIBUNE
    t("next_step")                                # the Issues are held over
    other = next(p for p in t.state.players if p not in (tribune, t.state.turn.player))
    t("correct_tribune", player=other, reason="the deck moved")
    assert t.state.issues["held_over"] and t.state.tribune == other


def test_turn_and_tribune_are_refused_during_a_vote(tmp_path):
    t = Table(tmp_path).begin()
    t("move", location="forum")
    t("call_exile", target="Bo")
    assert t.state.phase == "exile_vote"
    for command, where in (("correct_turn", {}), ("correct_tribune", {}), ("correct_location", {"location": "baths"})):
        with pytest.raises(RuleError, match="Not now"):
            t(command, player="Cy", reason="x", **where)


def _forum_full_on_cys_turn(t):
    t.turn("forum", K(1), K(2))        # Ann: 2 cards
    t.turn("forum", K(1), K(1))        # Bo: 4 cards
    t("move", location="forum")        # Cy
    t("play_fate", card=K(3))          # 5 cards in the Forum
    return t


@pytest.mark.parametrize("dagger", [None, 7, 9])
def test_a_turn_corrected_ends_the_turn_in_play_as_the_table_ended_it(tmp_path, dagger):
    """"Once there are 5 or more Fate cards in the Forum after the end of your turn ..., place them
    into the Curia. Then, advance the Dagger": the table says Cy's turn is over and Di plays;
    before, the Forum stayed full and the Dagger a space behind (an Exile then accepted on a
    black space; the game played on past the Dagger's entering the Curia)."""
    runs = []
    for correct in (False, True):
        t = _forum_full_on_cys_turn(Table(tmp_path / str(correct)).begin())
        if dagger is not None:
            t("correct_dagger", space=dagger, reason="the Dagger stood there")
        if correct:
            t("correct_turn", player="Di", reason="Cy had finished; Di is playing")
        else:
            while t.state.turn is not None and t.state.turn.player == "Cy":
                t("next_step")
        s = t.state
        runs.append((s.phase, s.ended_by, s.turn, s.curia_count, s.dagger, s.forum, s.round))
    assert runs[0] == runs[1]
    assert runs[1][3] == 5   # the Forum went into the Curia


def test_a_turn_corrected_past_the_starting_player_begins_a_new_round(tmp_path):
    t = Table(tmp_path).begin()
    first = t.state.start_player
    t.turn("baths")
    assert t.state.turn.player != first and t.state.round == 1
    t("correct_turn", player=first, reason="the round came round already")
    assert t.state.turn.player == first and t.state.round == 2
