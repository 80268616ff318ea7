"""The app's narrator: the core Narrator with the speaker the settings name and Kivy's audio."""
from __future__ import annotations

import logging

from kivy.core.audio import SoundLoader

from companion.core.audio import AudioOut
from companion.core.narration import Narrator
from companion.core.events import BadInput
from companion.core.speakers import CaptionSpeaker, SpeechError, make_speaker

log = logging.getLogger(__name__)


class KivyAudioOut(AudioOut):
    """Plays WAVs through Kivy's SoundLoader (SDL2 mixer on desktop and Android)."""

    def __init__(self):
        self._sound = None
        self._loop = None

    def play(self, wav_path: str, volume: float = 1.0) -> None:
        self.stop()
        sound = SoundLoader.load(wav_path)
        if sound is None:
            log.warning("cannot play %s", wav_path)
            return
        sound.volume = volume
        sound.play()
        self._sound = sound

    def stop(self) -> None:
        if self._sound is not None:
            self._sound.stop()
            self._sound = None

    def is_playing(self) -> bool:
        return self._sound is not None and self._sound.state == "play"

    def loop(self, wav_path: str, volume: float = 0.3) -> None:
        self.stop_loop()
        sound = SoundLoader.load(wav_path)
        if sound is None:
            log.warning("cannot loop %s", wav_path)
            return
        sound.loop = True
        sound.volume = volume
        sound.play()
        self._loop = sound

    def stop_loop(self) -> None:
        if self._loop is not None:
            self._loop.stop()
            self._loop = None


def make_narrator(app, speaker=None, audio_out=None) -> Narrator:
    s = app.settings
    if speaker is None:
        try:
            opts = {"folder": s.voice_pack} if s.voice == "voicepack" else {}
            speaker = make_speaker(s.voice, **opts)
        except (SpeechError, BadInput, OSError, ImportError) as exc:
            # no espeak-ng, no plyer, a missing pack: captions still work
            log.warning("voice %s unavailable (%s); showing captions only", s.voice, exc)
            app.voice_problem = f"{s.voice}: {exc}"
            speaker = CaptionSpeaker()
    old = getattr(app, "narrator", None)
    if old is not None:
        old.cancel()
        old.stop_background()
    return Narrator(speaker, audio_out or KivyAudioOut(), app.engine_clock, on_caption=app.set_caption,
                    pace=s.pace, volume=s.volume, loop_volume=s.loop_volume)
