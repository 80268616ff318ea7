"""Does the narration keep pace with the table? Prints:

- the Curia reveal's lag at 1, 2 and 4 taps a second: real espeak-ng, the real clock, the
  narrator scheduled as the app schedules it (woken at ``next_change_in()``), 10 cards;
  lag = when the voice starts the last total after the last tap (and when it has said it);
- the main thread's longest block during that narration (every narrator call it makes:
  queueing, ticking, starting each line's sound through the app's own KivyAudioOut on SDL's
  disk audio driver; synthesis and loading each line's sound run on the narrator's preparation
  thread), then the five longest blocks, each with the narrator call and the innermost frames
  that were running most of that time (sampled every 1 ms), so a regression names its cause;
- the masking bed's longest digital silence on the real audio path: Kivy's SDL2 mixer, with
  SDL's disk audio driver capturing what would reach the speaker (``--bed-seconds``, 60 default).

    .venv/bin/python benchmarks/narration_pace.py [--bed-seconds 60] [--cards 10]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from array import array
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.core import i18n  # noqa: E402
from companion.core.clock import MonotonicClock  # noqa: E402
from companion.core.narration import Narrator  # noqa: E402
from companion.core.speakers import EspeakSpeaker  # noqa: E402
from companion.games.knives23 import cues  # noqa: E402

from _args import parse_quick  # noqa: E402

CARDS = [{"knives": 5}, {"knives": 3}, {"knives": 2}, {"knives": 3}, {"knives": 5},
         {"doves": 2}, {"knives": 3}, {"knives": 2}, {"knives": 2}, {"doves": 1}]


class Timed:
    """Wraps the main thread's calls into the narrator to find its longest blocks, and what ran in
    them: while a call runs, a 1 ms interval timer interrupts the main thread and the signal
    handler notes the innermost frames it interrupted (cheap: nothing runs between samples). A
    C call shows as the Python frame that made it (e.g. Kivy's ``SoundLoader.load``). Each block
    also gives the main thread's own CPU time in it: far less than the block's length means the
    thread was not running (the OS gave its core to another process, or another thread held the
    GIL), which on a loaded machine is most of a long block."""

    KEEP = 5

    def __init__(self):
        self.longest = 0.0
        self.blocks: list[tuple[float, float, str, str]] = []  # (seconds, cpu s, callable, what ran most)
        self._seen: Counter = Counter()
        self._depth = 0
        signal.signal(signal.SIGALRM, self._sample)

    def _sample(self, _signum, frame) -> None:
        names = []
        while frame is not None and len(names) < 3:
            names.append(f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}")
            frame = frame.f_back
        self._seen[" < ".join(names)] += 1

    def __call__(self, fn, *args, **kw):
        self._seen.clear()
        signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            return fn(*args, **kw)
        finally:
            took, cpu = time.perf_counter() - t0, time.thread_time() - c0
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
            self.longest = max(self.longest, took)
            what = self._seen.most_common(1)[0][0] if self._seen else "(under 1 ms: not sampled)"
            self.blocks.append((took, cpu, getattr(fn, "__qualname__", repr(fn)), what))
            self.blocks.sort(key=lambda b: -b[0])
            del self.blocks[self.KEEP:]


def app_audio(tmp: str):
    """The app's audio output on the real SDL path (disk driver: no sound card needed), and
    Kivy's clock, which the app's main loop runs (Kivy's Sound reports its end through it)."""
    os.environ.update(SDL_AUDIODRIVER="disk", SDL_DISKAUDIOFILE=os.path.join(tmp, "voice.raw"),
                      KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1", KIVY_HOME=os.path.join(tmp, "kivy"))
    from kivy.clock import Clock

    from companion.app.narration import KivyAudioOut
    return KivyAudioOut(), Clock


def reveal_lag(taps_per_s: float, cards: int, speaker, block: Timed, audio,
               kivy_clock) -> tuple[float, float, int]:
    clock = MonotonicClock()
    n = Narrator(speaker, audio, clock, threaded=True)
    start = clock.now()
    tap_times = [start + i / taps_per_s for i in range(cards)]
    total, i = 0, 0
    last_tap = None
    while i < cards or n.busy:
        now = clock.now()
        if i < cards and now >= tap_times[i]:
            card = CARDS[i % len(CARDS)]
            (kind, v), = card.items()
            total += v if kind == "knives" else -v
            block(n.enqueue_script, cues.load("curia_card"), {"card": cues.card_words(card), "total": total})
            last_tap = clock.now()
            i += 1
            continue
        kivy_clock.tick()
        block(n.tick)
        due = n.next_change_in()  # woken as the app wakes it: when something is due
        wake = [0.5] + ([due] if due is not None else []) + ([tap_times[i] - now] if i < cards else [])
        time.sleep(max(0.001, min(wake)))
    final = [e for e in n.history if e.key == "curia_total"][-1]
    assert final.text.endswith(f"The total is {total}."), final.text
    return final.started_at - last_tap, final.ended_at - last_tap, \
        sum(1 for e in n.history if e.key == "curia_total")


BED_PROBE = r"""
import json, os, sys, time
from array import array
from collections import Counter
from companion.app.narration import KivyAudioOut, SDLMixerLoop
from companion.core.audio import default_masking_loop
seconds = float(sys.argv[1])
out = KivyAudioOut()
out.use_mixer_loop = sys.argv[2] != "kivy"  # "kivy": the old path, Kivy's Sound.loop, to compare
out.loop(default_masking_loop(), 0.3)
mixer = out._mixer_loop
spec = SDLMixerLoop.find().spec()
from kivy.clock import Clock
end = time.monotonic() + seconds
while time.monotonic() < end:  # the app's main loop runs Kivy's clock (Sound.loop polls on it)
    Clock.tick()
    time.sleep(1 / 60)
out.stop_loop()
time.sleep(0.3)
print(json.dumps({"rate": spec[0], "format": spec[1], "channels": spec[2],
                  "mixer_loop": mixer is not None}))
"""


def longest_digital_silence(raw: bytes, rate: int, fmt: int, channels: int, seconds: float) -> tuple[float, float]:
    """(longest run of frames whose every sample is exactly zero, between two sounding frames, in
    seconds; how long the bed sounded, first to last sounding frame, in seconds), within the
    ``seconds`` from the bed's first sound. The capture holds silence before the bed starts and
    after the probe stops it: neither is a seam. Under load SDL's disk driver writes fewer frames
    than the wall clock's seconds, so the stop can fall inside the window (CI 2026-12-01 counted
    that tail as a 168 ms gap); the sounding time says whether the bed ran all along."""
    code = {0x8010: "h", 0x8020: "i", 0x8120: "f", 0x8008: "b"}.get(fmt)
    if code is None:
        raise SystemExit(f"unexpected SDL sample format 0x{fmt:x}")
    samples = array(code, raw[: len(raw) - len(raw) % (array(code).itemsize * channels)])
    frames = len(samples) // channels
    sounding = [f for f in range(frames) if any(samples[f * channels:(f + 1) * channels])]
    if not sounding:
        return float("inf"), 0.0
    until = sounding[0] + int((seconds - 0.2) * rate)
    sounding = [f for f in sounding if f <= until]
    longest, prev = 0, sounding[0]
    for f in sounding[1:]:
        longest = max(longest, f - prev - 1)
        prev = f
    return longest / rate, (sounding[-1] - sounding[0]) / rate


def bed_silence(seconds: float, how: str = "mixer") -> tuple[float, dict]:
    """Run the app's masking bed for ``seconds`` on SDL's disk driver in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "bed.raw")
        env = dict(os.environ, SDL_AUDIODRIVER="disk", SDL_DISKAUDIOFILE=raw,
                   KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1",
                   KIVY_HOME=os.path.join(tmp, "kivy"), TABLE_COMPANION_CACHE=os.path.join(tmp, "cache"))
        done = subprocess.run([sys.executable, "-c", BED_PROBE, str(seconds), how], env=env, cwd=str(ROOT),
                              capture_output=True, text=True, timeout=seconds + 120)
        if done.returncode != 0:
            raise SystemExit(f"bed probe failed: {done.stderr.strip().splitlines()[-1:]}")
        info = json.loads(done.stdout.strip().splitlines()[-1])
        with open(raw, "rb") as f:
            data = f.read()
        width = {0x8010: 2, 0x8020: 4, 0x8120: 4, 0x8008: 1}.get(info["format"], 2)
        info["captured_s"] = len(data) / (info["rate"] * info["channels"] * width)
        silence, info["sounding_s"] = longest_digital_silence(data, info["rate"], info["format"],
                                                              info["channels"], seconds)
        return silence, info


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bed-seconds", type=float, default=60.0)
    parser.add_argument("--cards", type=int, default=10)
    parser.add_argument("--no-bed", action="store_true")
    parser.add_argument("--rates", type=float, nargs="+", default=[1.0, 2.0, 4.0], help="taps a second")
    args = parse_quick(parser, argv, cards=2, rates=[4.0], bed_seconds=1.5)
    with tempfile.TemporaryDirectory() as tmp:
        i18n.set_language("en")  # as the app does at start, before its first screen
        speaker = EspeakSpeaker(cache_dir=tmp)
        audio, kivy_clock = app_audio(tmp)
        block = Timed()
        for rate in args.rates:
            start_lag, end_lag, said = reveal_lag(rate, args.cards, speaker, block, audio, kivy_clock)
            print(f"reveal lag at {rate:g} taps/s ({args.cards} cards, espeak-ng, real clock): "
                  f"last total starts {start_lag:.2f} s after the last tap, said by "
                  f"{end_lag:.2f} s; {said} of {args.cards} totals spoken")
        print(f"main thread's longest block during narration: {block.longest * 1000:.1f} ms (goal < 16 ms)")
        for took, cpu, name, what in block.blocks:
            print(f"  {took * 1000:6.1f} ms (on the CPU {cpu * 1000:5.1f} ms)  {name}: {what}")
    if not args.no_bed:
        silence, info = bed_silence(args.bed_seconds)
        how = "SDL_mixer loop" if info["mixer_loop"] else "Kivy Sound.loop"
        old, _info = bed_silence(min(args.bed_seconds, 13.0), "kivy")
        print(f"masking bed ({how}, SDL disk driver, {info['captured_s']:.1f} s captured, "
              f"{info['sounding_s']:.1f} s sounding, at "
              f"{info['rate']} Hz x{info['channels']}): longest digital silence "
              f"{silence * 1000:.1f} ms (goal < 5 ms); Kivy's Sound.loop for comparison: "
              f"{old * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
