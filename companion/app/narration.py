"""The app's narrator: the core Narrator with the speaker the settings name and Kivy's audio."""
from __future__ import annotations

import ctypes
import glob
import logging
import os
import threading
from collections import OrderedDict

from kivy.core.audio import SoundLoader

from companion.core import i18n
from companion.core.audio import AudioOut
from companion.core.events import BadInput
from companion.core.narration import Narrator
from companion.core.session import NARRATION_STEP
from companion.core.speakers import CaptionSpeaker, SpeechError, make_speaker

log = logging.getLogger(__name__)


class SDLMixer:
    """Kivy's own SDL_mixer reached through ctypes (same process, same open audio device, after
    Kivy's SoundLoader has opened the mixer). ctypes lets go of the GIL in each call, so a WAV
    loaded on the narrator's preparation thread does not hold up the main thread (Kivy's
    ``SoundLoader.load`` holds the GIL for the whole decode: 5-20 ms)."""

    def __init__(self, lib):
        self.lib = lib
        lib.SDL_RWFromFile.restype = ctypes.c_void_p
        lib.SDL_RWFromFile.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.Mix_LoadWAV_RW.restype = ctypes.c_void_p
        lib.Mix_LoadWAV_RW.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.Mix_PlayChannelTimed.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        lib.Mix_Volume.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.Mix_HaltChannel.argtypes = [ctypes.c_int]
        lib.Mix_Playing.argtypes = [ctypes.c_int]
        lib.Mix_GetChunk.argtypes = [ctypes.c_int]
        lib.Mix_GetChunk.restype = ctypes.c_void_p
        lib.Mix_FreeChunk.argtypes = [ctypes.c_void_p]
        lib.Mix_QuerySpec.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_uint16),
                                      ctypes.POINTER(ctypes.c_int)]

    @classmethod
    def find(cls):
        """The mixer Kivy uses, or None where it cannot be reached (Kivy's own Sound is used then)."""
        import kivy
        here = os.path.dirname(os.path.dirname(kivy.__file__))
        names = sorted(glob.glob(os.path.join(here, "Kivy.libs", "libSDL2_mixer*.so*"))) + \
            ["libSDL2_mixer.so", "libSDL2_mixer-2.0.so.0"]
        for name in names:
            try:
                lib = ctypes.CDLL(name)
                return cls(lib)
            except (OSError, AttributeError):
                continue
        return None

    def spec(self) -> tuple[int, int, int]:
        """(rate, SDL format, channels) of the open mixer; rate 0 when it is not open."""
        rate, fmt, ch = ctypes.c_int(0), ctypes.c_uint16(0), ctypes.c_int(0)
        if not self.lib.Mix_QuerySpec(ctypes.byref(rate), ctypes.byref(fmt), ctypes.byref(ch)):
            return 0, 0, 0
        return rate.value, fmt.value, ch.value

    def load(self, wav_path: str):
        """The chunk (decoded and converted to the mixer's format), or None."""
        rw = self.lib.SDL_RWFromFile(os.fsencode(wav_path), b"rb")
        return self.lib.Mix_LoadWAV_RW(rw, 1) if rw else None

    def start(self, chunk, loops: int, volume: float) -> int:
        """The channel it plays on (-1: none free)."""
        channel = self.lib.Mix_PlayChannelTimed(-1, chunk, loops, -1)
        if channel >= 0:
            self.lib.Mix_Volume(channel, int(round(max(0.0, min(1.0, volume)) * 128)))
        return channel

    def playing(self, channel: int, chunk) -> bool:
        return (channel >= 0 and bool(self.lib.Mix_Playing(channel))
                and self.lib.Mix_GetChunk(channel) == chunk)

    def free(self, chunk) -> None:
        if chunk:
            self.lib.Mix_FreeChunk(chunk)  # halts any channel still playing it


class SDLMixerLoop(SDLMixer):
    """The masking bed looped by SDL_mixer itself (``Mix_PlayChannel(-1, chunk, -1)``).

    Kivy's ``Sound.loop`` replays the sound from a 0.1 s poll, which leaves tens of
    milliseconds of digital silence at every seam: exactly the card noise the bed is there to
    hide. SDL_mixer loops a chunk inside its own audio callback, sample-exact.
    """

    def __init__(self, lib):
        super().__init__(lib)
        self._chunk = None
        self._channel = -1

    def play(self, wav_path: str, volume: float) -> bool:
        self.stop()
        if self.spec()[0] == 0:
            return False
        chunk = self.load(wav_path)
        if not chunk:
            return False
        channel = self.start(chunk, -1, volume)  # loops=-1: for ever
        if channel < 0:
            self.free(chunk)
            return False
        self._chunk, self._channel = chunk, channel
        return True

    def set_volume(self, volume: float) -> None:
        if self._channel >= 0:
            self.lib.Mix_Volume(self._channel, int(round(max(0.0, min(1.0, volume)) * 128)))

    def stop(self) -> None:
        if self._channel >= 0:
            self.lib.Mix_HaltChannel(self._channel)
            self._channel = -1
        if self._chunk:
            self.free(self._chunk)
            self._chunk = None


class _Voice:
    """One line's sound on the mixer: its chunk and the channel it plays on."""

    def __init__(self, mixer: SDLMixer, chunk):
        self.mixer, self.chunk, self.channel = mixer, chunk, -1

    def play(self, volume: float) -> bool:
        self.channel = self.mixer.start(self.chunk, 0, volume)
        return self.channel >= 0

    @property
    def state(self) -> str:
        return "play" if self.mixer.playing(self.channel, self.chunk) else "stop"

    def stop(self) -> None:
        self.unload()

    def unload(self) -> None:
        if self.chunk:
            self.mixer.free(self.chunk)
            self.chunk, self.channel = None, -1


class KivyAudioOut(AudioOut):
    """Plays WAVs through Kivy's SDL2 mixer (desktop and Android): each line's sound is loaded
    ahead on the narrator's preparation thread, through ctypes where the mixer can be reached
    (else Kivy's SoundLoader); the masking bed through SDL_mixer's own looping."""

    use_mixer_loop = True
    READY_AT_MOST = 8  # sounds loaded ahead and not played yet (a dropped report's among them)

    def __init__(self):
        self._sound: _Voice | _KivySound | None = None
        self._loop = None
        self._mixer_loop: SDLMixerLoop | None = None
        self._loop_path = None
        self._ready: OrderedDict[str, _Voice | _KivySound] = OrderedDict()  # path -> sound loaded ahead
        self._ready_lock = threading.Lock()
        self._mixer: SDLMixer | None = None
        self._looked_for_mixer = False

    def _load(self, wav_path: str) -> "_Voice | _KivySound | None":
        """A sound with ``play(volume)``, ``state``, ``stop()`` and ``unload()``, or None. Kivy
        opens the mixer with its first sound; from then on chunks are loaded through ctypes."""
        if not self._looked_for_mixer:
            self._looked_for_mixer = True
            self._mixer = SDLMixer.find()
        mixer = self._mixer
        if mixer is not None and mixer.spec()[0] != 0:
            chunk = mixer.load(wav_path)
            return _Voice(mixer, chunk) if chunk else None
        sound = SoundLoader.load(wav_path)  # opens Kivy's mixer (SDL_Init, Mix_OpenAudio)
        return None if sound is None else _KivySound(sound)

    def prepare(self, wav_path: str) -> None:
        """Load the sound on the calling thread (the narrator's preparation thread) so that
        ``play`` only starts it."""
        sound = self._load(wav_path)
        if sound is None:
            return
        with self._ready_lock:
            old = self._ready.pop(wav_path, None)
            self._ready[wav_path] = sound
            evicted = [old] if old is not None else []
            while len(self._ready) > self.READY_AT_MOST:
                evicted.append(self._ready.popitem(last=False)[1])
        for s in evicted:
            s.unload()

    def play(self, wav_path: str, volume: float = 1.0) -> None:
        self.stop()
        with self._ready_lock:
            sound = self._ready.pop(wav_path, None)
        if sound is None:
            sound = self._load(wav_path)
        if sound is None or not sound.play(volume):
            log.warning("cannot play %s", wav_path)
            if sound is not None:
                sound.unload()
            return
        self._sound = sound

    def stop(self) -> None:
        if self._sound is not None:
            self._sound.stop()
            self._sound = None

    def is_playing(self) -> bool:
        return self._sound is not None and self._sound.state == "play"

    def loop(self, wav_path: str, volume: float = 0.3) -> None:
        if wav_path == self._loop_path and (self._loop is not None or self._mixer_loop is not None):
            if self._mixer_loop is not None:
                self._mixer_loop.set_volume(volume)   # the same bed, re-levelled: no seam
            else:
                assert self._loop is not None   # one of the two beds is playing (checked above)
                self._loop.volume = volume
            return
        self.stop_loop()
        sound = SoundLoader.load(wav_path)  # also opens Kivy's mixer, which the bed shares
        if sound is None:
            log.warning("cannot loop %s", wav_path)
            return
        mixer = SDLMixerLoop.find() if self.use_mixer_loop else None
        if mixer is not None and mixer.play(wav_path, volume):
            self._mixer_loop, self._loop_path = mixer, wav_path
            return
        log.info("masking bed: SDL_mixer not reachable; Kivy's loop (may gap at the seam)")
        sound.loop = True
        sound.volume = volume
        sound.play()
        self._loop, self._loop_path = sound, wav_path

    def stop_loop(self) -> None:
        if self._mixer_loop is not None:
            self._mixer_loop.stop()
            self._mixer_loop = None
        if self._loop is not None:
            self._loop.stop()
            self._loop = None
        self._loop_path = None


class _KivySound:
    """Kivy's Sound with the same four calls as ``_Voice`` (the mixer not reachable, or not open)."""

    def __init__(self, sound):
        self.sound = sound

    def play(self, volume: float) -> bool:
        self.sound.volume = volume
        self.sound.play()
        return True

    @property
    def state(self) -> str:
        return self.sound.state

    def stop(self) -> None:
        self.sound.stop()

    def unload(self) -> None:
        self.sound.unload()


class NarrationProgress:
    """The step each game's long script (the Hidden Phase) has reached, kept in the game's journal
    as the narrator reaches it (a ``narration_step`` note), so a script cut short by anything — a
    screen change, the app killed — resumes at that step rather than at step 1. Step 0 clears."""

    def __init__(self, session, on_error=None):
        self.session = session
        self.on_error = on_error  # storage full: the narration goes on, the table is told

    def step(self, game_id, script: str) -> int | None:
        session = self.session
        if session is None or session.game_id != game_id:
            return None
        last = next((e for e in reversed(session.events)
                     if e.kind == NARRATION_STEP and e.data.get("script") == script), None)
        value = last.data.get("step") if last is not None else None
        return value if isinstance(value, int) and value > 0 else None

    def record(self, game_id, script: str, step: int) -> None:
        session = self.session
        if session is None or session.game_id != game_id:
            return
        try:
            session.note(NARRATION_STEP, {"script": script, "step": int(step)})
        except BadInput as exc:  # a full disk must not stop the narration
            log.warning("narration step not recorded: %s", exc)
            if self.on_error is not None:
                self.on_error(str(exc))

    def clear(self, game_id, script: str) -> None:
        if self.step(game_id, script) is not None:
            self.record(game_id, script, 0)


def speaker_from_settings(app):
    """The speaker the settings name, or captions with a one-line reason in ``app.voice_problem``."""
    s = app.settings
    try:
        opts = {"folder": s.voice_pack} if s.voice == "voicepack" else {}
        return make_speaker(s.voice, **opts)
    except (SpeechError, BadInput, OSError, ImportError) as exc:
        # no espeak-ng, no plyer, a missing pack: captions still work
        log.warning("voice %s unavailable (%s); showing captions only", s.voice, exc)
        said = i18n.error_text(exc)   # in the table's language
        app.voice_problem = said if s.voice == "auto" else f"{s.voice}: {said}"
        return CaptionSpeaker()


def make_narrator(app, speaker=None, audio_out=None) -> Narrator:
    """The app's one narrator. Called again after Settings are saved, it keeps the narrator and
    what it is saying: the new voice, pace and volumes apply from the next line."""
    s = app.settings
    speaker = speaker or speaker_from_settings(app)
    narrator = getattr(app, "narrator", None)
    if narrator is not None:
        narrator.set_speaker(speaker)
        narrator.pace, narrator.volume, narrator.loop_volume = s.pace, s.volume, s.loop_volume
        return narrator
    return Narrator(speaker, audio_out or KivyAudioOut(), app.engine_clock, on_caption=app.set_caption,
                    pace=s.pace, volume=s.volume, loop_volume=s.loop_volume, threaded=True,
                    on_mark=app.on_narration_mark, on_change=app.on_narration_change,
                    on_error=app.on_narration_error)
