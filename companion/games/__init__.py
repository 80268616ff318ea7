"""One package per game: rules as data plus pure functions. No Kivy.

``GAMES`` is the one list of the games this version knows, in the picker's order: the referee,
the app's picker and the app's game loader all read it.
"""
from __future__ import annotations

GAMES: tuple[str, ...] = ("knives23", "masks", "sevenknights", "cicero")
# Catalogue keys of the games' names, so the picker can name a game before its package loads.
TITLES: dict[str, str] = {game: f"game.{game}" for game in GAMES}
