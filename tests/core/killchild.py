"""Child process for the kill -9 test: plays scripted commands into a journal, printing an ack
line after each command's events are committed. ``resume`` continues a journal from where the
journal says it is. An optional third argument stops after that many commands and waits to be
killed, so the test decides how far each life gets, whatever the machine's load."""
import sys
import time

from companion.core.journal import Journal
from companion.core.session import GameSession

from tests.core.toygame import ToyRules
from tests.core.test_kill9 import COMMANDS, PLAYERS, progress


def main():
    path, mode = sys.argv[1], sys.argv[2]
    journal = Journal(path)
    if mode == "start":
        session = GameSession.start(journal, ToyRules(), PLAYERS)
        done = 0
    else:
        session = GameSession.resume(journal, 1, ToyRules())
        done = progress(session.state)
    print(f"start {done}", flush=True)
    stop = len(COMMANDS) if len(sys.argv) < 4 else min(len(COMMANDS), done + int(sys.argv[3]))
    for i in range(done, stop):
        session.execute(COMMANDS[i])
        print(f"ack {i + 1}", flush=True)
    if stop < len(COMMANDS):
        time.sleep(600)  # wait for the kill


if __name__ == "__main__":
    main()
