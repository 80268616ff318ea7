"""The Royals-and-Martyr mask game's rules, one test per rule, citing the rulebook.

The final result is computed by ``scoring.judge`` (the referee uses the same function); the round
itself (phases, the vote, the Vanguard, the Executioner) is played through a real GameSession.
"""
from __future__ import annotations

import pytest

from companion.core.i18n import text_of, texts
from companion.core.events import BadInput, Command, RuleError
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.masks import rules, scoring, setup, state
from companion.games.masks.rules import CENTER, MasksRules

P = ("Ann", "Ben", "Cat", "Dan", "Eve")


def table(ids: str) -> tuple[dict, list]:
    """"Queen King Spy Pamphleteer Martyr | Fugitive Harlot Executioner" -> identities, center."""
    seated, middle = ids.split("|")
    return dict(zip(P, seated.split())), middle.split()


def verdict(ids: str, ballots: dict, royalist=None, target=None):
    identities, center = table(ids)
    identities, center = rules.check_identities(P, identities, center)
    return scoring.judge(P, identities, center, royalist, rules.check_votes(P, ballots), target)


def votes(*pairs: str) -> dict:
    """"Ann>Ben" ... ; every player must appear."""
    out = {}
    for pair in pairs:
        who, whom = pair.split(">")
        out[who] = None if whom == "-" else whom
    return out


STANDARD = "Queen King Spy Pamphleteer Martyr | Fugitive Harlot Executioner"


# --- winning ---------------------------------------------------------------------------------

def test_at_least_one_royal_eliminated_the_people_win():
    """"If at least one Royal is eliminated, the People win." (the issue's example)"""
    v = verdict(STANDARD, votes("Ann>Ben", "Ben>Cat", "Cat>Ann", "Dan>Ann", "Eve>Ann"))
    assert v.to_dict() == {"eliminated": ["Ann"], "result": "people", "winners": ["Cat", "Dan"]}


def test_no_royal_eliminated_the_royals_win():
    """"If no Royals is eliminated, the Royals win." """
    v = verdict(STANDARD, votes("Ann>Cat", "Ben>Cat", "Cat>Dan", "Dan>Cat", "Eve>Ann"))
    assert (v.eliminated, v.result, v.winners) == (("Cat",), "royals", ("Ann", "Ben"))


def test_a_faction_wins_even_for_its_eliminated_members():
    """"Even if the Royalist is eliminated during the Voting Phase, they still win as long as the
    Royal survives." and the People win together when a Royal falls."""
    v = verdict(STANDARD, votes("Ann>Ben", "Ben>Cat", "Cat>Ben", "Dan>Ben", "Eve>Cat"))
    assert v.result == "people" and "Cat" in v.winners and v.eliminated == ("Ben",)


def test_ties_for_the_most_votes_all_are_eliminated():
    """"If multiple people tie for the most votes, they all are eliminated." """
    v = verdict(STANDARD, votes("Ann>Cat", "Ben>Cat", "Cat>Dan", "Dan>Ann", "Eve>Dan"))
    assert v.eliminated == ("Cat", "Dan")
    assert "masks.reading.tie" in v.readings  # Cat 2, Dan 2, Ann 1
    v = verdict(STANDARD, votes("Ann>Cat", "Ben>Cat", "Cat>Ann", "Dan>Ann", "Eve>Dan"))
    assert v.eliminated == ("Ann", "Cat") and v.result == "people"
    assert "masks.reading.tie" in v.readings


def test_only_the_royalist_eliminated_the_royal_faction_still_wins():
    """"If only the Royalist is eliminated but no Royals are eliminated, the Royal Faction still
    wins." — the Royalist wins with them."""
    ids = "Queen Spy Pamphleteer Harlot Martyr | Fugitive King Executioner"
    v = verdict(ids, votes("Ann>Ben", "Ben>Cat", "Cat>Ben", "Dan>Ben", "Eve>Cat"), royalist="Ben")
    assert v.eliminated == ("Ben",)
    assert (v.result, v.winners) == ("royals", ("Ann", "Ben"))


def test_the_royalist_does_not_win_with_the_people():
    """"That person is now a Royalist, and their superseding objective is to protect the Royal
    at all costs." A Royalist holding a People card loses when the Royal falls."""
    ids = "Queen Spy Pamphleteer Harlot Martyr | Fugitive King Executioner"
    v = verdict(ids, votes("Ann>Ben", "Ben>Cat", "Cat>Ann", "Dan>Ann", "Eve>Ann"), royalist="Ben")
    assert (v.result, v.winners) == ("people", ("Cat", "Dan"))


def test_the_martyr_eliminated_wins_superseding_all():
    """"If the Martyr is eliminated, the Martyr wins, superseding all other win conditions." —
    even when a Royal is eliminated with them."""
    v = verdict(STANDARD, votes("Ann>Eve", "Ben>Eve", "Cat>Ann", "Dan>Ann", "Eve>Cat"))
    assert v.eliminated == ("Ann", "Eve")
    assert (v.result, v.winners) == ("martyr", ("Eve",))


def test_both_royals_bystanders_people_win_with_a_majority_on_the_center():
    """"If both Royals are among the Bystanders, the People's faction wins if they cast a
    majority of their votes toward the center." """
    ids = "Spy Pamphleteer Fugitive Harlot Martyr | Queen King Executioner"
    v = verdict(ids, votes("Ann>center", "Ben>center", "Cat>center", "Dan>Eve", "Eve>Ann"))
    assert (v.result, v.winners) == ("people", ("Ann", "Ben", "Cat", "Dan"))
    assert v.eliminated == ()  # the center has the most votes: no player is eliminated


def test_both_royals_bystanders_without_a_majority_the_royals_side_wins():
    """Half of the People's votes is not "a majority of their votes": no Royal was eliminated,
    so the Royal faction wins, with no Royal at the table (our reading, shown to the table)."""
    ids = "Spy Pamphleteer Fugitive Harlot Martyr | Queen King Executioner"
    v = verdict(ids, votes("Ann>center", "Ben>center", "Cat>Dan", "Dan>Cat", "Eve>Ann"))
    assert (v.result, v.winners) == ("royals", ())
    assert "masks.reading.royals_in_center" in v.readings


def test_majority_counts_only_the_peoples_votes():
    """"they cast a majority of their votes": the Martyr's vote is not theirs."""
    ids = "Spy Pamphleteer Fugitive Harlot Martyr | Queen King Executioner"
    # People: 2 of 4 on the center is no majority, whatever the Martyr does.
    v = verdict(ids, votes("Ann>center", "Ben>center", "Cat>Dan", "Dan>Cat", "Eve>center"))
    assert v.result == "royals"
    # 3 of 4 is.
    v = verdict(ids, votes("Ann>center", "Ben>center", "Cat>center", "Dan>Cat", "Eve>Ann"))
    assert v.result == "people"


def test_both_royals_and_the_martyr_in_the_center_is_a_draw():
    """"However, if the center contains both Royals and the Martyr, the game ends in a draw." """
    ids = "Spy Pamphleteer Fugitive Harlot Executioner | Queen King Martyr"
    v = verdict(ids, votes("Ann>center", "Ben>center", "Cat>center", "Dan>center", "Eve>Ann"))
    assert (v.result, v.winners) == ("draw", ())


# --- the Executioner ---------------------------------------------------------------------------

EXEC = "Queen King Executioner Pamphleteer Martyr | Fugitive Harlot Spy"


def test_executioner_with_the_most_votes_chooses_another_player():
    """"If you receive the most votes during the Voting Phase, choose another player to be
    eliminated instead." """
    ballots = votes("Ann>Cat", "Ben>Cat", "Cat>Ann", "Dan>Cat", "Eve>Cat")
    v = verdict(EXEC, ballots, target="Ann")
    assert (v.eliminated, v.result, v.executioner) == (("Ann",), "people", "Cat")
    v = verdict(EXEC, ballots, target="Dan")
    assert (v.eliminated, v.result) == (("Dan",), "royals")
    with pytest.raises(RuleError, match="another player") as err:
        verdict(EXEC, ballots, target="Cat")
    assert "choose another player" in err.value.rule
    with pytest.raises(RuleError, match="must name another player"):
        verdict(EXEC, ballots)


def test_executioner_target_without_the_executioner_on_top_is_refused():
    with pytest.raises(RuleError, match="did not get the most votes"):
        verdict(EXEC, votes("Ann>Ben", "Ben>Ann", "Cat>Ann", "Dan>Ann", "Eve>Ann"), target="Ben")


def test_executioner_tied_with_others_replaces_only_themself():
    """The rulebook is silent on a tie: our reading eliminates the others tied and the
    Executioner's choice instead of the Executioner."""
    ballots = votes("Ann>Cat", "Ben>Cat", "Cat>Dan", "Dan>Ann", "Eve>Dan")  # Cat 2, Dan 2
    v = verdict(EXEC, ballots, target="Ann")
    assert v.eliminated == ("Ann", "Dan") and v.result == "people"
    assert "masks.reading.executioner_tie" in v.readings


# --- the center -----------------------------------------------------------------------------

def test_center_tied_with_a_player_the_player_is_eliminated():
    """Open in the rulebook: "If multiple people tie for the most votes, they all are
    eliminated" — the center is not a person and protects nobody (our reading)."""
    v = verdict(STANDARD, votes("Ann>Cat", "Ben>Cat", "Cat>center", "Dan>center", "Eve>Ann"))
    assert v.most_voted == ("Cat", CENTER)
    assert v.eliminated == ("Cat",) and v.result == "royals"
    assert "masks.reading.center_tie" in v.readings


def test_the_center_alone_with_the_most_votes_eliminates_nobody():
    """"If a player believes no player is a Royal, they can point to the Bystanders instead." """
    v = verdict(STANDARD, votes("Ann>center", "Ben>center", "Cat>center", "Dan>Ann", "Eve>Ann"))
    assert v.eliminated == () and v.result == "royals"


# --- input checks (shared with the referee) ----------------------------------------------------

def test_there_are_five_players():
    """"Players 5 (+1 Narrator, or use a recording for the Hidden Phase)" """
    with pytest.raises(BadInput, match="Royals and Martyr is for exactly 5 players, not 4"):
        setup.check_players(P[:4])
    with pytest.raises(BadInput, match="Two players have the same name"):
        setup.check_players(("A", "A", "B", "C", "D"))


def test_eight_identity_cards_one_of_each():
    """"Since there are 8 Identities and only 5 players, the 3 remaining Identity Cards are
    placed face-down in the middle" """
    ids, center = table(STANDARD)
    with pytest.raises(RuleError, match="The Queen appears twice") as err:
        rules.check_identities(P, {**ids, "Cat": "Queen"}, center)
    assert "8 Identities" in err.value.rule
    with pytest.raises(BadInput, match="'Werewolf' is not an Identity"):
        rules.check_identities(P, {**ids, "Cat": "Werewolf"}, center)
    with pytest.raises(BadInput, match="3 Bystanders"):
        rules.check_identities(P, ids, center[:2])


def test_no_vote_for_oneself():
    """"On the count of 3, everyone points to one other player, who gets their vote." """
    with pytest.raises(RuleError, match="Ann voted for themself") as err:
        rules.check_votes(P, votes("Ann>Ann", "Ben>Cat", "Cat>Ann", "Dan>Ann", "Eve>Ann"))
    assert "one other player" in err.value.rule


def test_only_one_player_abstains_the_vanguard():
    """"Players cannot abstain from voting except through the effect of Mask of the Vanguard."
    with "If a Mask's effect has already been used, it cannot be used by the new owner." """
    rules.check_votes(P, votes("Ann>-", "Ben>Cat", "Cat>Ann", "Dan>Ann", "Eve>Ann"))
    with pytest.raises(RuleError, match="Ann, Ben abstained"):
        rules.check_votes(P, votes("Ann>-", "Ben>-", "Cat>Ann", "Dan>Ann", "Eve>Ann"))


# --- the round, through a real session -------------------------------------------------------

@pytest.fixture
def session(memory_journal):
    return GameSession.start(memory_journal, MasksRules(), {"players": list(P)})


def run(s, kind, **data):
    return s.execute(Command(kind, data))


def to_voting(s, vanguard=None):
    run(s, "start_hidden_phase")
    run(s, "end_hidden_phase")
    if vanguard:
        run(s, "use_vanguard", player=vanguard)
    run(s, "end_discussion")


def test_the_round_runs_deal_hidden_discussion_vote_result(session):
    s = session
    assert s.view("table")["phase"] == "deal"
    run(s, "start_hidden_phase")
    assert s.view("table")["phase"] == "hidden"
    run(s, "end_hidden_phase")
    assert s.view("table")["phase"] == "discussion"
    assert s.view("table")["discussion_seconds"] == 420
    run(s, "end_discussion")
    view = s.view("table")
    assert view["phase"] == "voting" and view["vote"]["options"] == list(P) + [CENTER]
    for who, whom in [("Ann", "Ben"), ("Ben", "Cat"), ("Cat", "Ann"), ("Dan", "Ann")]:
        run(s, "cast_ballot", voter=who, choice=whom)
    assert s.view("table")["vote"]["voted"] == ["Ann", "Ben", "Cat", "Dan"]
    assert "ballots" not in s.view("table")["vote"]  # secret until revealed
    run(s, "cast_ballot", seat=5, option=0)  # a vote box at seat 5 picks option 0: Ann
    view = s.view("table")
    assert view["phase"] == "executioner_check" and view["counts"]["Ann"] == 3
    assert view["top_players"] == ["Ann"] and "Ann, look at your own Identity" in text_of(view["prompt"])
    run(s, "executioner_check", player=None)  # Ann does not hold the Executioner
    assert s.view("table")["phase"] == "identities"
    ids, center = table(STANDARD)
    run(s, "enter_identities", identities=ids, center=center, royalist=None)
    view = s.view("table")
    assert view["phase"] == "over"
    assert (view["eliminated"], view["result"], view["winners"]) == (["Ann"], "people", ["Cat", "Dan"])
    assert s.journal.game(s.game_id).status == "finished"


def test_seven_minutes_of_discussion_adjustable(tmp_path):
    """"Players have 7 minutes to talk." — the table may choose another length."""
    assert MasksRules().initial_state({"players": list(P)}).discussion_seconds == 7 * 60
    assert MasksRules().initial_state({"players": list(P), "discussion_seconds": 300}).discussion_seconds == 300
    for wrong in (5, 300.7):
        with pytest.raises(BadInput, match="The Discussion lasts from 60 to 1800 whole seconds"):
            MasksRules().initial_state({"players": list(P), "discussion_seconds": wrong})
    # a misspelt entry is refused rather than played without
    with pytest.raises(BadInput, match="does not know: Discussion_seconds"):
        MasksRules().initial_state({"players": list(P), "Discussion_seconds": 300})


def test_cannot_vote_for_oneself_in_the_round(session):
    to_voting(session)
    with pytest.raises(RuleError, match="Ann cannot vote for themself") as err:
        run(session, "cast_ballot", voter="Ann", choice="Ann")
    assert err.value.rule == rules.RULE_POINT


def test_cannot_abstain_in_the_round(session):
    to_voting(session)
    with pytest.raises(RuleError, match="Ann cannot abstain") as err:
        run(session, "cast_ballot", voter="Ann", choice=None)
    assert "except through the effect of Mask of the Vanguard" in err.value.rule
    run(session, "cast_ballot", voter="Ann", choice="Ben")
    with pytest.raises(RuleError, match="still waiting for Ben, Cat, Dan, Eve"):
        run(session, "reveal_vote", force=True)


def test_the_vanguard_who_used_the_mask_abstains(session):
    """"Vanguard – You can reveal one Bystander at any point during the Discussion Phase, but if
    you do, abstain from voting during the Voting Phase." """
    to_voting(session, vanguard="Cat")
    view = session.view("table")
    assert view["vote"]["voted"] == ["Cat"]
    with pytest.raises(RuleError, match="Cat used the Mask of the Vanguard") as err:
        run(session, "cast_ballot", voter="Cat", choice="Ann")
    assert "abstain from voting" in err.value.rule
    for who in ("Ann", "Ben", "Dan", "Eve"):
        run(session, "cast_ballot", voter=who, choice="Ben" if who != "Ben" else "Ann")
    view = session.view("table")
    assert view["phase"] == "executioner_check" and view["vote_history"][0]["ballots"]["Cat"] is None


def test_a_used_vanguard_cannot_be_used_again(session):
    """"If a Mask's effect has already been used, it cannot be used by the new owner." """
    run(session, "start_hidden_phase")
    run(session, "end_hidden_phase")
    run(session, "use_vanguard", player="Cat")
    with pytest.raises(RuleError, match="already used by Cat") as err:
        run(session, "use_vanguard", player="Dan")
    assert err.value.rule == rules.RULE_USED


def test_the_vanguard_is_used_only_during_the_discussion(session):
    with pytest.raises(RuleError, match="not possible now"):
        run(session, "use_vanguard", player="Cat")


def test_executioner_shows_the_card_alone_and_chooses_before_the_reveal(session):
    """"If you receive the most votes during the Voting Phase, choose another player to be
    eliminated instead." and "Once all votes are cast, players reveal their Identity Cards": the
    most-voted Executioner shows that card alone and chooses; then everyone reveals."""
    to_voting(session)
    for who, whom in [("Ann", "Cat"), ("Ben", "Cat"), ("Cat", "Ann"), ("Dan", "Cat"), ("Eve", "Cat")]:
        run(session, "cast_ballot", voter=who, choice=whom)
    view = session.view("table")
    assert view["phase"] == "executioner_check" and "identities" not in view
    with pytest.raises(RuleError, match="Ann did not receive the most votes") as err:
        run(session, "executioner_check", player="Ann")
    assert err.value.rule == rules.RULE_EXECUTIONER
    run(session, "executioner_check", player="Cat")
    view = session.view("table")
    assert view["phase"] == "executioner" and view["executioner"] == "Cat"
    assert "Cat holds the Executioner" in text_of(view["prompt"]) and "identities" not in view
    with pytest.raises(RuleError, match="must choose another player"):
        run(session, "executioner_chooses", target="Cat")
    run(session, "executioner_chooses", target="Ann")
    view = session.view("table")
    assert view["phase"] == "identities" and "Cat (the Executioner) chose Ann" in text_of(view["prompt"])
    ids, center = table(EXEC)
    with pytest.raises(RuleError, match="Cat showed the Executioner, but the Identities give Cat the Pamphleteer"):
        run(session, "enter_identities", identities={**ids, "Cat": "Pamphleteer", "Dan": "Executioner"},
            center=center, royalist=None)
    run(session, "enter_identities", identities=ids, center=center, royalist=None)
    view = session.view("table")
    assert (view["eliminated"], view["result"]) == (["Ann"], "people")
    assert "Cat holds the Executioner and chose Ann instead" in text_of(view["result_text"])


def test_nobody_shown_but_the_identities_say_otherwise_is_refused(session):
    to_voting(session)
    for who, whom in [("Ann", "Cat"), ("Ben", "Cat"), ("Cat", "Ann"), ("Dan", "Cat"), ("Eve", "Cat")]:
        run(session, "cast_ballot", voter=who, choice=whom)
    run(session, "executioner_check", player=None)
    ids, center = table(EXEC)
    with pytest.raises(RuleError, match="Cat holds the Executioner with the most votes, but nobody showed it"):
        run(session, "enter_identities", identities=ids, center=center, royalist=None)
    session.undo()  # back to the check: Cat shows the card after all
    assert session.view("table")["phase"] == "executioner_check"
    run(session, "executioner_check", player="Cat")
    assert session.view("table")["phase"] == "executioner"


ROYALIST_CASES = [
    # (identities, royalist, warning key, rule words)
    ("Queen King Spy Pamphleteer Martyr | Fugitive Harlot Executioner", "Cat", "both_royals",
     "If there is only 1 Royal in play"),
    ("Queen Spy Pamphleteer Harlot Martyr | Fugitive King Executioner", "Ann", "royal_self",
     "tap the shoulder of an adjacent player"),
    ("Queen Spy Pamphleteer Harlot Martyr | Fugitive King Executioner", "Cat", "not_neighbour",
     "adjacent player to their left or right"),
    ("Queen Martyr Pamphleteer Harlot Spy | Fugitive King Executioner", "Ben", "martyr",
     "The Martyr cannot be selected as a Royalist."),
    ("Spy Martyr Pamphleteer Harlot Fugitive | Queen King Executioner", "Ben", "no_royal",
     "If there is only 1 Royal in play"),
]


@pytest.mark.parametrize("ids,royalist,key,words", ROYALIST_CASES)
def test_a_royalist_the_rule_does_not_allow_is_warned_not_refused(ids, royalist, key, words):
    """"If there is only 1 Royal in play, that Royal will tap the shoulder of an adjacent player
    to their left or right. [...] The Martyr cannot be selected as a Royalist." Cards move (the
    Gambler), so the result is still given, with the warning in the rule's words."""
    identities, center = table(ids)
    warnings = scoring.royalist_warnings(P, identities, royalist)
    assert key in [w.key for w in warnings]
    assert any(words in w.rule and words in text_of(w.text()) for w in warnings)
    v = verdict(ids, votes("Ann>Ben", "Ben>Cat", "Cat>Ben", "Dan>Ben", "Eve>Cat"), royalist=royalist)
    assert key in [w.key for w in v.warnings]


def test_a_royalist_next_to_the_only_royal_has_no_warning():
    identities, _ = table("Queen Spy Pamphleteer Harlot Martyr | Fugitive King Executioner")
    assert scoring.royalist_warnings(P, identities, "Ben") == ()
    assert scoring.royalist_warnings(P, identities, "Dan") != ()  # Dan does not sit next to Ann
    assert scoring.royalist_warnings(P, identities, "Eve")[0].key == "martyr"  # Eve sits next to Ann
    assert scoring.royalist_warnings(P, identities, None) == ()


def test_the_table_is_told_the_reading_applied(session):
    to_voting(session)
    for who, whom in [("Ann", "Cat"), ("Ben", "Cat"), ("Cat", CENTER), ("Dan", CENTER), ("Eve", "Ann")]:
        run(session, "cast_ballot", voter=who, choice=whom)
    run(session, "executioner_check", player=None)
    ids, center = table(STANDARD)
    run(session, "enter_identities", identities=ids, center=center, royalist=None)
    view = session.view("table")
    assert any("center cannot be eliminated" in r for r in texts(view["readings"]))


def test_bad_identities_change_nothing(session):
    """Bad input gets a one-line error and nothing already recorded is lost or changed."""
    to_voting(session)
    for who, whom in [("Ann", "Cat"), ("Ben", "Cat"), ("Cat", "Ann"), ("Dan", "Cat"), ("Eve", "Cat")]:
        run(session, "cast_ballot", voter=who, choice=whom)
    run(session, "executioner_check", player=None)
    before = list(session.events)
    ids, center = table(STANDARD)
    with pytest.raises(RuleError):
        run(session, "enter_identities", identities={**ids, "Ann": "King"}, center=center)
    with pytest.raises(BadInput) as err:
        run(session, "enter_identities", identities={**ids, "Zed": "Spy"}, center=center)
    assert "\n" not in str(err.value)
    assert session.events == before and session.view("table")["phase"] == "identities"


def test_a_revealed_vote_cannot_be_undone_but_an_entry_can(session):
    to_voting(session)
    for who, whom in [("Ann", "Cat"), ("Ben", "Cat"), ("Cat", "Ann"), ("Dan", "Ann"), ("Eve", "Ben")]:
        run(session, "cast_ballot", voter=who, choice=whom)
    run(session, "executioner_check", player=None)
    ids, center = table(STANDARD)
    run(session, "enter_identities", identities=ids, center=center, royalist=None)
    assert session.view("table")["phase"] == "over"
    session.undo()  # a mistyped Identity can be entered again
    assert session.view("table")["phase"] == "identities"
    session.undo()  # and the check made again
    assert session.view("table")["phase"] == "executioner_check"
    with pytest.raises(RuleError, match="revealed vote"):
        session.undo()


def test_view_is_json_safe_for_every_viewer(session):
    import json
    to_voting(session)
    for viewer in ("table", "narrator", "Ann"):
        json.dumps(session.view(viewer))


def test_undoing_the_vanguards_abstention_lets_it_be_cast_again(session):
    to_voting(session, vanguard="Cat")
    session.undo()  # the abstention recorded at the vote's opening
    assert session.view("table")["vote"]["voted"] == []
    with pytest.raises(RuleError, match="Cat used the Mask of the Vanguard"):
        run(session, "cast_ballot", voter="Cat", choice="Ann")
    run(session, "cast_ballot", voter="Cat", choice=None)
    assert session.view("table")["vote"]["voted"] == ["Cat"]


def test_unknown_commands_and_bad_ballots_are_one_line_errors(session):
    with pytest.raises(BadInput, match="has no command “shuffle”"):
        run(session, "shuffle")
    to_voting(session)
    with pytest.raises(BadInput, match="seats here are 1 to 5") as err:
        run(session, "cast_ballot", seat=9, option=0)
    assert "\n" not in str(err.value)
    with pytest.raises(RuleError, match="“Zed” is not a choice"):
        run(session, "cast_ballot", voter="Ann", choice="Zed")


def test_every_text_the_game_shows_or_speaks_is_in_the_catalogue():
    from companion.core import i18n
    keys = (["masks.title", "masks.vote.question"]
            + [f"masks.prompt.{p}" for p in ("deal", "hidden", "discussion", "voting", "identities",
                                             "executioner")]
            + [f"masks.result.{r}" for r in ("people", "royals", "martyr", "draw", "eliminated",
                                             "nobody_eliminated", "executioner", "no_one")]
            + [f"masks.result.headline.{r}" for r in ("people", "royals", "martyr", "draw")]
            + [f"masks.reading.{r}" for r in ("tie", "center_tie", "executioner_tie", "royals_in_center")]
            + [f"masks.identity.{i}" for i in state.IDENTITIES]
            + [f"masks.mask.{m}" for m in state.MASKS] + ["masks.mask.used_rule"])
    missing = [k for k in keys if not i18n.has(k)]
    assert missing == []


def test_the_round_and_the_referee_agree_on_random_games():
    """The app's fold and the referee call the same rule functions: a played round and the
    referee's answer for the same table never differ."""
    import random
    from companion.games.masks.referee import vote as referee_vote

    rng = random.Random(4)
    journal = Journal(":memory:")
    for _ in range(25):
        cards = list(state.IDENTITIES)
        rng.shuffle(cards)
        identities, center = dict(zip(P, cards[:5])), cards[5:]
        vanguard = rng.choice([None, None, *P])
        ballots = {p: (None if p == vanguard else rng.choice([q for q in P if q != p] + [CENTER]))
                   for p in P}
        royalist = rng.choice([None, *P])
        s = GameSession.start(journal, MasksRules(), {"players": list(P)})
        to_voting(s, vanguard=vanguard)
        for p in P:
            if p != vanguard:
                run(s, "cast_ballot", voter=p, choice=ballots[p])
        target = None
        if s.view("table")["phase"] == "executioner_check":
            executioner = scoring.executioner_to_choose(P, identities, ballots)
            run(s, "executioner_check", player=executioner)
            if executioner:
                target = rng.choice([p for p in P if p != executioner])
                run(s, "executioner_chooses", target=target)
        run(s, "enter_identities", identities=identities, center=center, royalist=royalist)
        view = s.view("table")
        expected = referee_vote({"players": list(P), "identities": identities, "center": center,
                                 "royalist": royalist, "votes": ballots, "executioner_target": target})
        # the same verdict and reasons (the view shows readings and warnings as text, the
        # referee as keys)
        same = [k for k in expected if k not in ("readings", "warnings")]
        assert {k: view[k] for k in same} == {k: expected[k] for k in same}
        assert len(view["warnings"]) == len(expected["warnings"])
    journal.close()
