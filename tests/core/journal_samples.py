"""A real journal of this version for the damage tests: games of all four kinds played through
their rules (a finished 23 Knives game, one left mid-game, a Cicero game at its first ballot, a
Masks game at its vote, a Seven Knights game after its questions), and ways to damage a copy."""
from __future__ import annotations

import random
import shutil
import struct
from pathlib import Path

from companion.core.events import Command
from companion.core.journal import Journal
from companion.core.session import GameSession

MASKS = ["Ann", "Ben", "Cat", "Dan", "Eve"]


def build(path: Path) -> dict[str, int]:
    """Writes the sample journal at ``path``; returns {name: game id}."""
    from companion.games.cicero import demo as cicero_demo
    from companion.games.cicero.rules import CiceroRules
    from companion.games.knives23 import demo as knives
    from companion.games.knives23.rules import Knives23Rules
    from companion.games.masks.rules import MasksRules
    from companion.games.sevenknights.rules import SevenKnightsRules
    journal = Journal(path)
    ids = {}
    s = GameSession.start(journal, Knives23Rules(), knives.SETUP)
    for cmd in knives.commands():
        s.execute(cmd)
    ids["knives_finished"] = s.game_id
    s = GameSession.start(journal, SevenKnightsRules(), {"players": MASKS, "first": "Ann", "mode": "basic"})
    for cmd in [Command("look", {"at": "Ben"}), Command("look", {"at": "Cat"}), Command("look", {"at": "Dan"}),
                Command("look", {"at": "center"}), Command("look", {"at": "Ann"})]:
        s.execute(cmd)
    ids["sevenknights"] = s.game_id
    s = GameSession.start(journal, MasksRules(), {"players": MASKS})
    for cmd in (Command("start_hidden_phase"), Command("end_hidden_phase"),
                Command("use_vanguard", {"player": "Dan"}), Command("end_discussion"),
                Command("cast_ballot", {"voter": "Eve", "choice": "Cat"}, "box:05")):
        s.execute(cmd)
    s.undo()
    ids["masks"] = s.game_id
    players = ["Ann", "Ben", "Cat", "Dan", "Eve"]
    s = GameSession.start(journal, CiceroRules(), {"players": players, "ages": {p: 30 + i for i, p in enumerate(players)}})
    for _ in range(200):
        v = s.view("table")
        if v["phase"] == "ballot":
            break
        cicero_demo.execute_breaking_ties(s.execute, cicero_demo.table_move(v))
    ids["cicero"] = s.game_id
    # the unfinished game the table would resume: the last one, most of the 23 Knives demo
    s = GameSession.start(journal, Knives23Rules(), knives.SETUP)
    commands = knives.commands()
    for cmd in commands[: len(commands) * 2 // 3]:
        s.execute(cmd)
    ids["knives_playing"] = s.game_id
    journal.close()
    return ids


_CACHE: dict[str, tuple[bytes, dict[str, int]]] = {}


def sample(folder: Path) -> dict[str, int]:
    """The sample journal as ``folder/journal.sqlite3`` (built once per process, then copied)."""
    folder.mkdir(parents=True, exist_ok=True)
    if "bytes" not in _CACHE:
        tmp = folder / ".build"
        shutil.rmtree(tmp, ignore_errors=True)
        ids = build(tmp / "journal.sqlite3")
        _CACHE["bytes"] = ((tmp / "journal.sqlite3").read_bytes(), ids)
        shutil.rmtree(tmp)
    data, ids = _CACHE["bytes"]
    (folder / "journal.sqlite3").write_bytes(data)
    return dict(ids)


def damage(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One random damage to a journal's bytes, and its description: a run of random bytes, a
    page of zeros, a page of noise, a few flipped bits, or the file cut short."""
    out = bytearray(data)
    page = 4096
    pages = len(out) // page
    kind = rng.choice(("bytes", "bytes", "bits", "zero_page", "noise_page", "cut"))
    if kind == "bytes":
        at, n = rng.randrange(len(out)), rng.randint(1, 8)
        out[at:at + n] = bytes(rng.randrange(256) for _ in range(n))[: len(out) - at]
        return bytes(out), f"{n} random bytes at {at}"
    if kind == "bits":
        spots = [rng.randrange(len(out)) for _ in range(rng.randint(1, 4))]
        for at in spots:
            out[at] ^= 1 << rng.randrange(8)
        return bytes(out), f"bits flipped at {spots}"
    p = rng.randrange(pages)
    if kind == "zero_page":
        out[p * page:(p + 1) * page] = bytes(page)
        return bytes(out), f"page {p + 1} zeroed"
    if kind == "noise_page":
        out[p * page:(p + 1) * page] = rng.randbytes(page)
        return bytes(out), f"page {p + 1} noise"
    return bytes(out[: p * page + rng.randrange(page)]), f"cut at page {p + 1}"


def _varint(b: bytes, i: int) -> tuple[int, int]:
    v = 0
    for k in range(9):
        v = (v << 7) | (b[i + k] & 0x7F)
        if not b[i + k] & 0x80:
            return v, k + 1
    raise ValueError("not a varint")


def _enc(v: int, n: int | None = None) -> bytes:
    n = n or next(k for k in range(1, 10) if not v >> (7 * k))
    out = [(v >> (7 * (n - 1 - k))) & 0x7F for k in range(n)]
    return bytes([x | 0x80 for x in out[:-1]] + [out[-1]])


def too_big(path: Path) -> int:
    """Damage that makes SQLite say "string or blob too big" (issue 34, 9): the games row stored
    lowest on its page (the newest game's) rewritten to claim a payload of about 1 GB, with a
    setup text of 1,000,000,001 bytes (SQLite's limit is 10^9). Returns that game's id."""
    data = bytearray(path.read_bytes())
    page = 4096  # the games table's root and only page is page 2
    ncell = struct.unpack(">H", data[page + 3:page + 5])[0]
    pointers = [struct.unpack(">H", data[page + 8 + 2 * i:page + 10 + 2 * i])[0] for i in range(ncell)]
    cell = min(pointers)
    at = page + cell
    _size, l1 = _varint(data, at)
    rowid, l2 = _varint(data, at + l1)
    record = at + l1 + l2
    header, lh = _varint(data, record)
    types, q = [], record + lh
    while q < record + header:
        t, n = _varint(data, q)
        types.append(t)
        q += n
    values = bytes(data[record + header:at + 489 + l1 + l2 + 8])
    types[2] = 2 * 1_000_000_001 + 13            # setup: a text of 10^9 + 1 bytes
    body = b"".join(_enc(t) for t in types)
    head = _enc(len(body) + 1) + body
    new = _enc(489 + 4092 * 250000, 5) + _enc(rowid) + head + values   # payload of ~1 GB
    start = cell + (l1 + l2 + header) - (5 + len(_enc(rowid)) + len(head))
    data[page + start:page + start + len(new)] = new
    i = pointers.index(cell)
    data[page + 8 + 2 * i:page + 10 + 2 * i] = struct.pack(">H", start)
    data[page + 5:page + 7] = struct.pack(">H", min(start, struct.unpack(">H", data[page + 5:page + 7])[0]))
    path.write_bytes(bytes(data))
    return rowid
