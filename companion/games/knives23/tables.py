"""23 Knives table data (tables.json) and the Kalends track for one game.

Numbers the rulebook leaves to the board (the Kalends track's length, the Dagger's start space per
player count, which Forum spaces are faceup-only) live in tables.json, never in the logic, so a
group can set them once; a game's setup may override the Kalends per game.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from companion.core.events import BadInput
from companion.core.i18n import keyed

TABLES_PATH = Path(__file__).with_name("tables.json")
SPACE_KINDS = ("either", "faceup")


def _whole(value: Any, what: Any, low: int, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
        if high is None:
            raise BadInput(keyed("refusals.input.whole_from", what=what, low=low))
        raise BadInput(keyed("refusals.input.whole_number", what=what, low=low, high=high))
    return value


@dataclass(frozen=True)
class Kalends:
    """The Kalends track: spaces 1..spaces; ``spaces + 1`` is the Curia."""

    spaces: int
    black_spaces: int
    dagger_start: int

    @property
    def curia(self) -> int:
        return self.spaces + 1

    def is_black(self, space: int) -> bool:
        return self.spaces - self.black_spaces < space <= self.spaces

    def to_dict(self) -> dict:
        return {"spaces": self.spaces, "black_spaces": self.black_spaces, "dagger_start": self.dagger_start}


def check_tables(data: Mapping[str, Any], name: str = "tables.json") -> dict:
    """Validate the table data; a bad value raises a one-line BadInput naming it."""
    try:
        k = data["kalends"]
        spaces = _whole(k["spaces"], f"{name}: kalends.spaces", 2, 40)
        _whole(k["black_spaces"], f"{name}: kalends.black_spaces", 0, spaces)
        starts = k["dagger_start"]
        for n in range(3, 9):
            _whole(starts[str(n)], f"{name}: kalends.dagger_start for {n} players", 1, spaces)
        forum = data["forum"]
        if len(forum["spaces"]) != 5 or any(s not in SPACE_KINDS for s in forum["spaces"]) or forum["extra"] not in SPACE_KINDS:
            raise BadInput(keyed("refusals.k23.forum_shape", name=name, kinds=", ".join(SPACE_KINDS)))
        for key in ("knives", "doves"):
            if not data["fate"][key] or any(not isinstance(v, int) or v < 1 for v in data["fate"][key]):
                raise BadInput(keyed("refusals.k23.fate_values", name=name, cards=key))
        _whole(data["caesar_dies_at"], f"{name}: caesar_dies_at", 1)
    except KeyError as exc:
        raise BadInput(keyed("refusals.file.missing", name=name, entry=str(exc.args[0]))) from None
    except TypeError as exc:
        raise BadInput(keyed("refusals.file.shape", name=name)) from None
    return dict(data)


@lru_cache(maxsize=None)
def _load(path: str) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BadInput(keyed("refusals.k23.tables_unreadable", path=path, detail=str(exc))) from None
    return check_tables(data, Path(path).name)


def tables(path: str | None = None) -> dict:
    return _load(str(path or TABLES_PATH))


def kalends_for(players: int, override: Mapping[str, Any] | None = None, data: Mapping | None = None) -> Kalends:
    """The Kalends track for ``players``; ``override`` (from the setup) may set ``spaces``,
    ``black_spaces`` and ``dagger_start`` for this game."""
    data = data or tables()
    k = data["kalends"]
    override = dict(override or {})
    unknown = set(override) - {"spaces", "black_spaces", "dagger_start"}
    if unknown:
        raise BadInput(keyed("refusals.k23.kalends_unknown", names=", ".join(sorted(unknown))))
    spaces = _whole(override.get("spaces", k["spaces"]), keyed("refusals.k23.kalends_spaces"), 2, 40)
    black = _whole(override.get("black_spaces", k["black_spaces"]), keyed("refusals.k23.black_spaces"), 0, spaces)
    start = override.get("dagger_start", k["dagger_start"].get(str(players)))
    start = _whole(start, keyed("refusals.k23.dagger_start", n=players), 1, spaces)
    return Kalends(spaces, black, start)


# -- the group's own board ----------------------------------------------------------------------
# The table confirms its board at setup (the Kalends track's length, the black spaces, the
# Dagger's start for each player count, the Forum's icons); the app keeps that in its data folder
# so the next game starts from the group's board instead of our guesses.
GROUP_BOARD_FILE = "knives23_board.json"


def default_board(data: Mapping | None = None) -> dict:
    data = data or tables()
    k = data["kalends"]
    return {"spaces": k["spaces"], "black_spaces": k["black_spaces"], "dagger_start": dict(k["dagger_start"]),
            "forum": {"spaces": list(data["forum"]["spaces"]), "extra": data["forum"]["extra"]},
            "confirmed": False}


def check_board(board: Any, name: str) -> dict:
    """A group board as stored: the same limits as the setup's; a bad one raises one line."""
    if not isinstance(board, Mapping):
        raise BadInput(keyed("refusals.file.one_object", name=name))
    try:
        spaces = _whole(board["spaces"], f"{name}: spaces", 2, 40)
        _whole(board["black_spaces"], f"{name}: black_spaces", 0, spaces)
        for n in range(3, 9):
            _whole(board["dagger_start"][str(n)], f"{name}: dagger_start for {n} players", 1, spaces)
        forum = board["forum"]
        if len(forum["spaces"]) != 5 or any(s not in SPACE_KINDS for s in forum["spaces"]) or forum["extra"] not in SPACE_KINDS:
            raise BadInput(keyed("refusals.k23.forum_shape", name=name, kinds=", ".join(SPACE_KINDS)))
    except KeyError as exc:
        raise BadInput(keyed("refusals.file.missing", name=name, entry=str(exc.args[0]))) from None
    except TypeError as exc:
        raise BadInput(keyed("refusals.file.shape", name=name)) from None
    return {**default_board(), **{k: board[k] for k in ("spaces", "black_spaces", "dagger_start", "forum")},
            "confirmed": board.get("confirmed") or False}


def load_group_board(folder: Path) -> dict | None:
    """The group's confirmed board, or None when it has not confirmed one yet."""
    path = Path(folder) / GROUP_BOARD_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BadInput(keyed("refusals.k23.board_unreadable", path=path, detail=str(exc))) from None
    return check_board(data, str(path))


def save_group_board(folder: Path, board: Mapping) -> None:
    board = check_board(board, GROUP_BOARD_FILE)
    path = Path(folder) / GROUP_BOARD_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(board, indent=2), encoding="utf-8")
        tmp.replace(path)   # never a half-written board
    except OSError as exc:
        raise BadInput(keyed("refusals.k23.board_unsaved", path=path, detail=str(exc.strerror or exc))) from None
