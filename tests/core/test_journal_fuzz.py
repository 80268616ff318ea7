"""Issue 34's fuzz test: copies of a real journal (games of all four kinds) damaged at random, 400
seeded damages. For each: `python -m companion check` and `export` of two of its games say one line
and never raise, the app's start (open, or set aside + salvage into a fresh journal, then its
repairs and the resume offer) never raises, and every game that `check` reads back whole is
resumable afterwards with the same events. A seeded sample of such damages is started in the
real app, in its own process: tests/app/test_damaged_data_app.py
(test_the_real_app_starts_on_a_seeded_sample_of_random_damages)."""
from __future__ import annotations

import contextlib
import io
import os
import random
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from companion.__main__ import main as companion_main
from companion.check import run as check_run
from companion.core.journal import DataLock, Journal, JournalDamaged, JournalError, move_aside
from companion.core.salvage import salvage
from companion.core.session import GameSession, repair, rules_for
from tests.core.journal_samples import damage, sample

ROOT = Path(__file__).resolve().parents[2]
DAMAGES = 400
SEED = 34
OK_LINE = re.compile(r"^game (\d+) (\w+) (playing|finished|abandoned)(?: won by [^:]*)?: ok$")


def checked(folder: Path) -> tuple[dict[int, int], list[str]]:
    """`check` on ``folder``: {game id: events} for every game it reads back whole, and its lines."""
    lines: list[str] = []
    check_run(folder, out=lines.append)
    whole = {}
    with contextlib.suppress(JournalError):
        journal = Journal(folder / "journal.sqlite3", readonly=True)
        try:
            for line in lines:
                m = OK_LINE.match(line)
                if m:
                    whole[int(m.group(1))] = len(journal.events(int(m.group(1))))
        finally:
            journal.close()
    return whole, lines


def exported(folder: Path, game_ids) -> list[str]:
    """`python -m companion export` of each game: its printed lines (one per game)."""
    said = []
    for gid in game_ids:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = companion_main(["export", str(gid), "--data", str(folder)])
        text = (out.getvalue() + err.getvalue()).strip()
        assert len(text.splitlines()) == 1 and "Traceback" not in text, text
        said.append(f"{code} {text}")
    return said


def app_start(folder: Path) -> tuple[Journal, str]:
    """What the app's start does with its data folder (CompanionApp._open_storage and on_start,
    without Kivy): open, or set aside and salvage; repairs; the unfinished games listed."""
    path = folder / "journal.sqlite3"
    lock = DataLock(folder).acquire()
    try:
        try:
            journal = Journal(path, lock=lock)
            how = "opened"
        except JournalDamaged:
            kept = move_aside(path)
            journal = Journal(path, lock=lock)
            report = salvage(kept, journal)
            how = f"salvaged {report.games}, lost {len(report.lost)}"
        with contextlib.suppress(JournalError):
            repair(journal)
        with contextlib.suppress(JournalError):
            journal.unfinished()
        return journal, how
    finally:
        lock.release()


def one_damage(base: bytes, rng: random.Random, work: Path) -> dict:
    bad, what = damage(base, rng)
    shutil.rmtree(work, ignore_errors=True)
    checked_dir, app_dir = work / "check", work / "app"
    for d in (checked_dir, app_dir):
        d.mkdir(parents=True)
        (d / "journal.sqlite3").write_bytes(bad)
    whole, lines = checked(checked_dir)
    assert lines and all("\n" not in line and "Traceback" not in line for line in lines), (what, lines)
    exported(checked_dir, rng.sample(range(1, 7), 2))  # two of the games (and a number with none)
    journal, how = app_start(app_dir)
    try:
        for gid, n in whole.items():
            record = journal.game(gid)
            session = GameSession.resume(journal, gid, rules_for(record.game))
            assert len(session.events) >= n, (what, how, gid, n, len(session.events))
    finally:
        journal.close()
    return {"what": what, "how": how, "whole": len(whole)}


@pytest.mark.slow
def test_400_random_damages_never_raise_and_every_game_check_reads_is_resumable(tmp_path):
    ids = sample(tmp_path / "base")
    base = (tmp_path / "base" / "journal.sqlite3").read_bytes()
    rng = random.Random(SEED)
    seen = {"opened": 0, "salvaged": 0}
    started = time.monotonic()
    # In memory where the machine has it (/dev/shm): 400 damaged journals written, opened and
    # removed are otherwise mostly the disk's fsync and unlink time.
    work = Path(tempfile.mkdtemp(dir="/dev/shm")) if os.path.isdir("/dev/shm") else tmp_path
    try:
        for n in range(DAMAGES):
            try:
                result = one_damage(base, rng, work / "work")
            except AssertionError:
                raise
            except Exception as exc:  # any traceback is the failure this test is for
                raise AssertionError(f"damage {n}: {type(exc).__name__}: {exc}") from exc
            seen["opened" if result["how"] == "opened" else "salvaged"] += 1
    finally:
        if work != tmp_path:
            shutil.rmtree(work, ignore_errors=True)
    # both paths were exercised: damage the start-up check passes, and damage that sets aside
    assert seen["opened"] > 20 and seen["salvaged"] > 20, seen
    assert len(ids) == 5
    print(f"{DAMAGES} damages in {time.monotonic() - started:.1f} s: {seen}")
