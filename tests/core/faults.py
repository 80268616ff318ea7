"""Real storage faults for tests, as root: a read-only bind mount or a small tmpfs, each inside a
private mount namespace (``unshare -m``) so nothing outlives the child process."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def can_unshare() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


needs_unshare = pytest.mark.skipif(not can_unshare(), reason="needs root and unshare -m (private mount namespace)")


def in_namespace(mounts: str, argv: list[str], timeout: float = 120, env=None) -> subprocess.CompletedProcess:
    """Run ``argv`` after the shell commands ``mounts``, in a private mount namespace."""
    cmd = f"set -e; {mounts}; exec {' '.join(shlex.quote(a) for a in argv)}"
    return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", cmd], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=env)


def tmpfs(folder: Path, size: str) -> str:
    return f"mount -t tmpfs -o size={size} tmpfs {shlex.quote(str(folder))}"


def read_only(folder: Path) -> str:
    q = shlex.quote(str(folder))
    return f"mount --bind {q} {q}; mount -o remount,bind,ro {q}"


@contextmanager
def lock_held_elsewhere(folder: Path):
    """Another process holding the data folder's lock (as a running app does)."""
    holder = subprocess.Popen([sys.executable, "-c", (
        "import time; from companion.core.journal import DataLock;"
        f"DataLock({str(folder)!r}).acquire(); print('held', flush=True); time.sleep(60)")],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def second_copy_tries(folder: Path) -> str:
    """What a second copy of the app, in another process, is told when it takes the folder."""
    return subprocess.run([sys.executable, "-c", (
        "from companion.core.journal import DataLock, DataInUse\n"
        "try:\n"
        f"    DataLock({str(folder)!r}).acquire(); print('acquired')\n"
        "except DataInUse as exc:\n"
        "    print(exc)")], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout.strip()


def python(*args: str) -> list[str]:
    return [sys.executable, *args]


def written_by_two_copies(path: Path) -> int:
    """A 23 Knives journal as two copies of the app on one folder left it (issue 16, 3.): the
    first vote revealed and decided twice, which the game's replay cannot fold. Returns the game."""
    from companion.core.journal import Journal
    from companion.core.session import GameSession
    from companion.games.knives23 import demo as script
    from companion.games.knives23.rules import Knives23Rules
    j = Journal(path)
    s = GameSession.start(j, Knives23Rules(), script.SETUP)
    for cmd in script.commands():
        s.execute(cmd)
        if s.events[-1].kind == "vote_result":
            break
    twice = [(e.kind, dict(e.data), "tablet") for e in s.events[-2:]]
    assert [k for k, _, _ in twice] == ["vote_revealed", "vote_result"]
    j.append(s.game_id, twice)
    j.close()
    return s.game_id
