"""App cold start to first frame under Xvfb: a fresh Python process each run.

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python benchmarks/app_cold_start.py [--runs 5]

Each run starts `python -m companion` in a new process with a fresh data folder; the app is told
(through TABLE_COMPANION_FIRST_FRAME) to print the time of its first drawn frame and quit. The
runs share one cache folder (TABLE_COMPANION_CACHE), as starts of an installed app do: the first
run is the first start after an install or update (the catalogues are parsed and kept there),
and is also printed on its own.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _args import parse_quick

ROOT = Path(__file__).resolve().parents[1]


def one_run(cache: str) -> float:
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, TABLE_COMPANION_DATA=d, KIVY_HOME=str(Path(d) / "kivy"), TABLE_COMPANION_CACHE=cache,
                   KIVY_NO_CONSOLELOG="1", TABLE_COMPANION_FIRST_FRAME="1")
        t0 = time.time()
        out = subprocess.run([sys.executable, "-m", "companion"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
        for line in out.stdout.splitlines():
            if line.startswith("first-frame "):
                return float(line.split()[1]) - t0
        raise SystemExit(f"no first frame reported; stderr: {out.stderr.strip().splitlines()[-1:]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = parse_quick(ap, argv, runs=1)
    if not os.environ.get("DISPLAY"):
        raise SystemExit("error: no X display; run under xvfb-run")
    with tempfile.TemporaryDirectory() as cache:
        first = one_run(cache)
        totals = [one_run(cache) for _ in range(args.runs)]
    print(f"first start after an install (nothing cached): {first:.2f} s")
    print(f"cold start to first frame (process launch → first frame drawn): median {statistics.median(totals):.2f} s, "
          f"min {min(totals):.2f} s, max {max(totals):.2f} s over {args.runs} runs")


if __name__ == "__main__":
    main()
