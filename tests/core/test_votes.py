import pytest

from companion.core import votes
from companion.core.events import BadInput, Command, Event, RuleError
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.core.votes import VoteBook, VoteSpec

from .toygame import ToyRules

P = ("Ann", "Ben", "Cy")


def fold(book, items, source="tablet"):
    for i, (kind, data) in enumerate(items):
        book = votes.apply_vote_event(book, Event(i + 1, kind, data, source))
    return book


def opened(spec):
    return fold(VoteBook(), votes.open_vote(VoteBook(), spec))


def test_table_view_shows_who_voted_never_what_until_the_reveal():
    book = opened(VoteSpec("v1", "binary", P, ("exile", "remain")))
    book = fold(book, votes.cast(book, {"voter": "Ben", "choice": "exile"}, "box:01"))
    view = votes.table_view(book.current)
    assert view["voted"] == ["Ben"] and view["waiting"] == ["Ann", "Cy"]
    assert "exile" not in repr({k: v for k, v in view.items() if k != "options"})
    assert "ballots" not in view and "counts" not in view


def test_a_ballot_may_be_changed_until_the_reveal():
    book = opened(VoteSpec("v1", "binary", P, ("red", "grey")))
    book = fold(book, votes.cast(book, {"voter": "Ann", "choice": "red"}, "tablet"))
    book = fold(book, votes.cast(book, {"voter": "Ann", "choice": "grey"}, "tablet"))
    assert book.current.choices() == {"Ann": "grey"}


def test_the_reveal_happens_when_every_voter_is_in():
    book = opened(VoteSpec("v1", "binary", P, ("red", "grey")))
    for p in P[:2]:
        book = fold(book, votes.cast(book, {"voter": p, "choice": "red"}, "tablet"))
    items = votes.cast(book, {"voter": "Cy", "choice": "grey"}, "tablet")
    assert [k for k, _ in items] == ["ballot_cast", "vote_revealed"]
    book = fold(book, items)
    assert book.current is None and book.last().revealed
    view = votes.table_view(book.last())
    assert view["counts"] == {"red": 2, "grey": 1} and view["missing"] == []


def test_the_narrator_may_force_the_reveal_and_missing_voters_are_listed():
    book = opened(VoteSpec("v1", "binary", P, ("red", "grey")))
    book = fold(book, votes.cast(book, {"voter": "Ann", "choice": "red"}, "tablet"))
    with pytest.raises(RuleError, match="Still waiting for Ben, Cy"):
        votes.reveal(book, force=False)
    book = fold(book, votes.reveal(book, force=True))
    assert book.last().forced and book.last().missing == ("Ben", "Cy")


def test_ballots_by_seat_and_option_index_from_devices():
    book = opened(VoteSpec("v1", "pick", P, P + ("center",), allow_self=False))
    book = fold(book, votes.cast(book, {"seat": 2, "option": 3}, "box:0a"), source="box:0a")
    assert book.current.choices() == {"Ben": "center"}
    assert book.current.ballots["Ben"].source == "box:0a"


@pytest.mark.parametrize("data,error,match", [
    ({"voter": "Zed", "choice": "Ann"}, RuleError, "Zed does not vote in this vote"),
    ({"seat": 4, "option": 0}, BadInput, "no seat 4: the seats here are 1 to 3"),
    ({"seat": 1, "option": 9}, BadInput, "no choice 9"),
    ({"voter": "Ann", "choice": "Ann"}, RuleError, "may not vote for themself"),
    ({"voter": "Ann", "choice": None}, RuleError, "may not abstain"),
    ({"voter": "Ann"}, BadInput, "no choice"),
    ({"choice": "Ben"}, BadInput, "does not say who votes"),
])
def test_bad_ballots_are_refused_in_one_line(data, error, match):
    book = opened(VoteSpec("v1", "pick", P, P + ("center",), allow_self=False))
    with pytest.raises(error, match=match) as e:
        votes.cast(book, data, "tablet")
    assert "\n" not in str(e.value)


def test_weighted_counts_and_abstention():
    spec = VoteSpec("p2", "weighted", P, P, weights={"Ann": 6, "Ben": 4, "Cy": 5}, allow_abstain=True)
    book = opened(spec)
    for voter, choice in [("Ann", "Ann"), ("Ben", "Cy"), ("Cy", None)]:
        book = fold(book, votes.cast(book, {"voter": voter, "choice": choice}, "tablet"))
    assert book.last().counts() == {"Ann": 6, "Ben": 0, "Cy": 4}


def test_bad_specs():
    with pytest.raises(BadInput, match="two choices, no more"):
        VoteSpec("v", "binary", P, ("a", "b", "c"))
    with pytest.raises(BadInput, match="every voter needs a number of votes"):
        VoteSpec("v", "weighted", P, P, weights={"Ann": 1})
    with pytest.raises(BadInput, match="kind"):
        VoteSpec("v", "ranked", P, P)


def test_one_vote_at_a_time():
    s = GameSession.start(Journal(":memory:"), ToyRules(), {"players": list(P)})
    s.execute(Command("call_exile", {"target": "Cy"}))
    with pytest.raises(RuleError, match="already going on"):
        s.execute(Command("call_exile", {"target": "Ben"}))
    s.execute(Command("cast_ballot", {"seat": 1, "option": 0}, source="box:01"))
    assert s.view("table")["vote"]["voted"] == ["Ann"]


def test_voting_for_oneself_is_checked_once_for_the_rules_and_the_screens():
    """One check (``may_choose``): the options a screen offers a voter are exactly the ones
    the rules accept from them."""
    for allow_self in (False, True):
        book = opened(VoteSpec("v1", "pick", P, P + ("center",), allow_self=allow_self))
        view = votes.table_view(book.current)
        for voter in P:
            accepted = []
            for option in P + ("center",):
                try:
                    votes.cast(book, {"voter": voter, "choice": option}, "tablet")
                except RuleError:
                    continue
                accepted.append(option)
            assert votes.offered(view, voter) == accepted
    assert votes.offered(votes.table_view(opened(VoteSpec("v1", "pick", P, P, allow_self=False)).current),
                         "Ann") == ["Ben", "Cy"]


def test_a_vote_is_open_from_its_opening_to_its_reveal_or_cancel():
    book = opened(VoteSpec("v1", "binary", P, ("exile", "remain")))
    assert votes.vote_open({"vote": votes.table_view(book.current)})
    revealed = fold(book, votes.reveal(book, force=True))
    assert not votes.vote_open({"vote": votes.table_view(revealed.current)})
    assert not votes.vote_open({"vote": {**votes.table_view(book.current), "revealed": True}})
    cancelled = fold(book, votes.cancel(book))
    assert not votes.vote_open({"vote": votes.table_view(cancelled.current)})
    assert not votes.vote_open(None) and not votes.vote_open({})


def test_a_revealed_vote_names_its_leaders_as_the_rules_tally_reckons_them():
    """The reveal's headline for a game without its own (issue 30): the view carries the options
    with most votes (tally.most_votes, the rules' own), so no screen counts again."""
    from companion.core.tally import PluralityAllTiedOut

    def revealed(ballots, voters=("Ann", "Ben", "Cy", "Dee")):
        book = opened(VoteSpec("v1", "pick", voters, ("Ann", "Ben", "Cy", "Dee"), allow_abstain=True))
        for voter, choice in ballots.items():
            book = fold(book, votes.cast(book, {"voter": voter, "choice": choice}, "tablet"))
        if book.current is not None:
            book = fold(book, votes.reveal(book, force=True))
        return book.last(), votes.table_view(book.last())

    vote, view = revealed({"Ann": "Cy", "Ben": "Cy", "Cy": "Dee", "Dee": "Ann"})
    assert view["leaders"] == ["Cy"] == list(PluralityAllTiedOut().decide(vote.choices(), vote.spec.options).leaders)
    vote, view = revealed({"Ann": "Dee", "Ben": "Cy", "Cy": None, "Dee": None})
    assert view["leaders"] == ["Cy", "Dee"] == list(PluralityAllTiedOut().decide(vote.choices(), vote.spec.options).leaders)
    assert revealed({"Ann": None})[1]["leaders"] == []   # nobody chose anything: no headline
