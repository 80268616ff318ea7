"""23 Knives: card effects on the Forum, corrections by hand, the board confirmed at setup and the
physical steps the table is told. Each test cites the rulebook (../shared/rules/23-knives.txt).
Played through a real GameSession on a real SQLite journal."""
from __future__ import annotations

import pytest

from companion.core.events import BadInput, RuleError
from companion.games.knives23 import rules as k23rules

from companion.core.i18n import texts
from .test_knives23_rules import D, K, Table


def at_forum(t):
    t("move", location="forum")
    return t


def test_an_issue_makes_a_player_play_more_fate_with_its_source_named(tmp_path):
    """"if the 5 Forum spaces are filled and you are allowed, or must (because of a resolved
    Issue) play more Fate cards, any extra cards may be placed ..." — the effect's source is named."""
    t = at_forum(Table(tmp_path).begin())
    with pytest.raises(BadInput, match="Who caused the effect"):
        t("play_fate", card=K(3), effect=True)
    t("play_fate", card=K(3), effect=True, by="Ides of March", player="Cy")
    assert t.state.turn.fate_played == 0          # an effect does not use the Forum's action
    assert t.view()["history_notes"] == ["Ides of March: Cy played 3 Knives on Forum space 1"]


def test_an_effect_discards_a_forum_card_and_the_space_fills_first(tmp_path):
    """"Some effects on Issues and Citizens may cause cards to be discarded from the Forum,
    leaving empty spaces ... filling in any possible empty spaces first.\""""
    t = at_forum(Table(tmp_path).begin())
    t("play_fate", card=K(1))
    t("play_fate", card=K(2))
    t("discard_forum", space=1, by="Proscription")
    assert t.view()["forum"]["next_space"] == 1 and t.view()["forum"]["count"] == 1
    assert "Proscription: the card on Forum space 1 discarded" in t.view()["history_notes"]


def test_servilia_swaps_faceup_cards_facedown_instead_of_playing_fate(tmp_path):
    """Servilia: "Instead of playing Fate cards at the Forum, you may swap up to 2 faceup Fate cards
    in the Forum with 2 from your hand and place them facedown (you may still Call a Vote to Exile).\""""
    t = at_forum(Table(tmp_path).begin())
    t("play_fate", card=K(5))
    t("play_fate", facedown=True)
    for _ in range(2):
        t("next_step")
    t("next_step")                                  # Ann's turn ends; Bo at the Forum
    at_forum(t)
    with pytest.raises(RuleError, match="no faceup Fate card") as err:
        t("servilia_swap", spaces=[1, 2])
    assert err.value.rule == k23rules.R_SERVILIA
    t("servilia_swap", spaces=[1])
    spaces = t.view()["forum"]["spaces"]
    assert spaces[0]["card"] == {"faceup": False, "card": None} and t.view()["forum"]["count"] == 2
    with pytest.raises(RuleError, match="at most 2 Fate"):
        t("play_fate", card=K(1))                  # instead of playing Fate
    t("call_exile", target="Cy")                    # "you may still Call a Vote to Exile"


def test_sabinus_doves_ride_on_knives_into_the_curia_without_filling_a_space(tmp_path):
    """Sabinus: "allows you to play Doves onto Knife cards in the Forum. When the Forum is full,
    all cards—including the Doves—are placed into the Curia as normal.\""""
    t = at_forum(Table(tmp_path).begin())
    t("play_fate", card=K(3))
    t("play_fate", card=D(1))
    with pytest.raises(RuleError, match="no Knife card") as err:
        t("sabinus_dove", space=2, card=D(2))
    assert err.value.rule == k23rules.R_SABINUS
    with pytest.raises(RuleError, match="Doves, not Knives"):
        t("sabinus_dove", space=1, card=K(2))
    t("sabinus_dove", space=1, card=D(2), player="Bo")
    f = t.view()["forum"]
    assert f["count"] == 2 and f["cards"] == 3 and f["next_space"] == 3
    for card in (K(1), K(1), K(2)):
        t("play_fate", card=card, effect=True, by="Caesar's Triumph")
    while t.state.turn.player == "Ann":
        t("next_step")
    assert t.state.curia_count == 6                 # 5 cards and the Dove on the Knife
    assert t.view()["told"][0].startswith("Flip the Forum's 6 cards facedown")


def test_a_sway_a_citizens_ability_calls_for_is_recorded_outside_the_gardens_and_the_sway_step(tmp_path):
    """Issue 33: "Sempronia's Sway ability is non-negotiable and must be resolved if a player
    gives a Fate card. When a player uses Sempronia's ability to Sway, they may Sway them however
    they choose." — "Citizen abilities take precedence over the basic rules in this rulebook."
    The Sway is recorded with its source whenever it comes (here at the Baths, then during a
    bribe); the turn's own Sway step is still there afterwards."""
    t = Table(tmp_path, quid_pro_quo=True).begin()
    t("move", location="baths")
    with pytest.raises(RuleError, match="Sway"):
        t("sway", target="Bo")                      # the Baths' action is no Gardens
    with pytest.raises(BadInput, match="ability_sway needs by: the Citizen whose ability"):
        t("ability_sway", target="Bo")
    with pytest.raises(RuleError, match="another player's tableau") as err:
        t("ability_sway", target="Ann", by="Sempronia")
    assert err.value.rule == k23rules.R_SWAY_OTHER
    with pytest.raises(BadInput, match="Zed"):
        t("ability_sway", target="Zed", by="Sempronia")
    t("ability_sway", target="Bo", by="Sempronia")  # Ann gave Bo (Sempronia) a Fate card
    assert t.kinds()[-1] == "ability_swayed" and t.state.turn.swayed_in == ()
    t("next_step")
    assert t.state.turn.step == "sway"
    assert t.view()["history_notes"] == ["Sempronia: Ann Swayed Bo (a Citizen's ability)"]
    t("next_step"), t("next_step")                  # Bo's turn: the Forum, a Vote to Exile, a bribe
    t("move", location="forum")
    t("call_exile", target="Cy")
    assert t.state.phase == "exile_called" and t.view()["can_sway_by_ability"]
    assert not t.view()["can_apply_effects"]
    t("ability_sway", player="Di", target="Cy", by="Sempronia")   # a Fate card given as a bribe
    assert t.view()["history_notes"][-1] == "Sempronia: Di Swayed Cy (a Citizen's ability)"
    t("start_exile_vote")
    with pytest.raises(RuleError, match="Not now"):
        t("ability_sway", target="Cy", by="Sempronia")  # not while the ballots are cast
    t.s.undo()
    assert t.state.phase == "exile_called"
    t.s.undo()
    assert t.view()["history_notes"] == ["Sempronia: Ann Swayed Bo (a Citizen's ability)"]


def test_a_correction_is_an_event_with_its_reason_and_undo_takes_it_back(tmp_path):
    t = at_forum(Table(tmp_path).begin())
    t("play_fate", card=K(3))
    with pytest.raises(BadInput, match="reason"):
        t("correct_curia", count=4)
    t("correct_curia", count=4, reason="Tiberius counted the Curia")
    t("correct_dagger", space=3, reason="the Dagger was knocked")
    t("correct_forum", spaces=[{"faceup": True, "card": K(3)}, {"faceup": False}, None, None, None],
      reason="a card went down unrecorded")
    assert (t.state.curia_count, t.state.dagger, t.view()["forum"]["count"]) == (4, 3, 2)
    notes = t.view()["history_notes"]
    assert notes[0] == "Curia count corrected (Tiberius counted the Curia): from 0 to 4 cards"
    assert notes[1] == "Dagger corrected (the Dagger was knocked): from space 2 to space 3"
    assert notes[2].startswith("Forum corrected (a card went down unrecorded): was 3 Knives; empty")
    with pytest.raises(RuleError, match="nothing to correct"):
        t("correct_dagger", space=3, reason="again")
    t.s.undo()
    t.s.undo()
    assert (t.state.curia_count, t.state.dagger, t.view()["forum"]["count"]) == (4, 2, 1)
    kinds = [e.kind for e in t.s.events]
    assert kinds.count("board_corrected") == 3 and kinds.count("undo") == 2   # history stays


def test_the_curia_reveal_accepts_the_real_number_of_cards_after_a_correction(tmp_path):
    """"One at a time, reveal the Fate cards from the Curia": the table's real count decides."""
    t = Table(tmp_path, simplicitas=True, kalends={"spaces": 2, "dagger_start": 2}).begin()
    t.turn("forum", K(5), K(3))
    t("correct_curia", count=1, reason="one card from an unrecorded Issue")
    while t.state.phase == "turn":
        if t.state.turn.step == "issue":
            t.issue(kalends=True)
        else:
            t.turn("forum" if t.state.locations[t.state.turn.player] != "forum" else "baths", K(2))
    assert t.state.phase == "curia_reveal"
    n = t.state.curia_count
    for _ in range(n):
        t("curia_card", card=K(1))
    assert t.state.phase == "tableaux"
    with pytest.raises(RuleError):
        t("curia_card", card=K(2))
    t("correct_curia", count=n + 1, reason="an 11th card was in the Curia")
    assert t.state.phase == "curia_reveal"
    t("curia_card", card=K(2))
    assert t.state.phase == "tableaux" and len(t.state.curia_revealed) == n + 1


def test_two_dagger_moves_in_one_step_are_told_one_line_per_space(tmp_path):
    """iv. Kalends icon: "advance the Dagger ... one space"; then the full Forum at the end of the
    Tribune's turn: "advance the Dagger on the Kalends track one space" again."""
    t = Table(tmp_path, kalends={"spaces": 8, "dagger_start": 1}).begin()
    for _ in range(3):
        t.turn("forum" if t.state.locations[t.state.turn.player] != "forum" else "baths")
    t.turn("forum", K(1), K(2))
    t("correct_forum", spaces=[{"faceup": True, "card": K(1)}, {"faceup": True, "card": K(2)},
                               {"faceup": False}, {"faceup": False}, {"faceup": False}], reason="three Issue cards")
    t.issue(kalends=True)
    told = t.view()["told"]
    assert told == [
        "Kalends icon: move the Dagger one space, to space 2.",
        "Di: pass the Issue deck and the Voting board counterclockwise to Cy.",
        "Flip the Forum's 5 cards facedown, shuffle them and put them into the Curia (now 5).",
        "The Forum resolved: move the Dagger one space, to space 3.",
    ]
    from companion.games.knives23.cues import cues, lines  # spoken: the same steps, one per line
    from companion.core.events import Event
    state = RULES_fold(t)
    spoken = [text for _, text in lines(cues(state[0], Event(0, "issue_resolved", state[2]), state[1]))]
    assert sum(1 for s in spoken if "Move the Dagger one space" in s) == 2
    assert any("pass the Issue deck and the Voting board counterclockwise" in s for s in spoken)
    assert any(s.startswith("The Forum is full. Flip its cards face down") for s in spoken)


def RULES_fold(t):
    """The state before and after the last issue_resolved event, and its data."""
    from companion.games.knives23 import RULES
    events = [e for e in t.s.events]
    last = max(i for i, e in enumerate(events) if e.kind == "issue_resolved")
    before = RULES.fold(t.s.setup, events[:last])
    return before, RULES.evolve(before, events[last]), events[last].data


def test_tria_ludio_refill_is_told(tmp_path):
    """Tria Ludio: "place the top card from the Fate deck facedown into the last space of the Forum\""""
    t = Table(tmp_path, players=["Ann", "Bo", "Cy"]).begin()
    t.turn("forum", K(1), K(2))
    t.turn("forum" if t.state.locations["Bo"] != "forum" else "baths", K(3), K(5))
    told = t.view()["told"]
    assert told[-1] == "Tria Ludio: put the top Fate card facedown on space 5 of the Forum."


def test_the_exiled_players_steps_and_the_shamed_caller_are_told(tmp_path):
    """"The Exiled player may then draw up to their hand limit of 6 ..."; "the player who called
    the Vote to Exile is shamed: their Citizen, as well as all the Sway in their tableau is revealed\""""
    t = at_forum(Table(tmp_path).begin())
    t("call_exile", target="Bo")
    t.vote({"Ann": "exile", "Bo": "exile", "Cy": "exile", "Di": "remain"})
    assert t.view()["told"][0] == "Bo is exiled:" and len(t.view()["told"]) == 5
    t("next_step")
    t("next_step")
    t("next_step")
    at_forum(t)
    t("call_exile", target="Cy")
    t.vote({"Ann": "remain", "Bo": "remain", "Cy": "remain", "Di": "exile"})
    assert t.view()["told"] == ["Bo is shamed: reveal their Citizen and all the Sway in their tableau."]
    assert t.view()["shamed"] == ["Bo"]


def test_the_board_is_confirmed_at_setup_step_one(tmp_path):
    """Setup I: "Place the Dagger—according to the player count—into the corresponding space of
    the Kalends track": the rulebook prints neither, so the table confirms its board."""
    t = Table(tmp_path)
    with pytest.raises(BadInput, match="The Forum needs 5 spaces"):
        t("confirm_board", spaces=10, black_spaces=2, dagger_start=3, forum={"spaces": ["faceup"]})
    t("confirm_board", spaces=10, black_spaces=2, dagger_start=3,
      forum={"spaces": ["faceup", "either", "either", "faceup", "either"], "extra": "either"})
    v = t.view()
    assert v["board"]["confirmed"] and v["kalends"]["spaces"] == 10 and v["kalends"]["dagger"] == 3
    assert v["kalends"]["black"] == [9, 10] and v["setup"][0]["done"]
    for step in k23rules.SETUP_STEPS[1:]:
        t("tick_setup", step=step)
    t("begin_play")
    at_forum(t)
    with pytest.raises(RuleError, match="space 1 shows the faceup icon"):
        t("play_fate", facedown=True)


def test_the_cicero_citizen_claims_one_of_two_sway_sets_and_is_never_an_opportunist():
    """Cicero: "split their Sway cards ... into 2 sets as equally as possible and choose one set to
    claim as their Allegiance ... Cicero cannot be an Opportunist; if one set of Sway indicates the
    player as an Opportunist, it is simply ignored.\""""
    from companion.games.knives23 import scoring
    split = {"sets": [[{"blood": 1}], [{"laurels": 2}, {"laurels": 1}]], "claim": 1}
    t = scoring.tableau({"name": "Cy", "citizen": {"laurels": 1}, "cicero": split})
    assert t.set_values() == [0, -4] and t.counted_set() == 1
    assert t.allegiance == scoring.LOYALIST and t.blood_value == -4   # the Opportunist set is ignored
    both = scoring.tableau({"name": "Cy", "citizen": {"laurels": 1},
                            "cicero": {"sets": [[{"blood": 1}], [{"blood": 1}]], "claim": 2}})
    assert both.allegiance == scoring.NONE
    with pytest.raises(BadInput, match="as equally as possible"):
        scoring.tableau({"name": "Cy", "citizen": {"laurels": 1},
                         "cicero": {"sets": [[], [{"blood": 1}, {"blood": 2}]], "claim": 1}})
    # at the end of the game: a Cicero at 0 with one set is not counted as an Opportunist
    opp = scoring.tableau({"name": "Bo", "citizen": {"laurels": 1, "blood": 1}})
    r = scoring.final_result([both, opp], [{"knives": 5}], [{"knives": 5}] * 4 + [{"knives": 3}])
    assert r["opportunists_win"] and r["winners"] == ["Bo"]


def test_a_cicero_tableau_is_entered_at_the_end_of_the_game(tmp_path):
    t = Table(tmp_path, simplicitas=True, kalends={"spaces": 2, "dagger_start": 2}).begin()
    while t.state.phase == "turn":
        if t.state.turn.step == "issue":
            t.issue(kalends=True)
        else:
            t.turn("forum" if t.state.locations[t.state.turn.player] != "forum" else "baths", K(5), K(5))
    for card in [K(5)] * t.state.curia_count:
        t("curia_card", card=card)
    t("tableau", player="Ann", citizen={"blood": 1},
      cicero={"sets": [[{"laurels": 1}], [{"blood": 1}]], "claim": 1})
    assert t.state.tableaux["Ann"]["cicero"]["claim"] == 1
    for p in ("Bo", "Cy", "Di"):
        t("tableau", player=p, citizen={"laurels": 1}, sway=[])
    assert t.view()["end"]["opportunists"] == []        # Ann's set 1 (0) is ignored: a Liberator
    t("opportunist_play", cards=[])
    assert t.state.result["winners"] == ["Ann"]


def test_effects_and_corrections_survive_a_resume_from_the_journal(tmp_path):
    """Every effect and correction is an event in the SQLite journal: a resumed game folds to the
    same board."""
    from companion.core.session import GameSession
    from companion.games.knives23 import RULES
    t = at_forum(Table(tmp_path).begin())
    t("play_fate", card=K(3))
    t("sabinus_dove", space=1, card=D(1))
    t("play_fate", facedown=True, effect=True, by="Ides of March", player="Di")
    t("correct_curia", count=2, reason="an Issue put 2 cards in")
    t("correct_dagger", space=4, reason="knocked")
    again = GameSession.resume(t.journal, t.s.game_id, RULES)
    assert again.state == t.state
    assert texts(again.view("table")["history_notes"]) == t.view()["history_notes"]


def test_the_groups_board_is_remembered_and_a_bad_file_is_one_line(tmp_path):
    from companion.games.knives23 import tables as k23tables
    assert k23tables.load_group_board(tmp_path) is None
    board = k23tables.default_board()
    board["spaces"], board["dagger_start"]["5"] = 11, 4
    board["forum"]["spaces"][4] = "faceup"
    k23tables.save_group_board(tmp_path, {**board, "confirmed": "2026-11-30"})
    back = k23tables.load_group_board(tmp_path)
    assert back["spaces"] == 11 and back["dagger_start"]["5"] == 4 and back["forum"]["spaces"][4] == "faceup"
    assert back["confirmed"] == "2026-11-30"
    (tmp_path / k23tables.GROUP_BOARD_FILE).write_text('{"spaces": 3, "black_spaces": 9}')
    with pytest.raises(BadInput) as err:
        k23tables.load_group_board(tmp_path)
    assert "black_spaces" in str(err.value) and "\n" not in str(err.value)
    (tmp_path / k23tables.GROUP_BOARD_FILE).write_text("{not json")
    with pytest.raises(BadInput, match="the group's 23 Knives board cannot be read"):
        k23tables.load_group_board(tmp_path)
