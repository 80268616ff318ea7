"""Every worked example in docs/referee.md is a test: each ```referee GAME QUESTION``` block is
run through the real command line (`python -m companion.referee`) and its answer (or its one
error line, exit 2) must be the block that follows it."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
if not PYTHON.exists():
    PYTHON = Path(sys.executable)
DOC = ROOT / "docs" / "referee.md"

BLOCK = re.compile(r"```referee (\w+) (\w+)\n(.*?)```\s*```(answer|error)\n(.*?)```", re.S)


def examples():
    found = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    return [pytest.param(g, q, i, kind, out.strip(), id=f"{g}-{q}-{n}")
            for n, (g, q, i, kind, out) in enumerate(found)]


def test_the_doc_has_an_example_for_every_question_of_the_games_it_documents():
    from companion.referee import questions
    asked = {(g, q) for g, q, *_ in BLOCK.findall(DOC.read_text(encoding="utf-8"))}
    for game in ("masks", "sevenknights", "cicero", "knives23"):
        missing = [q for q in questions(game) if (game, q) not in asked]
        assert missing == [], f"{game}: no worked example for {missing}"


@pytest.mark.parametrize("game, question, text, kind, expected", examples())
def test_worked_example(game, question, text, kind, expected):
    done = subprocess.run([str(PYTHON), "-m", "companion.referee", game, question], input=text,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    if kind == "answer":
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == json.loads(expected)
    else:
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.strip().splitlines() == [expected]
