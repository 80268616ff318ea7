"""The companion's command lines on bad options, in a real subprocess: one line on stderr naming
what is wrong, a non-zero exit, no traceback; nothing is written where the path was bad.

`python -m companion.phone serve --port`, `python -m companion.core.narration --record/--lang`,
`python -m companion check --data`."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.check import run as check_run
from companion.core.audio import write_wav

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "companion" / "narration" / "count_of_three.txt"
HAS_PROC = os.path.isdir("/proc/self")


def _run(*args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def _no_traceback(r: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in r.stderr, r.stderr


# -- phone server --------------------------------------------------------------------------------

@pytest.mark.parametrize("port", ["70000", "-1", "65536"])
def test_a_port_out_of_range_is_an_argparse_error_not_a_traceback(port):
    """70000 used to reach socket.bind: an OverflowError traceback (24 lines)."""
    r = _run("companion.phone", "serve", "--demo", f"--port={port}", timeout=60)
    assert r.returncode == 2
    _no_traceback(r)
    assert r.stderr.splitlines()[0].startswith("usage: python -m companion.phone serve")
    assert r.stderr.splitlines()[-1] == (f"python -m companion.phone serve: error: argument --port: "
                                         f"{port} is not a port (0 to 65535; 0: any free one)")


def test_a_port_that_is_no_number_names_it():
    r = _run("companion.phone", "serve", "--demo", "--port", "http", timeout=60)
    assert r.returncode == 2
    _no_traceback(r)
    assert r.stderr.splitlines()[-1].endswith("argument --port: 'http' is not a whole number")


# -- narration -----------------------------------------------------------------------------------

def test_record_into_a_folder_is_one_line_before_anything_is_rendered(tmp_path):
    r = _run("companion.core.narration", SCRIPT, "--record", tmp_path)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f"error: the recording {tmp_path} is a folder: give a file name, e.g. OUT.wav"]
    assert r.stdout == "" and list(tmp_path.iterdir()) == []   # no temporary WAV left in it


@pytest.mark.skipif(not HAS_PROC, reason="needs Linux's /proc")
def test_record_where_no_file_can_be_made_is_one_line():
    r = _run("companion.core.narration", SCRIPT, "--record", "/proc/x.wav")
    assert r.returncode == 2
    assert r.stderr.splitlines() == ["error: cannot write the recording /proc/x.wav: No such file or directory"]


def test_record_under_a_file_is_one_line(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("kept")
    r = _run("companion.core.narration", SCRIPT, "--record", afile / "x.wav")
    assert r.returncode == 2
    assert r.stderr.splitlines() == [f"error: cannot write the recording {afile / 'x.wav'}: Not a directory"]
    assert afile.read_text() == "kept"


def test_record_still_writes_a_good_wav(tmp_path):
    r = _run("companion.core.narration", SCRIPT, "--record", tmp_path / "sub" / "n.wav")
    assert (r.returncode, r.stderr) == (0, "")
    assert (tmp_path / "sub" / "n.wav").read_bytes()[:4] == b"RIFF"


def test_an_unknown_language_is_refused_as_the_app_refuses_it():
    """--lang xx used to run silently in English."""
    r = _run("companion.core.narration", SCRIPT, "--lang", "xx")
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f"error: no catalogue for language 'xx' ({ROOT / 'companion' / 'locale' / 'xx'} is missing)"]
    assert r.stdout == ""


def test_a_language_with_its_script_but_no_catalogue_yet_is_still_read(tmp_path):
    """A translation may bring its scripts before its catalogue: that language is not unknown."""
    (tmp_path / "xx").mkdir()
    script = tmp_path / "s.txt"
    script.write_text("say hi: Hello\n", encoding="utf-8")
    (tmp_path / "xx" / "s.txt").write_text("say hi: Hallo xx\n", encoding="utf-8")
    r = _run("companion.core.narration", script, "--lang", "xx")
    assert (r.returncode, r.stderr) == (0, "")


def test_write_wav_names_the_wav_not_its_temporary_file(tmp_path):
    with pytest.raises(IsADirectoryError) as e:
        write_wav(str(tmp_path), [0.0] * 10)
    assert e.value.filename == str(tmp_path) and list(tmp_path.iterdir()) == []
    afile = tmp_path / "afile"
    afile.write_text("")
    with pytest.raises(NotADirectoryError):
        write_wav(str(afile / "x.wav"), [0.0] * 10)
    if HAS_PROC:
        with pytest.raises(OSError) as e:
            write_wav("/proc/x.wav", [0.0] * 10)
        assert e.value.filename == "/proc/x.wav"


# -- check ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("what", ["missing", "a file"])
def test_check_without_a_journal_says_so_on_stderr(tmp_path, what):
    data = tmp_path / "data"
    if what == "a file":
        data.write_text("")
    r = _run("companion", "check", "--data", data)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.splitlines() == [f"no journal at {data / 'journal.sqlite3'}"]


def test_check_that_cannot_open_the_journal_says_why_on_stderr(tmp_path):
    (tmp_path / "journal.sqlite3").mkdir()
    lines, errors = [], []
    assert check_run(tmp_path, out=lines.append, err=errors.append) == 1
    assert errors == [f"journal {tmp_path / 'journal.sqlite3'}: journal {tmp_path / 'journal.sqlite3'} "
                      "is a folder, not a journal file"]
    assert lines == ["summary: the journal cannot be opened"]
