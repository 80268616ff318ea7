"""23 Knives' rules, one test per rule, each citing the rulebook (../shared/rules/23-knives.txt).

Played through a real GameSession on a real SQLite journal; the pure rule functions (scoring.py)
are the ones the referee also uses.
"""
from __future__ import annotations

import dataclasses

import pytest

from companion.core.i18n import text_of, texts
from companion.core.events import BadInput, Command, RuleError
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.knives23 import RULES, rules as k23rules, scoring, tables as k23tables
from companion.games.knives23.rules import running_total
from companion.games.knives23.scoring import tableau

K = lambda n: {"knives": n}  # noqa: E731
D = lambda n: {"doves": n}   # noqa: E731
FOUR = ["Ann", "Bo", "Cy", "Di"]


class Table:
    """A game at the table: commands in, state and views out."""

    def __init__(self, tmp_path, players=FOUR, **setup):
        self.journal = Journal(":memory:")  # no file: see the memory_journal fixture (tests/conftest.py)
        self.s = GameSession.start(self.journal, RULES, {"players": list(players), **setup})

    def __call__(self, kind, source="tablet", **data):
        return self.s.execute(Command(kind, data, source))

    @property
    def state(self):
        return self.s.state

    def view(self, viewer="table"):
        return texts(self.s.view(viewer))  # as a screen shows it

    def begin(self):
        for step in k23rules.SETUP_STEPS:
            self("tick_setup", step=step)
        self("begin_play")
        return self

    def turn(self, location, *fate, exile=None, votes=None, keep_open=False):
        """One whole turn: move, play Fate at the Forum, perhaps an Exile, then the steps up to
        the end of the turn (or up to the Issue step for the Tribune)."""
        player = self.state.turn.player
        self("move", location=location)
        for card in fate:
            self("play_fate", facedown=True) if card is None else self("play_fate", card=card)
        if exile:
            self("call_exile", target=exile)
            self.vote(votes)
        if keep_open:
            return
        while self.state.turn and self.state.turn.player == player and self.state.turn.step != "issue" \
                and self.state.phase == "turn":
            self("next_step")

    def vote(self, choices, source="tablet"):
        for voter, choice in choices.items():
            self("cast_ballot", source, voter=voter, choice=choice)

    def issue(self, winner="red", kalends=False, red="Ides of March", grey="Vestal Virgins"):
        """The Tribune's Issue Vote, everyone voting ``winner``."""
        self("place_issues", red=red, grey=grey)
        self.vote({p: winner for p in self.state.players})
        self("issue_resolved", kalends=kalends)

    def kinds(self):
        return [e.kind for e in self.s.events]


def round_of(t, locations=("forum", "gardens", "baths", "tiber"), fate=(), kalends=False):
    """Every player takes a turn (no Fate unless given to the first); the Tribune holds the Issue."""
    for i in range(len(t.state.players)):
        here = t.state.locations[t.state.turn.player]
        where = locations[i % len(locations)]
        if where == here:
            where = "temple" if here != "temple" else "baths"
        t.turn(where, *(fate if i == 0 and where == "forum" else ()))
        if t.state.phase == "turn" and t.state.turn.step == "issue":
            t.issue(kalends=kalends)


# -- setup -------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(3, 9))
def test_dagger_starts_on_the_space_the_table_data_gives_for_the_player_count(tmp_path, n):
    """"Place the Dagger—according to the player count—into the corresponding space of the
    Kalends track" — the numbers are data (tables.json), not logic."""
    t = Table(tmp_path, players=[f"P{i}" for i in range(n)])
    data = k23tables.tables()["kalends"]
    assert t.state.dagger == data["dagger_start"][str(n)]
    assert t.state.kalends.spaces == data["spaces"]
    assert f"space {t.state.dagger} of {data['spaces']}" in t.view()["setup"][0]["text"]


def test_a_group_sets_the_kalends_once_per_game_in_the_setup(tmp_path):
    t = Table(tmp_path, kalends={"spaces": 12, "dagger_start": 5})
    assert (t.state.kalends.spaces, t.state.dagger, t.state.kalends.curia) == (12, 5, 13)
    assert t.view()["kalends"]["black"] == [11, 12]


def test_bad_kalends_data_is_refused_in_one_line(tmp_path):
    with pytest.raises(BadInput, match=r"^The Dagger's start space for 4 players must be a whole number from 1 to 6.$"):
        Table(tmp_path, kalends={"spaces": 6, "dagger_start": 9})
    bad = dict(k23tables.tables(), kalends={"spaces": 9, "black_spaces": 2, "dagger_start": {"3": 1}})
    with pytest.raises(BadInput, match="the entry “4” is missing"):
        k23tables.check_tables(bad)


@pytest.mark.parametrize("players", [["A", "B"], [f"P{i}" for i in range(9)]])
def test_the_game_is_for_3_to_8_players(tmp_path, players):
    with pytest.raises(BadInput, match="3 to 8 players"):
        Table(tmp_path, players=players)


def test_tribune_is_the_player_to_the_right_of_the_starting_player(tmp_path):
    """"give the deck, along with the Voting board, to the player sitting to the right of the
    starting player" (seats are listed clockwise, so the right-hand neighbour comes before)."""
    assert Table(tmp_path, start_player="Cy").state.tribune == "Bo"
    (tmp_path / "b").mkdir()
    assert Table(tmp_path / "b").state.tribune == "Di"   # Ann starts by default


@pytest.mark.parametrize("n,remove", [(3, True), (4, True), (5, False), (8, False)])
def test_fewer_than_5_players_remove_the_5_plus_issues(tmp_path, n, remove):
    """"If playing with fewer than 5 players, remove any Issues with a 5+ player icon"."""
    t = Table(tmp_path, players=[f"P{i}" for i in range(n)])
    vi = next(s for s in t.view()["setup"] if s["step"] == "VI")["text"]
    assert ("remove the Issues with the 5+ icon" in vi) is remove


def test_advanced_citizens_option_shows_in_the_checklist(tmp_path):
    """"Citizens with a helmet icon ... you may consider removing these"."""
    on = Table(tmp_path).view()["setup"][4]["text"]
    (tmp_path / "b").mkdir()
    off = Table(tmp_path / "b", advanced_citizens=False).view()["setup"][4]["text"]
    assert "helmet" not in on and "Remove the Advanced Citizens (helmet icon)" in off


def test_tria_ludio_begins_with_a_facedown_card_on_the_last_forum_space(tmp_path):
    """"Begin the game with a facedown unrevealed Fate card on the last space of the Forum"."""
    t = Table(tmp_path, players=["A", "B", "C"])
    assert t.state.tria_ludio
    assert t.view()["forum"]["spaces"][4]["card"] == {"faceup": False, "card": None}
    assert "facedown Fate card on the last space of the Forum" in t.view()["setup"][0]["text"]


def test_play_begins_only_when_every_setup_step_is_ticked(tmp_path):
    t = Table(tmp_path)
    t("tick_setup", step="I")
    with pytest.raises(RuleError, match="steps II, III, IV, V, VI, VII are not ticked"):
        t("begin_play")
    with pytest.raises(BadInput, match="There is no setup step"):
        t("tick_setup", step="IX")


def test_setup_rejects_unknown_options_in_one_line(tmp_path):
    with pytest.raises(BadInput, match="^The setup has entries this game does not know: colour.$"):
        Table(tmp_path, colour="red")
    with pytest.raises(BadInput, match="either standard or all-or-nothing"):
        Table(tmp_path, variant="chaos")


# -- turns -------------------------------------------------------------------------------------

def test_you_must_move_to_a_new_location(tmp_path):
    """"MOVE: You MUST move to a new Location." Pawns start on the Temple."""
    t = Table(tmp_path).begin()
    with pytest.raises(RuleError, match="already at the Temple") as err:
        t("move", location="temple")
    assert err.value.rule == "MOVE: You MUST move to a new Location."
    with pytest.raises(BadInput, match="There is no Location"):
        t("move", location="Senate")


def test_the_five_steps_of_a_turn_and_only_the_tribune_has_the_fifth(tmp_path):
    t = Table(tmp_path).begin()
    assert t.view()["turn"]["steps"] == ["move", "action", "sway", "discard"]
    t("move", location="baths")
    assert t.view()["turn"]["action"].startswith("Draw 3 Sway cards AND reveal 1 Sway")
    for step in ("sway", "discard"):
        t("next_step")
        assert t.state.turn.step == step
    t("next_step")
    assert t.state.turn.player == "Bo"
    for _ in range(2):
        t.turn("forum")
    assert t.state.turn.player == "Di" and t.state.tribune == "Di"
    assert t.view()["turn"]["steps"] == ["move", "action", "sway", "discard", "issue"]
    t.turn("gardens")
    assert t.state.turn.step == "issue"
    with pytest.raises(RuleError, match="must resolve an Issue Vote"):
        t("next_step")


def test_every_location_has_its_action_reminder(tmp_path):
    help_ = Table(tmp_path).view()["locations_help"]
    assert set(help_) == {"gardens", "baths", "tiber", "temple", "forum"}
    assert help_["forum"]["action"].startswith("Play up to 2 Fate cards into the Forum AND/OR Call a Vote to Exile")
    assert help_["temple"]["action"].startswith("Burn a Sway or Fate card")


def test_play_goes_clockwise_and_the_issue_deck_passes_counterclockwise(tmp_path):
    """"v. Pass the Issue deck and Voting board to the next player counterclockwise."""
    t = Table(tmp_path).begin()
    order = []
    for _ in range(4):
        order.append(t.state.turn.player)
        t.turn("baths" if t.state.locations[t.state.turn.player] != "baths" else "tiber")
    assert order == FOUR
    t.issue()
    assert t.state.tribune == "Cy" and t.state.turn.player == "Ann" and t.state.round == 2


def test_sway_only_a_colocated_player_except_by_the_gardens(tmp_path):
    """"you may Sway any one colocated player" and the Gardens: "Sway ANY OTHER Citizen (in any
    Location)"."""
    t = Table(tmp_path).begin()
    t("move", location="gardens")
    t("sway", target="Cy")          # the Gardens' action: anyone, wherever they are
    with pytest.raises(RuleError, match="already Swayed in this step"):
        t("sway", target="Di")
    t("next_step")
    with pytest.raises(RuleError, match="Cy is not at your Location"):
        t("sway", target="Cy")
    with pytest.raises(RuleError, match="another player's tableau"):
        t("sway", target="Ann")


# -- the Forum ---------------------------------------------------------------------------------

def test_the_forum_action_plays_up_to_2_fate_cards(tmp_path):
    t = Table(tmp_path).begin()
    t("move", location="forum")
    t("play_fate", card=K(3))
    t("play_fate", facedown=True)
    with pytest.raises(RuleError, match="at most 2 Fate cards"):
        t("play_fate", card=K(1))
    assert [s["card"] for s in t.view()["forum"]["spaces"][:3]] == [
        {"faceup": True, "card": K(3)}, {"faceup": False, "card": None}, None]


def test_only_a_player_at_the_forum_plays_fate(tmp_path):
    t = Table(tmp_path).begin()
    t("move", location="tiber")
    with pytest.raises(RuleError, match="Only a player at the Forum"):
        t("play_fate", card=K(1))


@pytest.mark.parametrize("card,words", [(K(4), "no Knife card of value 4"), (D(4), "no Dove card of value 4"),
                                        ({"knives": 1, "doves": 1}, "must be"), ({"swords": 2}, "must be")])
def test_a_fate_card_that_does_not_exist_is_refused(tmp_path, card, words):
    """"The Knives range from 1 to 5 Knives on each card (no 4s). The Doves range from 1 to 3"."""
    t = Table(tmp_path).begin()
    t("move", location="forum")
    with pytest.raises(BadInput, match=words):
        t("play_fate", card=card)
    assert t.state.turn.fate_played == 0


def test_empty_forum_spaces_are_filled_first(tmp_path):
    """"the cards must still be played in the indicated order, filling in any possible empty
    spaces first.\""""
    t = Table(tmp_path).begin()
    t.turn("forum", K(1), K(2))
    t("discard_forum", space=1, by="Caesar's Clemency")     # an Issue's effect
    t("move", location="forum" if t.state.locations["Bo"] != "forum" else "baths")
    t("play_fate", card=K(5))
    t("play_fate", card=K(3))
    cards = [s["card"] and s["card"]["card"] for s in t.view()["forum"]["spaces"]]
    assert cards == [K(5), K(2), K(3), None, None]


def test_extra_cards_go_on_top_of_the_fifth_space(tmp_path):
    """"any extra cards may be placed faceup or facedown, as indicated by the icon near the 5th
    space ... placed on top of the card in the 5th space.\""""
    t = Table(tmp_path).begin()
    t("move", location="forum")
    for v in (1, 2, 3, 5, 1):
        t("play_fate", card=K(v), effect=True, by="Ides of March")   # an Issue makes the player play them
    t("play_fate", facedown=True, effect=True, by="Ides of March")
    v = t.view()["forum"]
    assert v["count"] == 6 and v["next_space"] == 6 and v["extra"] == [{"faceup": False, "card": None}]


def test_a_faceup_icon_space_refuses_a_facedown_card(tmp_path, monkeypatch):
    """"Spaces with a faceup icon indicate a Fate card must be played faceup." Which spaces carry
    it is table data; here space 2 does."""
    data = dict(k23tables.tables(), forum={"spaces": ["either", "faceup", "either", "either", "either"],
                                           "extra": "either", "flush_at": 5})
    from companion.games.knives23 import setup as k23setup
    monkeypatch.setattr(k23setup, "tables", lambda: data)   # the setup reads the Forum's icons
    t = Table(tmp_path).begin()
    t("move", location="forum")
    t("play_fate", facedown=True)
    with pytest.raises(RuleError, match="space 2 shows the faceup icon") as err:
        t("play_fate", facedown=True)
    assert err.value.rule == k23rules.R_FACEUP
    t("play_fate", card=K(2))


def test_a_forum_of_5_goes_into_the_curia_at_the_end_of_the_turn_and_the_dagger_advances(tmp_path):
    """"Once there are 5 or more Fate cards in the Forum after the end of your turn ... place them
    into the Curia. Then, advance the Dagger on the Kalends track one space\""""
    t = Table(tmp_path).begin()
    start = t.state.dagger
    t.turn("forum", K(5), K(3))
    t.turn("forum", None, D(1))
    assert t.view()["forum"]["count"] == 4 and t.state.curia_count == 0
    t("move", location="forum")
    t("play_fate", card=K(2))
    assert t.view()["forum"]["count"] == 5 and t.state.curia_count == 0   # not before the turn ends
    t("next_step"); t("next_step"); t("next_step")
    assert t.state.curia_count == 5 and t.view()["forum"]["count"] == 0
    assert t.state.dagger == start + 1


def test_the_tribunes_forum_goes_into_the_curia_only_after_the_issue(tmp_path):
    """"(if you're the Tribune, after Issues are resolved)\""""
    t = Table(tmp_path).begin()
    t.turn("forum", K(1), K(1))
    t.turn("forum", K(1), K(1))
    t.turn("baths")
    t.turn("forum", K(1))
    assert t.state.turn.step == "issue" and t.state.curia_count == 0
    t.issue(kalends=True)
    assert t.state.curia_count == 5 and t.state.dagger == 2 + 2  # the Kalends icon and the flush


def test_tria_ludio_puts_a_new_facedown_card_on_the_last_space_after_each_flush(tmp_path):
    """"place the top card from the Fate deck facedown into the last space of the Forum; there
    will only ever be 4 spaces for Fate in the Forum.\""""
    t = Table(tmp_path, players=["A", "B", "C"]).begin()
    t.turn("forum", K(1), K(2))
    t.turn("forum", K(3), K(5))
    assert t.state.curia_count == 5
    assert t.view()["forum"]["spaces"][4]["card"] == {"faceup": False, "card": None}
    assert t.view()["forum"]["count"] == 1


# -- the Kalends -------------------------------------------------------------------------------

def test_a_resolved_issue_with_the_kalends_icon_advances_the_dagger(tmp_path):
    """"iv. If there is a Kalends icon on the resolved Issue, advance the Dagger"."""
    t = Table(tmp_path).begin()
    round_of(t, kalends=False)
    assert t.state.dagger == 2
    round_of(t, kalends=True)
    assert t.state.dagger == 3


def _to_space(tmp_path, space, spaces=6):
    t = Table(tmp_path, kalends={"spaces": spaces, "dagger_start": space}).begin()
    t("move", location="forum")
    return t


@pytest.mark.parametrize("space,allowed", [(4, True), (5, False), (6, False)])
def test_no_vote_to_exile_while_the_dagger_is_on_the_final_2_black_spaces(tmp_path, space, allowed):
    """"You may never Call a Vote to Exile while the Dagger is on either of the final 2 black
    spaces of the Kalends track.\""""
    t = _to_space(tmp_path, space)
    assert t.view()["kalends"]["exile_allowed"] is allowed
    if allowed:
        t("call_exile", target="Bo")
        assert t.state.phase == "exile_vote"
    else:
        with pytest.raises(RuleError, match="final 2 black spaces") as err:
            t("call_exile", target="Bo")
        assert err.value.rule == k23rules.R_BLACK


def test_the_game_ends_when_the_dagger_moves_into_the_curia_and_the_forum_goes_in(tmp_path):
    """"Once the Dagger ... moves from the last space of the Kalends into the Curia, the game
    immediately ends" and "I. Any Fate cards remaining in the Forum are ... placed facedown into
    the Curia.\""""
    t = Table(tmp_path, kalends={"spaces": 3, "dagger_start": 3}).begin()
    t.turn("forum", K(5), K(5))
    t.turn("forum", K(3))
    t.turn("gardens")
    t.turn("baths")
    t("place_issues", red="Ides of March", grey="Vestal Virgins")
    t.vote({p: "grey" for p in FOUR})
    t("issue_resolved", kalends=True)
    assert t.state.ended_by == "kalends" and t.state.phase == "end_abilities"
    assert t.state.curia_count == 3 and t.view()["forum"]["count"] == 0 and t.state.turn is None
    assert t.view()["end"]["abilities_order"] == ["Di", "Ann", "Bo", "Cy"]  # Tribune first, clockwise
    with pytest.raises(RuleError, match="Not now"):
        t("move", location="forum")


def test_simplicitas_turns_the_ability_reminders_off(tmp_path):
    """Simplicitas: "choosing to ignore the abilities of the Citizens\""""
    t = Table(tmp_path, simplicitas=True, kalends={"spaces": 2, "dagger_start": 2}).begin()
    t.turn("forum", K(5), K(5))
    t.turn("forum", K(3), D(1))
    t.turn("forum", K(1))
    assert t.state.phase == "curia_reveal" and t.view()["end"]["abilities_order"] == []


# -- the Curia ---------------------------------------------------------------------------------

def test_the_curia_count_and_what_is_public_about_it_as_an_option(tmp_path):
    for option in (False, True):
        (tmp_path / str(option)).mkdir()
        t = Table(tmp_path / str(option), curia_knowledge=option).begin()
        t.turn("forum", K(5), None)
        t.turn("forum", D(2), K(1))
        t.turn("forum", None)
        curia = t.view()["curia"]
        assert curia["count"] == 5
        if option:
            assert curia["known"] == [K(5), D(2), K(1)] and curia["known_total"] == 4 and curia["unknown"] == 2
        else:
            assert set(curia) == {"count"}


# -- the Issue Vote ----------------------------------------------------------------------------

def _to_issue(tmp_path, players=FOUR, **setup):
    t = Table(tmp_path, players=players, **setup).begin()
    while not (t.state.phase == "turn" and t.state.turn.step == "issue"):
        here = t.state.locations[t.state.turn.player]
        t.turn("baths" if here != "baths" else "tiber")
    return t


def test_issue_vote_majority_is_resolved_and_ballots_stay_secret_until_the_reveal(tmp_path):
    """"each player must secretly Vote ... reveal their votes simultaneously.\""""
    t = _to_issue(tmp_path)
    t("place_issues", red="Ides of March", grey="Vestal Virgins")
    t("cast_ballot", "box:1", voter="Ann", choice="grey")
    t("cast_ballot", "box:1", voter="Ann", choice="red")        # changed until the reveal
    t("cast_ballot", "phone:x", voter="Bo", choice="grey")
    t("cast_ballot", voter="Cy", choice="red")
    table = t.view("table")
    assert table["vote"]["voted"] == ["Ann", "Bo", "Cy"] and "ballots" not in table["vote"]
    assert "red" not in str(table["vote"]["voted"]) and t.view("Ann")["my_ballot"] == "red"
    with pytest.raises(RuleError, match="still waiting for Di"):
        t("reveal_vote", force=True)
    t("cast_ballot", seat=4, option=1)   # a vote box: seat 4 (Di), option 1 (grey)
    last = t.view()["vote_history"][-1]
    assert last["revealed"] and last["ballots"] == {"Ann": "red", "Bo": "grey", "Cy": "red", "Di": "grey"}
    assert t.state.phase == "issue_tie"


def test_a_tied_issue_vote_is_decided_by_the_tribune_whatever_they_voted(tmp_path):
    """"If there is a tie, you—the Tribune—make the final decision (you may choose either red or
    grey, regardless of your original Vote).\""""
    t = _to_issue(tmp_path)
    t("place_issues", red="Ides of March", grey="Vestal Virgins")
    t.vote({"Ann": "red", "Bo": "red", "Cy": "grey", "Di": "grey"})   # Di, the Tribune, voted grey
    assert t.state.phase == "issue_tie"
    t("tie_break", choice="red")
    assert t.state.phase == "issue_resolve" and t.state.issues["colour"] == "red"
    assert t.view()["prompt"].startswith("Resolve the red Issue \u201cIdes of March\u201d")


def test_a_majority_issue_vote_needs_no_tribune(tmp_path):
    t = _to_issue(tmp_path)
    t("place_issues", red="Ides of March", grey="Vestal Virgins")
    t.vote({"Ann": "grey", "Bo": "red", "Cy": "grey", "Di": "grey"})
    assert t.state.issues["colour"] == "grey"
    with pytest.raises(RuleError, match="Not now"):
        t("tie_break", choice="red")


def test_undo_never_takes_back_a_revealed_vote(tmp_path):
    t = _to_issue(tmp_path)
    t("place_issues", red="Ides of March", grey="Vestal Virgins")
    t("cast_ballot", voter="Ann", choice="red")
    t.s.undo()                                     # a ballot before the reveal can be taken back
    assert t.view()["vote"]["voted"] == []
    t.vote({p: "red" for p in FOUR})
    with pytest.raises(RuleError, match="revealed vote"):
        t.s.undo()


def test_tria_ludio_tribune_places_the_issues_then_votes_on_their_next_turn(tmp_path):
    """"read and place 2 Issues on the Voting board, and then continue the round as normal without
    a Vote. The next time it is your turn as the Tribune, you hold the Vote\""""
    t = _to_issue(tmp_path, players=["A", "B", "C"])
    assert t.state.tribune == "C"
    t("place_issues", red="Ides of March", grey="Vestal Virgins")
    assert t.state.book.current is None and t.state.phase == "turn"
    t("next_step")
    assert t.state.turn.player == "A" and t.state.tribune == "C"
    for _ in range(3):
        here = t.state.locations[t.state.turn.player]
        t.turn("baths" if here != "baths" else "tiber")
    assert t.state.turn.player == "C" and t.state.turn.step == "issue"
    with pytest.raises(RuleError, match="must resolve an Issue Vote") as err:
        t("next_step")
    assert "next time it is your turn as the Tribune" in err.value.rule
    t("hold_issue_vote")
    assert t.view()["vote"]["question"].startswith("Which Issue is resolved: red \u201cIdes of March\u201d")
    t.vote({"A": "grey", "B": "grey", "C": "red"})
    t("issue_resolved", kalends=False)
    assert t.state.tribune == "B" and t.state.turn.player == "A"


# -- the Vote to Exile -------------------------------------------------------------------------

def _exile_table(tmp_path, **setup):
    t = Table(tmp_path, **setup).begin()
    t("move", location="forum")
    return t


def test_you_may_never_call_a_vote_to_exile_yourself(tmp_path):
    t = _exile_table(tmp_path)
    with pytest.raises(RuleError, match="never Call a Vote to Exile yourself") as err:
        t("call_exile", target="Ann")
    assert err.value.rule == "You may never Call a Vote to Exile yourself"
    with pytest.raises(BadInput, match="not at the table"):
        t("call_exile", target="Zed")


def test_a_majority_to_exile_exiles_the_citizen_and_lists_the_exiled_players_steps(tmp_path):
    """"If a majority of players Vote to Exile, the Citizen is Exiled" — the target votes too
    ("you may Vote against yourself")."""
    t = _exile_table(tmp_path)
    t("call_exile", target="Bo")
    t.vote({"Ann": "exile", "Bo": "exile", "Cy": "exile", "Di": "remain"})
    assert t.state.exiles[-1] == {"caller": "Ann", "target": "Bo", "exiled": True, "tie": False}
    assert t.state.shamed == () and t.state.phase == "turn"
    steps = t.view()["exile_steps"]
    assert len(steps) == 4 and "faceup Sway" in steps[0] and "up to 6" in steps[1] and "2 new Citizens" in steps[2]
    with pytest.raises(RuleError, match="already called a Vote to Exile"):
        t("call_exile", target="Cy")


def test_a_majority_to_remain_shames_the_caller(tmp_path):
    """"If a majority of players Vote for the Citizen to Remain, the player who called the Vote to
    Exile is shamed: their Citizen, as well as all the Sway in their tableau is revealed\""""
    t = _exile_table(tmp_path)
    t("call_exile", target="Bo")
    t.vote({"Ann": "exile", "Bo": "remain", "Cy": "remain", "Di": "remain"})
    assert t.state.shamed == ("Ann",) and not t.state.exiles[-1]["exiled"]


@pytest.mark.parametrize("choice,exiled", [("exile", True), ("remain", False)])
def test_a_tied_vote_to_exile_is_determined_by_the_tribune(tmp_path, choice, exiled):
    """"Ties are determined by the current Tribune.\""""
    t = _exile_table(tmp_path)
    t("call_exile", target="Cy")
    t.vote({"Ann": "exile", "Bo": "remain", "Cy": "remain", "Di": "exile"})
    assert t.state.phase == "exile_tie" and "Di, the Tribune, decides" in t.view()["prompt"]
    t("tie_break", choice=choice)
    assert t.state.exiles[-1] == {"caller": "Ann", "target": "Cy", "exiled": exiled, "tie": True}
    assert t.state.shamed == (() if exiled else ("Ann",))


def test_quid_pro_quo_gives_a_bribe_timer_before_the_vote(tmp_path):
    """Quid Pro Quo: "you may take a moment to attempt to bribe the other Citizens\""""
    t = _exile_table(tmp_path, quid_pro_quo=True, bribe_seconds=45)
    t("call_exile", target="Bo")
    assert t.state.phase == "exile_called" and t.state.book.current is None
    assert t.view()["exile"]["bribe_seconds"] == 45
    with pytest.raises(RuleError, match="Not now"):
        t("cast_ballot", voter="Bo", choice="remain")
    t("start_exile_vote")
    assert t.state.phase == "exile_vote"


def test_a_missing_vote_cannot_be_forced_every_player_votes(tmp_path):
    t = _exile_table(tmp_path)
    t("call_exile", target="Bo")
    t.vote({"Ann": "exile", "Bo": "remain", "Cy": "remain"})
    with pytest.raises(RuleError, match="still waiting for Di"):
        t("reveal_vote", force=True)
    with pytest.raises(RuleError, match="does not vote in this vote"):
        t("cast_ballot", voter="Zed", choice="exile")


# -- eyes-closed Issues ------------------------------------------------------------------------

def _resolving(tmp_path):
    t = _to_issue(tmp_path)
    t("place_issues", red="Ides of March", grey="Vestal Virgins")
    t.vote({p: "red" for p in FOUR})
    return t


def test_an_eyes_closed_issue_names_its_group_from_the_list_or_typed(tmp_path):
    t = _resolving(tmp_path)
    t("eyes_closed", group="revealed_liberators")
    # the journal keeps the group's id; it is said and shown in the table's language
    assert t.state.eyes_closed == "revealed_liberators" and t.state.phase == "eyes_closed"
    assert "Revealed Liberators" in t.view()["prompt"]
    t("eyes_open")
    t("eyes_closed", group="Liberators with 2 or more Blood")
    assert t.state.eyes_closed == "Liberators with 2 or more Blood"
    t("eyes_open")
    with pytest.raises(BadInput, match="60 letters at most"):
        t("eyes_closed", group="x" * 61)
    t("issue_resolved", kalends=False)
    assert t.state.phase == "turn"


# -- the end of the game -----------------------------------------------------------------------

def _to_reveal(tmp_path, **setup):
    t = Table(tmp_path, kalends={"spaces": 2, "dagger_start": 2}, **setup).begin()
    t.turn("forum", K(5), K(5))
    t.turn("forum", K(3), D(1))
    t.turn("forum", K(1))
    t("abilities_done")
    assert t.state.phase == "curia_reveal" and t.state.curia_count == 5
    return t


def test_the_curia_is_revealed_one_card_at_a_time_with_the_running_total(tmp_path):
    """"One at a time, reveal the Fate cards from the Curia, calculating the total by adding
    Knives and subtracting Doves.\""""
    t = _to_reveal(tmp_path)
    totals = []
    for card in (K(5), D(1), K(3)):
        t("curia_card", card=card)
        totals.append(t.view()["end"]["running_total"])
    assert totals == [5, 4, 7] and t.view()["end"]["remaining"] == 2
    assert t.view()["prompt"] == "Reveal Curia card 4 of 5. Total so far: 7."


def test_curia_cards_come_from_the_tablet_and_a_phone_mixed_and_never_twice_or_too_many(tmp_path):
    t = _to_reveal(tmp_path)
    t("curia_card", "phone:a1", card=K(5), serial="F-17")
    # Issue 32, hole 4: a tap of the value a phone just scanned names that card (one claim per
    # card, whichever comes first); a second 5 Knives is tapped as "another" (the tablet asks).
    t("curia_card", card=K(5))
    assert len(t.state.curia_revealed) == 1 and t.kinds()[-1] == "curia_card_tapped"
    t("curia_card", card=K(5), another=True)                     # tapped: no serial
    with pytest.raises(RuleError, match="Card F-17 has already been counted"):
        t("curia_card", "phone:b2", card=K(5), serial="F-17")
    t("curia_card", "phone:b2", card=K(3), serial="F-18")
    t("curia_card", card=D(1))
    t("curia_card", "phone:a1", card=K(1), serial="F-20")
    assert t.state.phase == "tableaux"
    with pytest.raises(RuleError, match="Not now"):
        t("curia_card", card=D(1))     # (a tap of the scanned 1 Knife would name that card)
    sources = [e.source for e in t.s.events if e.kind == "curia_card_revealed"]
    assert sources == ["phone:a1", "tablet", "phone:b2", "tablet", "phone:a1"]


def test_a_scanned_card_tapped_afterwards_is_counted_once_and_the_table_may_count_another(tmp_path):
    """Issue 32, hole 4: scan, then tap, counted the card twice. One claim per card, whichever
    comes first ("One at a time, reveal the Fate cards from the Curia"): the tap names the
    scanned card; a tap with ``another`` counts a second card of that value."""
    t = _to_reveal(tmp_path)
    t("curia_card", "phone:1", card=K(5), serial="080")
    t("curia_card", "phone:1", card=K(3), serial="081")
    assert [s["card"] for s in t.view()["end"]["untapped_scans"]] == [K(5), K(3)]
    t("curia_card", card=K(3))                        # the narrator taps the 3 Knives just scanned
    assert running_total(t.state) == 8 and len(t.state.curia_revealed) == 2
    assert [s["index"] for s in t.view()["end"]["untapped_scans"]] == [1]
    t("curia_card", card=K(3))                        # no scan left to name: a new card
    assert running_total(t.state) == 11 and len(t.state.curia_revealed) == 3
    t("curia_card", card=K(5), another=True)          # a second 5 Knives, though one is unnamed
    assert running_total(t.state) == 16 and t.view()["end"]["untapped_scans"] == [{"index": 1, "card": K(5)}]
    with pytest.raises(BadInput, match="only for a tapped card"):
        t("curia_card", "phone:1", card=K(1), serial="082", another=True)
    with pytest.raises(RuleError, match="Card 081 has already been counted"):
        t("curia_card", "phone:2", card=K(3), serial="081")
    t.s.undo()
    assert running_total(t.state) == 11
    # the last card scanned, then tapped after the reveal is over: still named, never refused
    t("curia_card", card=D(1))
    t("curia_card", "phone:1", card=K(1), serial="083")
    assert t.state.phase == "tableaux"
    t("curia_card", card=K(1))
    assert t.kinds()[-1] == "curia_card_tapped" and running_total(t.state) == 11
    resumed = GameSession.resume(t.journal, t.s.game_id, RULES)
    assert resumed.state == t.state


def test_the_reveal_can_never_count_more_cards_than_the_curia_holds(tmp_path):
    t = _to_reveal(tmp_path)
    state = t.state
    for card in (K(5), K(5), K(3), D(1), K(1)):
        state = RULES.evolve(state, type(t.s.events[0])(0, *RULES.decide(state, Command("curia_card", {"card": card}))[0]))
    state = dataclasses.replace(state, phase="curia_reveal")   # even if the phase were still open
    with pytest.raises(RuleError, match="All 5 cards in the Curia are already revealed"):
        RULES.decide(state, Command("curia_card", {"card": K(1)}))


def _finish(t, tableaux, play=()):
    for p, tab in tableaux.items():
        t("tableau", player=p, **tab)
    t("opportunist_play", cards=list(play))
    return t.state.result


def test_the_tableaux_then_the_opportunists_then_the_winner(tmp_path):
    t = _to_reveal(tmp_path)
    for card in (K(5), K(5), K(3), D(1), K(1)):
        t("curia_card", card=card)
    t("tableau", player="Ann", citizen={"blood": 2}, sway=[{"blood": 1}])
    with pytest.raises(RuleError, match="Ann's tableau is already entered"):
        t("tableau", player="Ann", citizen={"blood": 2}, sway=[])
    with pytest.raises(BadInput, match="no Sway card of 3 Laurels"):
        t("tableau", player="Bo", citizen={"laurels": 1}, sway=[{"laurels": 3}])
    result = _finish(t, {"Bo": {"citizen": {"laurels": 1}, "sway": []},
                         "Cy": {"citizen": {"laurels": 2}, "sway": [{"laurels": 1}]},
                         "Di": {"citizen": {"blood": 1}, "sway": [{"laurels": 1}]}})
    # 13 Knives: Caesar lives; Cy (3 Laurels) beats Bo (1); Di is an Opportunist who played nothing
    assert result["total"] == 13 and not result["caesar_dead"] and result["winners"] == ["Cy"]
    assert t.state.phase == "over" and t.journal.game(t.s.game_id).status == "finished"
    assert RULES.outcome(t.state)["winners"] == ["Cy"]


# -- the winner (pure rule functions, shared with the referee) ---------------------------------

def T(name, citizen, *sway):
    return tableau({"name": name, "citizen": citizen, "sway": list(sway)})


CURIA_23 = [K(5), K(5), K(3), K(3), K(3), K(2), K(2), K(1), D(1)]


def test_23_or_more_kills_caesar_22_does_not():
    """"If the total is 23 or greater, Caesar is dead. If the total is fewer than 23, Caesar lives.\""""
    players = [T("Lib", {"blood": 1}), T("Loy", {"laurels": 1})]
    dead = scoring.final_result(players, CURIA_23)
    assert (dead["total"], dead["caesar_dead"], dead["winners"]) == (23, True, ["Lib"])
    lives = scoring.final_result(players, CURIA_23 + [D(1)])
    assert (lives["total"], lives["caesar_dead"], lives["winners"]) == (22, False, ["Loy"])


def test_opportunists_who_change_caesars_fate_win_as_a_team():
    """"If the Opportunists play 3 Doves from their hands, the total is now 22, and they have
    changed the fate of Caesar and win together.\""""
    players = [T("Lib", {"blood": 2}), T("Opp1", {"laurels": 1, "blood": 1}),
               T("Opp2", {"blood": 1}, {"laurels": 1})]
    r = scoring.final_result(players, CURIA_23 + [K(2)], [D(3)])   # 25, then 22
    assert r == {"total": 25, "final_total": 22, "caesar_dead": False, "opportunists_win": True,
                 "winners": ["Opp1", "Opp2"]}
    # 19 and 4 Knives: 23, Caesar dies: they changed his fate too
    r = scoring.final_result(players, [K(5), K(5), K(5), K(3), K(1)], [K(3), K(1)])
    assert r["opportunists_win"] and r["caesar_dead"]
    # a play that does not change the fate wins nothing: Caesar lives and there is no Loyalist
    r = scoring.final_result(players, [K(5), K(5), K(5), K(3), K(1)], [K(3)])
    assert (r["final_total"], r["caesar_dead"], r["opportunists_win"], r["winners"]) == (22, False, False, [])


def test_a_tie_goes_to_the_fewest_on_the_citizen_then_is_shared():
    """"If tied, the player with the fewest Laurels/Blood, in relation to the outcome, on their
    Citizen card wins. If still tied, the tied players share the victory\""""
    a = T("A", {"blood": 3}, {"laurels": 1})            # Blood value 2, 3 on the Citizen
    b = T("B", {"blood": 1}, {"blood": 1})              # Blood value 2, 1 on the Citizen
    c = T("C", {"blood": 1}, {"blood": 2}, {"laurels": 1})  # Blood value 2, 1 on the Citizen
    assert scoring.final_result([a, b], CURIA_23)["winners"] == ["B"]
    assert scoring.final_result([a, b, c], CURIA_23)["winners"] == ["B", "C"]
    # when Caesar lives the Laurels on the Citizen count
    x, y = T("X", {"laurels": 2}), T("Y", {"laurels": 1}, {"laurels": 1})
    assert scoring.final_result([x, y], [K(1)])["winners"] == ["Y"]


def test_lucius_and_francesca_follow_the_rules_not_the_examples_arithmetic():
    """The example says Lucius has Blood value 1 and Francesca 2; by the rules ("Laurels and Blood
    cancel each other out") Lucius has 3 + 6 - 4 = 5 and Francesca 1 + 1 - 2 = 0, an Opportunist.
    We follow the rules: Lucius wins."""
    lucius = T("Lucius", {"blood": 3}, *([{"laurels": 2}] * 2), *([{"blood": 2}] * 3))
    francesca = T("Francesca", {"blood": 1}, {"laurels": 2}, {"blood": 1})
    assert lucius.blood_value == 5 and francesca.allegiance == scoring.OPPORTUNIST
    r = scoring.final_result([lucius, francesca], [K(5)] * 5 + [K(3)], [D(3)])  # 28, Doves 4 in hand: 25
    assert r["caesar_dead"] and not r["opportunists_win"] and r["winners"] == ["Lucius"]


def test_aut_omnia_aut_nihil_every_player_on_the_winning_side_wins():
    """"If Caesar dies, all Liberators win; if Caesar lives, all Loyalists win. Opportunists win
    as normal.\""""
    players = [T("A", {"blood": 3}), T("B", {"blood": 1}), T("C", {"laurels": 2}), T("O", {"laurels": 1, "blood": 1})]
    assert scoring.final_result(players, CURIA_23, variant="all-or-nothing")["winners"] == ["A", "B"]
    assert scoring.final_result(players, [K(3)], variant="all-or-nothing")["winners"] == ["C"]
    assert scoring.final_result(players, CURIA_23, [D(1)], variant="all-or-nothing")["winners"] == ["O"]


def test_allegiance_is_the_majority_of_blood_or_laurels_equal_is_an_opportunist():
    """Brutus: "1 Laurels ... two Sway cards with Blood ... a Liberator ... another Blood ... an
    Opportunist" — read with 1-value Sway cards."""
    assert T("Brutus", {"laurels": 1}).allegiance == scoring.LOYALIST
    assert T("Brutus", {"laurels": 1}, {"blood": 1}, {"blood": 1}).allegiance == scoring.LIBERATOR
    assert T("Brutus", {"laurels": 1}, {"blood": 1}, {"blood": 1}, {"laurels": 1}).allegiance == scoring.OPPORTUNIST


def test_every_refusal_is_one_line():
    for bad in ({"knives": 4}, {"doves": 0}, {"knives": True}, "5", {"knives": 1, "doves": 1}):
        with pytest.raises(BadInput) as err:
            scoring.fate_card(bad)
        assert "\n" not in str(err.value)
