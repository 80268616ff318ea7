"""Player groups the table plays with again and again: names in clockwise seat order and their
colours, kept in ``groups.json`` in the data folder.

A group is remembered by itself when a game starts with it (the same names, in any order, are the
same group: its seat order and colours are updated), so the next game with it is one tap. The
house rules it chose for each game (``{game id: {name: reading}}``, issue 33) are kept with it and
brought back when the group is chosen again; a list written before house rules loads with none.
Every write is a whole new file moved over the old one: a kill -9 leaves the old or the new list,
never half of one. Kivy-free, so tests and the command line can read it too.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from . import i18n
from .events import BadInput
from .files import write_whole

FILE = "groups.json"
NAME_MAX = 40


@dataclass(frozen=True)
class Group:
    id: int
    name: str
    players: tuple[str, ...]
    colours: tuple[str, ...]
    last_played: float = 0.0
    # the readings the group chose last, per game id: {game: {house rule: reading}}
    house_rules: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def house_rules_for(self, game: str) -> dict[str, str]:
        """The group's last house-rule choices for ``game`` (empty: the defaults)."""
        return dict(self.house_rules.get(game, {}))

    def same_people(self, players: Sequence[str]) -> bool:
        return sorted(p.casefold() for p in self.players) == sorted(p.casefold() for p in players)


@dataclass
class Groups:
    """The remembered groups of one data folder, most recently played first."""

    path: Path
    groups: list[Group] = field(default_factory=list)
    # The file could not be read: it was moved aside to this path (its bytes kept), say so once.
    moved_aside: Path | None = None

    @classmethod
    def load(cls, folder: str | os.PathLike) -> "Groups":
        path = Path(folder) / FILE
        if not path.exists():
            return cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            groups = [_group(g) for g in data["groups"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # A damaged list is kept beside, never written over; the table starts a new one.
            aside = path.with_name(f"{FILE}.damaged-{int(time.time())}")
            try:
                os.replace(path, aside)
            except OSError:
                raise BadInput(i18n.keyed("groups.unreadable", problem=i18n.message_of(exc))) from None
            return cls(path, moved_aside=aside)
        return cls(path, sorted(groups, key=lambda g: -g.last_played))

    def fitting(self, low: int, high: int) -> list[Group]:
        """The groups a game for ``low``–``high`` players can be played with."""
        return [g for g in self.groups if low <= len(g.players) <= high]

    def find(self, group_id: int) -> Group:
        for g in self.groups:
            if g.id == group_id:
                return g
        raise BadInput(i18n.keyed("groups.gone"))

    def remember(self, players: Sequence[str], colours: Sequence[str], now: float | None = None,
                 game: str | None = None, house_rules: Mapping[str, str] | None = None) -> Group:
        """The group these players make, with this seat order and these colours, kept as the most
        recently played. A group seen before keeps its name; a new one is named after the day.
        ``house_rules`` (with ``game``): the readings chosen for that game, kept for the next
        time; the group's choices for other games stay as they were."""
        now = time.time() if now is None else now
        if len(players) != len(colours) or not players:
            raise BadInput(i18n.keyed("groups.bad_table"))
        old = next((g for g in self.groups if g.same_people(players)), None)
        chosen = {k: dict(v) for k, v in old.house_rules.items()} if old is not None else {}
        if game is not None and house_rules is not None:
            chosen[game] = {str(k): str(v) for k, v in house_rules.items()}
        if old is None:
            group = Group(self._next_id(), self._day_name(now), tuple(players), tuple(colours), now, chosen)
        else:
            group = Group(old.id, old.name, tuple(players), tuple(colours), now, chosen)
        self._save([group] + [g for g in self.groups if g.id != group.id])
        return group

    def rename(self, group_id: int, name: str) -> Group:
        name = " ".join(name.split())
        if not name or len(name) > NAME_MAX:
            raise BadInput(i18n.keyed("groups.bad_name", most=NAME_MAX))
        old = self.find(group_id)
        group = Group(old.id, name, old.players, old.colours, old.last_played, old.house_rules)
        self._save([group if g.id == group_id else g for g in self.groups])
        return group

    def forget(self, group_id: int) -> None:
        self.find(group_id)
        self._save([g for g in self.groups if g.id != group_id])

    def _next_id(self) -> int:
        return max((g.id for g in self.groups), default=0) + 1

    def _day_name(self, now: float) -> str:
        base = i18n.tr(f"groups.day.{time.localtime(now).tm_wday}")
        taken = {g.name for g in self.groups}
        n, name = 1, base
        while name in taken:
            n += 1
            name = f"{base} {n}"
        return name

    def _save(self, groups: list[Group]) -> None:
        """The whole list to a new file, flushed to the disk, then moved over the old one. On a
        failure the old list stays as it was, on the disk and here."""
        text = json.dumps({"groups": [asdict(g) for g in groups]}, indent=1, ensure_ascii=False)
        try:
            write_whole(self.path, text)
        except OSError as exc:
            raise BadInput(i18n.keyed("groups.not_saved", problem=i18n.reason_of(exc))) from None
        self.groups = groups


def _group(d: Mapping[str, Any]) -> Group:
    players, colours = tuple(str(p) for p in d["players"]), tuple(str(c) for c in d["colours"])
    if not players or len(players) != len(colours):
        raise BadInput(i18n.keyed("groups.uneven", name=repr(d.get("name")), players=len(players),
                                  colours=len(colours)))
    return Group(int(d["id"]), str(d["name"]), players, colours, float(d.get("last_played", 0.0)),
                 _house_rules(d.get("house_rules")))


def _house_rules(d: Any) -> dict[str, dict[str, str]]:
    """The group's house-rule choices as written (absent in a list from before house rules:
    none). Only the shape is read here: a game's entry that is not ``{rule: reading}`` is left
    out (the group and its other choices kept); whether a reading is still one the game lists
    is checked where it is used (the setup screen)."""
    if not isinstance(d, Mapping):
        return {}
    return {str(game): {str(k): str(v) for k, v in rules.items()}
            for game, rules in d.items() if isinstance(rules, Mapping)}
