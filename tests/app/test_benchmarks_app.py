"""The benchmarks that open the app, each run ``--quick`` (tests/test_benchmarks_quick.py says
why and runs the others). They are here so that they go out with the app tests, first: a few
minutes of benchmarks at the end of the suite were the last worker's alone."""
from __future__ import annotations

import pytest

from tests.test_benchmarks_quick import BENCHMARKS, needs_x, runs_quick_and_prints_figures

WITH_X = [b for b in BENCHMARKS if needs_x(b)]


def test_some_benchmarks_open_the_app():
    assert len(WITH_X) >= 3


@pytest.mark.app
@pytest.mark.slow
@pytest.mark.parametrize("script", WITH_X, ids=[b.stem for b in WITH_X])
def test_each_app_benchmark_runs_quick_and_prints_figures(script, tmp_path):
    runs_quick_and_prints_figures(script, tmp_path)
