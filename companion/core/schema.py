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
from typing import Any, Callable, Mapping, Sequence

from .events import BadInput

MAX_TEXT = 200  # a name or a key: longer is not a name


def _where(path: str) -> str:
    return path or "input"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, (list, dict)) else _kind(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Schema:
    def check(self, value: Any, path: str, ctx: dict) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Raw(Schema):
    """Anything: the rule function checks this part itself (with the rule's words)."""

    def check(self, value, path, ctx):
        return value


@dataclass(frozen=True)
class Int(Schema):
    """A whole number (never a bool, never 3.0) within the box's limits."""
    lo: int | None = 0
    hi: int | None = None
    why: str = ""  # what bounds it, e.g. "the box holds 15 Legions"

    def check(self, value, path, ctx):
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadInput(f"{_where(path)}: must be a whole number, got {_short(value)}")
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            span = (f"{self.lo} to {self.hi}" if self.lo is not None and self.hi is not None
                    else f"at least {self.lo}" if self.lo is not None else f"at most {self.hi}")
            raise BadInput(f"{_where(path)}: must be {span}, got {value}"
                           + (f" ({self.why})" if self.why else ""))
        return value


@dataclass(frozen=True)
class Bool(Schema):
    def check(self, value, path, ctx):
        if not isinstance(value, bool):
            raise BadInput(f"{_where(path)}: must be true or false, got {_short(value)}")
        return value


@dataclass(frozen=True)
class Text(Schema):
    """Text; with ``choices``, one of them (the game's own words)."""
    choices: Sequence[str] = ()

    def check(self, value, path, ctx):
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
            raise BadInput(f"{_where(path)}: must be a non-empty text, got {_short(value)}")
        if self.choices and value not in self.choices:
            raise BadInput(f"{_where(path)}: {value!r} is not one of {', '.join(self.choices)}")
        return value


@dataclass(frozen=True)
class Player(Schema):
    """A name from the question's player list (``ctx['players']``), or an ``extra`` word."""
    extra: Sequence[str] = ()

    def check(self, value, path, ctx):
        players = ctx.get("players") or ()
        if not isinstance(value, str) or (value not in players and value not in self.extra):
            allowed = ", ".join(list(players) + list(self.extra))
            raise BadInput(f"{_where(path)}: {_short(value)} is not a player at this table ({allowed})")
        return value


@dataclass(frozen=True)
class Null(Schema):
    """``inner`` or null."""
    inner: Schema

    def check(self, value, path, ctx):
        return None if value is None else self.inner.check(value, path, ctx)


@dataclass(frozen=True)
class Either(Schema):
    """The first of ``options`` the value fits (e.g. a Knight number or the word "witch")."""
    options: Sequence[Schema]
    what: str

    def check(self, value, path, ctx):
        for option in self.options:
            try:
                return option.check(value, path, ctx)
            except BadInput:
                continue
        raise BadInput(f"{_where(path)}: must be {self.what}, got {_short(value)}")


@dataclass(frozen=True)
class List(Schema):
    item: Schema
    lo: int = 0
    hi: int | None = None
    why: str = ""

    def check(self, value, path, ctx):
        if not isinstance(value, list):
            raise BadInput(f"{_where(path)}: must be a list, got {_short(value)}")
        if len(value) < self.lo or (self.hi is not None and len(value) > self.hi):
            span = f"{self.lo} to {self.hi}" if self.hi is not None else f"at least {self.lo}"
            raise BadInput(f"{_where(path)}: must hold {span} entries, got {len(value)}"
                           + (f" ({self.why})" if self.why else ""))
        return [self.item.check(v, f"{path}[{i}]", ctx) for i, v in enumerate(value)]


@dataclass(frozen=True)
class Names(Schema):
    """The table's players: different names, as many as the rulebook allows. Later fields that
    name a player are checked against these (``Player``)."""
    lo: int
    hi: int
    rule: str = ""       # the rulebook's sentence giving the range
    reserved: Sequence[str] = ()

    def check(self, value, path, ctx):
        if not isinstance(value, list):
            raise BadInput(f"{_where(path)}: must be a list of player names, got {_short(value)}")
        if not self.lo <= len(value) <= self.hi:
            span = f"exactly {self.lo}" if self.lo == self.hi else f"{self.lo} to {self.hi}"
            raise BadInput(f"{_where(path)}: the game is for {span} players, got {len(value)}"
                           + (f' (rule: "{self.rule}")' if self.rule else ""))
        names = [Text().check(v, f"{path}[{i}]", ctx) for i, v in enumerate(value)]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise BadInput(f"{_where(path)}: names {twice[0]!r} twice")
        bad = [n for n in names if n in self.reserved]
        if bad:
            raise BadInput(f"{_where(path)}: {bad[0]!r} cannot be a player's name here")
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

    def check(self, value, path, ctx):
        if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
            raise BadInput(f"{_where(path)}: must be a list of objects like {{\"name\": ...}}, "
                           f"got {_short(value)}")
        Names(self.lo, self.hi, self.rule).check([r.get("name") for r in value], path, ctx)
        return [self.row.check(r, f"{path}[{i}]", ctx) for i, r in enumerate(value)]


@dataclass(frozen=True)
class Map(Schema):
    """An object keyed by player (``Player`` keys) or by a fixed set of words (``keys``)."""
    value: Schema
    keys: Sequence[str] | None = None   # None: keys are the table's players
    all_keys: bool = False              # every player (or key) must be present

    def check(self, value, path, ctx):
        if not isinstance(value, dict):
            raise BadInput(f"{_where(path)}: must be an object, got {_short(value)}")
        allowed = tuple(self.keys) if self.keys is not None else tuple(ctx.get("players") or ())
        out = {}
        for k, v in value.items():
            if k not in allowed:
                what = "a player at this table" if self.keys is None else "a key here"
                raise BadInput(f"{_where(path)}: {k!r} is not {what} ({', '.join(allowed)})")
            out[k] = self.value.check(v, f"{path}.{k}", ctx)
        if self.all_keys:
            missing = [k for k in allowed if k not in value]
            if missing:
                raise BadInput(f"{_where(path)}: has nothing for {missing[0]}")
        return out


@dataclass(frozen=True)
class Obj(Schema):
    """An object with these fields; ``optional`` may be left out; any other key is refused.
    Fields are checked in order, so a ``Names`` field makes the players known to later ones."""
    required: Mapping[str, Schema] = field(default_factory=dict)
    optional: Mapping[str, Schema] = field(default_factory=dict)

    def check(self, value, path, ctx):
        if not isinstance(value, dict):
            raise BadInput(f"{_where(path)}: must be an object, got {_short(value)}")
        known = list(self.required) + list(self.optional)
        for k in value:
            if k not in known:
                raise BadInput(f"{_where(path)}: unknown key {k!r} (keys: {', '.join(known)})")
        for k in self.required:
            if k not in value:
                raise BadInput(f"{_where(path)} has no {k}")
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
