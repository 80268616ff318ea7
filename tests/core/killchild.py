"""Child process for the kill -9 test: plays scripted commands into a journal, printing an ack
line after each command's events are committed. ``resume`` continues a journal from where the
journal says it is."""
import sys

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
    for i in range(done, len(COMMANDS)):
        session.execute(COMMANDS[i])
        print(f"ack {i + 1}", flush=True)


if __name__ == "__main__":
    main()
