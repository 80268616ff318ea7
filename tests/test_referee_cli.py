"""The referee's command line: every kind of bad input is one line on stderr and exit 2, for every
game and question; a bug inside the rules is one line "internal error: …" and exit 3, its traceback
in a log file the line names; --help exits 0. (Answers themselves: tests/games/test_*_referee.py and the worked
examples in docs/referee.md.)"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.referee import GAMES, main, questions

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
if not PYTHON.exists():
    PYTHON = Path(sys.executable)

ALL = [(g, q) for g in GAMES for q in sorted(questions(g))]
MINE = ("masks", "sevenknights", "cicero")


def run(argv, text: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(text), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def one_line(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


BAD = {
    "not JSON": "{players: [",
    "empty": "",
    "a list": "[1, 2]",
    "a number": "42",
    "NaN": '{"players": NaN}',
    "a key twice": '{"players": [], "players": []}',
    "deep list": "[" * 100_000 + "]" * 100_000,
    "deep object": '{"a":' * 100_000 + "1" + "}" * 100_000,
    "unknown key": '{"zzz": 1}',
    "too long": json.dumps({"players": ["x" * 100] * 20_000}),
    "half a UTF-16 pair": '{"players": ["\\ud800", "B", "C"]}',
}


@pytest.mark.parametrize("game, question", ALL)
@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_input_is_one_line_and_exit_2_for_every_question(game, question, kind):
    line = one_line(*run([game, question], BAD[kind]))
    if kind.startswith("deep"):
        assert "nested too deeply" in line
    if kind == "half a UTF-16 pair":
        assert "half of a UTF-16 pair alone (\\ud800)" in line
    if kind == "unknown key" and game in MINE:
        assert "unknown key 'zzz'" in line


def test_a_real_process_with_100000_deep_nesting_says_one_line():
    done = subprocess.run([str(PYTHON), "-m", "companion.referee", "cicero", "princeps"],
                          input="[" * 100_000 + "]" * 100_000, capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["error: The input is nested too deeply to be a question."]


def test_a_real_process_given_half_a_utf16_pair_says_one_line():
    """Python's JSON reads "\\ud800" as a lone surrogate, which the answer (repeating the
    name) could not write as UTF-8: a traceback and exit 1, before it was refused at reading."""
    done = subprocess.run([str(PYTHON), "-m", "companion.referee", "knives23", "final"],
                          input='{"players": [{"name": "\\ud800", "citizen": {"blood": 1}}], "curia": []}',
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "UTF-16" in done.stderr


def test_bytes_that_are_not_utf8_are_one_line():
    done = subprocess.run([str(PYTHON), "-m", "companion.referee", "masks", "vote"], input=b"{\xff\xfe}",
                          capture_output=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().splitlines() == ["error: The input is not UTF-8 text (byte 1)."]


def test_help_lists_every_game_and_question_and_exits_0():
    done = subprocess.run([str(PYTHON), "-m", "companion.referee", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    for game, question in ALL:
        assert game in done.stdout and question in done.stdout
    code, out, _ = run(["masks", "vote", "-h"], "")
    assert code == 0 and "usage:" in out


@pytest.mark.parametrize("argv, words", [
    ([], "the following arguments are required"),
    (["chess", "mate"], "invalid choice: 'chess'"),
    (["masks"], "the following arguments are required: question"),
    (["masks", "vote", "extra"], "unrecognized arguments: extra"),
    (["masks", "mayor"], "There is no question “mayor” for masks"),
])
def test_usage_mistakes_are_one_line_and_exit_2(argv, words):
    assert words in one_line(*run(argv, "{}"))


@pytest.mark.parametrize("game, question, payload, words", [
    ("masks", "vote", {"players": list("ABCDEFGHIJK"), "identities": {}, "center": [], "votes": {}},
     "exactly 5 players, got 11"),
    ("sevenknights", "captain", {"players": ["A", "B"], "first": "A", "recommendations": {}}, "3 to 8 players, got 2"),
    ("sevenknights", "setup", {"players": list("ABCDEFGHIJK")}, "3 to 8 players, got 11"),
    ("sevenknights", "setup", {"players": list("ABC"), "mode": "basic"}, "by 4 to 8 players, not 3"),
    ("cicero", "first_princeps", {"players": [{"name": c, "votes": 1, "oratores_votes": 0, "age": 30}
                                              for c in "ABCDEF"]}, "2 to 5 players, got 6"),
    ("cicero", "princeps", {"players": [{"name": "A", "votes": 200_000, "prestige": 0},
                                        {"name": "B", "votes": 1, "prestige": 0}],
                            "ballots": {"A": "A", "B": "B"}, "outgoing": "A"}, "120 Senator cards in the box"),
    ("cicero", "princeps", {"players": [{"name": "A", "votes": True, "prestige": 0},
                                        {"name": "B", "votes": 1, "prestige": 0}],
                            "ballots": {"A": "A", "B": "B"}, "outgoing": "A"}, "must be a whole number"),
    ("knives23", "final", {"players": [{"name": "L", "citizen": {"blood": 1}, "Sway": []}], "curia": []},
     "unknown key 'Sway'"),
    ("knives23", "final", {"players": [{"name": "L", "citizen": {"blood": 1}}], "curia": [{"knives": 1}] * 200},
     "the box holds 86 Fate cards"),
    ("knives23", "final", {"players": [{"name": "L", "citizen": {"blood": 1}}], "curia": [{"knives": 1}] * 86,
                           "opportunist_play": [{"doves": 1}] * 86}, "come to 172 Fate cards; the box holds 86"),
])
def test_impossible_counts_and_player_counts(game, question, payload, words):
    assert words in one_line(*run([game, question], json.dumps(payload)))


def test_numbers_come_back_as_numbers():
    code, out, _ = run(["sevenknights", "setup"], json.dumps({"players": list("ABCDE")}))
    assert code == 0 and json.loads(out)["tiles"] == [1, 2, 3, 4, 5, "witch"]


def test_the_referee_words_its_refusals_in_the_language_asked(tmp_path, monkeypatch):
    """The rules' keyed words come in the language asked (the referee modules' own schema
    messages are still English); English output is unchanged."""
    from companion.core import i18n
    from tests.languages import use_french_and_german
    marks = use_french_and_german(tmp_path, monkeypatch)
    payload = json.dumps({"players": list("ABC"), "mode": "basic"})
    try:
        english = one_line(*run(["sevenknights", "setup"], payload))
        french = one_line(*run(["sevenknights", "setup", "--lang", "fr"], payload))
    finally:
        i18n.set_language("en")
    assert "by 4 to 8 players, not 3" in english and french != english
    assert i18n.load_catalogue("fr")["sevenknights.mode.basic"] in french
    if marks["fr"]:
        assert "«" in french
    assert "--lang" in run(["--help"], "")[1]


# --- a bug is not bad input: "internal error", exit 3, the traceback in a log -----------------------

def _a_rule_with_a_bug(data):
    return {"captain": data["players"][0]["name"]}   # players are names (str): a TypeError


@pytest.fixture
def buggy_captain(monkeypatch):
    """Seven Knights' captain question with a bug in its rule function (its input schema kept)."""
    import companion.games.sevenknights.referee as referee
    monkeypatch.setattr(_a_rule_with_a_bug, "schema", referee.captain.schema, raising=False)
    monkeypatch.setitem(referee.QUESTIONS, "captain", _a_rule_with_a_bug)


CAPTAIN = {"players": ["A", "B", "C"], "first": "A", "recommendations": {"A": "B", "B": "B", "C": "A"}}


def test_a_bug_inside_the_rules_is_an_internal_error_exit_3_with_its_traceback_logged(buggy_captain, monkeypatch,
                                                                                       tmp_path):
    """Before, a KeyError or TypeError raised inside a rule function was reported as
    "error: malformed input" and exit 2: the person was told their input was wrong."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)   # read TMPDIR again
    code, out, err = run(["sevenknights", "captain"], json.dumps(CAPTAIN))
    assert code == 3 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("internal error: the referee failed on sevenknights captain "
                                                   "(TypeError: "), err
    assert "a bug, not your input" in lines[0] and not lines[0].startswith("error:")
    log = Path(lines[0].rsplit("traceback in ", 1)[1])
    assert log.parent == tmp_path and log.is_file()
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "_a_rule_with_a_bug" in text
    assert text.rstrip().splitlines()[-1].startswith("TypeError:")


def test_bad_input_to_the_same_question_stays_error_exit_2(buggy_captain):
    assert "unknown key 'zzz'" in one_line(*run(["sevenknights", "captain"], json.dumps({**CAPTAIN, "zzz": 1})))
    assert "3 to 8 players, got 2" in one_line(*run(["sevenknights", "captain"],
                                                    json.dumps({**CAPTAIN, "players": ["A", "B"]})))


def test_a_real_process_with_a_bug_in_the_rules_exits_3_and_names_its_log(tmp_path):
    bug = ("import sys, companion.games.masks.referee as r\n"
           "r.QUESTIONS['vote'] = lambda data: {}['missing']\n"
           "from companion.referee import main\n"
           "sys.exit(main(sys.argv[1:]))\n")
    done = subprocess.run([str(PYTHON), "-c", bug, "masks", "vote"], input="{}", capture_output=True, text=True,
                          cwd=ROOT, timeout=60, env={**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 3 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("internal error: the referee failed on masks vote (KeyError: 'missing')")
    log = Path(line.rsplit("traceback in ", 1)[1])
    assert log.parent == tmp_path and "KeyError: 'missing'" in log.read_text()
