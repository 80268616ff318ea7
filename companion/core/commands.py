"""Commands as data: each game's table of what may be asked of it (like boardgame.io's ``moves``
map and OpenSpiel's legal actions).

A game lists its commands once, as :class:`CommandSpec` rows: the name, who may send it (the
table, a seat, a device), its arguments with their types (the referee's schema types, so one
strictness mechanism checks both), and the rulebook's words for the rule it enforces. The
table then

- dispatches a :class:`~companion.core.events.Command` to the game's rule function, after
  checking every argument's type (a wrong type is a ``BadInput`` naming the argument);
- answers ``legal(state, seat)``: which commands the rules accept now, and for arguments with a
  finite domain (a player, an option, a space) which values. Legality is the rule functions'
  own answer (each candidate is tried against ``decide``, which is pure), so the list can never
  disagree with what the game then accepts.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from .events import BadInput, Command, RuleError
from .i18n import keyed, message_of
from .schema import Schema

# Who may send a command.
TABLE = "table"    # the tablet, worked by the table or the narrator
SEAT = "seat"      # one player's own input, for themself (a secret ballot)
DEVICE = "device"  # a vote box, a phone, the camera (speaking for a seat or reading cards)
SENDERS = (TABLE, SEAT, DEVICE)

MAX_CANDIDATES = 120  # argument combinations tried per command when listing what is legal


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


ABSENT = _Absent()  # an optional argument left out, as a candidate value


@dataclass(frozen=True)
class Arg:
    """One argument of a command. ``values(state)`` is its finite domain now (players who may be
    named, spaces, options); an argument without it is open (a card's value, a reason) and
    ``sample(state, rng)`` gives a typical value for random play and for listing."""
    name: str
    type: Schema
    required: bool = True
    doc: str = ""
    values: Callable[[Any], Sequence[Any]] | None = None
    sample: Callable[[Any, random.Random], Any] | None = None

    @property
    def finite(self) -> bool:
        return self.values is not None


@dataclass(frozen=True)
class CommandSpec:
    name: str
    who: tuple[str, ...]
    args: tuple[Arg, ...]
    rule: str                      # the rulebook's words for the rule this command enforces
    handler: Callable[[Any, Any, dict, Command], list]
    doc: str = ""
    seat_arg: str | None = None    # the argument naming the sender's own seat (a ballot's voter)
    # Open arguments that only make sense together (a whole deal of cards): one sample of all.
    sample: Callable[[Any, random.Random], dict] | None = None

    def arg(self, name: str) -> Arg:
        return next(a for a in self.args if a.name == name)


@dataclass(frozen=True)
class Legal:
    """A command the rules accept now. ``args`` maps each finite argument to the values that
    are accepted (an open argument maps to None: any value of its type the rules accept);
    ``examples`` are whole argument sets the rules accepted."""
    name: str
    args: Mapping[str, tuple | None]
    examples: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)

    def to_dict(self) -> dict:
        return {"name": self.name,
                "args": {k: (list(v) if v is not None else None) for k, v in self.args.items()}}


def players_of(state: Any) -> tuple[str, ...]:
    return tuple(getattr(state, "players", ()) or ())


class CommandTable:
    def __init__(self, game: str, specs: Iterable[CommandSpec]):
        self.game = game
        self.specs: dict[str, CommandSpec] = {}
        for spec in specs:
            if spec.name in self.specs:
                raise ValueError(f"{game} declares command {spec.name!r} twice")
            if not spec.who or any(w not in SENDERS for w in spec.who):
                raise ValueError(f"{game} command {spec.name!r}: who must be among {SENDERS}")
            self.specs[spec.name] = spec

    def __iter__(self) -> Iterator[CommandSpec]:
        return iter(self.specs.values())

    def __contains__(self, name: str) -> bool:
        return name in self.specs

    def __getitem__(self, name: str) -> CommandSpec:
        return self.specs[name]

    # -- dispatch ---------------------------------------------------------------------------
    def spec_for(self, kind: str) -> CommandSpec:
        spec = self.specs.get(kind)
        if spec is None:
            raise BadInput(keyed("refusals.cmd.unknown", game=self.game, name=kind, names=", ".join(self.specs)))
        return spec

    def check_args(self, spec: CommandSpec, state: Any, data: Any) -> dict:
        """The arguments, each checked against its type before any rule runs."""
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise BadInput(keyed("refusals.cmd.args_shape", name=spec.name))
        known = [a.name for a in spec.args]
        for key in data:
            if key not in known:
                raise BadInput(keyed("refusals.cmd.unknown_arg", name=spec.name, arg=key,
                                     args=", ".join(known) or keyed("refusals.cmd.no_args")))
        ctx = {"players": players_of(state)}
        out = {}
        for a in spec.args:
            if a.name in data:
                out[a.name] = a.type.check(data[a.name], f"{spec.name}.{a.name}", ctx)
            elif a.required:
                raise BadInput(keyed("refusals.cmd.missing_arg", name=spec.name, arg=a.name, about=a.doc or a.type.describe()))
        return out

    def dispatch(self, rules: Any, state: Any, command: Command) -> list:
        spec = self.spec_for(command.kind)
        data = self.check_args(spec, state, command.data)
        return spec.handler(rules, state, data, command)

    # -- what is legal now ------------------------------------------------------------------
    def candidates(self, spec: CommandSpec, state: Any, seat: str | None = None,
                   rng: random.Random | None = None, samples: int = 2) -> list[dict]:
        """Argument sets to try: every value of each finite argument (an optional one also
        left out), a few samples of each open one; at most MAX_CANDIDATES, chosen evenly."""
        rng = rng or random.Random(0)
        domains: list[list[Any]] = []
        for a in spec.args:
            if seat is not None and a.name == spec.seat_arg:
                dom: list[Any] = [seat]
            elif a.values is not None:
                dom = list(a.values(state))
            elif a.sample is not None:
                dom = [a.sample(state, rng) for _ in range(samples)]
            elif spec.sample is not None:
                dom = [ABSENT]  # filled in by the joint sample below
            else:
                dom = []
            if not a.required and dom != [ABSENT]:
                dom = dom + [ABSENT]
            if not dom:
                return []
            domains.append(dom)
        joint = [spec.sample(state, rng) for _ in range(samples)] if spec.sample else [{}]
        domains.append(joint)
        total = 1
        for d in domains:
            total *= len(d)
        if total <= MAX_CANDIDATES:
            combos: Iterable[tuple] = itertools.product(*domains)
        else:
            picks = {tuple(rng.randrange(len(d)) for d in domains) for _ in range(MAX_CANDIDATES)}
            combos = [tuple(d[i] for d, i in zip(domains, idx)) for idx in sorted(picks)]
        out = []
        for combo in combos:
            data = {a.name: v for a, v in zip(spec.args, combo) if v is not ABSENT}
            data.update(combo[-1])
            out.append(data)
        return out

    def accepts(self, rules: Any, state: Any, name: str, data: Mapping[str, Any],
                source: str = "tablet") -> bool:
        try:
            rules.decide(state, Command(name, dict(data), source))
        except (RuleError, BadInput):
            return False
        return True

    def legal(self, rules: Any, state: Any, seat: str | None = None) -> list[Legal]:
        out = []
        for spec in self:
            if seat is not None and SEAT not in spec.who:
                continue
            ok = [c for c in self.candidates(spec, state, seat) if self.accepts(rules, state, spec.name, c)]
            if not ok:
                continue
            args: dict[str, tuple | None] = {}
            for a in spec.args:
                if a.values is None and not (seat is not None and a.name == spec.seat_arg):
                    args[a.name] = None
                    continue
                seen: list[Any] = []
                for c in ok:
                    v = c.get(a.name, ABSENT)
                    if v is not ABSENT and v not in seen:
                        seen.append(v)
                args[a.name] = tuple(seen)
            out.append(Legal(spec.name, args, tuple(ok)))
        return out


def legal_commands(rules: Any, state: Any, seat: str | None = None) -> list[Legal]:
    """What the rules allow now (for ``seat``: what that seat may send itself)."""
    return rules.commands.legal(rules, state, seat)


def allowed_values(legal: Sequence[Legal], name: str, arg: str) -> tuple | None:
    """The values of one argument of one command that are legal now (empty: not legal now)."""
    for entry in legal:
        if entry.name == name:
            return entry.args.get(arg) or ()
    return ()


def is_legal(legal: Sequence[Legal], name: str) -> bool:
    return any(entry.name == name for entry in legal)


def vocabulary(table: CommandTable) -> list[dict]:
    """The table as plain data (for docs/commands.md and ``referee GAME commands``)."""
    return [{"name": s.name, "who": list(s.who), "rule": s.rule, "doc": s.doc,
             "args": [{"name": a.name, "type": describe(a.type), "required": a.required, "doc": a.doc}
                      for a in s.args]} for s in table]


def describe(schema: Schema) -> str:
    """A short name for an argument's type, for the documentation."""
    from . import schema as sc
    if isinstance(schema, sc.Player):
        return "player" + "".join(f" or {e!r}" for e in schema.extra)
    if isinstance(schema, sc.Int):
        lo, hi = schema.lo, schema.hi
        return f"whole number {lo}..{hi}" if lo is not None and hi is not None else "whole number"
    if isinstance(schema, sc.Bool):
        return "true/false"
    if isinstance(schema, sc.Text):
        return "one of " + ", ".join(schema.choices) if schema.choices else "text"
    if isinstance(schema, sc.Null):
        return describe(schema.inner) + " or null"
    if isinstance(schema, sc.Either):
        return schema.what
    if isinstance(schema, sc.List):
        return f"list of {describe(schema.item)}"
    if isinstance(schema, sc.Map):
        return f"object of {describe(schema.value)} per " + ("player" if schema.keys is None else "key")
    if isinstance(schema, sc.Raw):
        return "object (checked by the rule)"
    return schema.describe()


def ballot_args(choices: Callable[[Any], Sequence[Any]]) -> tuple[Arg, ...]:
    """The arguments of every game's ``cast_ballot``: one ballot from any input (the tablet names
    the voter and the choice; a box or the camera gives a seat and an option's index; a phone
    also names the vote). The vote engine (companion.core.votes) checks the rest."""
    from .schema import Int, Null, Text
    return (
        Arg("voter", Text(), False, "who votes", values=lambda s: players_of(s)),
        Arg("seat", Int(1, None), False, "who votes, by seat (1-based)"),
        Arg("choice", Null(Text()), False, "the choice (null: abstain, where the game allows it)",
            values=choices),
        Arg("option", Int(0, None), False, "the choice by its 0-based index"),
        Arg("vote_id", Text(), False, "the vote being answered"),
    )


def force_arg() -> Arg:
    from .schema import Bool
    return Arg("force", Bool(), False, "reveal with ballots missing (where the game allows it)",
               values=lambda s: (True, False))


@dataclass(frozen=True)
class PerPlayer(Schema):
    """An object keyed by text (one entry per player) whose values have one type (whole numbers
    unless told): the type only; which names and which values the rule function checks, in the
    rule's words."""
    value: Schema | None = None

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        from .schema import Int, Text
        inner = self.value or Int(None, None)
        if not isinstance(value, Mapping):
            raise BadInput(keyed("refusals.cmd.per_player", where=path))
        return {Text().check(k, path, ctx): inner.check(v, f"{path}.{k}", ctx) for k, v in value.items()}

    def describe(self) -> str:
        return f"{describe(self.value) if self.value else 'whole number'} per player"


def Numbers() -> PerPlayer:
    return PerPlayer()


# -- a whole game from a list of commands (the referee's ``play`` question) ----------------------

def play(rules: Any, data: Mapping[str, Any]) -> dict:
    """Play ``data["commands"]`` (each ``{"command": name, <its arguments>}``, or
    ``{"command": "undo"}``) from ``data["setup"]`` through a real session on an in-memory
    journal; the answer is the table's final view, the outcome and what is legal next. The
    first refused command stops the game: ``BadInput``/``RuleError`` naming its index."""
    from .journal import Journal
    from .session import GameSession

    journal = Journal(":memory:")
    try:
        try:
            session = GameSession.start(journal, rules, data["setup"])
        except (BadInput, RuleError) as exc:
            raise type(exc)(keyed("refusals.setup_at", reason=message_of(exc)), exc.rule) from None
        for i, entry in enumerate(data["commands"]):
            if not isinstance(entry, Mapping) or not isinstance(entry.get("command"), str):
                raise BadInput(keyed("refusals.cmd.entry_shape", n=i))
            args = {k: v for k, v in entry.items() if k != "command"}
            name = entry["command"]
            try:
                if name == "undo" and "undo" not in rules.commands:
                    if args:
                        raise BadInput(keyed("refusals.cmd.undo_args"))
                    session.undo()
                else:
                    session.execute(Command(name, args, "tablet"))
            except (RuleError, BadInput) as exc:
                raise type(exc)(keyed("refusals.command_at", index=i, name=name,
                                      reason=message_of(exc)), exc.rule) from None
        return {"view": session.view(TABLE), "outcome": rules.outcome(session.state),
                "events": len(session.events),
                "legal": [entry.to_dict() for entry in legal_commands(rules, session.state)]}
    finally:
        journal.close()


def play_question(rules_factory: Callable[[], Any]) -> Callable[[Mapping[str, Any]], dict]:
    """The ``play`` question for a game's referee (one schema, one function for every game)."""
    from .schema import List, Obj, Raw, question

    @question(Obj({"setup": Raw(), "commands": List(Raw(), hi=20_000, why="a game is not that long")}))
    def play_game(data: Mapping[str, Any]) -> dict:
        return play(rules_factory(), data)
    play_game.__doc__ = "A whole game: setup and commands in, the final view and outcome out."
    return play_game


def legal_values(rules: Any, state: Any, name: str, arg: str, seat: str | None = None) -> tuple:
    """The values of one argument the rules accept now for one command (what a screen offers);
    empty when the command is not legal now."""
    table = rules.commands
    spec = table[name]
    seen: list[Any] = []
    for c in table.candidates(spec, state, seat):
        v = c.get(arg, ABSENT)
        if v is not ABSENT and v not in seen and table.accepts(rules, state, name, c):
            seen.append(v)
    return tuple(seen)


def command(name: str, handler: Callable, rule: str, *args: Arg, who: tuple[str, ...] = (TABLE,),
            doc: str = "", seat_arg: str | None = None,
            sample: Callable[[Any, random.Random], dict] | None = None) -> CommandSpec:
    """One row of a game's table. ``handler`` is the game's rule function, one signature in every
    game: ``handler(rules, state, data, command)`` (a method ``_do_<name>(self, state, data, command)``)."""
    return CommandSpec(name, who, tuple(args), rule, handler, doc, seat_arg, sample)
