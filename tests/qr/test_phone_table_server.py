"""Issue 32, the table on every player's phone, at the real server: a seat's phone long-polls
``GET /table?v=N`` for its view (:mod:`companion.phone.table`); the tablet publishes.

- answered at once when the view is newer than ``N``, else as soon as it changes;
- only a seat's phone has a table view (others: 403), with a version of digits only (else 400);
- one waiting poll per phone token: a newer one ends the older, so a page cannot pile them up;
- a waiting poll does not starve a new phone: when every connection slot is taken, the new
  phone's connection takes the slot of a waiting poll (which the page asks again), where a
  request being answered would have kept it and the new phone would have been shut out;
- a view published with nothing changed wakes no phone (the eyes-closed page stays as it is).
"""
from __future__ import annotations

import http.client
import json
import re
import threading
import time

import pytest

from companion.phone.httpd import CappedServer
from companion.phone.server import PhoneServer, RateLimiter


@pytest.fixture
def server():
    s = PhoneServer(lambda cmd: {"status": "counted", "total": 0, "count": 0}, bytes(16),
                    host="127.0.0.1", rate=RateLimiter(burst=10_000, per_second=1_000),
                    decoder=lambda data: []).start()
    yield s
    s.stop()


def get(server, path, cookie="", address="127.0.0.1", timeout=30.0):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout,
                                      source_address=(address, 0))
    try:
        conn.request("GET", path, headers={"Cookie": cookie})
        res = conn.getresponse()
        return res.status, res.getheader("Set-Cookie") or "", res.read()
    finally:
        conn.close()


def seat(server, player, address="127.0.0.1") -> str:
    status, cookie, _ = get(server, re.sub(r"^http://[^/]+", "", server.seat_url(player)),
                            address=address)
    assert status == 303, status
    return cookie.split(";", 1)[0]


def poll(server, cookie, version, address="127.0.0.1"):
    status, _, body = get(server, f"/table?v={version}", cookie, address)
    return status, json.loads(body)


def in_thread(fn):
    box = {}
    t = threading.Thread(target=lambda: box.update(value=fn()), daemon=True)
    t.start()
    return t, box


def test_a_seat_phone_gets_its_view_at_once_then_when_it_changes(server):
    bo = seat(server, "Bo")
    server.table.publish({("Bo", "en"): {"board": [["Round", "1"]]}})
    status, first = poll(server, bo, 0)
    assert status == 200 and first["table"] == {"board": [["Round", "1"]]} and first["version"] > 0
    t, box = in_thread(lambda: poll(server, bo, first["version"]))
    time.sleep(0.5)
    assert t.is_alive(), "a poll with the current version waits for news"
    server.table.publish({("Bo", "en"): {"board": [["Round", "1"]]}})   # nothing changed
    time.sleep(0.7)
    assert t.is_alive(), "the same view again woke the phone"
    start = time.monotonic()
    server.table.publish({("Bo", "en"): {"board": [["Round", "2"]]}})
    t.join(10)
    waited = time.monotonic() - start
    status, second = box["value"]
    assert status == 200 and second["table"] == {"board": [["Round", "2"]]}
    assert second["version"] > first["version"] and waited < 10


def test_only_a_seat_phone_polls_and_the_version_is_digits(server):
    status, cookie, _ = get(server, f"/join?k={server.secret}")
    joined = cookie.split(";", 1)[0]
    assert get(server, "/table?v=0", joined)[0] == 403
    assert get(server, "/table?v=0")[0] == 403
    bo = seat(server, "Bo")
    for bad in ("-1", "1e3", "x", "1" * 13, "%C2%B2"):
        status, _, body = get(server, f"/table?v={bad}", bo)
        assert status == 400 and b"version" in body, (bad, body)


def test_a_newer_poll_of_the_same_phone_ends_the_older(server):
    bo = seat(server, "Bo")
    server.table.publish({("Bo", "en"): {"n": 1}})
    version = poll(server, bo, 0)[1]["version"]
    t, box = in_thread(lambda: poll(server, bo, version))
    time.sleep(0.5)
    assert t.is_alive()
    t2, box2 = in_thread(lambda: poll(server, bo, version))
    t.join(5)
    assert not t.is_alive(), "the older poll still holds its connection"
    assert box["value"] == (200, {**box["value"][1], "version": version})
    assert t2.is_alive()
    server.table.publish({("Bo", "en"): {"n": 2}})
    t2.join(5)
    assert box2["value"][1]["table"] == {"n": 2}


def test_waiting_polls_do_not_starve_a_new_phone(server, monkeypatch):
    # four slots on this server, all held by seated phones' waiting polls (four devices)
    monkeypatch.setattr(CappedServer, "MAX_CONNECTIONS", 4)
    players = ["Ann", "Bo", "Cy", "Di"]
    cookies = {p: seat(server, p, f"127.0.0.{40 + i}") for i, p in enumerate(players)}
    server.table.publish({(p, "en"): {"n": 1} for p in players})
    polls = [in_thread(lambda p=p, i=i: _poll_or_drop(server, p, cookies[p], f"127.0.0.{40 + i}"))
             for i, p in enumerate(players)]
    deadline = time.monotonic() + 5
    while sum(c.head is False for c in list(server._httpd._conns.values())) < 4:
        assert time.monotonic() < deadline, "the polls did not all wait"
        time.sleep(0.05)
    # a new phone scans the join code: answered, not shut out
    status, cookie, _ = get(server, f"/join?k={server.secret}", address="127.0.0.50", timeout=5)
    assert status == 303 and cookie.startswith(server.cookie_name)
    deadline = time.monotonic() + 5
    while not any(box.get("value") == "dropped" for _, box in polls):
        assert time.monotonic() < deadline, "no waiting poll gave up its slot"
        time.sleep(0.05)
    server.table.publish({(p, "en"): {"n": 2} for p in players})   # the others get their news
    for t, _ in polls:
        t.join(5)
    shown = [box["value"] for _, box in polls]
    assert shown.count("dropped") == 1, shown
    assert all(v[1]["table"] == {"n": 2} for v in shown if v != "dropped")


def _poll_or_drop(server, player, cookie, address):
    """A poll that waits for a version it already has: "dropped" when its connection is closed
    under it (the page then asks again)."""
    try:
        return poll(server, cookie, server.table.current(player, "en")[0], address)
    except (ConnectionError, http.client.HTTPException):
        return "dropped"
