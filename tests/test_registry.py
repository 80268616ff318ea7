"""One list of games: the referee, the app's picker and the app's loader read
``companion.games.GAMES``; the app makes a new GameUI for each game attached (no per-game state
left in a module-level object)."""
from __future__ import annotations

import pytest

from companion import games, referee
from companion.app import games as app_games


def test_one_registry():
    assert referee.GAMES is games.GAMES and app_games.GAMES is games.GAMES
    assert set(app_games.TITLES) == set(games.GAMES)


@pytest.mark.parametrize("game_id", games.GAMES)
def test_each_game_attached_gets_its_own_ui(game_id):
    first, second = app_games.load_ui(game_id), app_games.load_ui(game_id)
    assert first is not None and second is not None and first is not second
    assert first.game_id == game_id == first.rules.game_id
    assert referee.questions(game_id)   # and the referee knows it too


def test_a_game_this_version_does_not_know_is_not_loaded():
    assert app_games.load_ui("chess") is None
    assert app_games.describe("chess") == (None, None)
