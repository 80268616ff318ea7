"""Issue 30: every game package has the same modules, and the same names in them, so a newcomer who
read one game can read them all (docs/architecture.md, "The game shape")."""
from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from companion.core.commands import CommandTable
from companion.core.houserules import HouseRule
from companion.core.rules import GameRules
from companion.games import GAMES

ROOT = Path(__file__).resolve().parents[2]
SHAPE = ("__init__", "state", "setup", "rules", "evolve", "view", "commands", "cues", "referee")
GAME_IDS = sorted(GAMES)


def test_the_four_games_are_checked():
    assert GAME_IDS == ["cicero", "knives23", "masks", "sevenknights"]


@pytest.mark.parametrize("game", GAME_IDS)
def test_every_game_has_the_common_modules(game):
    folder = ROOT / "companion" / "games" / game
    missing = [m for m in SHAPE if not (folder / f"{m}.py").is_file()]
    assert not missing, f"{game} lacks {missing}"
    assert (folder / "scripts").is_dir()
    assert not (folder / "phases.py").exists() and not (folder / "narration.py").exists() or game == "masks", \
        "the phases live in state.py, the narrator's cues in cues.py"


@pytest.mark.parametrize("game", GAME_IDS)
def test_each_module_holds_what_its_name_says(game):
    pkg = f"companion.games.{game}"
    setup, evolve, view = (importlib.import_module(f"{pkg}.{m}") for m in ("setup", "evolve", "view"))
    commands, rules = importlib.import_module(f"{pkg}.commands"), importlib.import_module(f"{pkg}.rules")
    assert callable(setup.initial_state) and callable(evolve.evolve) and callable(view.view)
    assert all(isinstance(h, HouseRule) for h in setup.HOUSE_RULES)
    assert isinstance(commands.COMMANDS, CommandTable)
    [cls] = [c for _, c in inspect.getmembers(rules, inspect.isclass)
             if issubclass(c, GameRules) and c is not GameRules and c.__module__ == rules.__name__]
    assert cls.commands is commands.COMMANDS and cls.house_rules == setup.HOUSE_RULES
    assert cls.rules_version == importlib.import_module(pkg).RULES_VERSION


@pytest.mark.parametrize("game", GAME_IDS)
def test_every_handler_has_the_one_signature(game):
    """handler(rules, state, data, command): a method _do_<command>(self, state, data, command)."""
    table = importlib.import_module(f"companion.games.{game}.commands").COMMANDS
    for spec in table:
        params = list(inspect.signature(spec.handler).parameters)
        assert params == ["self", "state", "data", "command"], (spec.name, params)
        assert spec.handler.__name__ == f"_do_{spec.name}", spec.name
