"""Issue 32, the table on every player's phone: over every game's random playthroughs
(tests/games/random_play.py, real sessions on a real SQLite journal), what a seat's phone is
sent (:func:`companion.phone.table.seat_payload`, the very dict the server hands the page):

- carries no ballot before the reveal, not even the seat's own: changing every unrevealed
  ballot (the seat's own included) changes no seat's payload;
- carries no other seat's secret: every seat's payload is the same but for the few fields
  that say who this phone is ("seat", "your_turn", "asks", "voting", whether it "won"), and
  those follow the public board (whose turn, who may vote, the winners), not a hidden card;
- during eyes-closed phases does not depend on the hidden setup: the same for every seat, and
  the same in different games (seeds, hidden setups) and at every step, so the page cannot
  change while eyes are closed.

The walk calls the rules' ``outcome`` once per step; a wrapper around the real rules runs the
checks there, on each new state, and otherwise hands everything to the real rules.
"""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from companion.core import votes
from companion.phone.table import EYES_CLOSED, seat_payload
from tests.games.random_play import play
from tests.games.test_random_play import GAMES, IGNORED, SIDE, _rules

PER_SEAT = ("seat", "your_turn", "asks", "voting", "result")
STEPS = 220


def _all_ballots_changed(state):
    """The state with every unrevealed ballot of the current vote changed, or None."""
    book = getattr(state, "book", None)
    vote = book.current if book is not None else None
    if vote is None or vote.revealed or not vote.ballots:
        return None
    spec = vote.spec
    alt = {}
    for voter, ballot in vote.ballots.items():
        others = [o for o in spec.options if o != ballot.choice and (spec.allow_self or o != voter)]
        if spec.allow_abstain and ballot.choice is not None:
            others.append(None)
        alt[voter] = votes.Ballot(others[0] if others else ballot.choice, ballot.source)
    return replace(state, book=replace(book, current=replace(vote, ballots=alt)))


def _public(payload: dict) -> dict:
    out = {k: v for k, v in payload.items() if k not in PER_SEAT}
    if payload.get("result"):
        out["result"] = {k: v for k, v in payload["result"].items() if k != "won"}
    return out


class Checked:
    """The real rules, with the phone payload checks run on each new state the walk reaches."""

    def __init__(self, rules, lang, eyes_closed: dict, seed: int):
        self._rules, self.lang, self.eyes_closed, self.seed = rules, lang, eyes_closed, seed
        self._last = None
        self.states = self.ballot_states = 0

    def __getattr__(self, name):
        return getattr(self._rules, name)

    def outcome(self, state):
        if state is not self._last:
            self._last = state
            self.check(state)
        return self._rules.outcome(state)

    def check(self, state):
        rules, lang = self._rules, self.lang
        seats = list(state.players)
        payloads = {s: seat_payload(rules, state, s, lang) for s in seats}
        json.dumps(payloads)   # what the server sends: plain JSON
        self.states += 1
        changed = _all_ballots_changed(state)
        if changed is not None:
            self.ballot_states += 1
            for s in seats:
                assert seat_payload(rules, changed, s, lang) == payloads[s], \
                    f"{rules.game_id}: {s}'s phone shows a ballot before the reveal"
        first = _public(payloads[seats[0]])
        for s in seats[1:]:
            assert _public(payloads[s]) == first, \
                f"{rules.game_id}: {s}'s phone is shown something {seats[0]}'s is not"
        if getattr(state, "phase", None) in EYES_CLOSED.get(rules.game_id, ()):
            for s in seats[1:]:
                assert payloads[s] == payloads[seats[0]], \
                    f"{rules.game_id}: eyes closed, {s}'s phone differs from {seats[0]}'s"
            key = (rules.game_id, lang)
            shown, seeds = self.eyes_closed.setdefault(key, (set(), set()))
            shown.add(json.dumps(payloads[seats[0]], sort_keys=True))
            seeds.add(self.seed)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_phone_sees_a_secret_and_eyes_closed_pages_never_change(game, tmp_path):
    eyes_closed: dict = {}
    states = ballots = 0
    for seed, lang in ((1, "fr"), (2, "de"), (3, "en"), (4, "en"), (5, "en")):
        real, setup = _rules(game)
        rules = Checked(real, lang, eyes_closed, seed)
        play(rules, setup, seed, STEPS, tmp_path / f"{game}-{seed}.sqlite",
             side=SIDE.get(game, frozenset()), ignored=IGNORED.get(game, frozenset()))
        states, ballots = states + rules.states, ballots + rules.ballot_states
    assert states > 400 and ballots > 5, (states, ballots)
    # during eyes-closed phases, one payload per round whatever the game (two hidden setups)
    for key, (shown, _) in eyes_closed.items():
        assert len(shown) == 1, f"eyes closed at {key}, the phone page changed: {shown}"
    if game in EYES_CLOSED:
        # the comparison above really spans two games' hidden setups
        assert any(len(seeds) >= 2 for _, seeds in eyes_closed.values()), eyes_closed
