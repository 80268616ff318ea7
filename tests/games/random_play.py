"""One random-play harness for every game (OpenSpiel's random simulation test, over our journal).

A seeded player picks among the commands ``legal_commands`` lists (and sometimes among the
illegal ones, or a wrong type, or an undo) and plays them through a real ``GameSession`` on a
real SQLite journal. It checks, at every step:

- nothing legal crashes: a listed command is accepted (no exception at all);
- nothing illegal is accepted: a refused command raises only the games' typed refusals
  (``RuleError``, ``BadInput``) and records nothing; an accepted one was listed, with each
  finite argument inside its declared domain; a wrong type is a ``BadInput`` naming the argument;
- the journal replays to the live state (a fold of the stored events, and a fresh session on a
  reopened journal file);
- no per-seat view contains another seat's secret: changing the other seats' unrevealed
  ballots never changes what a seat (or the table) is shown.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from companion.core import votes
from companion.core.commands import legal_commands
from companion.core.events import BadInput, Command, RuleError
from companion.core.journal import Journal
from companion.core.schema import Raw
from companion.core.session import GameSession

WRONG = {"bogus": 1.5}  # no argument's type takes this (an object holding a fraction)


@dataclass
class Tally:
    legal: int = 0
    illegal_refused: int = 0
    wrong_type: int = 0
    undos: int = 0
    games: int = 0
    finished: int = 0
    replays: int = 0
    views_checked: int = 0
    commands: dict = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.legal + self.illegal_refused + self.wrong_type + self.undos


def secret_leaks(rules, state) -> list[str]:
    """The viewers whose view changes when the *other* seats' unrevealed ballots change."""
    book = getattr(state, "book", None)
    vote = book.current if book is not None else None
    if vote is None or not vote.ballots:
        return []
    spec = vote.spec
    viewers = list(state.players) + ["table", "narrator"]
    out = []
    for viewer in viewers:
        alt = {}
        for voter, ballot in vote.ballots.items():
            if voter == viewer:
                alt[voter] = ballot
                continue
            others = [o for o in spec.options if o != ballot.choice and (spec.allow_self or o != voter)]
            if spec.allow_abstain and ballot.choice is not None:
                others.append(None)
            alt[voter] = votes.Ballot(others[0] if others else ballot.choice, ballot.source)
        changed = replace(state, book=replace(book, current=replace(vote, ballots=alt)))
        if rules.view(state, viewer) != rules.view(changed, viewer):
            out.append(viewer)
    return out


def _replay_matches(rules, session: GameSession, path: Path) -> None:
    events = session.journal.events(session.game_id)
    assert rules.fold(session.setup, events) == session.state, "the journal's fold differs from the live state"
    again = Journal(path)
    try:
        assert GameSession.resume(again, session.game_id, rules).state == session.state, \
            "a session resumed from the journal file differs from the live state"
    finally:
        again.close()


def _random_illegal(rules, state, rng) -> tuple[str, dict, str | None]:
    """A command drawn without regard to the rules: any name, each argument from its domain or
    from a wider universe (names nobody has, numbers off the board); sometimes one argument of
    the wrong type (returned as the third item)."""
    spec = rng.choice(list(rules.commands))
    universe = list(state.players) + ["nobody", None, 0, 1, 3, 9, True, "center", "red"]
    data: dict[str, Any] = {}
    for a in spec.args:
        if not a.required and rng.random() < 0.5:
            continue
        if a.values is not None and rng.random() < 0.6:
            dom = list(a.values(state))
            data[a.name] = rng.choice(dom) if dom else rng.choice(universe)
        elif a.sample is not None and rng.random() < 0.5:
            data[a.name] = a.sample(state, rng)
        else:
            data[a.name] = rng.choice(universe)
    if spec.sample is not None and rng.random() < 0.5:
        data.update(spec.sample(state, rng))
    wrong = None
    typed = [a for a in spec.args if not isinstance(a.type, Raw)]
    if typed and rng.random() < 0.25:
        # Only the wrong one is wrong: the other required arguments come from their domains.
        a = rng.choice(typed)
        data = dict(spec.sample(state, rng)) if spec.sample is not None else {}
        for b in spec.args:
            if b.required and b is not a and b.name not in data:
                dom = list(b.values(state)) if b.values is not None else []
                data[b.name] = rng.choice(dom) if dom else b.sample(state, rng) if b.sample else None
        data[a.name], wrong = WRONG, a.name
    return spec.name, data, wrong


def play(rules, make_setup: Callable[[random.Random], Mapping[str, Any]], seed: int, steps: int,
         path: Path, *, illegal_rate: float = 0.2, undo_rate: float = 0.03,
         replay_every: int = 40, max_game: int = 600, side: frozenset = frozenset(),
         ignored: frozenset = frozenset()) -> Tally:
    """``side``: commands always legal that do not move the game on (corrections by hand);
    they are picked one time in ten, so the walk reaches the games' ends. ``ignored``: (command,
    argument) pairs a rule ignores where they do not apply (not checked against the domain)."""
    rng = random.Random(seed)
    journal = Journal(path)
    tally = Tally()
    session = None
    in_game = 0
    try:
        while tally.total < steps:
            if session is None or rules.outcome(session.state) is not None or in_game >= max_game:
                if session is not None:
                    _replay_matches(rules, session, path)
                    tally.replays += 1
                    tally.finished += rules.outcome(session.state) is not None
                session = GameSession.start(journal, rules, make_setup(rng))
                tally.games += 1
                in_game = 0
            in_game += 1
            state = session.state
            leaks = secret_leaks(rules, state)
            assert not leaks, f"seed {seed}: the views of {leaks} show another seat's secret ballot"
            tally.views_checked += 1
            seat = rng.choice(list(state.players)) if rng.random() < 0.2 else None
            legal = legal_commands(rules, state, seat)
            everything = legal if seat is None else legal_commands(rules, state)
            # A dead end the table can only leave by undoing (see the report) is allowed.
            assert everything or rules.outcome(state) is not None or session.can_undo(), \
                f"seed {seed}: nothing is legal in phase {getattr(state, 'phase', '?')} and the game is not over"
            roll = rng.random()
            if (roll < undo_rate or not everything) and session.can_undo():
                session.undo()
                tally.undos += 1
            elif roll < illegal_rate or not legal or not everything:
                _try_illegal(rules, session, rng, everything, tally, seed, ignored)
            else:
                main = [e for e in legal if e.name not in side]
                entry = rng.choice(main if main and rng.random() < 0.9 else legal)
                spec = rules.commands[entry.name]
                fresh = [c for c in rules.commands.candidates(spec, state, seat, rng=rng)
                         if rules.commands.accepts(rules, state, spec.name, c)]
                data = rng.choice(fresh or list(entry.examples))
                source = f"seat:{seat}" if seat else "tablet"
                session.execute(Command(entry.name, data, source))  # legal: must not raise
                tally.legal += 1
                tally.commands[entry.name] = tally.commands.get(entry.name, 0) + 1
            if tally.total % replay_every == 0:
                _replay_matches(rules, session, path)
                tally.replays += 1
        _replay_matches(rules, session, path)
        tally.replays += 1
        tally.finished += rules.outcome(session.state) is not None
    finally:
        journal.close()
    return tally


def _try_illegal(rules, session, rng, legal, tally, seed, ignored=frozenset()) -> None:
    state = session.state
    name, data, wrong = _random_illegal(rules, state, rng)
    before = len(session.journal.events(session.game_id))
    try:
        session.execute(Command(name, data, "tablet"))
    except (RuleError, BadInput) as exc:
        assert len(session.journal.events(session.game_id)) == before, "a refused command recorded events"
        assert session.state == state, "a refused command changed the state"
        if wrong is not None:
            assert isinstance(exc, BadInput) and wrong in str(exc), \
                f"seed {seed}: {name} with a wrong {wrong} gave {type(exc).__name__}: {exc}"
            tally.wrong_type += 1
        else:
            tally.illegal_refused += 1
        return
    # Accepted: it must have been legal, with every finite argument inside its domain.
    assert wrong is None, f"seed {seed}: {name} accepted a wrong type for {wrong}: {data}"
    listed = {entry.name for entry in legal}
    assert name in listed, f"seed {seed}: {name} {data} was accepted but not listed as legal"
    spec = rules.commands[name]
    for a in spec.args:
        if a.values is not None and a.name in data and (name, a.name) not in ignored:
            assert data[a.name] in list(a.values(state)), \
                f"seed {seed}: {name} accepted {a.name}={data[a.name]!r}, outside its domain"
    tally.legal += 1
