"""Fixtures for the QR sticker and phone tests: a deck key, the deck, generated card photos,
and an honest stand-in for the app's ``submit`` callback."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from companion.core.events import BadInput, Command
from vision.qr import payload

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "qr"
PHONE_ARTIFACTS = ARTIFACTS.parent / "phone"   # screenshots of the phone page


class CuriaStandIn:
    """What the 23 Knives rules will do with ``curia_card`` commands, kept small and real:

    "One at a time, reveal the Fate cards from the Curia, calculating the total by adding
    Knives and subtracting Doves." A serial already counted is a duplicate and changes nothing.
    """

    VALUES = {"knives": {1, 2, 3, 5}, "doves": {1, 2, 3}}

    def __init__(self):
        self.lock = threading.Lock()
        self.counted: dict[str, dict] = {}
        self.total = 0
        self.commands: list[Command] = []

    def submit(self, cmd: Command) -> dict:
        with self.lock:
            self.commands.append(cmd)
            if cmd.kind != "curia_card":
                raise BadInput(f"not a Curia card command: {cmd.kind}")
            card, serial = cmd.data.get("card"), cmd.data.get("serial")
            if not isinstance(card, dict) or len(card) != 1:
                raise BadInput("a Curia card is {'knives': n} or {'doves': n}")
            (side, n), = card.items()
            if n not in self.VALUES.get(side, ()):
                raise BadInput(f"no Fate card has {n} {side}")
            if serial in self.counted:
                return {"status": "duplicate", "total": self.total, "count": len(self.counted)}
            self.counted[serial] = dict(card)
            self.total += n if side == "knives" else -n
            return {"status": "counted", "total": self.total, "count": len(self.counted)}

    def status(self) -> dict:
        with self.lock:
            return {"total": self.total, "count": len(self.counted)}


@pytest.fixture(scope="session")
def key() -> bytes:
    return bytes(range(16))


@pytest.fixture(scope="session")
def deck_cards():
    return payload.deck_cards(payload.load_deck(), kinds=("fate", "sway"))


@pytest.fixture(scope="session")
def fate_cards(deck_cards):
    return [c for c in deck_cards if c.kind == "fate"]


@pytest.fixture
def curia() -> CuriaStandIn:
    return CuriaStandIn()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def phone_artifacts() -> Path:
    PHONE_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return PHONE_ARTIFACTS
