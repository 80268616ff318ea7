"""Seven Knights Bewitched: the rulebook's setup tables and scoring cards, as data (setup.py
checks a setup and makes the first state from them).

Nothing here knows who holds which tile: the tiles stay face down on the table. The tablet
only tells the table what to prepare, where the tiles go, and keeps the public record.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from companion.core.houserules import HouseRule

KNIGHTS = tuple(range(1, 8))  # the Knight Tiles "1, 2, 3, 4, 5, 6, 7"
WITCH = "witch"
SET_ASIDE = "set_aside"
CENTER = "center"  # the one center tile of a 4- or 5-player game (same word as votes.CENTER)
ROUNDS = 3


@dataclass(frozen=True)
class Mode:
    key: str
    min_players: int
    max_players: int
    # Highest Knight number prepared, by player count (the Knights prepared are 1..that).
    knights: Mapping[int, int]
    witch: bool                  # is the Witch Tile prepared
    witch_dealt: bool            # can a player be dealt the Witch (Groping: only Knights are dealt)
    center: Mapping[int, int]    # face-down tiles in the center, by player count
    searches: tuple[str, ...]    # one entry per Search pass: "player" or "center"
    center_in_player_search: bool  # 4-5 players: "looking at the tile in the center is also allowed"
    rounds: int
    scored: bool
    show_unused_knights: bool    # Basic: "Arrange the remaining Knight Tiles in ascending order"

    def tiles(self, n: int) -> tuple:
        return tuple(range(1, self.knights[n] + 1)) + ((WITCH,) if self.witch else ())

    def centers(self, n: int) -> tuple[str, ...]:
        """Names of the center tiles: "center" when there is one, "center 1".. when several."""
        k = self.center.get(n, 0)
        return (CENTER,) if k == 1 else tuple(f"{CENTER} {i}" for i in range(1, k + 1))

    def set_aside(self, n: int) -> int:
        return len(self.tiles(n)) - n - self.center.get(n, 0)

    def player_cards(self) -> int:
        # One Score card plus one Arrow card per Search pass (Groping: "3 Player Cards
        # (turn two cards arrow side up)").
        return 1 + len(self.searches)


_ALL = {n: 7 for n in range(3, 9)}

MODES: dict[str, Mode] = {
    # Basic Rules "Suspicion and Distrust" (4-8 Players): the table of tiles to prepare.
    "basic": Mode("basic", 4, 8, {4: 4, 5: 5, 6: 5, 7: 6, 8: 7}, True, True, {4: 1, 5: 1},
                  ("player",), True, ROUNDS, True, True),
    # "Groping in the Dark" (3-4): all tiles; only Knights dealt; three in the center, the rest
    # set aside; two Search passes, the second at the center.
    "groping": Mode("groping", 3, 4, _ALL, True, False, {3: 3, 4: 3},
                    ("player", "center"), False, ROUNDS, True, False),
    # Advanced "Challenging Path" (4-7): all tiles shuffled and dealt; 4-5 players put one
    # leftover in the center; the rest are set aside unseen.
    "advanced": Mode("advanced", 4, 7, _ALL, True, True, {4: 1, 5: 1},
                     ("player",), True, ROUNDS, True, False),
    # Tutorial "Unity" (4-7): no Witch; one round; no points.
    "unity": Mode("unity", 4, 7, {4: 5, 5: 6, 6: 6, 7: 7}, False, False, {4: 1, 5: 1},
                  ("player",), True, 1, False, True),
}

# The scoring cards. The rulebook's table only says who scores ("Knight scores, Witch does
# not"); the values come from the cards: 16 Scoring Cards "front 0/2 points, back 0/3 points"
# (8 colours x rounds 1 and 2) and 8 "3rd Round Scoring Cards (front 0/7, back 0/7)".
# Our reading: every player takes a card each round; after a Knights victory everyone takes the
# front (0/2) and the Knights show 2, the Witch team 0; after a Witch victory everyone takes the
# back (0/3) and Witch Myrmamius and every TORIKO show 3, the Knights 0. The 3rd round card is
# 7 on either side: the winning team shows 7. A round nobody wins (no Witch team and the
# formation out of order, FAQ: "All players receive zero points as knights") scores 0 for all.
POINTS: dict[int, dict[str, int]] = {
    1: {"knights": 2, "witch": 3},
    2: {"knights": 2, "witch": 3},
    3: {"knights": 7, "witch": 7},
}
# The other reading of the same cards (a house rule, issue 33): the front is round 1's card and
# the back round 2's, so the winners of round 1 show 2 and those of round 2 show 3, whichever
# team won; the 3rd round is 7 either way.
POINTS_BY_ROUND: dict[int, dict[str, int]] = {
    1: {"knights": 2, "witch": 2},
    2: {"knights": 3, "witch": 3},
    3: {"knights": 7, "witch": 7},
}

# The readings the rulebook leaves open (companion.core.houserules), the app's reading first.
ROUND_POINTS = HouseRule("sevenknights", "round_points", ("by_team", "by_round"))
HOUSE_RULES: tuple[HouseRule, ...] = (ROUND_POINTS,)
# Rounds whose points differ between the readings (where the scoring screen says which applies).
POINTS_READING_DECIDES = frozenset({1, 2})


def round_points(round_no: int, team: str, reading: str = ROUND_POINTS.default) -> int:
    table = POINTS_BY_ROUND if reading == "by_round" else POINTS
    return table[round_no][team]
