"""Kill `python -m companion demo --out D` at random moments, many times on one folder, and run
`python -m companion check --data D` after every kill.

    .venv/bin/python benchmarks/demo_kill.py [--kills 50] [--out DIR] [--seed 16]

Prints one line per failed check and a summary; exits 1 if any check failed.
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _args import parse_quick

ROOT = Path(__file__).resolve().parents[1]


def _run(args, **kw):
    return subprocess.run([sys.executable, "-m", "companion", *args], cwd=ROOT, capture_output=True,
                          text=True, **kw)


def harness(out: Path, kills: int, seed: int = 16, log=print, warmups: int = 2) -> dict:
    rng = random.Random(seed)
    for _ in range(warmups):  # the first run warms the voice cache; the second gives a run's length
        t0 = time.monotonic()
        first = _run(["demo", "--out", str(out), "--quiet"], timeout=600)
        if first.returncode != 0:
            raise RuntimeError(f"the demo failed: {first.stderr[-2000:]}")
        span = time.monotonic() - t0
    failed, finished_runs = [], 0
    for n in range(kills):
        proc = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--out", str(out), "--quiet"],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.0, span * 1.1))  # anywhere in the run: opening, playing, finishing
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        else:
            finished_runs += 1
        proc.communicate()
        check = _run(["check", "--data", str(out)], timeout=300)
        if check.returncode != 0:
            failed.append((n, check.stdout))
            log(f"kill {n}: check failed:\n{check.stdout}")
    summary = _run(["check", "--data", str(out)], timeout=300).stdout.strip().splitlines()[-1]
    return {"kills": kills - finished_runs, "runs": kills, "failed": len(failed), "summary": summary,
            "demo_seconds": span}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=50)  # make bench runs it; use more by hand
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--warmups", type=int, default=2, help="whole runs before the kills (the first warms "
                    "the voice cache, the last gives a run's length)")
    ap.add_argument("--out", help="the folder (default: a new temporary one)")
    args = parse_quick(ap, argv, kills=1, warmups=1)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="demo-kill-"))
    r = harness(out, args.kills, args.seed, warmups=max(1, args.warmups))
    print(f"demo runs: {r['runs']} ({r['kills']} killed mid-run, one full run {r['demo_seconds']:.1f} s); "
          f"check failed after {r['failed']} of them")
    print(f"final check: {r['summary']}  ({out})")
    return 1 if r["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
