"""Suite-wide settings. Kivy reads its environment on import, so it is set here, first."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
ARTIFACTS.mkdir(exist_ok=True)

os.environ.setdefault("KIVY_HOME", str(ROOT / ".kivy-home"))
# `make test` runs several workers (pytest-xdist): each keeps its own Kivy home, data and voice cache,
# so two apps never share a config file being written, a data-folder lock or a half-written clip.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if WORKER:
    os.environ["KIVY_HOME"] = os.path.join(os.environ["KIVY_HOME"], WORKER)
    os.environ["TABLE_COMPANION_DATA"] = str(ROOT / "test-artifacts" / "data" / WORKER)
    os.environ["TABLE_COMPANION_CACHE"] = str(ROOT / "test-artifacts" / "cache" / WORKER)
    os.makedirs(os.environ["KIVY_HOME"], exist_ok=True)   # Kivy makes its home's files, not the folder
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
# Tests must never write into the real user's data folder.
os.environ.setdefault("TABLE_COMPANION_DATA", str(ROOT / "test-artifacts" / "data"))
os.environ.setdefault("TABLE_COMPANION_CACHE", str(ROOT / "test-artifacts" / "cache"))


import pytest  # noqa: E402  (after the environment above: nothing here imports Kivy)

if os.environ.get("SUITE_TIMES"):   # where the suite's time goes (tests/suite_times.py)
    from tests.suite_times import pytest_runtest_protocol  # noqa: E402,F401  (a hook)


@pytest.fixture
def memory_journal():
    """A real journal (SQLite: the same schema, checks, sequence numbers and fold) kept in memory,
    for rule tests that build a game on one: no file to sync to disk at every command
    (synchronous=FULL). Tests of the journal itself, of reopening a file or of crashes keep a file."""
    from companion.core.journal import Journal
    journal = Journal(":memory:")
    yield journal
    journal.close()
