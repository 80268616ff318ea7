"""Issue 16 with real app processes under the suite's X display: a damaged journal, two copies on
one folder, a read-only folder (bind mount) and a full disk (tmpfs), each in a private mount
namespace where one is needed. Screenshots: test-artifacts/storage/."""
from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.core.journal import STORAGE_FULL
from tests.core.faults import in_namespace, needs_unshare, read_only, tmpfs

pytestmark = [pytest.mark.app, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "storage"


@pytest.fixture(autouse=True)
def display():
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run through scripts/test.sh (it starts Xvfb)")


def _env():
    env = dict(os.environ)
    env.pop("KIVY_NO_CONSOLELOG", None)  # the app's log on stderr is part of what we check
    return env


def _app(data: Path, prefix=()):
    return subprocess.Popen([*prefix, sys.executable, "-m", "companion", "--data", str(data)], cwd=ROOT,
                            env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _screenshot(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = ARTIFACTS / f"{name}.png"
    subprocess.run(["/usr/bin/import", "-window", "root", str(out)], check=True, timeout=60)
    return out


def _stop(proc) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    return proc.communicate(timeout=60)[0]


def _folder_bytes(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name.startswith("journal")}


def test_the_app_with_a_damaged_journal_is_up_after_20_s_and_keeps_the_bytes(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    damaged = b"SQLite format 3\0" + os.urandom(8 * 4096)  # a header that lies, pages of noise
    (data / "journal.sqlite3").write_bytes(damaged)
    app = _app(data)
    try:
        time.sleep(20)
        assert app.poll() is None, "the app exited"
        shot = _screenshot("damaged_journal_real_app")
        assert shot.stat().st_size > 10_000
    finally:
        log = _stop(app)
    kept = list(data.glob("journal-damaged-*.sqlite3"))
    assert len(kept) == 1 and kept[0].read_bytes() == damaged, log[-3000:]
    assert f"the unreadable journal is kept as {kept[0]}" in log
    assert (data / "journal.sqlite3").read_bytes()[:16] == b"SQLite format 3\0"


def test_a_second_copy_on_the_same_folder_says_so_and_leaves_without_writing(tmp_path):
    data = tmp_path / "data"
    first = _app(data)
    try:
        for _ in range(600):
            lock = data / "journal.lock"
            if lock.exists() and lock.read_text().strip() == str(first.pid) and (data / "journal.sqlite3").exists():
                break
            time.sleep(0.1)
        time.sleep(5)  # the first copy is at its picker
        before = _folder_bytes(data)
        second = _app(data)
        time.sleep(4)
        _screenshot("second_copy_refused")
        out = second.communicate(timeout=120)[0]
        assert second.returncode == 1
        assert f"table companion: Another copy of the app (process {first.pid}) is already using {data}; close it first" in out
        assert _folder_bytes(data) == before  # the second copy wrote nothing
        assert first.poll() is None
    finally:
        _stop(first)


def _built(data: Path, shown: str, kivy_home: Path | None = None) -> str:
    """The app of a real process built on ``data`` (settings, storage, screens), and ``shown``
    (an expression of ``app`` and its root widget ``w``) printed; the process leaves at once.
    ``kivy_home``: a fresh Kivy home, whose default config writes Kivy's log file as a first
    start on a tablet does."""
    code = ("import os, sys; from companion.app.main import CompanionApp;"
            f"app = CompanionApp(data_dir={str(data)!r}); w = app.build();"
            f"print('SHOWN', {shown}, flush=True); os._exit(0)")
    env = _env()
    if kivy_home is not None:
        env["KIVY_HOME"] = str(kivy_home)
        env.pop("KIVY_NO_FILELOG", None)  # the suite's own processes write no log file
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split("SHOWN ", 1)[1].strip()


def test_journal_problems_at_start_are_said_in_the_language_of_the_settings(tmp_path):
    """Issue 17: the app reads its settings before it opens the journal, so what it says about
    the journal at start (a second copy, a damaged file) is in the table's language."""
    from tests.core.faults import lock_held_elsewhere
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text('{"language": "fr"}', encoding="utf-8")
    with lock_held_elsewhere(data) as holder:
        refusal = _built(data, "w.text")
    assert refusal == f"Une autre copie de l'application (processus {holder.pid}) utilise déjà {data} ; fermez-la d'abord"
    (data / "journal.sqlite3").write_bytes(b"SQLite format 3\0" + os.urandom(4 * 4096))
    notice = _built(data, "app.storage_notice[0], '|', app.storage_notice[1][0][1]")
    assert notice.startswith("Le journal n'a pas pu être lu, un nouveau a donc été commencé"), notice
    assert notice.endswith("| Exporter l'ancien journal"), notice


def test_the_app_takes_its_lock_back_with_a_deleted_data_folder(tmp_path):
    """The app's folder deleted under it: its next write puts the journal back and the lock with
    it, so a copy of the app started afterwards is refused instead of sharing the journal."""
    data = tmp_path / "data"
    shown = _built(data, "(__import__('shutil').rmtree(app.data_dir), app.journal.new_game('knives23', {}),"
                         " os.getpid(), __import__('tests.core.faults').core.faults.second_copy_tries(app.data_dir))[2:]")
    pid, second = ast.literal_eval(shown)
    assert second == f"Another copy of the app (process {pid}) is already using {data}; close it first"
    assert (data / "journal.sqlite3").exists()


def test_a_log_line_with_bytes_that_are_not_text_does_not_close_the_app(tmp_path):
    """Found by the input audit: a path in an unknown encoding (a folder that could not be made,
    a voice pack) logged by the app raised in Kivy's log file writer and closed the app."""
    shown = _built(tmp_path / "data", "(__import__('logging').getLogger('companion.app.main')"
                   ".error('cannot open %s', '/tmp/q\\udcff'), 'logged')[1]", kivy_home=tmp_path / "kivy")
    assert shown == "logged"
    [log_file] = (tmp_path / "kivy" / "logs").glob("*.txt")
    assert "cannot open /tmp/q\\udcff" in log_file.read_text()


def test_importing_the_app_changes_no_logging_only_starting_it_does(tmp_path):
    """The log record factory that escapes such lines is set when the app starts, not on import."""
    code = ("import logging; before = logging.getLogRecordFactory(); import companion.app.main as m;"
            "imported = logging.getLogRecordFactory() is before;"
            f"app = m.CompanionApp(data_dir={str(tmp_path / 'data')!r}); app.build();"
            "print('SAME', imported, logging.getLogRecordFactory() is before, flush=True);"
            "import os; os._exit(0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("SAME ", 1)[1].split() == ["True", "False"]


@needs_unshare
def test_a_read_only_data_folder_is_a_message_and_the_app_stays_up(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    before = _folder_bytes(data)
    import shlex
    q = shlex.quote(str(data))
    app = _app(data, prefix=("unshare", "-m", "--propagation", "private", "sh", "-c",
                             f"mount --bind {q} {q} && mount -o remount,bind,ro {q} && exec \"$0\" \"$@\""))
    try:
        time.sleep(15)
        assert app.poll() is None, "the app exited"
        _screenshot("read_only_folder_real_app")
    finally:
        log = _stop(app)
    assert f"The data folder {data} cannot be written (it is read-only)" in log, log[-3000:]
    assert _folder_bytes(data) == before


@needs_unshare
def test_disk_full_in_the_app_refuses_taps_and_box_presses_then_goes_on(tmp_path):
    folder = tmp_path / "small"
    folder.mkdir()
    proc = in_namespace(tmpfs(folder, "6m"), [sys.executable, "-m", "tests.app.storage_app_child", str(folder)],
                        timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["low_space_toast"].startswith("Storage is nearly full ("), seen
    assert seen["tap_toast"] == STORAGE_FULL and seen["phase_after_tap"] == "deal"
    assert seen["box_toast"] == f"box:01: {STORAGE_FULL}" and seen["events_unchanged"]
    assert seen["phase_after_freeing"] == "hidden" and seen["toast_after_freeing"] == ""
