"""House rules: the readings a rulebook leaves open, chosen by the table (issue 33).

Where a rulebook can be read two ways (a tie it does not settle, a table that lost its numbers),
the game lists a :class:`HouseRule` with its readings, the first being the app's reading so far.
The group picks one at setup; the choice is recorded in the game's setup as
``setup["house_rules"] = {name: reading}`` (missing names take the first reading, so a journal
written before house rules replays as it was played), so a replay and the referee (which takes the
same setup JSON) decide the same way.

Catalogue keys, per game ``g`` and house rule ``n`` (in the game's own catalogue):
``g.house.n`` (the question, short), ``g.house.n.rule`` (the rulebook's words where it is open),
``g.house.n.<reading>`` (each reading, said as the rule that applies).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .events import BadInput
from .i18n import keyed

SETUP_KEY = "house_rules"


@dataclass(frozen=True)
class HouseRule:
    """One reading the rulebook leaves open. ``readings[0]`` is the default."""

    game: str                   # the game's id, prefix of its catalogue keys
    name: str
    readings: tuple[str, ...]

    @property
    def default(self) -> str:
        return self.readings[0]

    @property
    def label(self) -> str:
        return f"{self.game}.house.{self.name}"

    @property
    def rule(self) -> str:
        return f"{self.label}.rule"

    def reading_label(self, reading: str) -> str:
        return f"{self.label}.{reading}"


def chosen(setup: Mapping[str, Any], house_rules: Sequence[HouseRule]) -> dict[str, str]:
    """Every house rule's reading for this setup (the default where the setup names none).
    Raises a one-line BadInput for a name the game does not know or a reading it does not have."""
    given = setup.get(SETUP_KEY, {})
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise BadInput(keyed("refusals.house_rules_not_object"))
    known = {h.name: h for h in house_rules}
    unknown = sorted(str(k) for k in given if k not in known)
    if unknown:
        raise BadInput(keyed("refusals.house_rule_unknown", names=", ".join(unknown),
                             known=", ".join(known) or "-"))
    out = {}
    for h in house_rules:
        reading = given.get(h.name, h.default)
        if reading not in h.readings:
            raise BadInput(keyed("refusals.house_rule_reading", name=h.name, reading=str(reading),
                                 readings=", ".join(h.readings)))
        out[h.name] = reading
    return out


def applies(rule: HouseRule, reading: str) -> dict:
    """What the deciding screen shows: the reading that applies and the rulebook's words, as data."""
    key = "houserules.applies_house" if reading != rule.default else "houserules.applies"
    return keyed(key, reading=keyed(rule.reading_label(reading)), words=keyed(rule.rule))

