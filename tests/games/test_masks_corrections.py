"""Correcting a pointing after the reveal (the mask game).

"On the count of 3, everyone points to one other player, who gets their vote." The pointing is
public: when the tablet has a pointing the table did not see (a finger landed on the wrong name),
the table sets it right with a reason, and the vote is decided again by the same rule code as the
reveal. Allowed from the reveal until the Executioner's check is answered (or, when nobody needs
the check, until the Identities are entered); refused later, in the rulebook's words.
"""
from __future__ import annotations

import pytest

from companion.core import votes
from companion.core.commands import legal_commands
from companion.core.events import BadInput, Command, Event, RuleError
from companion.core.i18n import error_text, speaking, text_of
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.masks import rules
from companion.games.masks.rules import CENTER, MasksRules

P = ("Ann", "Ben", "Cat", "Dan", "Eve")
# The audit's table: Ann meant Cat, her finger landed on Ben. The reveal shows a tie, Ben and Cat.
MISTAPPED = {"Ann": "Ben", "Ben": "Cat", "Cat": "Ben", "Dan": "Cat", "Eve": "Dan"}
MEANT = {**MISTAPPED, "Ann": "Cat"}
# Final Identities in which neither Ben nor Cat holds the Executioner.
IDS = {"Ann": "Queen", "Ben": "King", "Cat": "Spy", "Dan": "Pamphleteer", "Eve": "Martyr"}
MIDDLE = ["Fugitive", "Harlot", "Executioner"]


@pytest.fixture
def journal(memory_journal):
    return memory_journal


def new(journal) -> GameSession:
    return GameSession.start(journal, MasksRules(), {"players": list(P)})


def run(s, kind, **data):
    return s.execute(Command(kind, data))


def revealed(s, ballots=MISTAPPED, vanguard=None) -> GameSession:
    run(s, "start_hidden_phase")
    run(s, "end_hidden_phase")
    if vanguard:
        run(s, "use_vanguard", player=vanguard)
    run(s, "end_discussion")
    for voter, choice in ballots.items():
        if voter != vanguard:
            run(s, "cast_ballot", voter=voter, choice=choice)
    return s


def refused(s, **data) -> RuleError | BadInput:
    before = len(s.events)
    with pytest.raises((RuleError, BadInput)) as err:
        run(s, "correct_pointing", **data)
    assert len(s.events) == before   # a refusal changes nothing
    return err.value


def finish(s) -> dict:
    run(s, "executioner_check", player=None)
    run(s, "enter_identities", identities=IDS, center=MIDDLE, royalist=None)
    return s.view("table")


# --- the audit's game ---------------------------------------------------------------------

def test_a_mistapped_pointing_corrected_decides_the_elimination_again(journal):
    s = revealed(new(journal))
    view = s.view("table")
    assert view["most_voted"] == ["Ben", "Cat"] and view["can_correct"] is True
    events = run(s, "correct_pointing", voter="Ann", choice="Cat", reason="tapped Ben by mistake")
    # one event of keys and values: who, what the tablet had, what the table saw, why, and the
    # count it makes, decided once (replaying it never counts again)
    assert [(e.kind, {k: v for k, v in e.data.items() if k != "count"}) for e in events] == [("pointing_corrected", {
        "vote_id": rules.VOTE_ID, "voter": "Ann", "before": "Ben", "choice": "Cat",
        "reason": "tapped Ben by mistake"})]
    assert events[0].data["count"]["most_voted"] == ["Cat"] == events[0].data["count"]["top_players"]
    view = s.view("table")
    assert view["phase"] == "executioner_check"
    assert view["most_voted"] == ["Cat"] and view["top_players"] == ["Cat"]
    assert view["counts"] == {"Ann": 0, "Ben": 1, "Cat": 3, "Dan": 1, "Eve": 0, CENTER: 0}
    assert "Most votes: Cat." in text_of(view["prompt"])
    # shown back: the vote history holds the corrected pointing; the correction is on the record
    assert view["vote_history"][-1]["ballots"] == MEANT
    assert view["vote_history"][-1]["counts"]["Cat"] == 3
    assert [text_of(c) for c in view["corrections"]] == [
        "Corrected: Ann pointed at Cat, not Ben (tapped Ben by mistake)."]
    # "If multiple people tie for the most votes, they all are eliminated": no longer a tie
    view = finish(s)
    assert view["eliminated"] == ["Cat"] and view["result"] == "royals"
    assert "masks.reading.tie" not in str(view["readings"])
    assert [text_of(c) for c in view["corrections"]] == [
        "Corrected: Ann pointed at Cat, not Ben (tapped Ben by mistake)."]


def test_without_the_correction_both_tied_are_eliminated(journal):
    """The audit's outcome, for contrast: "If multiple people tie for the most votes, they all
    are eliminated." """
    view = finish(revealed(new(journal)))
    assert view["eliminated"] == ["Ben", "Cat"] and view["result"] == "people"


def test_a_corrected_vote_is_the_vote_the_table_meant():
    """Decided again by the reveal's own code: the corrected game's state is the state of a game
    in which Ann had pointed at Cat from the start (ballot sources and the record aside)."""
    a, b = Journal(":memory:"), Journal(":memory:")
    corrected = revealed(new(a))
    run(corrected, "correct_pointing", voter="Ann", choice="Cat", reason="mistap")
    meant = revealed(new(b), MEANT)
    for key in ("phase", "counts", "most_voted", "top_players", "prompt"):
        assert corrected.view("table")[key] == meant.view("table")[key], key
    assert corrected.state.ballots == meant.state.ballots and corrected.state.checked == meant.state.checked
    assert finish(corrected)["eliminated"] == finish(meant)["eliminated"] == ["Cat"]
    a.close()
    b.close()


def test_a_correction_can_make_the_executioner_check_needed(journal):
    """Nobody on top but the center: no check, straight to the Identities, still correctable. A
    correction that puts a player on top asks that player to check first."""
    s = revealed(new(journal), {"Ann": CENTER, "Ben": CENTER, "Cat": "Dan", "Dan": "Ann", "Eve": CENTER})
    view = s.view("table")
    assert view["phase"] == "identities" and view["top_players"] == [] and view["can_correct"]
    run(s, "correct_pointing", voter="Eve", choice="Dan", reason="pointed at Dan, tapped the center")
    view = s.view("table")
    assert view["phase"] == "executioner_check" and view["top_players"] == ["Dan"]
    assert view["most_voted"] == ["Dan", CENTER]


def test_a_correction_is_undone_like_any_table_action_and_replays_from_the_journal(journal):
    s = revealed(new(journal))
    run(s, "correct_pointing", voter="Ann", choice="Cat", reason="mistap")
    resumed = GameSession.resume(journal, s.game_id, MasksRules())
    assert resumed.view("table") == s.view("table")
    assert s.can_undo()
    s.undo()
    view = s.view("table")
    assert view["most_voted"] == ["Ben", "Cat"] and "corrections" not in view
    assert view["vote_history"][-1]["ballots"] == MISTAPPED
    # the reveal itself still cannot be undone
    with pytest.raises(RuleError, match="revealed vote"):
        s.undo()


def test_two_corrections_and_a_second_thought(journal):
    s = revealed(new(journal))
    run(s, "correct_pointing", voter="Ann", choice="Cat", reason="mistap")
    run(s, "correct_pointing", voter="Ann", choice=CENTER, reason="she pointed at the middle")
    run(s, "correct_pointing", voter="Eve", choice="Cat", reason="mistap too")
    view = s.view("table")
    assert view["vote_history"][-1]["ballots"]["Ann"] == CENTER
    assert view["most_voted"] == ["Cat"] and view["counts"]["Cat"] == 3
    assert [text_of(c) for c in view["corrections"]][1] == (
        "Corrected: Ann pointed at the Bystanders in the center, not Cat (she pointed at the middle).")


# --- when: from the reveal until the Executioner's check is answered ------------------------

def test_before_the_reveal_there_is_nothing_to_correct(journal):
    s = new(journal)
    run(s, "start_hidden_phase")
    run(s, "end_hidden_phase")
    run(s, "end_discussion")
    run(s, "cast_ballot", voter="Ann", choice="Ben")
    err = refused(s, voter="Ann", choice="Cat", reason="mistap")
    assert err.key == "masks.refusal.correct_not_revealed" and err.rule == rules.RULE_POINT


def test_after_the_executioners_check_it_is_too_late_unless_the_answer_is_undone(journal):
    """"If you receive the most votes during the Voting Phase, choose another player to be
    eliminated instead": the most-voted players looked for the Executioner because of the count,
    so the count is settled once they answered."""
    s = revealed(new(journal))
    run(s, "executioner_check", player=None)
    assert s.view("table")["can_correct"] is False
    err = refused(s, voter="Ann", choice="Cat", reason="mistap")
    assert err.key == "masks.refusal.correct_after_check" and err.rule == rules.RULE_EXECUTIONER
    assert "Too late to correct a pointing" in error_text(err)
    s.undo()   # the table takes the answer back: correctable again
    run(s, "correct_pointing", voter="Ann", choice="Cat", reason="mistap")
    assert s.view("table")["top_players"] == ["Cat"]


def test_after_the_executioner_showed_the_card_it_is_too_late(journal):
    s = revealed(new(journal))
    run(s, "executioner_check", player="Ben")
    err = refused(s, voter="Ann", choice="Cat", reason="mistap")
    assert err.key == "masks.refusal.correct_after_check"


def test_once_the_identities_are_face_up_it_is_too_late(journal):
    s = revealed(new(journal))
    finish(s)
    err = refused(s, voter="Ann", choice="Cat", reason="mistap")
    assert err.key == "masks.refusal.correct_after_identities" and err.rule == rules.RULE_REVEAL
    # and when nobody needed the check: open until the Identities are entered
    s2 = revealed(new(journal), {"Ann": CENTER, "Ben": CENTER, "Cat": "Dan", "Dan": "Ann", "Eve": CENTER})
    run(s2, "enter_identities", identities=IDS, center=MIDDLE, royalist=None)
    assert refused(s2, voter="Eve", choice="Dan", reason="x").key == "masks.refusal.correct_after_identities"


def test_the_command_is_offered_exactly_while_allowed(journal):
    s = revealed(new(journal))
    offered = {c.name: c for c in legal_commands(s.rules, s.state)}
    assert set(offered["correct_pointing"].args["voter"]) == set(P)
    run(s, "executioner_check", player=None)
    assert "correct_pointing" not in {c.name for c in legal_commands(s.rules, s.state)}


# --- what may be corrected ---------------------------------------------------------------------

def test_a_pointing_is_corrected_only_to_one_the_rules_allow(journal):
    s = revealed(new(journal), vanguard="Eve")
    err = refused(s, voter="Ann", choice="Ann", reason="mistap")
    assert err.key == "masks.refusal.not_self" and err.rule == rules.RULE_POINT
    err = refused(s, voter="Ann", choice="Ben", reason="mistap")
    assert err.key == "masks.refusal.correct_same"
    assert error_text(err) == "The tablet already has Ann pointing at Ben: nothing to correct."
    # the Vanguard abstained: "if you do, abstain from voting during the Voting Phase"
    err = refused(s, voter="Eve", choice="Ann", reason="mistap")
    assert err.key == "masks.refusal.correct_vanguard" and err.rule == rules.RULE_VANGUARD
    assert isinstance(refused(s, voter="Ann", choice="Zed", reason="mistap"), BadInput)
    assert isinstance(refused(s, voter="Zed", choice="Ann", reason="mistap"), BadInput)
    assert isinstance(refused(s, voter="Ann", choice=None, reason="mistap"), BadInput)


def test_a_reason_is_required_on_one_line(journal):
    s = revealed(new(journal))
    for reason in (None, "", "   ", "two\nlines", "x" * (rules.MAX_REASON + 1)):
        data = {"voter": "Ann", "choice": "Cat"}
        if reason is not None:
            data["reason"] = reason
        assert isinstance(refused(s, **data), BadInput), reason
    with pytest.raises(BadInput) as err:
        run(s, "correct_pointing", voter="Ann", choice="Cat", reason="two\nlines")
    assert err.value.key == "masks.error.correction_reason"
    run(s, "correct_pointing", voter="Ann", choice="Cat", reason="  mistap  ")
    assert s.events[-1].data["reason"] == "mistap"


@pytest.mark.parametrize("data, words", [
    ({"voter": "Ann", "choice": "Ben", "reason": "x"},
     {"fr": "La tablette indique déjà que Ann a désigné Ben", "de": "Auf dem Tablet zeigt Ann schon auf Ben"}),
    ({"voter": "Ann", "choice": "Cat", "reason": "two\nlines"},
     {"fr": "en une ligne d'au plus 80 caractères", "de": "mit höchstens 80 Zeichen"}),
])
def test_refusals_are_said_in_french_and_german(journal, data, words):
    s = revealed(new(journal))
    err = refused(s, **data)
    for lang, expected in words.items():
        with speaking(lang):
            assert expected in error_text(err)


def test_too_late_is_said_in_french_and_german(journal):
    s = revealed(new(journal))
    run(s, "executioner_check", player=None)
    err = refused(s, voter="Ann", choice="Cat", reason="mistap")
    with speaking("fr"):
        assert "Trop tard pour corriger un vote" in error_text(err)
    with speaking("de"):
        assert "Zu spät, um eine Stimme zu korrigieren" in error_text(err)


# --- the vote engine's small helper ------------------------------------------------------------

def _book() -> votes.VoteBook:
    book = votes.VoteBook()
    seq = 0

    def apply(kind, data):
        nonlocal seq, book
        seq += 1
        book = votes.apply_vote_event(book, Event(seq, kind, data, "tablet"))

    for vid in ("first", "second"):
        spec = votes.VoteSpec(vid, "pick", ("Ann", "Bo", "Cy"), ("Ann", "Bo", "Cy"))
        apply("vote_opened", spec.to_dict())
        for voter, choice in (("Ann", "Bo"), ("Bo", "Cy")):
            apply("ballot_cast", {"vote_id": vid, "voter": voter, "choice": choice})
        apply("vote_revealed", {"vote_id": vid, "forced": True, "missing": ["Cy"]})
    spec = votes.VoteSpec("open", "pick", ("Ann", "Bo"), ("Ann", "Bo"))
    apply("vote_opened", spec.to_dict())
    return book


def test_amend_revealed_sets_one_ballot_of_one_revealed_vote():
    book = _book()
    out = votes.amend_revealed(book, "first", "Ann", "Cy", "tablet")
    assert out.history[0].choices() == {"Ann": "Cy", "Bo": "Cy"} and out.history[0].revealed
    assert out.history[1] == book.history[1] and out.current == book.current   # nothing else
    # a missing voter's ballot, set right, is no longer missing
    out = votes.amend_revealed(book, "second", "Cy", "Ann", "camera")
    assert out.history[1].missing == () and out.history[1].ballots["Cy"].source == "camera"
    # a vote not revealed, an unknown vote, an unknown voter: unchanged (a fold never raises)
    assert votes.amend_revealed(book, "open", "Ann", "Bo", "tablet") is book
    assert votes.amend_revealed(book, "nope", "Ann", "Bo", "tablet") is book
    assert votes.amend_revealed(book, "first", "Zed", "Bo", "tablet") is book
