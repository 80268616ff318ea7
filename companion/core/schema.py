"""Strict input for the referee: a small schema per question, checked by one function.

A question declares the shape it reads (``Obj`` of fields, ``List`` with the game's own bounds,
``Int`` with the box's limits, ``Names`` for the player list with the rulebook's range); ``check``
walks the input once and refuses the first thing that does not fit with one line naming where it
is (``players[2].sway: unknown key 'Sway' …``). Nothing is ignored silently: an unknown key, a
float where a count is meant, a count beyond what the box holds, a name not at the table.

    @question(Obj(players=Names(3, 8, rule=R_PLAYERS), curia=List(CARD, hi=80)))
    def final(data): ...

``companion.referee.ask`` checks ``fn.schema`` before calling ``fn``; the rule functions then
do the game's own checks (the rule's words when a rule forbids something).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .events import BadInput
from .i18n import keyed

MAX_TEXT = 200  # a name or a key: longer is not a name


def _where(path: str) -> Any:
    return path or keyed("schema.input")


def _kind(value: Any) -> Any:
    for test, word in ((lambda v: v is None, "null"), (lambda v: isinstance(v, bool), "bool"),
                       (lambda v: isinstance(v, (int, float)), "number"), (lambda v: isinstance(v, str), "text"),
                       (lambda v: isinstance(v, list), "list"), (lambda v: isinstance(v, dict), "object")):
        if test(value):
            return keyed(f"schema.kind.{word}")
    return type(value).__name__


def _short(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return _kind(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _refuse(message: str, path: str, **values: Any) -> BadInput:
    """A refusal naming where in the input it is (``schema.<message>`` in the catalogue)."""
    return BadInput(keyed(f"schema.{message}", where=_where(path), **values))


class Schema:
    def check(self, value: Any, path: str, ctx: dict) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Raw(Schema):
    """Anything: the rule function checks this part itself (with the rule's words)."""

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        return value


@dataclass(frozen=True)
class Int(Schema):
    """A whole number (never a bool, never 3.0) within the box's limits."""
    lo: int | None = 0
    hi: int | None = None
    why: str = ""  # what bounds it, e.g. "the box holds 15 Legions"

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _refuse("whole_number", path, got=_short(value))
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            span = (keyed("schema.span.between", lo=self.lo, hi=self.hi) if self.lo is not None and self.hi is not None
                    else keyed("schema.span.at_least", lo=self.lo) if self.lo is not None
                    else keyed("schema.span.at_most", hi=self.hi))
            raise _refuse("out_of_range_why" if self.why else "out_of_range", path, span=span, got=value,
                          why=self.why)
        return value


@dataclass(frozen=True)
class Bool(Schema):
    def check(self, value: Any, path: str, ctx: dict) -> Any:
        if not isinstance(value, bool):
            raise _refuse("bool", path, got=_short(value))
        return value


@dataclass(frozen=True)
class Text(Schema):
    """Text; with ``choices``, one of them (the game's own words)."""
    choices: Sequence[str] = ()

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
            raise _refuse("text", path, got=_short(value))
        if self.choices and value not in self.choices:
            raise _refuse("choice", path, got=repr(value), choices=", ".join(self.choices))
        return value


@dataclass(frozen=True)
class Player(Schema):
    """A name from the question's player list (``ctx['players']``), or an ``extra`` word."""
    extra: Sequence[str] = ()

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        players = ctx.get("players") or ()
        if not isinstance(value, str) or (value not in players and value not in self.extra):
            allowed = ", ".join(list(players) + list(self.extra))
            raise _refuse("player", path, got=_short(value), players=allowed)
        return value


@dataclass(frozen=True)
class Null(Schema):
    """``inner`` or null."""
    inner: Schema

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        return None if value is None else self.inner.check(value, path, ctx)


@dataclass(frozen=True)
class Either(Schema):
    """The first of ``options`` the value fits (e.g. a Knight number or the word "witch")."""
    options: Sequence[Schema]
    what: str

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        for option in self.options:
            try:
                return option.check(value, path, ctx)
            except BadInput:
                continue
        raise _refuse("either", path, what=self.what, got=_short(value))


@dataclass(frozen=True)
class List(Schema):
    item: Schema
    lo: int = 0
    hi: int | None = None
    why: str = ""

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        if not isinstance(value, list):
            raise _refuse("list", path, got=_short(value))
        if len(value) < self.lo or (self.hi is not None and len(value) > self.hi):
            span = (keyed("schema.span.between", lo=self.lo, hi=self.hi) if self.hi is not None
                    else keyed("schema.span.at_least", lo=self.lo))
            raise _refuse("entries_why" if self.why else "entries", path, span=span, got=len(value), why=self.why)
        return [self.item.check(v, f"{path}[{i}]", ctx) for i, v in enumerate(value)]


@dataclass(frozen=True)
class Names(Schema):
    """The table's players: different names, as many as the rulebook allows. Later fields that
    name a player are checked against these (``Player``)."""
    lo: int
    hi: int
    rule: str = ""       # the rulebook's sentence giving the range
    reserved: Sequence[str] = ()

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        if not isinstance(value, list):
            raise _refuse("names", path, got=_short(value))
        if not self.lo <= len(value) <= self.hi:
            span = (keyed("schema.span.exactly", n=self.lo) if self.lo == self.hi
                    else keyed("schema.span.between", lo=self.lo, hi=self.hi))
            raise BadInput(keyed("schema.player_count", where=_where(path), span=span, got=len(value)),
                           self.rule or None)
        names = [Text().check(v, f"{path}[{i}]", ctx) for i, v in enumerate(value)]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise _refuse("twice", path, name=twice[0])
        bad = [n for n in names if n in self.reserved]
        if bad:
            raise _refuse("reserved", path, name=bad[0])
        ctx["players"] = tuple(names)
        return names


@dataclass(frozen=True)
class Rows(Schema):
    """The table's players as objects with a ``"name"`` (and what the question needs of each):
    the same range and name checks as ``Names``, then each row checked by ``row``."""
    row: Obj
    lo: int
    hi: int
    rule: str = ""

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
            raise _refuse("rows", path, got=_short(value))
        Names(self.lo, self.hi, self.rule).check([r.get("name") for r in value], path, ctx)
        return [self.row.check(r, f"{path}[{i}]", ctx) for i, r in enumerate(value)]


@dataclass(frozen=True)
class Map(Schema):
    """An object keyed by player (``Player`` keys) or by a fixed set of words (``keys``)."""
    value: Schema
    keys: Sequence[str] | None = None   # None: keys are the table's players
    all_keys: bool = False              # every player (or key) must be present

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        if not isinstance(value, dict):
            raise _refuse("object", path, got=_short(value))
        allowed = tuple(self.keys) if self.keys is not None else tuple(ctx.get("players") or ())
        out = {}
        for k, v in value.items():
            if k not in allowed:
                raise _refuse("not_a_player" if self.keys is None else "not_a_key", path, entry=repr(k),
                              allowed=", ".join(allowed))
            out[k] = self.value.check(v, f"{path}.{k}", ctx)
        if self.all_keys:
            missing = [k for k in allowed if k not in value]
            if missing:
                raise _refuse("nothing_for", path, entry=missing[0])
        return out


@dataclass(frozen=True)
class Obj(Schema):
    """An object with these fields; ``optional`` may be left out; any other key is refused.
    Fields are checked in order, so a ``Names`` field makes the players known to later ones."""
    required: Mapping[str, Schema] = field(default_factory=dict)
    optional: Mapping[str, Schema] = field(default_factory=dict)

    def check(self, value: Any, path: str, ctx: dict) -> Any:
        if not isinstance(value, dict):
            raise _refuse("object", path, got=_short(value))
        known = list(self.required) + list(self.optional)
        for k in value:
            if k not in known:
                raise _refuse("unknown_key", path, entry=repr(k), allowed=", ".join(known))
        for k in self.required:
            if k not in value:
                raise _refuse("missing_key", path, entry=k)
        out = {}
        schemas = {**self.required, **self.optional}
        # Names first, wherever they stand, so every Player check knows the table.
        order = sorted(value, key=lambda k: (not isinstance(schemas[k], (Names, Rows)), known.index(k)))
        for k in order:
            out[k] = schemas[k].check(value[k], f"{path}.{k}" if path else k, ctx)
        return out


def obj(optional: Mapping[str, Schema] | None = None, **required: Schema) -> Obj:
    return Obj(required, optional or {})


def check(schema: Schema, data: Any, ctx: dict | None = None) -> Any:
    """The one check every referee question goes through. Returns the checked data."""
    return schema.check(data, "", {} if ctx is None else ctx)


def question(schema: Schema) -> Callable[[Callable], Callable]:
    """Attach a question's schema; ``companion.referee.ask`` checks it before the call."""
    def mark(fn: Callable) -> Callable:
        setattr(fn, "schema", schema)  # a function attribute: ask() reads it with getattr
        return fn
    return mark
