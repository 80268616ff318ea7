"""Phone scans against the real 23 Knives rules and a real SQLite journal: the server's threads
hand scans to the main thread through CuriaBridge; the journal, not the server, holds the total.
"Reveal the cards slowly—one at a time—while adding and subtracting the total of Knives and
Doves" (23 Knives, End of the Game)."""
import threading

import pytest

from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.knives23 import demo
from companion.games.knives23.rules import Knives23Rules, running_total
from companion.phone.bridge import CuriaBridge
from companion.phone.server import PhoneServer, RateLimiter
from vision.qr import payload
from vision.qr.payload import Card

from .test_phone_server import Phone


@pytest.fixture
def curia_session(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite")
    session = GameSession.start(journal, Knives23Rules(), demo.SETUP)
    for cmd in demo.commands():
        session.execute(cmd)
        if cmd.kind == "abilities_done":
            break  # the Dagger is in the Curia; its Fate cards wait to be revealed
    yield journal, session
    journal.close() if hasattr(journal, "close") else None


def _run_phone(server, key, plan, answers):
    p = Phone(server).join_allowed()
    for side, value, serial in plan:
        kind = "fate" if side in ("knives", "doves") else "sway"
        _, _, reply = p.scan(payload.encode(Card(kind, side, value, serial), key))
        answers.append(reply)


def test_phone_scans_are_journalled_by_the_rules_and_counted_once(curia_session, key):
    journal, session = curia_session
    bridge = CuriaBridge(session)
    server = PhoneServer(bridge.submit, key, status=bridge.status, host="127.0.0.1",
                         rate=RateLimiter(burst=500, per_second=100)).start()
    plan = [("knives", 5, "041"), ("knives", 3, "030"), ("knives", 5, "041"),   # a duplicate
            ("doves", 2, "070"), ("blood", 1, "120"),                           # a Sway card
            ("knives", 1, "001")]
    answers = []
    try:
        t = threading.Thread(target=_run_phone, args=(server, key, plan, answers))
        t.start()
        while t.is_alive():  # the test's main thread plays Kivy's Clock
            bridge.drain()
            t.join(0.01)
        bridge.drain()
    finally:
        server.stop()
    statuses = [r["answers"][0]["status"] for r in answers]
    assert statuses == ["counted", "counted", "duplicate", "counted", "not_fate", "counted"]
    assert [r["total"] for r in answers] == [5, 8, 8, 6, 6, 7]
    assert answers[-1]["count"] == 4
    # the journal holds the truth, with where each card came from
    revealed = [e for e in journal.events(session.game_id) if e.kind == "curia_card_revealed"]
    assert [(e.data["card"], e.data["serial"], e.data["total"]) for e in revealed] == [
        ({"knives": 5}, "041", 5), ({"knives": 3}, "030", 8), ({"doves": 2}, "070", 6),
        ({"knives": 1}, "001", 7)]
    assert all(e.source.startswith("phone:") for e in revealed)
    resumed = GameSession.resume(journal, session.game_id, Knives23Rules())
    assert running_total(resumed.state) == 7


def test_tablet_taps_mix_with_scans_and_the_rules_refuse_a_card_too_many(curia_session, key):
    from companion.core.events import Command
    journal, session = curia_session
    bridge = CuriaBridge(session)
    # on the main thread (a tablet tap), the bridge runs the command directly
    assert bridge.submit(Command("curia_card", {"card": {"knives": 2}}))["status"] == "counted"
    n = session.state.curia_count
    server = PhoneServer(bridge.submit, key, status=bridge.status, host="127.0.0.1",
                         rate=RateLimiter(burst=500, per_second=100)).start()
    plan = [("doves", 1, f"{60 + i:03d}") for i in range(n)]  # one more than the Curia holds
    answers = []
    try:
        t = threading.Thread(target=_run_phone, args=(server, key, plan, answers))
        t.start()
        while t.is_alive():
            bridge.drain()
            t.join(0.01)
    finally:
        server.stop()
    assert [r["answers"][0]["status"] for r in answers] == ["counted"] * (n - 1) + ["refused"]
    last = answers[-1]["answers"][0]
    # once every Curia card is revealed the table moves on, and the rules say so
    assert last["error"].startswith("Not now") and "\n" not in last["error"]
    assert answers[-1]["total"] == 2 - (n - 1)
    assert running_total(session.state) == 2 - (n - 1)


def test_a_busy_tablet_times_out_and_the_retry_is_answered_for_real(curia_session, key):
    journal, session = curia_session
    bridge = CuriaBridge(session, timeout=0.2)
    server = PhoneServer(bridge.submit, key, host="127.0.0.1",
                         rate=RateLimiter(burst=500, per_second=100)).start()
    try:
        p = Phone(server).join_allowed()
        text = payload.encode(Card("fate", "knives", 3, "031"), key)
        _, _, first = p.scan(text, scan_id="x1")  # nobody drains: the main thread is busy
        assert first["answers"][0]["status"] == "refused" and first["answers"][0]["retry"]
        assert running_total(session.state) == 0
        answers = []
        t = threading.Thread(target=lambda: answers.append(p.scan(text, scan_id="x1")[2]))
        t.start()
        while t.is_alive():
            bridge.drain()
            t.join(0.01)
        assert answers[0]["answers"][0]["status"] == "counted" and answers[0]["total"] == 3
    finally:
        server.stop()
