"""Random playthroughs of every game through its command table (tests/games/random_play.py)."""
from __future__ import annotations

import os
import random

import pytest

from .random_play import play

P8 = ["Ada", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal"]


def masks_setup(rng: random.Random) -> dict:
    return {"players": P8[:5]}


def sevenknights_setup(rng: random.Random) -> dict:
    mode = rng.choice(["basic", "basic", "advanced", "unity", "groping"])
    from companion.games.sevenknights.tables import MODES
    m = MODES[mode]
    n = rng.randint(m.min_players, m.max_players)
    return {"players": P8[:n], "mode": mode, "first": rng.choice(P8[:n])}


def cicero_setup(rng: random.Random) -> dict:
    n = rng.randint(2, 5)
    players = P8[:n]
    ages = dict(zip(players, rng.sample(range(12, 80), n)))
    return {"players": players, "ages": ages, "options": {"economy": rng.random() < 0.5}}


def knives23_setup(rng: random.Random) -> dict:
    n = rng.randint(3, 8)
    return {"players": P8[:n], "start_player": rng.choice(P8[:n]), "quid_pro_quo": rng.random() < 0.3,
            "variant": rng.choice(["standard", "all-or-nothing"])}


GAMES = {
    "knives23": ("companion.games.knives23.rules", "Knives23Rules", knives23_setup),
    "cicero": ("companion.games.cicero.rules", "CiceroRules", cicero_setup),
    "sevenknights": ("companion.games.sevenknights.rules", "SevenKnightsRules", sevenknights_setup),
    "masks": ("companion.games.masks.rules", "MasksRules", masks_setup),
}


SIDE = {"cicero": frozenset({"economy", "adjust_prestige", "correct_senate_votes", "correct_caste_cards",
                             "correct_guild_card"}),
        "knives23": frozenset({"correct_forum", "correct_dagger", "correct_curia", "discard_forum",
                               "sabinus_dove", "servilia_swap", "correct_location", "correct_turn",
                               "correct_tribune", "ability_sway"}),
        "masks": frozenset({"correct_pointing"}),
        "sevenknights": frozenset({"correct_arrow"})}


# The tracked economy ignores a Caste or a player where the item has none (the Legions).
IGNORED = {"cicero": frozenset({("economy", "caste"), ("economy", "player")})}


def _rules(game):
    import importlib
    module, cls, setup = GAMES[game]
    return getattr(importlib.import_module(module), cls)(), setup


# Commands per quick playthrough: 750, and 1000 for 23 Knives (its walk, with ability_sway and a
# tap that names a scanned card, reached no game's end in 750 with seed 1; 1000 reaches one).
QUICK_COMMANDS = {"knives23": 1000}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_random_play(game, tmp_path):
    rules, setup = _rules(game)
    tally = play(rules, setup, 1, QUICK_COMMANDS.get(game, 750), tmp_path / f"{game}.sqlite", side=SIDE.get(game, frozenset()),
                 ignored=IGNORED.get(game, frozenset()))
    assert tally.legal > 400 and tally.illegal_refused > 50 and tally.wrong_type > 15
    assert tally.replays >= 5 and tally.games >= 1
    # the walk reaches the games' ends, and uses most of the vocabulary
    assert tally.finished >= 1, tally
    assert len(tally.commands) >= len(list(rules.commands)) * 0.6, sorted(tally.commands)


# Commands per long playthrough: 2000 for every game. (Cicero played 1200 for a while: its
# commands cost twice the others' until refusal texts were built only when read.)
LONG_COMMANDS: dict[str, int] = {}


def _long_seeds() -> range:
    """One seed of 2000 commands per game by default; RANDOM_PLAY_SCALE=5 plays five seeds,
    larger values more."""
    raw = os.environ.get("RANDOM_PLAY_SCALE", "1")
    try:
        scale = float(raw)
    except ValueError:
        raise pytest.UsageError(f"RANDOM_PLAY_SCALE must be a number, got {raw!r}") from None
    return range(3, 3 + max(1, round(scale)))


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_random_play_long(game, tmp_path):
    rules, setup = _rules(game)
    for seed in _long_seeds():
        play(rules, setup, seed, LONG_COMMANDS.get(game, 2000), tmp_path / f"{game}-{seed}.sqlite",
             side=SIDE.get(game, frozenset()), ignored=IGNORED.get(game, frozenset()))
