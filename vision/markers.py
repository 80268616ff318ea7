"""The marker plan: which printed ArUco marker stands for which seat and which face.

Family: OpenCV's ``DICT_5X5_1000``. 5×5 bits (7×7 cells with the black border) keep the cells big
enough for a webcam over a whole table; a 6×6 family would allow more distance but halves the pixels
per cell. From its 1000 markers we use 88, picked (greedily, rotations included) to be far apart:

- 16 *token* markers, two per seat: the two sides of a player's voting token. Any two of them
  differ in at least 9 of 25 bits in every rotation, so a misread can turn neither a side into the
  other side nor one player's token into another's without 9 wrong bits.
- 72 *pick* markers, nine per seat: one face per choice for "pick a player" votes (players 1..8 and
  "center", the Bystanders of Royals and Martyr Masks). Any two of all 88 differ in at least 7 bits.

The detector only corrects up to ``CORRECTION_BITS`` bits (see :func:`detection_dictionary`), so
a wrong reading needs at least 9 − 2 = 7 (tokens) or 7 − 2 = 5 (picks) bits read wrong in one frame,
and then the stabiliser still wants the same reading over several frames.

23 Knives' one Voting token serves two votes. The rulebook names the sides only for the Vote to
Exile ("using the Exile side ... using the Remain side"); for the Issue Vote it only says each player
votes "using their Voting token" for the Issue on red or on grey. We print the Issue colour beside
each side's name — Exile side = red Issue, Remain side = grey Issue — so the table agrees on it
before the first Issue Vote, and a binary vote's option 0 is always the Exile side (red) and option
1 the Remain side (grey).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

MAX_SEATS = 8
FAMILY = "DICT_5X5_1000"
MARKER_BITS = 5
# Bits the detector may correct. The token markers are ≥9 apart and all markers ≥7 apart, so 2
# corrected bits still leave every marker's correction zone far from every other marker's.
CORRECTION_BITS = 2

# The two sides of the voting token. Option index = position here (the vote engine maps the
# index to the vote's own options: ("exile", "remain") or ("red", "grey")).
TOKEN_SIDES = ("exile", "remain")
ISSUE_COLOUR = {"exile": "red", "remain": "grey"}
CENTER = "center"
# Pick faces: "player1".."player8", then "center".
PICK_FACES = tuple(f"player{n}" for n in range(1, MAX_SEATS + 1)) + (CENTER,)

# Seat colours as printed on the sheet (the games give each seat a colour; the table may map its
# own colours to seat numbers — the number is what the marker carries).
SEAT_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "white", "black")
SEAT_RGB = {
    "red": (200, 30, 40), "blue": (30, 80, 200), "green": (30, 150, 60), "yellow": (235, 200, 20),
    "purple": (120, 50, 160), "orange": (240, 130, 20), "white": (235, 235, 235), "black": (25, 25, 25),
}

# Ids in DICT_5X5_1000, chosen once by a greedy max-min search over the whole family (rotations
# included): the 16 token ids first (best start of all 1000), then 72 pick ids kept ≥ 7 bits from
# everything chosen. tests/vision/test_tokens_markers.py checks the distances stated below.
# TOKEN_IDS[seat-1] = (exile id, remain id).
TOKEN_IDS = (
    (3, 310), (599, 940), (463, 825), (886, 381),
    (401, 491), (99, 807), (887, 20), (31, 82),
)
_PICK_POOL = (
    0, 497, 74, 449, 746, 914, 2, 5, 77, 84, 90, 95, 199, 232, 398, 419, 603, 17, 121, 164, 295,
    390, 619, 877, 941, 76, 363, 9, 34, 66, 89, 109, 128, 133, 134, 172, 202, 376, 439, 503, 549,
    728, 817, 874, 953, 1, 7, 28, 38, 41, 48, 61, 80, 98, 113, 114, 116, 122, 152, 154, 169, 179,
    180, 181, 184, 186, 187, 190, 194, 195, 245, 263,
)
# PICK_IDS[seat-1][k] is seat's face PICK_FACES[k].
PICK_IDS = tuple(_PICK_POOL[s * len(PICK_FACES):(s + 1) * len(PICK_FACES)] for s in range(MAX_SEATS))
TOKEN_MIN_DISTANCE = 9
ALL_MIN_DISTANCE = 7


@dataclass(frozen=True)
class Face:
    """One printed marker: whose it is and what it says."""

    seat: int  # 1-based
    face: str  # "exile", "remain", "player3", "center"
    marker_id: int  # id in DICT_5X5_1000

    @property
    def kind(self) -> str:
        return "token" if self.face in TOKEN_SIDES else "pick"

    @property
    def colour(self) -> str:
        return SEAT_COLOURS[self.seat - 1]

    def label(self) -> str:
        """The human-readable words printed under the marker."""
        if self.face in TOKEN_SIDES:
            return f"{self.face.upper()} side  ({ISSUE_COLOUR[self.face]} Issue)"
        if self.face == CENTER:
            return "votes CENTER"
        return f"votes for PLAYER {int(self.face[6:])}"


def faces_for(players: int, kind: str = "all") -> list[Face]:
    """The markers a table of ``players`` uses: kind "token", "pick" or "all"."""
    check_players(players)
    if kind not in ("token", "pick", "all"):
        raise ValueError(f"marker kind {kind!r} is not token, pick or all")
    out: list[Face] = []
    for seat in range(1, players + 1):
        if kind in ("token", "all"):
            out += [Face(seat, side, TOKEN_IDS[seat - 1][i]) for i, side in enumerate(TOKEN_SIDES)]
        if kind in ("pick", "all"):
            # A pick set names only players at this table, plus the center.
            for k, face in enumerate(PICK_FACES):
                if face == CENTER or int(face[6:]) <= players:
                    out.append(Face(seat, face, PICK_IDS[seat - 1][k]))
    return out


def check_players(players: object) -> int:
    if not isinstance(players, int) or isinstance(players, bool) or not 1 <= players <= MAX_SEATS:
        raise ValueError(f"players must be a whole number from 1 to {MAX_SEATS}, not {players!r}")
    return players


@lru_cache(maxsize=None)
def all_faces() -> dict[int, Face]:
    """Every marker of the plan (8 seats), by id."""
    return {f.marker_id: f for f in faces_for(MAX_SEATS, "all")}


@lru_cache(maxsize=1)
def family() -> "cv2.aruco.Dictionary":
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, FAMILY))


def marker_bits(marker_id: int) -> np.ndarray:
    """The 5×5 bit grid of a DICT_5X5_1000 marker (1 = white)."""
    d = family()
    return cv2.aruco.Dictionary.getBitsFromByteList(d.bytesList[marker_id:marker_id + 1], MARKER_BITS).reshape(MARKER_BITS, MARKER_BITS)


def distance(a: int, b: int) -> int:
    """Fewest differing bits between two markers over the four rotations."""
    ba, bb = marker_bits(a), marker_bits(b)
    return min(int((ba != np.rot90(bb, k)).sum()) for k in range(4))


@lru_cache(maxsize=None)
def detection_dictionary(marker_ids: tuple[int, ...]) -> "cv2.aruco.Dictionary":
    """A dictionary holding only ``marker_ids`` (its index i is marker_ids[i]).

    Detecting against only the markers in play means a marker that is not ours can never be
    "corrected" into one of ours."""
    d = family()
    rows = np.stack([d.bytesList[i] for i in marker_ids])
    return cv2.aruco.Dictionary(rows, MARKER_BITS, CORRECTION_BITS)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """The marker (black border included, no white margin) as a grey image ``side_px`` square."""
    return cv2.aruco.generateImageMarker(family(), marker_id, side_px, borderBits=1)
