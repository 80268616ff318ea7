#!/usr/bin/env python3
"""Where the suite's time went: reads the lines ``SUITE_TIMES=FOLDER`` made (tests/suite_times.py)
and prints the slowest files and tests, each worker's timeline and the critical path.

    SUITE_TIMES=/tmp/times bash scripts/test.sh -n 4 --dist loadfile --no-loadscope-reorder   (make test's options)
    .venv/bin/python scripts/suite_times.py /tmp/times [--top 30]

Columns: ``wall`` as measured; ``quiet`` = wall less the time the test's thread waited for a
core (what it takes on a machine nobody else loads); ``cpu`` = its process's CPU (all threads)
plus its finished child processes'; ``idle`` = quiet less the test thread's own time on a core:
time the worker spent waiting on a clock, a child process, a socket or another thread, during
which another worker could have used the core.
"""
from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path


def load(folder: Path) -> list[dict]:
    rows = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    if not rows:
        raise SystemExit(f"suite_times: no timing lines in {folder} (run the suite with SUITE_TIMES={folder})")
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--top", type=int, default=25, help="how many files and tests to list (25)")
    args = ap.parse_args(argv)
    rows = load(args.folder)
    t0 = min(r["start"] for r in rows)
    for r in rows:
        r["quiet"] = max(0.0, r["wall"] - r["runqueue"])
        r["idle"] = max(0.0, r["quiet"] - r["on_core"])

    def totals(key: str) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = collections.defaultdict(lambda: collections.defaultdict(float))
        for r in rows:
            for k in ("wall", "quiet", "cpu", "children", "idle"):
                out[r[key]][k] += r[k]
            out[r[key]]["tests"] += 1
            out[r[key]]["first"] = min(out[r[key]].get("first", 1e30), r["start"] - t0)
            out[r[key]]["last"] = max(out[r[key]]["last"], r["start"] - t0 + r["wall"])
        return out

    workers, files = totals("worker"), totals("file")
    worker_of = {r["file"]: r["worker"] for r in rows}
    print(f"{len(rows)} tests in {len(files)} files on {len(workers)} worker(s); "
          f"wall {sum(r['wall'] for r in rows):.0f} s, quiet {sum(r['quiet'] for r in rows):.0f} s, "
          f"cpu {sum(r['cpu'] + r['children'] for r in rows):.0f} s, idle {sum(r['idle'] for r in rows):.0f} s "
          f"(summed over workers)")
    print("\nworkers (quiet: the worker's tests on a quiet machine, one after the other):")
    for w, t in sorted(workers.items()):
        print(f"  {w:5} ends at {t['last']:7.1f} s wall; quiet {t['quiet']:7.1f} s, of it idle {t['idle']:6.1f} s;"
              f" {int(t['tests'])} tests")
    quiet_sum = sum(t["quiet"] for t in workers.values())
    longest = max(files.items(), key=lambda kv: kv[1]["quiet"])
    print(f"\ncritical path on a quiet machine: the busiest worker's {max(t['quiet'] for t in workers.values()):.1f} s"
          f" (an even split would be {quiet_sum / len(workers):.1f} s; the longest file,"
          f" {longest[0]}, alone {longest[1]['quiet']:.1f} s)")
    idle = sum(t["idle"] for t in workers.values())
    print(f"idle share: {100 * idle / quiet_sum:.0f} % of the workers' quiet time waited on clocks, children or sockets")
    print(f"\nslowest files (quiet s, wall s, cpu s incl. children, idle s, worker, wall window):")
    for f, t in sorted(files.items(), key=lambda kv: -kv[1]["quiet"])[:args.top]:
        print(f"  {t['quiet']:7.1f} {t['wall']:7.1f} {t['cpu'] + t['children']:7.1f} {t['idle']:6.1f}  {worker_of[f]:5}"
              f" [{t['first']:6.0f}-{t['last']:6.0f}]  {f}  ({int(t['tests'])} tests)")
    print(f"\nslowest tests (quiet s, wall s, cpu s incl. children, idle s):")
    for r in sorted(rows, key=lambda r: -r["quiet"])[:args.top]:
        print(f"  {r['quiet']:7.1f} {r['wall']:7.1f} {r['cpu'] + r['children']:7.1f} {r['idle']:6.1f}  {r['id']}")
    dirs: dict[str, float] = collections.defaultdict(float)
    for f, t in files.items():
        dirs[str(Path(f).parent)] += t["quiet"]
    print("\nper folder (quiet s): " + ", ".join(f"{d} {s:.0f}" for d, s in sorted(dirs.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()
