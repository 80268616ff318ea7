"""Phones vote: each player joins their own seat with their own code, votes secretly in the
games' votes through the generic vote engine, is told "recorded" and never their ballot, and
phones, boxes and taps mix in one vote. Real rules, real SQLite journal, real server."""
from __future__ import annotations

import json
import threading

from companion.core.events import Command
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.phone.bridge import CuriaBridge
from companion.phone.server import PhoneServer, RateLimiter
from companion.phone.source import in_language

from .test_phone_server import Phone

KNIVES_7 = {"players": ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus"], "start_player": "Ann",
            "kalends": {"spaces": 4, "dagger_start": 2}}


def knives_exile_session(tmp_path):
    """A 7-player 23 Knives game at its first Vote to Exile (Ann calls it on Bo)."""
    from companion.games.knives23 import demo
    from companion.games.knives23.rules import Knives23Rules
    journal = Journal(tmp_path / "journal.sqlite")
    session = GameSession.start(journal, Knives23Rules(), KNIVES_7)
    for cmd in demo.commands():
        if cmd.kind == "cast_ballot":
            break
        session.execute(cmd)
    if session.view("table").get("vote") is None:
        session.execute(Command("start_exile_vote", {}))
    assert session.view("table")["vote"]["voters"] == KNIVES_7["players"]
    return journal, session


def cicero_election_session(tmp_path, players):
    """A Cicero game of ``players`` at its first Princeps election's ballot."""
    from companion.games.cicero import demo
    from companion.games.cicero.rules import CiceroRules
    journal = Journal(tmp_path / "journal.sqlite")
    setup = {"players": players, "ages": {p: 30 + i for i, p in enumerate(players)}}
    session = GameSession.start(journal, CiceroRules(), setup)
    for _ in range(200):
        v = session.view("table")
        if v["phase"] == "ballot":
            return journal, session
        demo.execute_breaking_ties(session.execute, demo.table_move(v))
    raise AssertionError("no election reached")


def serve(session):
    bridge = CuriaBridge(session)
    server = PhoneServer(bridge.submit, bytes(16), status=bridge.status, host="127.0.0.1",
                         rate=RateLimiter(burst=10_000, per_second=1_000),
                         vote=lambda lang: bridge.run(lambda: in_language(lang, lambda: session.view("table").get("vote"))),
                         cast=lambda cmd: bridge.run(lambda: session.execute(cmd)))
    return bridge, server.start()


def on_phones(bridge, fn):
    """Run ``fn`` on a worker thread (the phones) while this thread answers as the tablet's
    main thread does."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001
            box["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    while t.is_alive():
        bridge.drain()
        t.join(0.01)
    if "error" in box:
        raise box["error"]
    return box.get("value")


def ballot(phone, vote_id, option, ballot_id=None):
    body = {"vote_id": vote_id, "option": option}
    if ballot_id:
        body["ballot_id"] = ballot_id
    return phone.request("POST", "/ballot", json.dumps(body).encode(),
                         {"Content-Type": "application/json"})


def test_phones_boxes_and_taps_mix_in_a_knives_exile_vote(tmp_path):
    journal, session = knives_exile_session(tmp_path)
    bridge, server = serve(session)
    players = KNIVES_7["players"]
    try:
        # a box for Flo (seat 6 presses "remain", option 1) and a tap for Gus, before the phones
        session.execute(Command("cast_ballot", {"seat": 6, "option": 1}, source="box:06"))
        session.execute(Command("cast_ballot", {"voter": "Gus", "choice": "exile"}, "tablet"))
        choices = {"Ann": 0, "Bo": 1, "Cy": 0, "Di": 0, "Ed": 1}   # 0 exile, 1 remain

        def phones():
            out = {}
            for name, option in choices.items():
                p = Phone(server)
                status, _, _ = p.request("GET", server.seat_url(name).split(str(server.port), 1)[1])
                assert status == 303
                _, _, st = p.request("GET", "/state")
                vote = st["vote"]
                assert st["seat"] == name and vote["voted"] is False
                assert [o["label"] for o in vote["options"]] == ["Exile", "Remain"]
                status, _, reply = ballot(p, vote["vote_id"], option, ballot_id=f"b-{name}")
                assert (status, reply) == (200, {"status": "recorded"})
                _, _, st = p.request("GET", "/state")
                out[name] = (p, st)
            return out

        got = on_phones(bridge, phones)
    finally:
        server.stop()
    # the last phone's ballot revealed the vote: every ballot, from every source, counted once
    history = session.view("table")["vote_history"][-1]
    assert history["revealed"] and history["ballots"] == {
        "Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile", "Ed": "remain",
        "Flo": "remain", "Gus": "exile"}
    sources = history["sources"]
    assert sources["Flo"] == "box:06" and sources["Gus"] == "tablet"
    assert all(sources[n].startswith("phone:") for n in choices)
    # a phone never got a ballot back, its own or anyone's
    for name, (p, st) in got.items():
        assert not {"ballots", "sources", "counts", "choice"} & set(st)
        assert st["vote"] is None or set(st["vote"]) == {
            "vote_id", "question", "options", "abstain", "weight", "voted"}
    assert got["Ed"][1]["vote"] is None   # revealed: the vote is no longer open to phones
    assert got["Ann"][1]["vote"]["voted"] is True


def test_a_seat_phone_sees_recorded_never_its_ballot_and_the_table_sees_who(tmp_path):
    journal, session = knives_exile_session(tmp_path)
    bridge, server = serve(session)
    try:
        def flow():
            ann = Phone(server)
            ann.request("GET", server.seat_url("Ann").split(str(server.port), 1)[1])
            _, _, st = ann.request("GET", "/state")
            vid = st["vote"]["vote_id"]
            assert ballot(ann, vid, 0)[2] == {"status": "recorded"}
            _, _, after = ann.request("GET", "/state")
            # a second phone cannot take Ann's seat; Ann's phone cannot vote for Bo
            other = Phone(server)
            status, _, page = other.request(
                "GET", server.seat_url("Ann").split(str(server.port), 1)[1])
            status2, _, _ = ann.request("GET", server.seat_url("Bo").split(str(server.port), 1)[1])
            # a phone that joined with the table's join link has no seat
            plain = Phone(server)
            plain.join()
            status3, _, reply3 = ballot(plain, vid, 0)
            return after, status, page, status2, status3, reply3

        after, status, page, status2, status3, reply3 = on_phones(bridge, flow)
        assert after["vote"]["voted"] is True and "choice" not in json.dumps(after)
        assert after["vote"]["options"] and "ballots" not in after["vote"]
        assert status == 409 and b"already has a phone" in page
        assert status2 == 409
        assert status3 == 403 and "no seat" in reply3["error"]
        table = session.view("table")["vote"]
        assert table["voted"] == ["Ann"] and "ballots" not in table
    finally:
        server.stop()


def test_phones_a_box_and_a_tap_elect_the_princeps_in_cicero(tmp_path):
    players = ["Livia", "Marcus", "Octavia", "Quintus", "Tullia"]
    journal, session = cicero_election_session(tmp_path, players)
    bridge, server = serve(session)
    vote = session.view("table")["vote"]
    assert vote["kind"] == "weighted" and vote["voters"] == players
    try:
        session.execute(Command("cast_ballot", {"seat": 4, "option": 0}, source="box:04"))
        session.execute(Command("cast_ballot", {"voter": "Tullia", "choice": "Livia"}, "tablet"))

        def phones():
            weights = {}
            for name in players[:3]:
                p = Phone(server)
                p.request("GET", server.seat_url(name).split(str(server.port), 1)[1])
                _, _, st = p.request("GET", "/state")
                weights[name] = st["vote"]["weight"]
                labels = [o["label"] for o in st["vote"]["options"]]
                status, _, reply = ballot(p, st["vote"]["vote_id"], labels.index("Marcus"))
                assert reply == {"status": "recorded"}, reply
            return weights

        weights = on_phones(bridge, phones)
    finally:
        server.stop()
    assert weights == {p: vote["weights"][p] for p in players[:3]}
    done = session.view("table")["vote_history"][-1]
    assert done["ballots"] == {"Livia": "Marcus", "Marcus": "Marcus", "Octavia": "Marcus",
                               "Quintus": vote["options"][0], "Tullia": "Livia"}
    assert done["sources"]["Quintus"] == "box:04" and done["sources"]["Tullia"] == "tablet"


def test_phones_point_in_the_masks_vote_never_at_themselves(tmp_path):
    from companion.games.masks.rules import MasksRules
    players = ["Ann", "Ben", "Cat", "Dan", "Eve"]
    journal = Journal(tmp_path / "journal.sqlite")
    session = GameSession.start(journal, MasksRules(), {"players": players})
    for cmd in (Command("start_hidden_phase"), Command("end_hidden_phase"),
                Command("use_vanguard", {"player": "Dan"}), Command("end_discussion")):
        session.execute(cmd)
    bridge, server = serve(session)
    picks = {"Ann": "Cat", "Ben": "Ann", "Cat": "Eve"}
    try:
        session.execute(Command("cast_ballot", {"voter": "Eve", "choice": "Cat"}, "box:05"))

        def phones():
            seen = {}
            for name, pick in picks.items():
                p = Phone(server)
                p.request("GET", server.seat_url(name).split(str(server.port), 1)[1])
                _, _, st = p.request("GET", "/state")
                labels = [o["label"] for o in st["vote"]["options"]]
                seen[name] = labels
                option = next(o["option"] for o in st["vote"]["options"] if o["label"] == pick)
                assert ballot(p, st["vote"]["vote_id"], option)[2] == {"status": "recorded"}
            return seen

        seen = on_phones(bridge, phones)
    finally:
        server.stop()
    assert all(name not in labels for name, labels in seen.items())   # never oneself
    done = session.view("table")["vote_history"][-1]
    for name, pick in picks.items():
        assert done["ballots"][name] == pick and done["sources"][name].startswith("phone:")
    assert done["sources"]["Eve"] == "box:05"


def test_phones_recommend_a_captain_in_seven_knights(tmp_path):
    from companion.games.sevenknights.rules import SevenKnightsRules
    players = ["Ann", "Bo", "Cy", "Di", "Ed"]
    journal = Journal(tmp_path / "journal.sqlite")
    session = GameSession.start(journal, SevenKnightsRules(),
                                {"players": players, "first": "Ann", "mode": "basic"})
    C = Command
    for cmd in [C("look", {"at": "Bo"}), C("look", {"at": "Cy"}), C("look", {"at": "Di"}),
                C("look", {"at": "center"}), C("look", {"at": "Ann"}),
                C("ask_question", {"target": "Cy", "template": "odd", "answer": "yes"}),
                C("ask_question", {"target": "Di", "template": "at_least", "n": 3, "answer": "no"}),
                C("ask_question", {"target": "Ed", "template": "larger_than", "other": "Di",
                                   "answer": "yes"}),
                C("ask_question", {"target": "Bo", "template": "other_is", "other": "Ann", "n": 1,
                                   "answer": "no"}),
                C("ask_question", {"target": "Bo", "template": "free", "answer": "yes",
                                   "text": "Did you see a number larger than 4?"}),
                C("open_recommendation")]:
        session.execute(cmd)
    bridge, server = serve(session)
    picks = {"Ann": "Bo", "Bo": "Cy", "Cy": "Cy"}
    try:
        session.execute(Command("cast_ballot", {"seat": 4, "option": 1}, source="box:04"))

        def phones():
            for name, pick in picks.items():
                p = Phone(server)
                p.request("GET", server.seat_url(name).split(str(server.port), 1)[1])
                _, _, st = p.request("GET", "/state")
                option = next(o["option"] for o in st["vote"]["options"] if o["label"] == pick)
                assert ballot(p, st["vote"]["vote_id"], option)[2] == {"status": "recorded"}

        on_phones(bridge, phones)
        session.execute(Command("cast_ballot", {"voter": "Ed", "choice": "Ed"}, "tablet"))
    finally:
        server.stop()
    done = session.view("table")["vote_history"][-1]
    assert done["ballots"] == {"Ann": "Bo", "Bo": "Cy", "Cy": "Cy", "Di": "Bo", "Ed": "Ed"}
    assert {done["sources"][n][:6] for n in picks} == {"phone:"}
