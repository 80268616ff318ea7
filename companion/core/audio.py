"""Where narration sound goes: one voice channel plus one background-loop channel.

``AudioOut`` is deliberately small so the Kivy app can supply its own (SoundLoader) later.
Here: ``SubprocessAudioOut`` (an installed command-line player), ``RecordingAudioOut`` (mixes
everything it is asked to play, at its clock time and volume, into ONE WAV: what tests and the
headless demo use) and ``make_masking_loop`` (generates the background noise; no downloaded
assets). Standard library only, as everything in companion/core.
"""
from __future__ import annotations

import abc
import errno
import logging
import math
import operator
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import wave
from array import array
from itertools import repeat
from typing import Iterable, Sequence

from companion.core.clock import Clock
from companion.core.events import BadInput
from companion.core.i18n import keyed, message_of

log = logging.getLogger(__name__)

DEFAULT_RATE = 22050  # espeak-ng's own rate: no resampling for the common case


def default_cache_dir() -> str:
    """Folder for generated sound (speech WAVs, the masking loop); created on demand."""
    base = os.environ.get("TABLE_COMPANION_CACHE")
    if not base and os.environ.get("TABLE_COMPANION_DATA"):
        base = os.path.join(os.environ["TABLE_COMPANION_DATA"], "cache")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "table-companion")
    os.makedirs(base, exist_ok=True)
    return base


# --- WAV files -----------------------------------------------------------------------------

_PCM, _FLOAT, _EXTENSIBLE = 1, 3, 0xFFFE


def _riff(path: str, read_data: bool = True) -> tuple[int, int, int, bool, int, bytes | None]:
    """``(channels, width, rate, is_float, data_len, data)`` of a WAV file.

    Our own reader because Python 3.11's ``wave`` refuses WAVE_FORMAT_EXTENSIBLE, which sox,
    Audacity and most recorders write for 24-bit or multi-channel sound (voice packs).
    """
    with open(path, "rb") as f:
        head = f.read(12)
        if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
            raise BadInput(keyed("audio.no_header"))
        fmt = None
        while True:
            chunk = f.read(8)
            if len(chunk) < 8:
                raise BadInput(keyed("audio.no_data"))
            cid, size = chunk[:4], int.from_bytes(chunk[4:], "little")
            if cid == b"fmt ":
                body = f.read(size + (size & 1))
                if len(body) < 16:
                    raise BadInput(keyed("audio.short_format"))
                tag = int.from_bytes(body[0:2], "little")
                channels = int.from_bytes(body[2:4], "little")
                rate = int.from_bytes(body[4:8], "little")
                bits = int.from_bytes(body[14:16], "little")
                if tag == _EXTENSIBLE and len(body) >= 26:
                    tag = int.from_bytes(body[24:26], "little")  # the sub-format GUID
                if tag not in (_PCM, _FLOAT):
                    raise BadInput(keyed("audio.compressed", tag=tag))
                if channels < 1 or rate < 1 or bits not in (8, 16, 24, 32, 64):
                    raise BadInput(keyed("audio.odd_format", channels=channels, rate=rate, bits=bits))
                fmt = (channels, bits // 8, rate, tag == _FLOAT)
            elif cid == b"data":
                if fmt is None:
                    raise BadInput(keyed("audio.data_first"))
                channels, width = fmt[0], fmt[1]
                if size in (0, 0xFFFFFFFF):  # written by a stream that never knew its length
                    here = f.tell()
                    size = f.seek(0, 2) - here
                    f.seek(here)
                if read_data:
                    data = f.read(size)
                    data = data[: len(data) - len(data) % (channels * width)]
                    return (*fmt, len(data), data)
                size = min(size, os.fstat(f.fileno()).st_size - f.tell())
                return (*fmt, size - size % (channels * width), None)
            else:
                f.seek(size + (size & 1), 1)


def wav_duration(path: str) -> float:
    """Length in seconds from the header; a clear one-line BadInput if it is not a WAV."""
    try:
        channels, width, rate, _f, length, _d = _riff(path, read_data=False)
    except (ValueError, OSError) as exc:
        raise BadInput(keyed("audio.not_wav", path=str(path), problem=message_of(exc))) from None
    return length / (channels * width) / rate


def _to_float(raw: bytes, width: int, is_float: bool = False) -> array:
    """Sample bytes (little-endian, any common width) to floats in [-1, 1]."""
    if is_float:
        if width not in (4, 8):
            raise BadInput(keyed("audio.odd_float", bits=width * 8))
        values = array("f" if width == 4 else "d", raw)
        if sys.byteorder == "big":
            values.byteswap()
        return array("f", values)
    if width == 1:  # 8-bit WAV is unsigned
        return array("f", map((1 / 128).__mul__, map((-128).__add__, raw)))
    if width == 2:
        ints, scale = array("h", raw), 1 / 32768
    elif width == 3:  # spread into 32-bit slots: the top three bytes keep the sign
        wide = bytearray(len(raw) // 3 * 4)
        wide[1::4], wide[2::4], wide[3::4] = raw[0::3], raw[1::3], raw[2::3]
        ints, scale = array("i", bytes(wide)), 1 / 2147483648
    elif width == 4:
        ints, scale = array("i", raw), 1 / 2147483648
    else:
        raise BadInput(keyed("audio.odd_width", bits=width * 8))
    if sys.byteorder == "big":
        ints.byteswap()
    return array("f", map(scale.__mul__, ints))


def read_wav(path: str, rate: int = DEFAULT_RATE) -> array:
    """The file's sound as mono floats at ``rate`` (channels averaged, linear resampling)."""
    try:
        channels, width, src_rate, is_float, _n, raw = _riff(path)
        assert raw is not None   # read_data: the samples are read
        samples = _to_float(raw, width, is_float)
    except (ValueError, OSError) as exc:
        raise BadInput(keyed("audio.not_wav", path=str(path), problem=message_of(exc))) from None
    if channels > 1:
        mixed = samples[0::channels]
        for c in range(1, channels):
            mixed = array("f", map(operator.add, mixed, samples[c::channels]))
        samples = array("f", map((1 / channels).__mul__, mixed))
    if src_rate != rate and len(samples) > 1:
        step, last = src_rate / rate, len(samples) - 1
        out = array("f", bytes(4 * int(len(samples) * rate / src_rate)))
        for i in range(len(out)):
            pos = i * step
            j = int(pos)
            frac = pos - j
            out[i] = samples[j] if j >= last else samples[j] * (1 - frac) + samples[j + 1] * frac
        samples = out
    return samples


def write_wav(path: str, samples: Sequence[float], rate: int = DEFAULT_RATE) -> str:
    """Write mono floats as 16-bit PCM (clipped), atomically (temp file + rename)."""
    # Builtins mapped in C: a Python function per sample is the slow part of writing a long
    # narration. Clipping (rare: only when voice and loop peak together) costs two passes more.
    values: Iterable[float] = samples
    if samples and (max(samples) > 1.0 or min(samples) < -1.0):
        values = map(max, map(min, samples, repeat(1.0)), repeat(-1.0))
    pcm = array("h", map(round, map((32767.0).__mul__, values)))
    if pcm.itemsize != 2:
        raise RuntimeError("array('h') is not 16-bit on this platform")
    if sys.byteorder == "big":  # WAV is little-endian
        pcm.byteswap()
    if os.path.isdir(path):  # said before a temporary file is made beside it
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:  # a file where the folder should be
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), folder) from None
    try:
        fd, tmp = tempfile.mkstemp(suffix=".wav", dir=folder)
    except OSError as exc:  # naming the WAV asked for, not the temporary file's name
        raise OSError(exc.errno, exc.strerror, path) from None
    os.close(fd)
    try:
        with wave.open(tmp, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(pcm.tobytes())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a recorded WAV is meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


# --- the background masking sound ----------------------------------------------------------

def make_masking_loop(path: str, seconds: float = 6.0, rate: int = DEFAULT_RATE,
                      seed: int = 7, level: float = 0.45) -> str:
    """Write a seamless loop of pink noise (like soft rain) that masks rustling cards.

    Pink rather than white or brown: card noise sits in the 1-6 kHz range, which brown noise
    barely covers and white noise covers harshly. Paul Kellet's economy filter makes it. The
    last half-second is cross-faded into the first so the loop has no click at its seam.
    """
    rng = random.Random(seed)
    fade = int(0.5 * rate)
    n = int(seconds * rate)
    b0 = b1 = b2 = 0.0
    raw = array("f", bytes(4 * (n + fade)))
    for i in range(n + fade):
        white = rng.uniform(-1.0, 1.0)
        b0 = 0.99765 * b0 + white * 0.0990460
        b1 = 0.96300 * b1 + white * 0.2965164
        b2 = 0.57000 * b2 + white * 1.0526913
        raw[i] = b0 + b1 + b2 + white * 0.1848
    for i in range(fade):  # equal-power cross-fade of the tail into the head
        a = math.sin(0.5 * math.pi * i / fade)
        raw[i] = raw[i] * a + raw[n + i] * math.cos(0.5 * math.pi * i / fade)
    loop = raw[:n]
    peak = max(map(abs, loop)) or 1.0
    return write_wav(path, array("f", map((level / peak).__mul__, loop)), rate)


def default_masking_loop(cache_dir: str | None = None) -> str:
    """The generated masking loop in the cache folder (made once, then reused)."""
    path = os.path.join(cache_dir or default_cache_dir(), "masking-pink-noise.wav")
    if not os.path.exists(path):
        make_masking_loop(path)
    return path


# --- outputs -------------------------------------------------------------------------------

class AudioOut(abc.ABC):
    """One voice channel (a new ``play`` replaces what is playing) and one background loop."""

    @abc.abstractmethod
    def play(self, wav_path: str, volume: float = 1.0) -> None: ...

    @abc.abstractmethod
    def stop(self) -> None: ...

    @abc.abstractmethod
    def is_playing(self) -> bool: ...

    @abc.abstractmethod
    def loop(self, wav_path: str, volume: float = 0.3) -> None:
        """Start (or, for the same file, re-level) the background loop."""

    @abc.abstractmethod
    def stop_loop(self) -> None: ...

    def prepare(self, wav_path: str) -> None:
        """Load ``wav_path`` ahead of its ``play``; called on the narrator's preparation thread,
        so the main thread does not wait for the file when the line starts. Optional."""


def _check_volume(volume: float) -> float:
    v = float(volume)
    if not 0.0 <= v <= 1.0:
        raise BadInput(keyed("audio.volume", got=repr(volume)))
    return v


class RecordingAudioOut(AudioOut):
    """Plays nothing aloud: records what it is asked to play, at the clock's time, and mixes
    it into ONE WAV (voice and loop, each at its volume) on ``write()``.

    ``log`` lists every voice clip as ``(start, natural_end, cut_at | None, wav_path)`` so a
    test can prove that no line started while another was still sounding.
    """

    def __init__(self, path: str, clock: Clock, rate: int = DEFAULT_RATE):
        self.path, self.clock, self.rate = path, clock, rate
        self.log: list[tuple[float, float, float | None, str]] = []
        self._clips: list[list] = []   # [start, samples, volume, cut_at]
        self._loops: list[list] = []   # [start, samples, volume, stop_at, phase_s, path]
        self._cache: dict[str, array] = {}
        self.origin = clock.now()

    def _samples(self, path: str) -> array:
        if path not in self._cache:
            self._cache[path] = read_wav(path, self.rate)
        return self._cache[path]

    def play(self, wav_path: str, volume: float = 1.0) -> None:
        volume = _check_volume(volume)
        samples = self._samples(wav_path)
        self.stop()
        now = self.clock.now()
        self._clips.append([now, samples, volume, None])
        self.log.append((now, now + len(samples) / self.rate, None, wav_path))

    def stop(self) -> None:
        now = self.clock.now()
        if self._clips and self.is_playing():
            self._clips[-1][3] = now
            start, end, _cut, path = self.log[-1]
            self.log[-1] = (start, end, now, path)

    def is_playing(self) -> bool:
        if not self._clips:
            return False
        start, samples, _v, cut = self._clips[-1]
        return cut is None and self.clock.now() < start + len(samples) / self.rate

    def loop(self, wav_path: str, volume: float = 0.3) -> None:
        volume = _check_volume(volume)
        samples = self._samples(wav_path)
        now = self.clock.now()
        phase = 0.0
        if self._loops and self._loops[-1][3] is None:
            current = self._loops[-1]
            if current[5] == wav_path:  # same sound at a new level: carry on where it was
                phase = current[4] + now - current[0]
            current[3] = now
        self._loops.append([now, samples, volume, None, phase, wav_path])

    def stop_loop(self) -> None:
        if self._loops and self._loops[-1][3] is None:
            self._loops[-1][3] = self.clock.now()

    @property
    def looping(self) -> bool:
        return bool(self._loops) and self._loops[-1][3] is None

    def write(self, path: str | None = None) -> str:
        """Mix everything up to now (or the end of the last clip) and write the WAV."""
        rate, origin = self.rate, self.origin
        end = self.clock.now()
        for start, samples, _v, cut in self._clips:
            end = max(end, cut if cut is not None else start + len(samples) / rate)
        total = max(0, round((end - origin) * rate))
        out = array("f", bytes(4 * total))

        def add(at: int, part: array, volume: float) -> None:
            at = max(0, at)
            part = part[: max(0, total - at)]
            if part and volume:
                out[at:at + len(part)] = array("f", map(operator.add, out[at:at + len(part)],
                                                        map(operator.mul, part, repeat(volume))))

        for start, samples, volume, stop_at, phase, _p in self._loops:
            if not samples:
                continue
            stop_at = end if stop_at is None else stop_at
            at, remaining = round((start - origin) * rate), round((stop_at - start) * rate)
            offset = round(phase * rate) % len(samples)
            while remaining > 0:
                piece = samples[offset:offset + remaining]
                add(at, piece, volume)
                at, remaining, offset = at + len(piece), remaining - len(piece), 0
        for start, samples, volume, cut in self._clips:
            if cut is not None:
                samples = samples[: round((cut - start) * rate)]
            add(round((start - origin) * rate), samples, volume)
        return write_wav(path or self.path, out, rate)


class SubprocessAudioOut(AudioOut):
    """Plays through the first command-line player installed (paplay, aplay, sox's play,
    ffplay). With none, or with no sound device, it stays silent and logs ONE warning: the
    narration still runs on its own timing and captions.
    """

    PLAYERS = ("paplay", "aplay", "play", "ffplay")

    def __init__(self, player: str | None = None):
        if player is not None and player not in self.PLAYERS:
            raise BadInput(keyed("audio.unknown_player", player=repr(player), known=", ".join(self.PLAYERS)))
        candidates = [player] if player else self.PLAYERS
        self.player = next((p for p in candidates if shutil.which(p)), None)
        self.last_error: str | None = None
        self._warned = False
        self._proc: subprocess.Popen | None = None
        self._copies: dict[tuple[str, float], str] = {}   # volume-scaled copies for aplay
        self._tmpdir: tempfile.TemporaryDirectory | None = None
        self._loop_thread: threading.Thread | None = None
        self._loop_stop = threading.Event()
        self._loop_proc: subprocess.Popen | None = None
        self._loop_lock = threading.Lock()
        if self.player is None:
            self._warn("no audio player found (looked for %s); narration is silent"
                       % ", ".join(candidates))

    def _warn(self, message: str) -> None:
        self.last_error = message
        if not self._warned:
            self._warned = True
            log.warning("audio: %s", message)

    def command_for(self, path: str, volume: float) -> list[str]:
        """The player's command line for one file at one volume."""
        if self.player == "paplay":
            return ["paplay", f"--volume={int(65536 * volume)}", path]
        if self.player == "play":
            return ["play", "-q", "-v", f"{volume:.3f}", path]
        if self.player == "ffplay":
            return ["ffplay", "-nodisp", "-autoexit", "-loglevel", "quiet",
                    "-volume", str(int(100 * volume)), path]
        if self.player == "aplay":  # no volume option: play a scaled copy (made once)
            return ["aplay", "-q", self._scaled(path, volume) if volume < 0.999 else path]
        raise BadInput(keyed("audio.no_player"))

    def _scaled(self, path: str, volume: float) -> str:
        key = (os.path.abspath(path), round(volume, 3))
        with self._loop_lock:
            if key not in self._copies:
                if self._tmpdir is None:
                    self._tmpdir = tempfile.TemporaryDirectory(prefix="companion-audio-")
                copy = os.path.join(self._tmpdir.name, f"{len(self._copies)}.wav")
                write_wav(copy, array("f", map(key[1].__mul__, read_wav(path))))
                self._copies[key] = copy
            return self._copies[key]

    def _start(self, path: str, volume: float) -> subprocess.Popen | None:
        if self.player is None:
            return None
        try:
            return subprocess.Popen(self.command_for(path, volume), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        except OSError as exc:
            self._warn(f"{self.player} could not start: {exc}")
            return None

    def _reap(self, proc: subprocess.Popen) -> None:
        """Note a player that failed (no sound device, unreadable file): one warning."""
        if proc.returncode not in (0, None, -15, -9):
            err = proc.stderr.read().decode(errors="replace").strip().splitlines() if proc.stderr else []
            self._warn(f"{self.player} failed (exit {proc.returncode}): "
                       f"{err[-1] if err else 'no message'}")

    def play(self, wav_path: str, volume: float = 1.0) -> None:
        volume = _check_volume(volume)
        self.stop()
        self._proc = self._start(wav_path, volume)

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            self._reap(proc)

    def is_playing(self) -> bool:
        if self._proc is None:
            return False
        if self._proc.poll() is None:
            return True
        self._reap(self._proc)
        return False

    def loop(self, wav_path: str, volume: float = 0.3) -> None:
        volume = _check_volume(volume)
        self.stop_loop()
        self._loop_stop = stop = threading.Event()

        def run() -> None:
            # Audio only: this thread never touches game state or widgets.
            while not stop.is_set():
                with self._loop_lock:
                    proc = self._loop_proc = self._start(wav_path, volume)
                if proc is None:
                    return
                proc.wait()
                self._reap(proc)
                if proc.returncode != 0:
                    return  # a failing player would otherwise respawn in a busy loop
        self._loop_thread = threading.Thread(target=run, name="audio-loop", daemon=True)
        self._loop_thread.start()

    def stop_loop(self) -> None:
        self._loop_stop.set()
        with self._loop_lock:
            proc = self._loop_proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
        if self._loop_thread is not None:
            self._loop_thread.join(timeout=3)
            self._loop_thread = None

    @property
    def looping(self) -> bool:
        return self._loop_thread is not None and self._loop_thread.is_alive()

    def close(self) -> None:
        """Stop both channels and remove the scaled copies."""
        self.stop()
        self.stop_loop()
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir, self._copies = None, {}
