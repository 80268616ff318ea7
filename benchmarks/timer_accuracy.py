"""Timer accuracy: how late a 7-minute countdown's warnings and end are noticed.

    .venv/bin/python benchmarks/timer_accuracy.py [--real-seconds 3] [--runs 3]

Part 1 runs a 7-minute countdown (warnings at 60 s and 10 s) on a FakeClock, polled the way
the app's Kivy Clock would: every ~50 ms with jitter and occasional stalls. It compares
  - fixed polling every ~50 ms,
  - polling that also wakes exactly at ``next_event_in()``,
  - a naive countdown that subtracts the nominal 50 ms per tick (what we do NOT do), for scale.
Part 2 runs short real countdowns on the monotonic clock with real sleeps.
Error = the clock time when the event was noticed minus the ideal time. Prints figures only.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from companion.core.clock import FakeClock, MonotonicClock  # noqa: E402
from companion.core.timers import Countdown  # noqa: E402

from _args import parse_quick  # noqa: E402

TICK = 0.05


def app_like_interval(rng: random.Random) -> float:
    """One Kivy Clock interval: 50 ms +- jitter, sometimes a stall (a heavy frame)."""
    if rng.random() < 0.01:
        return rng.uniform(0.15, 0.4)
    return max(0.001, rng.gauss(TICK, 0.006))


def fake_run(duration: float, warnings, seed: int, scheduled: bool) -> dict:
    clock, rng = FakeClock(0.0), random.Random(seed)
    seen: dict = {}
    timer = Countdown(duration, clock, warnings,
                      on_warning=lambda m: seen.setdefault(m, clock.now()),
                      on_end=lambda: seen.setdefault("end", clock.now()))
    while not timer.ended:
        step = app_like_interval(rng)
        if scheduled:  # Clock.schedule_once(poll, timer.next_event_in()) as well
            due = timer.next_event_in()
            if due is not None:
                step = min(step, due)
        clock.advance(step)
        timer.poll()
    return {k: seen[k] - (duration - (0 if k == "end" else k)) for k in seen}


def naive_run(duration: float, seed: int) -> float:
    """Subtract the nominal tick each time: the error grows with every late tick."""
    clock, rng = FakeClock(0.0), random.Random(seed)
    remaining = duration
    while remaining > 0:
        clock.advance(app_like_interval(rng))
        remaining -= TICK
    return clock.now() - duration


def real_run(duration: float, warnings, scheduled: bool) -> dict:
    clock = MonotonicClock()
    start = clock.now()
    seen: dict = {}
    timer = Countdown(duration, clock, warnings,
                      on_warning=lambda m: seen.setdefault(m, clock.now()),
                      on_end=lambda: seen.setdefault("end", clock.now()))
    while not timer.ended:
        step = TICK
        if scheduled:
            due = timer.next_event_in()
            if due is not None:
                step = min(step, due)
        clock.sleep(step)
        timer.poll()
    return {k: seen[k] - start - (duration - (0 if k == "end" else k)) for k in seen}


def describe(errors: list[float]) -> str:
    ms = [e * 1000 for e in errors]
    return (f"mean {statistics.mean(ms):7.2f} ms   median {statistics.median(ms):7.2f} ms   "
            f"max {max(ms):7.2f} ms   min {min(ms):6.2f} ms")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100, help="fake-clock runs per strategy")
    parser.add_argument("--real-seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3, help="real-clock runs per strategy")
    args = parse_quick(parser, argv, seeds=3, real_seconds=0.3, runs=1)

    duration, warnings = 420.0, (60, 10)
    print(f"7-minute countdown (warnings {warnings}) on a FakeClock, {args.seeds} runs each, "
          f"app-like polling (~{TICK * 1000:.0f} ms, jitter 6 ms, 1% stalls of 150-400 ms)")
    for scheduled in (False, True):
        runs = [fake_run(duration, warnings, seed, scheduled) for seed in range(args.seeds)]
        label = "poll every ~50 ms       " if not scheduled else "+ wake at next_event_in()"
        for key in (60, 10, "end"):
            name = f"{key} s warning" if key != "end" else "end      "
            print(f"  {label}  {name:12s} {describe([r[key] for r in runs])}")
    naive = [naive_run(duration, seed) for seed in range(args.seeds)]
    print(f"  naive tick-summing (not used)  end   {describe(naive)}")

    real_warnings = (args.real_seconds * 2 / 3, args.real_seconds / 3)
    print(f"\nreal {args.real_seconds:g} s countdown (warnings at "
          f"{real_warnings[0]:g} s, {real_warnings[1]:g} s) on the monotonic clock, "
          f"{args.runs} runs each, real sleeps")
    for scheduled in (False, True):
        runs = [real_run(args.real_seconds, real_warnings, scheduled) for _ in range(args.runs)]
        label = "sleep 50 ms             " if not scheduled else "+ wake at next_event_in()"
        for key in (*real_warnings, "end"):
            name = f"{key:g} s warning" if key != "end" else "end      "
            print(f"  {label}  {name:12s} {describe([r[key] for r in runs])}")


if __name__ == "__main__":
    main()
