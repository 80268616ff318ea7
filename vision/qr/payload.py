"""The text inside a card sticker's QR code, and the check that refuses mistyped or forged ones.

Format (18 characters, all in QR's alphanumeric set, so a version-1 code at level M holds it
with large modules that still read when small or blurred)::

    23K1.F.K5.042.7QXM
    │  │ │ │  │   └─ check: 4 base-32 characters of HMAC-SHA256(deck key, everything before it)
    │  │ │ │  └───── serial: 000-999, unique within the printed deck
    │  │ │ └──────── value: K1 K2 K3 K5 (Knives), D1 D2 D3 (Doves); L1 L2 B1 B2 (Sway)
    │  │ └────────── card type: F Fate, S Sway
    │  └──────────── payload version
    └─────────────── game: 23 Knives

Why an HMAC and not a CRC: at a table, "forged" means a player making a code for a card that was
never printed (a 5-Knives code shown from a phone screen when a Dove card is turned over). Anyone
can compute a CRC, so a CRC only catches mistypes. The HMAC key is made when the deck's stickers
are printed and stays in the tablet's data folder: it is never printed and never sent to a phone,
so without it no one can make a code the tablet accepts (a guess passes 1 time in 2**20, and the
phone server's rate limit and its limit on failed checks keep guessing slow).

What the check does not stop: a genuine card that is *not* in the Curia (one from a player's
hand) carries a genuine code too, and its serial has not been counted, so a scan of it adds a
card that was never turned over. The serial stops only copies of cards already counted. So the
sticker's printed text leaves the check out (:func:`printed`: a hand card cannot be typed in
from across the table), and the phone server counts scans only from phones the narrator allowed
on the tablet, typed codes only while the narrator allows typing, and the tablet shows every
counted card face up so the table compares it with the card turned over.
The cost: stickers only verify with the key they were printed with; lose the key, reprint.
Stickers printed before the check left their text should be reprinted too.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from companion.core.events import BadInput

GAME = "23K"
VERSION = "1"
PREFIX = GAME + VERSION

# Card type letter -> (card type name, {value code: (side, number)}). Values from the rulebook:
# "The Knives range from 1 to 5 Knives on each card (no 4s). The Doves range from 1 to 3 Doves";
# Sway "range from 1 to 2 Laurels or Blood value on each card".
CARD_TYPES = {
    "F": ("fate", {"K1": ("knives", 1), "K2": ("knives", 2), "K3": ("knives", 3),
                   "K5": ("knives", 5), "D1": ("doves", 1), "D2": ("doves", 2),
                   "D3": ("doves", 3)}),
    "S": ("sway", {"L1": ("laurels", 1), "L2": ("laurels", 2), "B1": ("blood", 1),
                   "B2": ("blood", 2)}),
}
# ASCII only: \d alone also matches other scripts' digits ("٠٤٢"), which are no serial and
# cannot be checked (the check is over ASCII text). \Z, not $: no trailing newline either.
_SHAPE = re.compile(r"^23K(\d)\.([A-Z])\.([A-Z]\d)\.(\d{3})\.([A-Z0-9]{4})\Z", re.ASCII)
# Base-32 has no 0, 1 or 8, so a person typing the printed code who reads O as 0, I as 1 or
# B as 8 still gets it right.
_TYPED = str.maketrans({"0": "O", "1": "I", "8": "B"})
CHECK_CHARS = 4
MAX_SERIAL = 999


@dataclass(frozen=True)
class Card:
    """One printed card: ``kind`` "fate"/"sway", ``side`` e.g. "knives", ``value`` e.g. 5."""

    kind: str
    side: str
    value: int
    serial: str

    @property
    def code(self) -> str:  # "K5"
        return self.side[0].upper() + str(self.value)

    @property
    def type_letter(self) -> str:
        return self.kind[0].upper()

    @property
    def label(self) -> str:  # what the sticker prints in plain text: "5 Knives"
        name = self.side.capitalize()
        if self.value == 1 and name in ("Knives", "Doves"):
            name = name[:-1] if name == "Doves" else "Knife"
        return f"{self.value} {name}"

    def command_card(self) -> dict:
        """The ``card`` field of a ``curia_card`` command: {"knives": 5} or {"doves": 2}."""
        return {self.side: self.value}


def _check(key: bytes, body: str) -> str:
    digest = hmac.new(key, body.encode("ascii"), hashlib.sha256).digest()
    return base64.b32encode(digest).decode("ascii")[:CHECK_CHARS]


def encode(card: Card, key: bytes) -> str:
    """The payload string for ``card`` signed with the deck ``key``."""
    type_entry = CARD_TYPES.get(card.type_letter)
    if type_entry is None or card.code not in type_entry[1]:
        raise BadInput(f"no such 23 Knives card: {card.kind} {card.code}")
    if not re.fullmatch(r"[0-9]{3}", card.serial):
        raise BadInput(f"serial must be 3 digits, got {card.serial!r}")
    body = f"{PREFIX}.{card.type_letter}.{card.code}.{card.serial}"
    return f"{body}.{_check(key, body)}"


def parse(text: str, key: bytes) -> Card:
    """The card a payload names; raises :class:`BadInput` (one line) naming what is wrong."""
    if not isinstance(text, str):
        raise BadInput("a card code must be text")
    shown = text if len(text) <= 40 else text[:40] + "..."
    text = text.strip().upper()
    if not text.startswith(GAME):
        raise BadInput(f"not a 23 Knives card code: {shown!r}")
    m = _SHAPE.match(text)
    if not m:
        raise BadInput(f"malformed 23 Knives card code: {shown!r}")
    version, letter, code, serial, check = m.groups()
    if version != VERSION:
        raise BadInput(f"card code version {version} is not supported (this app reads {VERSION})")
    body = text.rsplit(".", 1)[0]
    check = check.translate(_TYPED)
    if not hmac.compare_digest(_check(key, body), check):
        raise BadInput(f"card code check failed (mistyped, or not from this deck's print run): "
                       f"{shown!r}")
    type_entry = CARD_TYPES.get(letter)
    if type_entry is None or code not in type_entry[1]:
        raise BadInput(f"no such 23 Knives card value: {letter}.{code}")
    kind, values = type_entry
    side, value = values[code]
    return Card(kind, side, value, serial)


def printed(card: Card) -> str:
    """The code as the sticker prints it in small type: everything but the check
    (``23K1.F.K5.042``). A damaged sticker's card can be typed from it where the narrator
    allows typing; :func:`parse_printed` checks it against the printed deck."""
    return f"{PREFIX}.{card.type_letter}.{card.code}.{card.serial}"


_PRINTED = re.compile(r"^23K(\d)\.([A-Z])\.([A-Z]\d)\.(\d{3})\Z", re.ASCII)


def parse_printed(text: str, cards: dict[str, Card]) -> Card:
    """The card a typed sticker text names, if the deck ``cards`` (serial -> card, from
    :func:`deck_cards`) printed that card under that serial; :class:`BadInput` otherwise."""
    if not isinstance(text, str):
        raise BadInput("a card code must be text")
    m = _PRINTED.match(text.strip().upper())
    if not m:
        raise BadInput("malformed typed card code (expected the small type under the code, "
                       "like 23K1.F.K5.042)")
    version, letter, code, serial = m.groups()
    card = cards.get(serial)
    if version != VERSION or card is None or card.type_letter != letter or card.code != code:
        raise BadInput("no card of this deck was printed with that code")
    return card


# --- the deck key ------------------------------------------------------------------------------

def new_key() -> bytes:
    return secrets.token_bytes(16)


def default_key_path() -> Path:
    """The deck key lives in the app's data folder (the same one as the journal)."""
    from companion.core.journal import default_data_dir
    return default_data_dir() / "23-knives.deck-key"


def load_key(path: str | os.PathLike) -> bytes:
    """Read a deck key file (32 hex digits); raises BadInput naming the file if it is bad."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise BadInput(f"deck key file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read deck key file {p}: {exc}") from None
    try:
        key = bytes.fromhex(raw)
    except ValueError:
        raise BadInput(f"deck key file {p} does not hold hex digits") from None
    if len(key) < 16:
        raise BadInput(f"deck key in {p} is too short ({len(key)} bytes, need 16)")
    return key


def check_writable(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path, or BadInput naming it when no file can be written there: it is a
    folder, or a file stands where one of its folders should be. Missing folders are fine (the
    writers here make them); what only the write can tell (no permission, /proc) is its own
    error then. Checks only: nothing is written."""
    p = Path(path)
    if p.is_dir():
        raise BadInput(f"{what} {p} is a folder, not a file")
    for folder in p.parents:
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                raise BadInput(f"{what} {p}: {folder} is not a folder")
            break
    return p


def load_or_create_key(path: str | os.PathLike) -> bytes:
    """The key of an existing print run, or a new one written (owner-only) for a new run."""
    p = Path(path)
    if p.exists():
        return load_key(p)
    check_writable(p, "deck key file")
    key = new_key()
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise BadInput(f"cannot write deck key file {p}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key.hex() + "\n")
    return key


# --- the deck composition ----------------------------------------------------------------------

DEFAULT_DECK = Path(__file__).with_name("decks") / "23-knives.json"


def load_deck(path: str | os.PathLike = DEFAULT_DECK) -> dict:
    """Counts per card value, e.g. {"fate": {"K1": 14, ...}, "sway": {...}}; validated."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"deck file not found: {p}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(f"deck file {p} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadInput(f"deck file {p}: expected an object with \"fate\" and \"sway\" counts")
    unknown = [k for k in data if not k.startswith("_") and k not in
               {kind for kind, _ in CARD_TYPES.values()}]
    if unknown:
        raise BadInput(f"deck file {p}: unknown card type {unknown[0]!r} (known: fate, sway)")
    deck = {}
    for letter, (kind, values) in CARD_TYPES.items():
        counts = data.get(kind, {})
        if not isinstance(counts, dict):
            raise BadInput(f"deck file {p}: \"{kind}\" must map card values to counts")
        for code, n in counts.items():
            if code not in values:
                raise BadInput(f"deck file {p}: {kind} has no value {code!r} "
                               f"(known: {', '.join(values)})")
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise BadInput(f"deck file {p}: count for {kind} {code} must be a whole number "
                               f">= 0, got {n!r}")
        deck[kind] = {code: counts.get(code, 0) for code in values}
    total = sum(sum(c.values()) for c in deck.values())
    if total > MAX_SERIAL + 1:
        raise BadInput(f"deck file {p}: {total} cards is more than the {MAX_SERIAL + 1} serials")
    return deck


def deck_cards(deck: dict, kinds: tuple[str, ...] = ("fate",)) -> list[Card]:
    """Every card of the chosen kinds, with serials numbered from 001 across the whole deck.

    Serials are assigned over all kinds in a fixed order (fate then sway) whether or not a kind
    is printed, so printing the Sway stickers later never reuses a Fate serial.
    """
    cards, serial = [], 0
    for letter, (kind, values) in CARD_TYPES.items():
        for code, (side, value) in values.items():
            for _ in range(deck.get(kind, {}).get(code, 0)):
                serial += 1
                if kind in kinds:
                    cards.append(Card(kind, side, value, f"{serial:03d}"))
    return cards
