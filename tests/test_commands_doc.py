"""docs/commands.md matches the command tables, and every worked game in it plays through
``python -m companion.referee GAME play`` to the outcome written under it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core import commands_doc

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "commands.md"


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_document_is_what_the_tables_generate():
    text = _doc()
    examples = {g: json.loads(t)["commands"] for g, t in commands_doc.examples_in(text).items()}
    assert commands_doc.document(examples) == text, \
        "docs/commands.md is out of date: python -m companion.core.commands_doc > docs/commands.md"


def _referee(game: str, text: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "companion.referee", game, "play"], input=text,
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


@pytest.mark.parametrize("game", sorted(commands_doc.GAMES))
def test_every_worked_game_plays_through_the_referee(game):
    text = _doc()
    example = commands_doc.examples_in(text)[game]
    done = _referee(game, example)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    section = text[text.index(example):]
    written = json.loads(section[section.index("Outcome: `") + 10:].split("`")[0])
    assert answer["outcome"] is not None, "the worked game does not reach the end"
    assert answer["outcome"]["winners"] == written["winners"]
    assert answer["view"]["game"] == game and isinstance(answer["legal"], list)


def test_an_illegal_command_stops_the_game_with_its_index_and_the_rule():
    example = json.loads(commands_doc.examples_in(_doc())["masks"])
    example["commands"].insert(2, {"command": "cast_ballot", "voter": "Ada", "choice": "Bo"})
    done = _referee("masks", json.dumps(example))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: commands[2] (cast_ballot): Casting a vote is not possible now")


def test_a_wrong_type_names_the_argument_and_the_index():
    example = json.loads(commands_doc.examples_in(_doc())["sevenknights"])
    example["commands"][0]["at"] = 3
    done = _referee("sevenknights", json.dumps(example))
    assert done.returncode == 2
    assert done.stderr.startswith("error: commands[0] (look): look.at: must be a non-empty text, got 3")


def test_the_play_question_is_strict_and_listed_in_help():
    done = _referee("cicero", '{"setup": {}, "commands": [], "extra": 1}')
    assert done.returncode == 2 and "unknown key 'extra'" in done.stderr
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    helped = subprocess.run([sys.executable, "-m", "companion.referee", "--help"], capture_output=True,
                            text=True, cwd=ROOT, env=env, timeout=60)
    assert helped.stdout.count("play") >= 4
