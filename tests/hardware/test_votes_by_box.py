"""Every kind of vote the four games hold, cast on simulated boxes over real pseudo-terminals and
decided by the one vote engine (companion.core.votes). The vote specs are the games' own shapes:
23 Knives' Exile/Remain and red/grey Issue votes, Royals and Martyr Masks' pick of another player
or the center, Seven Knights' recommendation of a Captain, Cicero's weighted Senate vote (the box
only picks; the weight is the tablet's)."""
import queue
import time

import pytest

from companion.core import votes
from companion.core.events import Event
from companion.core.inputs import CommandQueue
from hardware import protocol as P
from hardware.sim import LED_IGNORED, LED_RECORDED, LED_REVEALED, SimulatedBoxes
from hardware.source import BoxSource

PLAYERS = ("Ann", "Bo", "Cy", "Di", "Ed")


class Table:
    """The vote engine's side, as the app runs it: drain box commands from a CommandQueue (which
    settles each one, so a box hears its answer only after its ballot is recorded), record
    events, tell the boxes what was recorded."""

    def __init__(self, tmp_path, n):
        self.sim = SimulatedBoxes(n=n).start()
        self.source = BoxSource(str(tmp_path), ports=self.sim.ports)
        self.q = CommandQueue()
        self.source.start(self.q.post)
        self.sim.wait(lambda: sum(d.connected for d in self.source.devices()) == n,
                      what="boxes found")
        for i in range(n):
            self.source.pair(i + 1)
            seq = self.sim.press(i, 0)
            self.sim.wait(lambda: self.sim.boxes[i].is_acked(seq), what="pairing")
        self.book = votes.VoteBook()
        self.seq = 0
        self.refused = []

    def record(self, pairs, source="tablet"):
        events = []
        for kind, data in pairs:
            self.seq += 1
            ev = Event(self.seq, kind, data, source)
            self.book = votes.apply_vote_event(self.book, ev)
            events.append(ev)
        self.source.on_events(events)
        return events

    def drain(self, expect):
        got = []
        end = time.monotonic() + 5

        def handle(cmd):
            if cmd.kind == "cast_ballot":
                got.append(cmd)
                self.record(votes.cast(self.book, cmd.data, cmd.source), cmd.source)
        while len(got) < expect:
            assert time.monotonic() < end, "timed out waiting for %d ballots" % expect
            self.refused += [(cmd, str(e)) for cmd, e in self.q.drain(handle, wait=0.05)]

    def press_all(self, presses):
        """Presses, then the app's drain, then every box has its answer."""
        seqs = [(i, self.sim.press(i, button)) for i, button in presses]
        self.drain(len(presses))
        for i, seq in seqs:
            self.sim.wait(lambda: self.sim.boxes[i].is_acked(seq), what="ballot acked")

    def vote(self, spec, presses):
        self.record(votes.open_vote(self.book, spec))
        self.press_all(presses)
        return self.book.last() or self.book.current

    def close(self):
        self.source.stop()
        self.sim.stop()


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path, len(PLAYERS))
    yield t
    t.close()


def test_23_knives_vote_to_exile_by_boxes(table):
    spec = votes.VoteSpec("exile-1", "binary", PLAYERS, ("exile", "remain"))
    done = table.vote(spec, [(0, 0), (1, 0), (2, 1), (3, 0), (4, 1)])
    assert done.revealed and done.counts() == {"exile": 3, "remain": 2}
    assert done.choices()["Cy"] == "remain"
    assert {b.source for b in done.ballots.values()} == {
        "box:%08X" % b.box_id for b in table.sim.boxes}
    table.sim.wait(lambda: all(b.leds[0] == LED_REVEALED for b in table.sim.boxes),
                   what="revealed LEDs")


def test_23_knives_issue_vote_red_or_grey_by_boxes(table):
    spec = votes.VoteSpec("issue-1", "binary", PLAYERS, ("red", "grey"))
    done = table.vote(spec, [(4, 1), (3, 1), (2, 1), (1, 0), (0, 0)])
    assert done.counts() == {"red": 2, "grey": 3}


def test_masks_vote_for_another_player_or_the_center_by_boxes(table):
    spec = votes.VoteSpec("vote", "pick", PLAYERS, PLAYERS + ("center",), allow_self=False)
    # Ann (seat 1) presses button 0, herself: refused by the rules, her box flashes red.
    table.record(votes.open_vote(table.book, spec))
    table.press_all([(0, 0)])
    assert "may not vote for themself" in table.refused[0][1]
    table.sim.wait(lambda: table.sim.boxes[0].leds[0] == LED_IGNORED, what="red LED")
    assert [a.status for a in table.sim.boxes[0].acks[-1:]] == [P.ACK_IGNORED]
    assert 1 not in table.source.manager.acked_ballots()
    table.press_all([(0, 5), (1, 0), (2, 5), (3, 1), (4, 3)])
    done = table.book.last()
    assert done.revealed
    assert done.choices() == {"Ann": "center", "Bo": "Ann", "Cy": "center", "Di": "Bo",
                              "Ed": "Di"}


def test_seven_knights_recommendation_of_a_captain_by_boxes(table):
    spec = votes.VoteSpec("recommendation-1", "pick", PLAYERS, PLAYERS, allow_self=True)
    done = table.vote(spec, [(0, 0), (1, 2), (2, 2), (3, 2), (4, 0)])
    assert done.counts() == {"Ann": 2, "Bo": 0, "Cy": 3, "Di": 0, "Ed": 0}


def test_cicero_weighted_senate_vote_by_boxes(table):
    players = PLAYERS[:3]
    spec = votes.VoteSpec("princeps-1", "weighted", players, players, allow_self=True,
                          weights={"Ann": 6, "Bo": 4, "Cy": 3})
    done = table.vote(spec, [(0, 0), (1, 2), (2, 2)])
    assert done.counts() == {"Ann": 6, "Bo": 0, "Cy": 7}    # the tablet weighs, boxes pick


def test_recorded_ballots_light_vote_received_and_who_not_what_is_public(table):
    spec = votes.VoteSpec("issue-1", "binary", PLAYERS, ("red", "grey"))
    table.record(votes.open_vote(table.book, spec))
    table.press_all([(0, 1), (2, 1)])
    for i in (0, 2):
        table.sim.wait(lambda: table.sim.boxes[i].leds[0] == LED_RECORDED, what="green LED")
    view = votes.table_view(table.book.current)
    assert view["voted"] == ["Ann", "Cy"] and "ballots" not in view


def test_the_simulated_twin_source_starts_and_stops_its_boxes(tmp_path, transport):
    src = BoxSource.simulated(str(tmp_path), n=2, transport=transport)
    got = queue.Queue()
    src.start(got.put)
    try:
        src.sim.wait(lambda: [d.connected for d in src.devices()] == [True, True],
                     what="two boxes")
        assert {d.kind for d in src.devices()} == {"box"}
        src.pair(2)
        seq = src.sim.press(1, 3)
        src.sim.wait(lambda: src.sim.boxes[1].is_acked(seq), what="pairing")
        assert got.get(timeout=1).data["seat"] == 2
    finally:
        src.stop()
    assert not any(b.plugged for b in src.sim.boxes)
