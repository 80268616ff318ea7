"""Cicero's table data: the Castes, Guilds, zones, board spaces and setup numbers (no logic).

Names are the rulebook's own. Setup numbers are the rulebook's sentences turned into tables.
"""
from __future__ import annotations

# "The 6 Senator Castes are: Oratores, Mercatores, Pontifex, Insidiator, Plebeius and Belligerator."
CASTES = ("Oratores", "Mercatores", "Pontifex", "Insidiator", "Plebeius", "Belligerator")
# "The 6 Guilds are: Artisans, Assassins, Diplomats, Negotiants, Priests and Strategists."
GUILDS = ("Artisans", "Assassins", "Diplomats", "Negotiants", "Priests", "Strategists")

# "The map of Rome is divided into six zones, one for each Caste."
ZONES = {
    "Oratores": "Curia Hostilia",
    "Mercatores": "Emporium",
    "Pontifex": "Temple of Jupiter",
    "Insidiator": "Subure",
    "Plebeius": "Circus Maximus",
    "Belligerator": "Exercitus",
}

# "There are 15 spaces on the main board": 3 Senate spaces and, per zone, a first space (above)
# and a second space (below).
SENATE_SPACES = ("senate_1", "senate_2", "senate_3")
SPACES = SENATE_SPACES + tuple(f"{c}_{n}" for c in CASTES for n in (1, 2))

# "They take their Servants (3 for a 2- or 3-player game, 2 for a 4- or 5-player game)."
SERVANTS = {2: 3, 3: 3, 4: 2, 5: 2}
# "A game lasts 5 rounds with 2, 3 or 4 players, or 4 rounds with 5 players."
ROUNDS = {2: 5, 3: 5, 4: 5, 5: 4}
# "They then place their Family disc on space 10 of the Prestige track of the main board."
PRESTIGE_START = 10
# "The youngest player takes the 12 Senator cards with white backs. They randomly draw a number
# of cards equal to twice the number of players"
WHITE_SENATORS = 12

PRIMUS_PP = 6      # "A Primus card is worth 6 PP"
SECUNDUS_PP = 3    # "a Secundus card is worth only 3 PP."
GUILD_PP = 3       # "3 PP for each card whose power they chose not to use."
TRIBUTE_PP = -10   # "you immediately lose 10 Prestige Points (-10 PP)."

# The third Family of the 2-player game.
AUTOMATII = "Automatii"
AUTOMATII_SERVANTS = 3
AUTOMATII_VOTES = 5  # "the Automatii Family systematically gives 5 votes"

GENERALS = ("Caesar", "Crassus", "Pompey")

# How a player pays Cicero's tribute.
TRIBUTE_WAYS = ("influences", "senator", "prestige")
# What the winner of a Guild card does with it.
GUILD_USES = ("power", "prestige")


def space_caste(space: str) -> str | None:
    """The Caste whose zone holds a space (None for the Senate spaces)."""
    caste, _, _n = space.rpartition("_")
    return caste if caste in CASTES else None
