"""`python -m companion demo` says what went wrong in one line ``error: ...`` (exit 2), never a
traceback: a folder that is not there, a file where a folder should be, a full disk."""
from __future__ import annotations

import pytest

from .faults import in_namespace, needs_unshare, python, tmpfs

import subprocess

from .faults import ROOT


def _one_error_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("error: ")
    return line


def _demo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(python("-m", "companion", "demo", "--quiet", *args), cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_a_replay_folder_without_a_journal_is_one_line(tmp_path):
    line = _one_error_line(_demo("--replay", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")))
    assert "no journal.sqlite3 there" in line


def test_a_file_where_the_out_folder_should_be_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert _one_error_line(_demo("--out", str(blocker))) == f"error: {blocker}: File exists"
    assert blocker.read_text() == "not a folder"


@needs_unshare
@pytest.mark.parametrize("size", ["64k", "512k"])  # full at the journal's start; at the narration's WAV
def test_a_full_disk_is_one_line(tmp_path, size):
    folder = tmp_path / "small"
    folder.mkdir()
    proc = in_namespace(tmpfs(folder, size), python("-m", "companion", "demo", "--quiet", "--out", str(folder / "demo")),
                        timeout=300)
    assert "storage is full" in _one_error_line(proc)
