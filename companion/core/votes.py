"""One model for every simultaneous secret vote in the four games.

Kinds:
- ``binary``   two choices (Exile/Remain, red/grey)
- ``pick``     one of a list: players (with or without oneself), perhaps "center"
- ``weighted`` a pick whose ballot counts the voter's weight (Cicero's Senate votes)

Secrecy: until the vote is revealed, a view shows who has voted, never what. A ballot may be
changed until the reveal. The reveal happens for everyone at once: when every eligible voter is
in, or when the narrator forces it (the missing voters are then listed).

Ballots arrive from any input source as ``{"voter": name}`` or ``{"seat": 1-based}`` with
``{"choice": str}`` or ``{"option": 0-based index}``; ``None`` as the choice is an abstention.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Literal, Mapping, get_args

from . import i18n
from .events import BadInput, Event, RuleError
from .tally import most_votes

KINDS = ("binary", "pick", "weighted")
CENTER = "center"
VoteEventKind = Literal["vote_opened", "ballot_cast", "vote_revealed", "vote_cancelled"]
VOTE_EVENTS: frozenset[str] = frozenset(get_args(VoteEventKind))


@dataclass(frozen=True)
class VoteSpec:
    vote_id: str
    kind: str
    voters: tuple[str, ...]
    options: tuple[str, ...]
    allow_self: bool = True
    allow_abstain: bool = False
    weights: Mapping[str, int] | None = None
    # what the table is asked: i18n.keyed(key, **values), said in the language of whoever shows it
    question: Any = ""
    # Who the voters may pick among, when options are players: spec.options is then names.

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise BadInput(i18n.keyed("refusals.vote.kind", kind=str(self.kind), kinds=", ".join(KINDS)))
        if not self.voters:
            raise BadInput(i18n.keyed("refusals.vote.no_voters", vote=self.vote_id))
        if len(set(self.voters)) != len(self.voters):
            raise BadInput(i18n.keyed("refusals.vote.voter_twice", vote=self.vote_id))
        if len(set(self.options)) != len(self.options) or len(self.options) < 2:
            raise BadInput(i18n.keyed("refusals.vote.two_options", vote=self.vote_id))
        if self.kind == "binary" and len(self.options) != 2:
            raise BadInput(i18n.keyed("refusals.vote.binary_two", vote=self.vote_id))
        if self.kind == "weighted":
            if not self.weights or set(self.weights) != set(self.voters):
                raise BadInput(i18n.keyed("refusals.vote.weight_each", vote=self.vote_id))
            if any((not isinstance(w, int)) or w < 0 for w in self.weights.values()):
                raise BadInput(i18n.keyed("refusals.vote.weight_whole", vote=self.vote_id))

    def to_dict(self) -> dict:
        return {
            "vote_id": self.vote_id, "kind": self.kind, "voters": list(self.voters),
            "options": list(self.options), "allow_self": self.allow_self,
            "allow_abstain": self.allow_abstain,
            "weights": dict(self.weights) if self.weights else None, "question": self.question,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "VoteSpec":
        return cls(
            vote_id=str(d["vote_id"]), kind=d["kind"], voters=tuple(d["voters"]),
            options=tuple(d["options"]), allow_self=bool(d.get("allow_self", True)),
            allow_abstain=bool(d.get("allow_abstain", False)),
            weights=dict(d["weights"]) if d.get("weights") else None, question=d.get("question", ""),
        )


@dataclass(frozen=True)
class Ballot:
    choice: str | None  # None: abstained
    source: str


@dataclass(frozen=True)
class VoteState:
    spec: VoteSpec
    ballots: Mapping[str, Ballot] = field(default_factory=dict)
    revealed: bool = False
    forced: bool = False
    missing: tuple[str, ...] = ()

    @property
    def waiting(self) -> tuple[str, ...]:
        return tuple(v for v in self.spec.voters if v not in self.ballots)

    @property
    def all_in(self) -> bool:
        return not self.waiting

    def choices(self) -> dict[str, str | None]:
        """Who voted what. Only for the rules and for views after the reveal."""
        return {v: b.choice for v, b in self.ballots.items()}

    def counts(self) -> dict[str, int]:
        """Votes per option (weighted by the voter's weight for weighted votes)."""
        out = {o: 0 for o in self.spec.options}
        for voter, ballot in self.ballots.items():
            if ballot.choice is not None:
                weights = self.spec.weights  # a weighted spec always has them (checked when opened)
                out[ballot.choice] += weights[voter] if self.spec.kind == "weighted" and weights else 1
        return out


@dataclass(frozen=True)
class VoteBook:
    """The votes of a game: the one in progress and the revealed ones, for the vote history."""

    current: VoteState | None = None
    history: tuple[VoteState, ...] = ()

    def last(self) -> VoteState | None:
        return self.history[-1] if self.history else None

    def find(self, vote_id: str) -> VoteState | None:
        if self.current and self.current.spec.vote_id == vote_id:
            return self.current
        for v in reversed(self.history):
            if v.spec.vote_id == vote_id:
                return v
        return None


# -- deciding (command -> event data) ------------------------------------------------------

def open_vote(book: VoteBook, spec: VoteSpec) -> list[tuple[str, dict]]:
    if book.current is not None:
        raise RuleError(i18n.keyed("vote.error.in_progress", question=book.current.spec.question or book.current.spec.vote_id))
    if book.find(spec.vote_id) is not None:
        raise RuleError(i18n.keyed("refusals.vote.already_held", vote=spec.vote_id))
    return [("vote_opened", spec.to_dict())]


def may_choose(voter: str, choice: str | None, allow_self: bool) -> bool:
    """The one check of "may you vote for yourself": a vote that does not allow it refuses a
    ballot for oneself (``normalise_ballot``) and offers no one their own name (``offered``,
    the vote screen, the phone's vote view)."""
    return allow_self or choice != voter


def normalise_ballot(spec: VoteSpec, data: Mapping[str, Any]) -> tuple[str, str | None]:
    """Turns a ballot from any source into (voter name, choice). Raises BadInput / RuleError."""
    if "voter" in data:
        voter = data["voter"]
        if voter not in spec.voters:
            raise RuleError(i18n.keyed("refusals.vote.not_a_voter", voter=str(voter)))
    elif "seat" in data:
        seat = data["seat"]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= len(spec.voters):
            raise BadInput(i18n.keyed("refusals.vote.bad_seat", seat=str(seat), last=len(spec.voters)))
        voter = spec.voters[seat - 1]
    else:
        raise BadInput(i18n.keyed("refusals.vote.no_voter"))
    if "choice" in data:
        choice = data["choice"]
        if choice is not None and choice not in spec.options:
            raise RuleError(i18n.keyed("refusals.vote.not_a_choice", choice=str(choice), options=", ".join(spec.options)))
    elif "option" in data:
        opt = data["option"]
        if not isinstance(opt, int) or isinstance(opt, bool) or not 0 <= opt < len(spec.options):
            raise BadInput(i18n.keyed("refusals.vote.bad_option", option=str(opt), last=len(spec.options) - 1))
        choice = spec.options[opt]
    else:
        raise BadInput(i18n.keyed("refusals.vote.no_choice"))
    if choice is None and not spec.allow_abstain:
        raise RuleError(i18n.keyed("refusals.vote.no_abstain", voter=voter))
    if not may_choose(voter, choice, spec.allow_self):
        raise RuleError(i18n.keyed("refusals.vote.no_self", voter=voter))
    return voter, choice


def cast(book: VoteBook, data: Mapping[str, Any], source: str) -> list[tuple[str, dict]]:
    vote = book.current
    if vote is None:
        raise RuleError(i18n.keyed("refusals.vote.none"))
    if data.get("vote_id") not in (None, vote.spec.vote_id):
        raise RuleError(i18n.keyed("refusals.vote.not_current", vote=str(data.get("vote_id"))))
    voter, choice = normalise_ballot(vote.spec, data)
    events: list[tuple[str, dict[str, Any]]] = [("ballot_cast", {"vote_id": vote.spec.vote_id, "voter": voter, "choice": choice})]
    if all(v in vote.ballots or v == voter for v in vote.spec.voters):
        events.append(("vote_revealed", {"vote_id": vote.spec.vote_id, "forced": False, "missing": []}))
    return events


def on_reveal(book: VoteBook, events: list[tuple[str, dict]], key: str,
              decide: Callable[[dict[str, str | None]], Any]) -> list[tuple[str, dict]]:
    """``events`` (a cast or a reveal) with, when they reveal the open vote, what the reveal
    decides recorded in it under ``key``: ``decide`` gets the ballots as revealed (those cast
    before and in this very command). A game's result is so decided once, in ``decide``, and
    its ``evolve`` only applies it (core.rules)."""
    kind, data = events[-1]
    if kind != "vote_revealed" or book.current is None:
        return events
    ballots = dict(book.current.choices())
    ballots.update({e["voter"]: e["choice"] for k, e in events if k == "ballot_cast"})
    return events[:-1] + [(kind, {**data, key: decide(ballots)})]


def reveal(book: VoteBook, force: bool) -> list[tuple[str, dict]]:
    vote = book.current
    if vote is None:
        raise RuleError(i18n.keyed("refusals.vote.none"))
    if vote.waiting and not force:
        raise RuleError(i18n.keyed("refusals.vote.waiting", names=", ".join(vote.waiting)))
    return [("vote_revealed", {"vote_id": vote.spec.vote_id, "forced": bool(vote.waiting), "missing": list(vote.waiting)})]


def cancel(book: VoteBook) -> list[tuple[str, dict]]:
    if book.current is None:
        raise RuleError(i18n.keyed("refusals.vote.none"))
    return [("vote_cancelled", {"vote_id": book.current.spec.vote_id})]


# -- folding (event -> state) --------------------------------------------------------------

def withdrawn_ballots(events: list[Event], undone: set[int]) -> set[int]:
    """The earlier ballots an undone ballot takes with it: the same voter's, in the same vote
    (since it was last opened). A ballot may be changed until the reveal and only the last one
    counts; undoing it must not bring back one the voter had replaced, which the table never
    saw and which would be revealed as theirs. The voter is back to not having voted."""
    out: set[int] = set()
    for i, ev in enumerate(events):
        if ev.kind != "ballot_cast" or ev.seq not in undone:
            continue
        for before in reversed(events[:i]):
            if before.kind == "vote_opened" and before.data.get("vote_id") == ev.data.get("vote_id"):
                break
            if (before.kind == "ballot_cast" and before.data.get("vote_id") == ev.data.get("vote_id")
                    and before.data.get("voter") == ev.data.get("voter")):
                out.add(before.seq)
    return out


def apply_vote_event(book: VoteBook, event: Event) -> VoteBook:
    kind, d = event.kind, event.data
    if kind == "vote_opened":
        return replace(book, current=VoteState(VoteSpec.from_dict(d)))
    vote = book.current
    if vote is None or d.get("vote_id") != vote.spec.vote_id:
        return book  # an event for a vote no longer open: nothing to fold
    if kind == "ballot_cast":
        ballots = dict(vote.ballots)
        ballots[d["voter"]] = Ballot(d["choice"], event.source)
        return replace(book, current=replace(vote, ballots=ballots))
    if kind == "vote_revealed":
        done = replace(vote, revealed=True, forced=bool(d.get("forced")), missing=tuple(d.get("missing", ())))
        return VoteBook(current=None, history=book.history + (done,))
    if kind == "vote_cancelled":
        return replace(book, current=None)
    return book


def amend_revealed(book: VoteBook, vote_id: str, voter: str, choice: str | None,
                   source: str) -> VoteBook:
    """The book with one ballot of a *revealed* vote set right: a game's public correction
    (the table saw the voter's real choice, so nothing secret is shown). The vote stays revealed
    and keeps its place in the history; its other ballots and every other vote are untouched.
    A game calls this from its own correction event (no vote event kind changes); deciding
    when a correction is allowed is the game's rule. A vote not revealed, or a voter not in
    it: the book unchanged (a fold never raises)."""
    for i in range(len(book.history) - 1, -1, -1):
        vote = book.history[i]
        if vote.spec.vote_id != vote_id:
            continue
        if voter not in vote.spec.voters:
            return book
        ballots = dict(vote.ballots)
        ballots[voter] = Ballot(choice, source)
        amended = replace(vote, ballots=ballots, missing=tuple(m for m in vote.missing if m != voter))
        history = book.history[:i] + (amended,) + book.history[i + 1:]
        return replace(book, history=history)
    return book


# -- views ---------------------------------------------------------------------------------

def table_view(vote: VoteState | None) -> dict | None:
    """What any screen may show: who has voted; what they voted only once revealed."""
    if vote is None:
        return None
    view = {
        "vote_id": vote.spec.vote_id, "kind": vote.spec.kind, "question": vote.spec.question,
        "options": list(vote.spec.options), "voters": list(vote.spec.voters),
        "allow_self": vote.spec.allow_self, "allow_abstain": vote.spec.allow_abstain,
        "weights": dict(vote.spec.weights) if vote.spec.weights else None,
        "voted": [v for v in vote.spec.voters if v in vote.ballots],
        "waiting": list(vote.waiting), "revealed": vote.revealed,
    }
    if vote.revealed:
        view["ballots"] = vote.choices()
        view["sources"] = {v: b.source for v, b in vote.ballots.items()}
        view["counts"] = counts = vote.counts()
        # the options with most votes (tally.most_votes, as the rules reckon it): a headline for
        # a game that says nothing of its own; none when nobody voted
        view["leaders"] = list(most_votes({o: n for o, n in counts.items() if n}, vote.spec.options))
        view["missing"] = list(vote.missing)
    return view


def vote_open(view: Mapping[str, Any] | None) -> bool:
    """Is a vote in progress (opened, not yet revealed or cancelled) in a game's table view?
    Its ballots are secret until then. ``view["vote"]`` is the vote in progress (``table_view``)."""
    vote = (view or {}).get("vote") or {}
    return bool(vote) and not vote.get("revealed")


def offered(vote: Mapping[str, Any], voter: str) -> list[str]:
    """The options a voter is offered, from a vote's view (``table_view``): all of them, but not
    their own name where the vote does not allow it (``may_choose``)."""
    allow_self = bool(vote.get("allow_self", True))
    return [o for o in vote.get("options", []) if may_choose(voter, o, allow_self)]
