"""Commands (what someone asks for), events (what happened) and the errors a refusal raises."""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Mapping
from typing import Any


@dataclass(frozen=True)
class Command:
    """A request from the table: "cast ballot", "enter Forum card", "advance Dagger".

    ``source`` says where it came from ("tablet", "box:3f2a", "camera", "phone:ab12", "system").
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    source: str = "tablet"


@dataclass(frozen=True)
class Event:
    """A fact recorded in the journal. ``seq`` is its 1-based position in its game."""

    seq: int
    kind: str
    data: Mapping[str, Any]
    source: str = "system"
    at: float = 0.0  # wall-clock seconds when recorded; for display only, never for rules


def _message(message: object) -> tuple[str, str | None, dict]:
    """An error's one-line English text, and its catalogue ``key`` and ``values`` when the
    message is ``i18n.keyed(...)`` (the app shows it in its own language: ``i18n.text_of``)."""
    if isinstance(message, Mapping) and "key" in message:
        from . import i18n  # i18n imports this module
        return i18n.text_of(message, "en"), message["key"], dict(message.get("values") or {})
    return str(message), None, {}


def with_rule(text: str, rule: str | None, lang: str = "en") -> str:
    """``text`` followed by the rulebook's words it quotes (English, as the rulebooks are), the
    words around the quote from the catalogue in ``lang``."""
    if not rule:
        return text
    from . import i18n  # i18n imports this module
    return i18n.text_of(i18n.keyed("rule.quoted", text=text, rule=rule), lang)


class _Refusal:
    """A refusal: its catalogue key and values, and its one-line English text. A rule's refusal
    builds that text when first read: ``legal_commands`` tries every candidate command and drops
    thousands of refusals unread (building their texts took a third of its time)."""

    key: str | None
    values: dict
    rule: str | None

    _text: str | None

    def _keep(self, message: str | Mapping, rule: str | None) -> None:
        self._raw, self._text, self.rule = message, None, rule
        if isinstance(message, Mapping) and "key" in message:
            self.key, self.values = message["key"], dict(message.get("values") or {})
        else:
            self.key, self.values = None, {}

    @property
    def args(self) -> tuple:
        if self._text is None:
            self._text = " ".join(_message(self._raw)[0].split())
        return (self._text,)

    @args.setter
    def args(self, value: tuple) -> None:
        self._raw, self._text = (value[0] if value else ""), None

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        return (type(self), (self.args[0], self.rule))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.args[0]!r})"

    def __str__(self) -> str:  # one line, with the rule's words when we have them
        return with_rule(self.args[0], self.rule)


class BadInput(_Refusal, ValueError):
    """Malformed input (a file, a frame, a request, a JSON). The message is one line; ``rule``
    quotes the rulebook when a rule sets the limit (a player count)."""

    def __init__(self, message: str | Mapping, rule: str | None = None):
        super().__init__()
        self._keep(message, rule)
        # Its text is built at once: the catalogue loader raises these itself, and a text
        # built later would read a catalogue in another state.
        self.args  # noqa: B018


class RuleError(_Refusal, Exception):
    """An action the rules forbid. ``rule`` quotes the rulebook sentence that forbids it.
    ``str()`` is English (logs, the referee); ``key``/``values`` let a view translate it."""

    def __init__(self, message: str | Mapping, rule: str | None = None):
        super().__init__()
        self._keep(message, rule)


class NeedsTieBreak(RuleError):
    """A tie that a named person must break; ``chooser`` is who, ``among`` the tied options."""

    def __init__(self, message: str | Mapping, chooser: str | None, among: Iterable[Any],
                 rule: str | None = None):
        super().__init__(message, rule)
        self.chooser = chooser
        self.among = tuple(among)
        self.field: str | None = None  # the input key that carries the choice, when it has one
