"""Who starts the Senator draft when the youngest players share an age, decided without Kivy.

The rulebook: "The youngest player takes the 12 Senator cards" and names no one when two are
equally young. The table's setup screen asks for ages only; the rules (``initial_state``) refuse a
tie without a ``youngest`` named, so the table's choice comes from here: the table's first player
if among the youngest, else the first of them in seat order.
"""
from __future__ import annotations

from typing import Mapping, Sequence


def youngest_tie_break(players: Sequence[str], ages: Mapping[str, object], first: str | None) -> str | None:
    """The player who starts the draft when several are the youngest; None without a tie (or
    before every age is a whole number: the rules then say what is missing)."""
    known = {p: a for p, a in ages.items() if isinstance(a, int) and not isinstance(a, bool)}
    if not known:
        return None
    young = min(known.values())
    tied = [p for p in players if known.get(p) == young]
    if len(tied) < 2:
        return None
    return first if first in tied else tied[0]
