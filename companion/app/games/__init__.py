"""The games the app offers, in picker order. A game whose UI package is not there yet is shown
greyed out instead of failing the app."""
from __future__ import annotations

import importlib
import logging

log = logging.getLogger(__name__)

GAMES = ("knives23", "masks", "sevenknights", "cicero")
TITLES = {  # catalogue keys, so the picker can name a game even before its package loads
    "knives23": "game.knives23", "masks": "game.masks",
    "sevenknights": "game.sevenknights", "cicero": "game.cicero",
}


def title(game_id: str) -> str:
    """The game's name in the table's language (its id, for a game this version does not know)."""
    from companion.core.i18n import tr
    return tr(TITLES[game_id]) if game_id in TITLES else game_id


def load_ui(game_id: str):
    """The game's GameUI, or None if its UI package is not available."""
    try:
        module = importlib.import_module(f"companion.app.games.{game_id}")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith(f"companion.app.games.{game_id}"):
            return None
        raise
    return getattr(module, "UI", None)


def describe(game_id: str):
    """(GameUI or None, error text or None) — a game whose package fails to load is shown as
    unavailable with the reason logged, instead of taking the whole app down."""
    try:
        return load_ui(game_id), None
    except Exception as exc:  # a broken game package must not stop the other three
        log.exception("game %s failed to load", game_id)
        return None, f"{type(exc).__name__}: {exc}"
