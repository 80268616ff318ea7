"""A process killed at any moment (kill -9) restarts into exactly the state of its last
acknowledged event: no vote lost, none counted twice."""
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from companion.core.events import Command
from companion.core.journal import Journal
from companion.core.session import GameSession

from .toygame import ToyRules

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = {"players": ["Ann", "Ben", "Cy", "Dee", "Eve"]}


def _script():
    rng = random.Random(23)
    cmds = []
    for round_no in range(40):
        cmds.append(Command("add", {"n": rng.randint(1, 5)}))
        cmds.append(Command("call_exile", {"target": rng.choice(PLAYERS["players"])}))
        voters = list(PLAYERS["players"])
        rng.shuffle(voters)
        for v in voters:  # some change their ballot before the last one is in
            choice = rng.choice(["exile", "remain"])
            if rng.random() < 0.3 and v != voters[-1]:
                first = "remain" if choice == "exile" else "exile"
                cmds.append(Command("cast_ballot", {"voter": v, "choice": first}, source=f"box:{v}"))
            cmds.append(Command("cast_ballot", {"voter": v, "choice": choice}, source=f"box:{v}"))
    return cmds


COMMANDS = _script()


def progress(state) -> int:
    """How many of COMMANDS a state reflects (REFERENCE is indexed by commands done)."""
    for k, ref in enumerate(REFERENCE):
        if ref == state:
            return k
    raise AssertionError("state matches no prefix of the script")


def _reference():
    with tempfile.TemporaryDirectory() as d:
        s = GameSession.start(Journal(Path(d) / "ref.db"), ToyRules(), PLAYERS)
        states = [s.state]
        for c in COMMANDS:
            s.execute(c)
            states.append(s.state)
        return states


REFERENCE = _reference()


def _spawn(path, mode, stop_after):
    return subprocess.Popen([sys.executable, "-m", "tests.core.killchild", str(path), mode,
                             str(stop_after)], cwd=ROOT, stdout=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_kill_minus_9_at_random_points_loses_no_acknowledged_event(tmp_path):
    rng = random.Random(9)
    assert len(set(map(repr, REFERENCE))) == len(REFERENCE)  # every prefix is a distinct state
    path = tmp_path / "journal.db"
    mode, kills = "start", 0
    acked_total = 0
    while True:
        target = rng.randint(1, 20)
        # The child runs at most 2 commands past the acks read before the kill: it may be killed
        # inside one of them (mid-transaction) or while it waits.
        child = _spawn(path, mode, target + rng.randint(0, 2))
        first = child.stdout.readline().split()
        assert first[0] == "start"
        resumed_at = int(first[1])
        assert resumed_at >= acked_total  # nothing acknowledged was lost
        acked = resumed_at
        finished = False
        for _ in range(target):
            line = child.stdout.readline()
            if not line:
                finished = True
                break
            acked = int(line.split()[1])
        time.sleep(rng.random() * 0.01)  # land the kill anywhere, mid-transaction included
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        rest = child.stdout.read().split("\n")
        acked = max([acked] + [int(l.split()[1]) for l in rest if l.startswith("ack")])
        kills += 1
        state = GameSession.resume(Journal(path), 1, ToyRules()).state
        done = progress(state)
        # Exactly the acknowledged commands; the one in flight may or may not have committed.
        assert done in (acked, acked + 1), (done, acked)
        acked_total = done
        mode = "resume"
        if done == len(COMMANDS) or finished:
            break
    assert kills >= 10
    final = GameSession.resume(Journal(path), 1, ToyRules())
    assert final.state == REFERENCE[-1]
    # No ballot counted twice: the journal holds each vote's reveal exactly once.
    reveals = [e.data["vote_id"] for e in final.events if e.kind == "vote_revealed"]
    assert len(reveals) == len(set(reveals)) == 40
