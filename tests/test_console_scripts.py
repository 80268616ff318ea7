"""Every console script in pyproject.toml names a real ``main`` whose ``--help`` works (argparse),
and the same holds for every ``python -m`` tool the README lists."""
from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def test_the_tools_have_console_scripts():
    targets = set(SCRIPTS.values())
    assert {"companion.referee:main", "vision.tokens:main", "vision.qr.__main__:main",
            "hardware.sim.__main__:main", "companion.phone.__main__:main"} <= targets


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_each_console_script_answers_help(name, capsys):
    module, _, func = SCRIPTS[name].partition(":")
    main = getattr(importlib.import_module(module), func)
    try:
        code = main(["--help"])   # the referee returns its exit code
    except SystemExit as done:    # argparse's own --help exits
        code = done.code
    assert code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage:") and "-h, --help" in out


def test_the_narration_checker_answers_help(capsys):
    from companion.core.narration import main
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("usage:")


@pytest.mark.parametrize("option", ["--data", "--boxes"])
def test_an_app_option_in_bytes_that_are_not_text_is_refused_in_one_line(option, capsys):
    # Found by the input audit: `--data` a folder named in another encoding closed the app at
    # start (its log line), `--boxes` when the Devices panel showed it.
    from companion.__main__ import main
    with pytest.raises(SystemExit) as done:
        main([option, "/tmp/q\udcff"])
    assert done.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith(f"argument {option}: '/tmp/q\\udcff' holds bytes that are not text (UTF-8)")
