"""Text-to-speech backends behind one interface.

A ``Speaker`` turns a line into an ``Utterance``: the WAV to play (or None when the backend
voices the line itself, or stays silent) and how long it lasts. The narrator needs the length
before the line starts, so that every line occupies a predictable slot.

- ``EspeakSpeaker``: espeak-ng (offline, desktop), WAVs cached by text + pace + voice.
- ``PlyerSpeaker``: the platform voice through plyer (Android); length estimated.
- ``VoicePackSpeaker``: a folder of recorded clips ``<line_id>.wav``; missing lines fall back.
- ``CaptionSpeaker``: silent; the caption alone, shown for an estimated reading time.
"""
from __future__ import annotations

import abc
import hashlib
import importlib.util
import logging
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from companion.core import i18n
from companion.core.audio import default_cache_dir, wav_duration
from companion.core.events import BadInput, _message

log = logging.getLogger(__name__)

WORDS_PER_MINUTE = 175  # espeak-ng's default rate, taken as "pace 1" for every backend
MIN_PACE, MAX_PACE = 0.5, 2.0


class SpeechError(RuntimeError):
    """A backend could not produce speech. One line, naming the backend and the line: its
    message ``keyed`` (the table reads it in its language), ``str()`` English."""

    def __init__(self, message: str | dict):
        text, self.key, self.values = _message(message)
        super().__init__(text)


@dataclass(frozen=True)
class Utterance:
    line_id: str
    text: str
    wav_path: str | None   # None: the speaker voices it itself (plyer) or it is silent
    duration_s: float


def check_pace(pace: float) -> float:
    try:
        value = float(pace)
    except (TypeError, ValueError):
        raise BadInput(i18n.keyed("speakers.pace_number", pace=str(pace))) from None
    if not MIN_PACE <= value <= MAX_PACE:
        raise BadInput(i18n.keyed("speakers.pace_range", low=MIN_PACE, high=MAX_PACE, pace=str(pace)))
    return value


def estimate_duration(text: str, pace: float = 1.0, wpm: float = WORDS_PER_MINUTE) -> float:
    """Seconds a voice takes to say ``text`` (or a reader needs for its caption).

    Words at ``wpm`` plus the pauses a voice makes at punctuation; never under 0.6 s so a
    one-word caption stays on screen long enough to be read.
    """
    # A number is read digit group by digit group ("1234": "one thousand two hundred and
    # thirty-four"): count each digit as a word and a half, so the estimate stays an upper bound.
    words = len(re.findall(r"[^\W\d_][\w']*", text)) + 1.5 * len(re.findall(r"\d", text))
    stops = len(re.findall(r"[.!?]+", text))
    commas = len(re.findall(r"[,;:\u2014]", text))
    seconds = (words * 60 / wpm + 0.3 * stops + 0.15 * commas) / pace
    return round(max(0.6, seconds + 0.2), 3)


class Speaker(abc.ABC):
    name = "speaker"
    # True when prepare() only estimates (no synthesis): the narrator calls it inline rather
    # than on its preparation thread.
    instant = False
    # The fastest pace this voice can follow (a recording cannot be sped up).
    max_pace = MAX_PACE

    @abc.abstractmethod
    def prepare(self, line_id: str, text: str, pace: float = 1.0) -> Utterance:
        """Make the line ready to play and say how long it lasts. May block briefly."""

    def speak(self, utterance: Utterance) -> None:
        """Voice a line that has no WAV. Called by the narrator when the line starts."""

    def stop(self) -> None:
        """Cut a line voiced by ``speak`` short, where the backend allows it."""

    def is_speaking(self) -> bool:
        """True while a line voiced by ``speak`` still sounds (where the backend can tell):
        the narrator never starts the next line over it."""
        return False


class CaptionSpeaker(Speaker):
    """Silent: the caption alone, for as long as it takes to read (or to hear it read)."""

    name = "captions"
    instant = True

    def __init__(self, wpm: float = WORDS_PER_MINUTE):
        self.wpm = wpm

    def prepare(self, line_id: str, text: str, pace: float = 1.0) -> Utterance:
        return Utterance(line_id, text, None, estimate_duration(text, check_pace(pace), self.wpm))


CHECK_SECONDS = 5  # espeak-ng's voice check at start


class EspeakSpeaker(Speaker):
    """espeak-ng writes each line to a WAV in a cache folder; the header gives its length.

    The cache key is binary + voice + rate + text, so a line is synthesised once per pace.
    """

    name = "espeak"

    def __init__(self, cache_dir: str | None = None, voice: str | None = None,
                 binary: str = "espeak-ng", wpm: float = WORDS_PER_MINUTE):
        voice = voice or i18n.language()  # espeak-ng's voices are named by language: en, fr, de
        found = shutil.which(binary)
        if found is None:
            raise SpeechError(i18n.keyed("speakers.no_espeak", program=repr(binary)))
        self.binary: str = found
        self.voice, self.wpm = voice, wpm
        self.cache_dir = os.path.join(cache_dir or default_cache_dir(), "espeak")
        os.makedirs(self.cache_dir, exist_ok=True)
        # A settings screen wants "no such voice" now, not on the first line of a game. A sound
        # espeak-ng answers in well under a second; one that hangs must not hold the app's start.
        try:
            check = subprocess.run([self.binary, "-q", "-v", voice, "x"], capture_output=True,
                                   timeout=CHECK_SECONDS)
        except subprocess.TimeoutExpired:
            raise SpeechError(i18n.keyed("speakers.check_hung", program=repr(found),
                                         seconds=CHECK_SECONDS)) from None
        if check.returncode != 0:
            raise SpeechError(i18n.keyed("speakers.bad_voice", voice=repr(voice), problem=_last_line(check)))

    @staticmethod
    def available(binary: str = "espeak-ng") -> bool:
        return shutil.which(binary) is not None

    def rate_for(self, pace: float) -> int:
        # espeak-ng accepts 80..450 words per minute
        return max(80, min(450, round(self.wpm * check_pace(pace))))

    def wav_path_for(self, text: str, pace: float) -> str:
        key = f"{self.binary}|{self.voice}|{self.rate_for(pace)}|{text}"
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]
        return os.path.join(self.cache_dir, f"{digest}.wav")

    def prepare(self, line_id: str, text: str, pace: float = 1.0) -> Utterance:
        path = self.wav_path_for(text, pace)
        if os.path.exists(path) and os.path.getsize(path) > 44:
            try:
                return Utterance(line_id, text, path, wav_duration(path))
            except BadInput:
                pass  # a damaged cache file: make it again
        # An empty 44-byte WAV is a known rare espeak hiccup: one retry.
        for _attempt in range(2):
            self._synthesise(line_id, text, pace, path)
            if os.path.getsize(path) > 44:
                return Utterance(line_id, text, path, wav_duration(path))
        raise SpeechError(i18n.keyed("speakers.no_sound", line=repr(line_id)))

    def _synthesise(self, line_id: str, text: str, pace: float, path: str) -> None:
        fd, tmp = tempfile.mkstemp(suffix=".wav", dir=self.cache_dir)
        os.close(fd)
        # Text goes through stdin so a line starting with "-" is never read as an option.
        cmd = [self.binary, "-v", self.voice, "-s", str(self.rate_for(pace)), "-w", tmp, "--stdin"]
        try:
            done = subprocess.run(cmd, input=text.encode("utf-8"), capture_output=True, timeout=30)
            if done.returncode != 0:
                raise SpeechError(i18n.keyed("speakers.failed", line=repr(line_id), code=done.returncode,
                                             problem=_last_line(done)))
            os.replace(tmp, path)  # atomic: a reader never sees a half-written cache file
        except subprocess.TimeoutExpired:
            raise SpeechError(i18n.keyed("speakers.too_long", line=repr(line_id), seconds=30)) from None
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def _last_line(done: subprocess.CompletedProcess) -> str:
    """espeak-ng prints some errors on stdout, others on stderr: the last line of either."""
    for stream in (done.stderr, done.stdout):
        lines = (stream or b"").decode(errors="replace").strip().splitlines()
        if lines:
            return lines[-1].strip()
    return "no message"


class PlyerSpeaker(Speaker):
    """The platform's own voice (Android TextToSpeech via plyer).

    plyer gives neither a WAV nor the length, so the length is estimated from the words, and
    the platform speaks at its own rate: pace changes the slot, not the voice. Scripts should
    give generous slots when this backend is used. ``tts`` may be passed in (a stand-in where
    the platform cannot run); otherwise plyer is imported on first use.
    """

    name = "plyer"
    instant = True

    def __init__(self, tts: Any = None, wpm: float = WORDS_PER_MINUTE):   # plyer's tts module (untyped)
        self._tts, self.wpm = tts, wpm
        self.last_error: str | None = None

    @staticmethod
    def available() -> bool:
        if importlib.util.find_spec("plyer") is None:
            return False
        on_android = "ANDROID_ARGUMENT" in os.environ or "ANDROID_PRIVATE" in os.environ
        return on_android or shutil.which("espeak") is not None  # plyer's Linux backend

    def prepare(self, line_id: str, text: str, pace: float = 1.0) -> Utterance:
        return Utterance(line_id, text, None, estimate_duration(text, check_pace(pace), self.wpm))

    def speak(self, utterance: Utterance) -> None:
        try:
            if self._tts is None:
                from plyer import tts  # lazy: plyer probes the platform on import
                self._tts = tts
            self._tts.speak(message=utterance.text)
        except Exception as exc:  # the narration goes on with captions; say why once
            message = f"plyer: line {utterance.line_id!r} not spoken: {type(exc).__name__}: {exc}"
            if self.last_error is None:
                log.warning("%s", message)
            self.last_error = " ".join(message.split())


class VoicePackSpeaker(Speaker):
    """A group's recorded voice: ``<folder>/<line_id>.wav`` for each line.

    Clips play as recorded (pace does not stretch them). A line without a clip, or with a clip
    that is not a readable WAV, goes to the fallback speaker; ``missing`` and ``problems`` say
    which, and ``missing_lines(ids)`` checks a script's lines before the game starts.
    """

    name = "voicepack"
    # Clips play as recorded: above pace 1 the slots would shrink under them and the phase's
    # length would depend on which lines were recorded. The narrator keeps to pace 1 at most.
    max_pace = 1.0

    def __init__(self, folder: str, fallback: Speaker | None = None):
        if not os.path.isdir(folder):
            raise BadInput(i18n.keyed("speakers.voice_pack_not_folder", folder=str(folder)))
        self.folder = folder
        self.clips = {name[:-4]: os.path.join(folder, name)
                      for name in sorted(os.listdir(folder)) if name.lower().endswith(".wav")}
        if fallback is None:
            fallback = EspeakSpeaker() if EspeakSpeaker.available() else CaptionSpeaker()
        self.fallback = fallback
        self.missing: set[str] = set()
        self.problems: dict[str, str] = {}

    def missing_lines(self, line_ids: Iterable[str]) -> list[str]:
        return [i for i in dict.fromkeys(line_ids) if i not in self.clips]

    def prepare(self, line_id: str, text: str, pace: float = 1.0) -> Utterance:
        check_pace(pace)
        clip = self.clips.get(line_id)
        if clip is not None:
            try:
                return Utterance(line_id, text, clip, wav_duration(clip))
            except BadInput as exc:
                if line_id not in self.problems:
                    log.warning("voice pack: %s", exc)
                self.problems[line_id] = str(exc)
        else:
            self.missing.add(line_id)
        return self.fallback.prepare(line_id, text, pace)

    def speak(self, utterance: Utterance) -> None:
        if utterance.wav_path is None:
            self.fallback.speak(utterance)


def on_android() -> bool:
    return "ANDROID_ARGUMENT" in os.environ or "ANDROID_PRIVATE" in os.environ


class AndroidSpeaker(Speaker):
    """Android's own TextToSpeech through pyjnius: ONE engine for the app, lines queued with
    QUEUE_ADD under an utterance id, and the engine's utterance-completed callback telling the
    narrator when a line has really ended (``is_speaking``), so the next never starts over it.

    plyer's Android backend is not used: it makes a new engine for every line, flushes the
    queue and sleeps on the calling thread. The length is estimated (the platform gives none
    before speaking); the platform voice follows the pace through ``setSpeechRate``.
    Cannot run off a device: tests drive it with a stand-in for ``jnius``.
    """

    name = "android"
    instant = True

    def __init__(self, jnius: Any = None, wpm: float = WORDS_PER_MINUTE):   # the jnius module (untyped)
        if jnius is None:
            try:
                jnius = importlib.import_module("jnius")  # only on Android
            except ImportError as exc:
                raise SpeechError(i18n.keyed("speakers.no_pyjnius", problem=str(exc))) from None
        self._jnius = jnius
        self.wpm = wpm
        self.ready = False
        self.last_error: str | None = None
        self._speaking: str | None = None   # the utterance id still sounding
        self._count = 0
        self._rate: float | None = None
        j = self._jnius
        speaker = self
        java_class: Any = j.PythonJavaClass  # pyjnius' base for Python classes Java calls

        class _OnInit(java_class):
            __javainterfaces__ = ["android/speech/tts/TextToSpeech$OnInitListener"]
            __javacontext__ = "app"

            @j.java_method("(I)V")
            def onInit(self, status: int) -> None:
                speaker.ready = status == 0  # TextToSpeech.SUCCESS
                if speaker.ready:  # the platform voice of the app's language
                    speaker._tts.setLanguage(j.autoclass("java.util.Locale")(i18n.language()))
                if not speaker.ready:
                    speaker.last_error = f"android: the voice did not start (status {status})"

        class _Done(java_class):
            # an interface (pyjnius cannot subclass the abstract UtteranceProgressListener)
            __javainterfaces__ = ["android/speech/tts/TextToSpeech$OnUtteranceCompletedListener"]
            __javacontext__ = "app"

            @j.java_method("(Ljava/lang/String;)V")
            def onUtteranceCompleted(self, utterance_id: str) -> None:
                if speaker._speaking == utterance_id:
                    speaker._speaking = None

        self._TTS = j.autoclass("android.speech.tts.TextToSpeech")
        activity = j.autoclass("org.kivy.android.PythonActivity").mActivity
        self._listeners = (_OnInit(), _Done())  # kept: Java holds them weakly through pyjnius
        self._tts = self._TTS(activity, self._listeners[0])
        self._tts.setOnUtteranceCompletedListener(self._listeners[1])
        self._HashMap = j.autoclass("java.util.HashMap")

    @staticmethod
    def available() -> bool:
        return on_android() and importlib.util.find_spec("jnius") is not None

    def prepare(self, line_id: str, text: str, pace: float = 1.0) -> Utterance:
        return Utterance(line_id, text, None, estimate_duration(text, check_pace(pace), self.wpm))

    def speak(self, utterance: Utterance) -> None:
        if not self.ready:
            self.last_error = self.last_error or "android: the voice is not ready yet"
            return
        self._count += 1
        uid = f"line{self._count}"
        params = self._HashMap()
        params.put(self._TTS.Engine.KEY_PARAM_UTTERANCE_ID, uid)
        self._speaking = uid
        if self._tts.speak(utterance.text, self._TTS.QUEUE_ADD, params) != 0:
            self._speaking = None
            self.last_error = f"android: line {utterance.line_id!r} was not accepted by the voice"

    def set_pace(self, pace: float) -> None:
        if pace != self._rate:
            self._rate = pace
            self._tts.setSpeechRate(float(pace))

    def stop(self) -> None:
        self._speaking = None
        self._tts.stop()

    def is_speaking(self) -> bool:
        return self._speaking is not None


def auto_speaker() -> Speaker:
    """The default voice: the platform's own where it has one (Android), espeak-ng on a
    desktop that has it, then plyer; SpeechError (one line) when no voice can speak here."""
    if AndroidSpeaker.available():
        return AndroidSpeaker()
    if EspeakSpeaker.available():
        return EspeakSpeaker()
    if PlyerSpeaker.available():
        return PlyerSpeaker()
    raise SpeechError(i18n.keyed("speakers.no_voice"))


SPEAKERS: dict[str, Callable[..., Speaker]] = {
    "auto": auto_speaker,
    "espeak": EspeakSpeaker,
    "plyer": PlyerSpeaker,
    "android": AndroidSpeaker,
    "voicepack": VoicePackSpeaker,
    "captions": CaptionSpeaker,
}


def make_speaker(name: str, **opts: Any) -> Speaker:
    """``make_speaker("espeak", voice="en-gb")``, ``make_speaker("voicepack", folder=...)``."""
    if name == "plyer" and AndroidSpeaker.available():
        name = "android"  # the tablet's own voice, through one engine rather than plyer's
    cls = SPEAKERS.get(name)
    if cls is None:
        raise BadInput(i18n.keyed("speakers.unknown", name=repr(name), known=", ".join(SPEAKERS)))
    try:
        return cls(**opts)
    except TypeError as exc:
        raise BadInput(i18n.keyed("speakers.bad_options", name=repr(name), problem=str(exc))) from None


def available_speakers() -> list[str]:
    """Backends that can run on this machine (a voice pack also needs its folder)."""
    names = ["auto"]
    if AndroidSpeaker.available():
        names.append("android")
    if EspeakSpeaker.available():
        names.append("espeak")
    if PlyerSpeaker.available():
        names.append("plyer")
    names += ["voicepack", "captions"]
    return names
