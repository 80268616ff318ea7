"""The type check is part of the test command: mypy (configured in pyproject.toml, [tool.mypy])
over companion/, hardware/ and vision/ must report no error."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_finds_no_error():
    # No skip when mypy is missing: it is in the test extras (bash scripts/setup.sh test).
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


def test_every_function_is_annotated_in_core_games_phone_hardware_vision():
    """Issue 30: disallow_untyped_defs on companion.core, companion.games, companion.phone, hardware
    and vision — the configuration says so for each package and everything under it."""
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    strict = {m for o in config["tool"]["mypy"]["overrides"] if o.get("disallow_untyped_defs")
              for m in o["module"]}
    for package in ("companion.core", "companion.games", "companion.phone", "hardware", "vision"):
        assert {package, package + ".*"} <= strict, package
    # ... and the command lines beside them: every module of companion/ outside the Kivy app
    top = {f"companion.{p.stem}" for p in (ROOT / "companion").glob("*.py") if p.stem != "__init__"}
    assert top <= strict, top - strict
