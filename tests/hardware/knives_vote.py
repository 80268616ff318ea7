"""What the box tests of a real game share: a 23 Knives game played (its demo table) up to its
Vote to Exile, and a data folder whose boxes.json pairs boxes to seats. No Kivy here: the
processes without a window import it too."""
from __future__ import annotations

import json
from pathlib import Path

from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.knives23 import demo
from companion.games.knives23.rules import Knives23Rules


def to_the_vote(execute) -> None:
    """Sends the demo's commands to ``execute`` (a session's, or the app's send_command) until
    its first ballot: the Vote to Exile is then open."""
    for cmd in demo.commands():
        if cmd.kind == "cast_ballot":
            return
        execute(cmd)


def session_in_the_vote(journal_path) -> tuple[GameSession, Journal]:
    """A new 23 Knives game in the journal at ``journal_path``, in its Vote to Exile."""
    journal = Journal(journal_path)
    session = GameSession.start(journal, Knives23Rules(), dict(demo.SETUP))
    to_the_vote(session.execute)
    return session, journal


def pair_boxes(folder, *idents: str) -> Path:
    """``folder``/boxes.json pairing box ``idents[i]`` (keypad 0) to seat i + 1; the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "boxes.json").write_text(json.dumps({"version": 1, "seats": [
        {"box": ident, "keypad": 0, "seat": seat} for seat, ident in enumerate(idents, 1)]}))
    return folder
