"""The ``--quick`` flag every benchmark takes: a tiny run in seconds, which the suite runs for each
one (tests/test_benchmarks_quick.py) so none of them rots. Not a benchmark itself: the suite and
``make bench`` (scripts/bench.sh) skip the files of benchmarks/ whose names start with ``_``.

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = parse_quick(ap, argv, runs=1)
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence

QUICK_HELP = "a tiny run in seconds (the suite runs each benchmark so)"


def parse_quick(ap: argparse.ArgumentParser, argv: Sequence[str] | None = None, *,
                help: str = QUICK_HELP, **tiny: object) -> argparse.Namespace:
    """``ap``'s arguments from ``argv``, with ``--quick`` added. With ``--quick``, ``tiny`` are the
    defaults (the figures of a tiny run); figures given on the command line still win."""
    ap.add_argument("--quick", action="store_true", help=help)
    args = ap.parse_args(argv)
    if args.quick and tiny:
        ap.set_defaults(**tiny)
        args = ap.parse_args(argv)
    return args
