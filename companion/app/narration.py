"""The app's narrator: the core Narrator with the speaker the settings name and Kivy's audio."""
from __future__ import annotations

import logging

from kivy.core.audio import SoundLoader

from companion.core.audio import AudioOut
from companion.core.narration import Narrator
from companion.core.speakers import CaptionSpeaker, make_speaker

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


def speaker_from_settings(app):
    """The speaker the settings name, or captions with a one-line reason in ``app.voice_problem``."""
    s = app.settings
    try:
        opts = {"folder": s.voice_pack} if s.voice == "voicepack" else {}
        return make_speaker(s.voice, **opts)
    except Exception as exc:  # no espeak-ng, no plyer, a missing pack: captions still work
        log.warning("voice %s unavailable (%s); showing captions only", s.voice, exc)
        app.voice_problem = f"{s.voice}: {exc}"
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
                    on_mark=app.on_narration_mark, on_change=app.on_narration_change)
