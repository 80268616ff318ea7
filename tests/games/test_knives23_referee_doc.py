"""docs/referee.md, 23 Knives section: every worked example is run through the referee's own
command line function and must print exactly what the document shows (or its error, exit 2)."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from companion.referee import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "referee.md"
EXAMPLE = re.compile(r"    \$ echo '(?P<input>[^']*)' \\\n      \| python -m companion\.referee knives23 (?P<q>\w+)\n    (?P<out>.*)\n")


def examples():
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## 23 Knives: the decisions the tablet makes"):]
    found = [m.groupdict() for m in EXAMPLE.finditer(section)]
    assert len(found) >= 9
    return found


@pytest.mark.parametrize("example", examples(), ids=lambda e: e["q"])
def test_each_worked_example_answers_as_documented(example):
    out, err = io.StringIO(), io.StringIO()
    code = main(["knives23", example["q"]], stdin=io.StringIO(example["input"]), stdout=out, stderr=err)
    if example["out"].startswith("error:"):
        expected = example["out"].rsplit("     (exit 2)", 1)[0]
        assert code == 2 and err.getvalue().strip() == expected and out.getvalue() == ""
    else:
        assert code == 0, err.getvalue()
        assert json.loads(out.getvalue()) == json.loads(example["out"])
