"""Nothing in benchmarks/ rots: every script there runs its ``--quick`` version (a tiny run in
seconds) in a process of its own, exits 0 and prints figures. The scripts that open the app get the
suite's X display (scripts/test.sh starts Xvfb). The figures themselves are not judged here (tests
check correctness, never time): ``make bench`` runs the full versions and prints them."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/_args.py and any other name starting with "_" is a helper the scripts share, no benchmark
BENCHMARKS = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))
# A figure: a number with a unit (12.5 ms, 4 s, 189 MB, 0.0 %, 295 ballots/s), or a table's row
# ending in numbers (touches per action, tokens per level).
FIGURE = re.compile(r"\d[\d.]*\s*(?:ms|s|µs|MB|KB|%|\w+/s)(?!\w)|\S\s{2,}[\d.\s+]*\d(?: keys)?$", re.M)


def needs_x(script: Path) -> bool:
    return "no X display" in script.read_text(encoding="utf-8")


def test_every_benchmark_is_here_and_takes_quick():
    assert len(BENCHMARKS) >= 14
    for script in BENCHMARKS:
        # one --quick for all: benchmarks/_args.py's parse_quick adds it and applies the tiny run
        assert "parse_quick(" in script.read_text(encoding="utf-8"), f"{script.name} takes no --quick"


# The ones that open the app run from tests/app/test_benchmarks_app.py: the suite sends the app
# tests' files out first, so these long runs do not come last on one worker.
WITHOUT_X = [b for b in BENCHMARKS if not needs_x(b)]


@pytest.mark.slow
@pytest.mark.parametrize("script", WITHOUT_X, ids=[b.stem for b in WITHOUT_X])
def test_each_benchmark_runs_quick_and_prints_figures(script, tmp_path):
    runs_quick_and_prints_figures(script, tmp_path)


def runs_quick_and_prints_figures(script: Path, tmp_path: Path) -> None:
    if needs_x(script) and not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run the suite through scripts/test.sh (it starts Xvfb)")
    env = dict(os.environ, PYTHONPATH=str(ROOT), KIVY_HOME=str(tmp_path / "kivy"), KIVY_NO_ARGS="1",
               KIVY_NO_CONSOLELOG="1", TABLE_COMPANION_DATA=str(tmp_path / "data"),
               TABLE_COMPANION_CACHE=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, str(script), "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{script.name} --quick exited {done.returncode}:\n{done.stderr[-3000:]}"
    assert FIGURE.search(done.stdout), f"{script.name} --quick printed no figures:\n{done.stdout[-2000:]}"
