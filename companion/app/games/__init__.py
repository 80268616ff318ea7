"""The games the app offers, in picker order. A game whose UI package is not there yet is shown
greyed out instead of failing the app."""
from __future__ import annotations

import importlib
import logging

log = logging.getLogger(__name__)

from companion.app.gameui import GameUI
from companion.games import GAMES, TITLES

__all__ = ["GAMES", "TITLES", "title", "load_ui", "describe"]


def title(game_id: str) -> str:
    """The game's name in the table's language (its id, for a game this version does not know)."""
    from companion.core.i18n import tr
    return tr(TITLES[game_id]) if game_id in TITLES else game_id


def load_ui(game_id: str) -> GameUI | None:
    """A new GameUI for one game (its per-game state starts empty), or None if its UI package is
    not available. A game's UI package exposes ``UI``: its GameUI class (or a function making one)."""
    try:
        module = importlib.import_module(f"companion.app.games.{game_id}")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith(f"companion.app.games.{game_id}"):
            return None
        raise
    factory = getattr(module, "UI", None)
    return factory() if factory is not None else None


def describe(game_id: str) -> tuple[GameUI | None, str | None]:
    """(GameUI or None, error text or None) — a game whose package fails to load is shown as
    unavailable with the reason logged, instead of taking the whole app down."""
    try:
        return load_ui(game_id), None
    except ImportError as exc:  # a game whose package or library is missing: the other three play on
        log.exception("game %s failed to load", game_id)
        return None, f"{type(exc).__name__}: {exc}"
