"""Speakers (espeak-ng, plyer, voice pack, captions) and audio outputs, with real espeak-ng
and real WAV files; durations checked against sox's own reading (soxi -D)."""
from __future__ import annotations

import math
import os
import shutil
import subprocess
import time
import wave
from array import array

import pytest

from companion.core.audio import (RecordingAudioOut, SubprocessAudioOut, make_masking_loop,
                                  read_wav, wav_duration, write_wav)
from companion.core.clock import FakeClock
from companion.core.events import BadInput
from companion.core.narration import Narrator
from companion.core.speakers import (CaptionSpeaker, EspeakSpeaker, PlyerSpeaker, SpeechError,
                                     VoicePackSpeaker, available_speakers, estimate_duration,
                                     make_speaker)

LINE = "Everyone, check your allegiance. Then close your eyes."


def soxi_duration(path) -> float:
    return float(subprocess.run(["soxi", "-D", str(path)], capture_output=True, text=True,
                                check=True).stdout)


def tone(path, seconds, freq=440.0, amp=0.5, rate=22050):
    samples = array("f", (amp * math.sin(2 * math.pi * freq * i / rate)
                          for i in range(int(seconds * rate))))
    return write_wav(str(path), samples, rate)


def rms(samples) -> float:
    return math.sqrt(sum(x * x for x in samples) / max(1, len(samples)))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("speech-cache"))


@pytest.fixture(scope="module")
def espeak(cache):
    return EspeakSpeaker(cache_dir=cache)


# --- espeak-ng -----------------------------------------------------------------------------

def test_espeak_line_length_is_what_sox_measures(espeak):
    utt = espeak.prepare("check_allegiance", LINE)
    assert utt.line_id == "check_allegiance" and utt.text == LINE
    assert utt.duration_s == pytest.approx(soxi_duration(utt.wav_path), abs=1e-3)
    assert 1.5 < utt.duration_s < 8


def test_espeak_caches_by_text_pace_and_voice(cache):
    speaker = EspeakSpeaker(cache_dir=cache)
    first = speaker.prepare("a", LINE)
    mtime = os.stat(first.wav_path).st_mtime_ns
    again = speaker.prepare("b", LINE)  # another id, same words: same sound
    assert again.wav_path == first.wav_path and os.stat(first.wav_path).st_mtime_ns == mtime
    fast = speaker.prepare("a", LINE, pace=2.0)
    slow = speaker.prepare("a", LINE, pace=0.5)
    assert len({fast.wav_path, first.wav_path, slow.wav_path}) == 3
    assert fast.duration_s < first.duration_s < slow.duration_s
    other_voice = EspeakSpeaker(cache_dir=cache, voice="en-us").prepare("a", LINE)
    assert other_voice.wav_path != first.wav_path


def test_espeak_remakes_a_damaged_cache_file(espeak):
    utt = espeak.prepare("x", "Spy, close your eyes.")
    with open(utt.wav_path, "wb") as f:
        f.write(b"RIFF....not a wav at all, but longer than a header" * 2)
    again = espeak.prepare("x", "Spy, close your eyes.")
    assert again.duration_s == pytest.approx(utt.duration_s) and wav_duration(again.wav_path) > 0.5


def test_espeak_speaks_text_that_starts_with_a_dash(espeak):
    # Passed as an argument, "-5" would be read as an espeak option; it goes through stdin.
    utt = espeak.prepare("minus", "-5 influence for the Senate.")
    assert utt.duration_s > 1.0


def test_a_voice_espeak_lacks_is_refused_when_chosen(cache):
    with pytest.raises(SpeechError) as err:
        EspeakSpeaker(cache_dir=cache, voice="klingon-imperial")
    message = str(err.value)
    assert "voice 'klingon-imperial' cannot be used" in message and "does not exist" in message
    assert "\n" not in message


def test_an_espeak_that_hangs_its_voice_check_is_refused_in_one_line(cache, tmp_path, monkeypatch):
    # Found by the input audit: TimeoutExpired escaped after 30 s and closed the app at start.
    import companion.core.speakers as speakers
    fake = tmp_path / "bin" / "espeak-ng"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexec sleep 1000\n")
    fake.chmod(0o755)
    monkeypatch.setattr(speakers, "CHECK_SECONDS", 0.5)
    with pytest.raises(SpeechError) as err:
        EspeakSpeaker(cache_dir=cache, voice="en", binary=str(fake))
    assert "did not answer its voice check within 0.5 s" in str(err.value) and "\n" not in str(err.value)


def test_pace_outside_the_range_is_refused_in_one_line(espeak):
    for bad in (0, 3, "fast"):
        with pytest.raises(BadInput) as err:
            espeak.prepare("x", "Hello.", pace=bad)
        assert "pace" in str(err.value) and "\n" not in str(err.value)


# --- captions and plyer --------------------------------------------------------------------

def test_captions_are_silent_and_last_by_words_and_pace():
    speaker = CaptionSpeaker()
    short = speaker.prepare("a", "One.")
    long = speaker.prepare("b", LINE)
    assert short.wav_path is None and long.wav_path is None
    assert short.duration_s >= 0.6 and long.duration_s > 2 * short.duration_s
    assert speaker.prepare("b", LINE, pace=2.0).duration_s < long.duration_s * 0.6


def test_caption_estimate_is_near_what_espeak_really_takes(espeak):
    # The estimate stands in for speech on plyer and captions: it should be the right size.
    real = espeak.prepare("x", LINE).duration_s
    assert 0.6 * real < estimate_duration(LINE) < 1.5 * real


class StandInTTS:
    """plyer's tts where Android cannot run: same call, records what it was asked to say."""

    def __init__(self, fail=False):
        self.said, self.fail = [], fail

    def speak(self, message):
        if self.fail:
            raise NotImplementedError("no TTS engine on this platform")
        self.said.append(message)


def test_plyer_speaker_voices_the_line_itself():
    tts = StandInTTS()
    speaker = PlyerSpeaker(tts=tts)
    utt = speaker.prepare("spy_open", "Spy, open your eyes.")
    assert utt.wav_path is None and utt.duration_s == estimate_duration("Spy, open your eyes.")
    speaker.speak(utt)
    assert tts.said == ["Spy, open your eyes."]


def test_plyer_failure_is_reported_once_and_does_not_stop_the_game():
    speaker = PlyerSpeaker(tts=StandInTTS(fail=True))
    utt = speaker.prepare("spy_open", "Spy, open your eyes.")
    speaker.speak(utt)
    assert "spy_open" in speaker.last_error and "\n" not in speaker.last_error


# --- voice pack ----------------------------------------------------------------------------

def test_voice_pack_plays_clips_and_falls_back_for_missing_ones(tmp_path, espeak):
    pack = tmp_path / "pack"
    pack.mkdir()
    tone(pack / "check_allegiance.wav", 2.5)
    (pack / "spy_open.wav").write_bytes(b"this is not audio")
    speaker = VoicePackSpeaker(str(pack), fallback=espeak)
    recorded = speaker.prepare("check_allegiance", LINE)
    assert recorded.wav_path == str(pack / "check_allegiance.wav")
    assert recorded.duration_s == pytest.approx(2.5, abs=1e-3)
    assert speaker.prepare("check_allegiance", LINE, pace=2.0).duration_s == recorded.duration_s

    missing = speaker.prepare("king_open", "King, open your eyes.")
    assert missing.wav_path.startswith(espeak.cache_dir)  # espeak said it instead
    broken = speaker.prepare("spy_open", "Spy, open your eyes.")
    assert broken.wav_path.startswith(espeak.cache_dir)
    assert speaker.missing == {"king_open"}
    assert set(speaker.problems) == {"spy_open"}
    assert "spy_open.wav" in speaker.problems["spy_open"] and "\n" not in speaker.problems["spy_open"]
    assert speaker.missing_lines(["check_allegiance", "king_open", "queen_open", "king_open"]) \
        == ["king_open", "queen_open"]


def test_voice_pack_falls_back_to_captions_too(tmp_path):
    speaker = VoicePackSpeaker(str(tmp_path), fallback=CaptionSpeaker())
    assert speaker.prepare("x", "King, close your eyes.").wav_path is None


def test_voice_pack_that_is_not_a_folder_is_refused(tmp_path):
    with pytest.raises(BadInput, match="not a folder"):
        VoicePackSpeaker(str(tmp_path / "nowhere"))


def test_factory_and_availability(tmp_path, cache):
    assert isinstance(make_speaker("captions"), CaptionSpeaker)
    assert isinstance(make_speaker("espeak", cache_dir=cache), EspeakSpeaker)
    assert make_speaker("voicepack", folder=str(tmp_path)).folder == str(tmp_path)
    with pytest.raises(BadInput, match="unknown speaker 'festival'"):
        make_speaker("festival")
    with pytest.raises(BadInput, match="speaker 'captions'"):
        make_speaker("captions", colour="red")
    names = available_speakers()
    assert "espeak" in names and "captions" in names and "voicepack" in names
    # plyer's desktop backend needs an "espeak" program, which this machine may lack
    assert ("plyer" in names) == (shutil.which("espeak") is not None
                                 or "ANDROID_ARGUMENT" in os.environ)


# --- WAV reading and the recording output --------------------------------------------------

@pytest.mark.parametrize("sox_format", [
    ["-r", "44100", "-c", "2", "-b", "24"],                      # sox writes it "extensible"
    ["-r", "48000", "-c", "1", "-b", "32", "-e", "floating-point"],
    ["-r", "22050", "-c", "1", "-b", "8", "-e", "unsigned-integer"],
    ["-r", "16000", "-c", "1", "-b", "16"],
])
def test_read_wav_turns_recorders_formats_into_mono_22k(tmp_path, sox_format):
    # Voice packs come from many recorders; each of these is what sox itself writes.
    path = tmp_path / "clip.wav"
    subprocess.run(["sox", "-n", *sox_format, str(path), "synth", "1", "sine", "440", "vol",
                    "0.5"], check=True)
    assert wav_duration(str(path)) == pytest.approx(soxi_duration(path), abs=1e-3)
    samples = read_wav(str(path), 22050)
    assert len(samples) == pytest.approx(22050, abs=2)
    assert rms(samples) == pytest.approx(0.5 / math.sqrt(2), rel=0.03)


def test_compressed_wav_is_refused_in_one_line(tmp_path):
    path = tmp_path / "alaw.wav"
    subprocess.run(["sox", "-n", "-r", "8000", "-e", "a-law", str(path), "synth", "0.2",
                    "sine", "440"], check=True)
    with pytest.raises(BadInput, match="compressed sound .* save it as PCM WAV"):
        read_wav(str(path))


def test_write_wav_clips_what_is_too_loud(tmp_path):
    path = write_wav(str(tmp_path / "loud.wav"), array("f", [0.0, 0.5, 1.7, -3.0, -0.25]))
    with wave.open(path) as w:
        assert array("h", w.readframes(5)).tolist() == [0, 16384, 32767, -32767, -8192]


def test_a_file_that_is_not_a_wav_gives_one_line(tmp_path):
    bad = tmp_path / "clip.wav"
    bad.write_text("hello")
    with pytest.raises(BadInput) as err:
        wav_duration(str(bad))
    assert str(bad) in str(err.value) and "\n" not in str(err.value)


def test_recording_mixes_voice_and_loop_at_their_times_and_volumes(tmp_path):
    clock = FakeClock(50.0)
    rec = RecordingAudioOut(str(tmp_path / "mix.wav"), clock)
    voice = tone(tmp_path / "voice.wav", 1.0, amp=0.5)
    loop = tone(tmp_path / "loop.wav", 0.3, freq=200, amp=0.5)
    rec.loop(loop, 0.2)
    clock.advance(1.0)
    rec.play(voice, 1.0)
    assert rec.is_playing()
    clock.advance(0.5)
    assert rec.is_playing()
    clock.advance(0.5)
    assert not rec.is_playing()
    clock.advance(0.5)
    rec.play(voice, 0.5)
    clock.advance(0.25)
    rec.stop()                       # cut after a quarter second
    assert not rec.is_playing()
    clock.advance(0.75)
    rec.loop(loop, 0.6)              # same loop louder: no restart, just a new level
    clock.advance(1.0)
    rec.stop_loop()
    clock.advance(1.0)
    out = rec.write()
    assert soxi_duration(out) == pytest.approx(5.5, abs=1e-3)
    mixed = read_wav(out)
    r = 22050

    def level(a, b):
        return rms(mixed[int(a * r):int(b * r)])
    sine = 0.5 / math.sqrt(2)
    assert level(0.1, 0.9) == pytest.approx(0.2 * sine, rel=0.05)          # loop alone
    # voice at full volume over the loop: powers add (different frequencies)
    assert level(1.1, 1.9) == pytest.approx(math.hypot(sine, 0.2 * sine), rel=0.05)
    assert level(2.55, 2.70) == pytest.approx(math.hypot(0.5 * sine, 0.2 * sine), rel=0.05)
    assert level(2.80, 3.4) == pytest.approx(0.2 * sine, rel=0.05)         # cut voice is gone
    assert level(3.6, 4.4) == pytest.approx(0.6 * sine, rel=0.05)          # louder loop
    assert level(4.55, 5.5) < 1e-3                                         # loop stopped
    assert [(round(s, 3), round(e, 3), c and round(c, 3)) for s, e, c, _ in rec.log] \
        == [(51.0, 52.0, None), (52.5, 53.5, 52.75)]


def test_masking_loop_is_seamless_pink_noise(tmp_path):
    path = make_masking_loop(str(tmp_path / "noise.wav"), seconds=3.0)
    noise = read_wav(path)
    assert wav_duration(path) == pytest.approx(3.0, abs=1e-3)
    assert max(map(abs, noise)) == pytest.approx(0.45, abs=0.01)
    # seamless: the jump from the last sample to the first is no bigger than a normal step
    steps = sorted(abs(noise[i + 1] - noise[i]) for i in range(len(noise) - 1))
    assert abs(noise[0] - noise[-1]) <= steps[int(0.999 * len(steps))]
    # pink, not brown: real energy left after removing the low end (a crude high-pass)
    high = [noise[i] - noise[i - 1] for i in range(1, len(noise))]
    assert rms(high) > 0.1 * rms(noise)
    with wave.open(path) as w:
        assert (w.getnchannels(), w.getsampwidth()) == (1, 2)


# --- the subprocess player -----------------------------------------------------------------

def test_subprocess_player_refuses_an_unknown_player():
    with pytest.raises(BadInput, match="unknown audio player 'winamp'"):
        SubprocessAudioOut(player="winamp")


def test_each_player_gets_its_volume(tmp_path):
    clip = tone(tmp_path / "beep.wav", 0.2, amp=0.8)
    out = SubprocessAudioOut()
    out.player = "paplay"
    assert out.command_for(clip, 0.5) == ["paplay", "--volume=32768", clip]
    out.player = "play"
    assert out.command_for(clip, 0.25) == ["play", "-q", "-v", "0.250", clip]
    out.player = "ffplay"
    assert out.command_for(clip, 0.5)[-3:] == ["-volume", "50", clip]
    out.player = "aplay"                       # no volume option: a scaled copy, made once
    assert out.command_for(clip, 1.0) == ["aplay", "-q", clip]
    cmd = out.command_for(clip, 0.5)
    assert cmd[:2] == ["aplay", "-q"] and cmd[2] != clip and out.command_for(clip, 0.5) == cmd
    assert rms(read_wav(cmd[2])) == pytest.approx(0.5 * rms(read_wav(clip)), rel=0.01)
    out.close()
    assert not os.path.exists(cmd[2])


def test_subprocess_player_finishes_or_fails_without_blocking(tmp_path):
    out = SubprocessAudioOut()
    if out.player is None:
        pytest.skip("no command-line audio player installed here")
    clip = tone(tmp_path / "beep.wav", 0.3)
    out.play(clip, 0.5)
    deadline = time.monotonic() + 10
    while out.is_playing() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not out.is_playing()
    # With no sound device the player fails; that must be said in one line, not raised.
    if out.last_error is not None:
        assert out.player in out.last_error and "\n" not in out.last_error
    out.loop(clip, 0.1)
    out.stop_loop()
    assert not out.looping
    out.close()


# --- Android's own voice (cannot run here: pyjnius and the platform are stood in for) -------

class _FakeJnius:
    """Just enough of pyjnius and android.speech.tts.TextToSpeech to drive AndroidSpeaker."""

    class PythonJavaClass:
        pass

    @staticmethod
    def java_method(signature):
        return lambda fn: fn

    def __init__(self):
        self.engines = []
        jn = self

        class TextToSpeech:
            QUEUE_ADD, QUEUE_FLUSH = 1, 0

            class Engine:
                KEY_PARAM_UTTERANCE_ID = "utteranceId"

            def __init__(self, activity, on_init):
                self.on_init, self.spoken, self.rates, self.stopped = on_init, [], [], 0
                jn.engines.append(self)

            def setOnUtteranceCompletedListener(self, listener):
                self.done = listener

            def speak(self, text, mode, params):
                self.spoken.append((text, mode, dict(params)))
                return 0

            def setSpeechRate(self, rate):
                self.rates.append(rate)

            def setLanguage(self, locale):
                self.language = locale.tag

            def stop(self):
                self.stopped += 1

        class HashMap(dict):
            def put(self, k, v):
                self[k] = v

        class PythonActivity:
            mActivity = object()

        class Locale:
            def __init__(self, tag):
                self.tag = tag

        self.classes = {"android.speech.tts.TextToSpeech": TextToSpeech, "java.util.HashMap": HashMap,
                        "org.kivy.android.PythonActivity": PythonActivity, "java.util.Locale": Locale}

    def autoclass(self, name):
        return self.classes[name]


def test_the_android_voice_uses_one_engine_queues_lines_and_waits_for_each_to_finish():
    from companion.core.speakers import AndroidSpeaker
    jn = _FakeJnius()
    speaker = AndroidSpeaker(jnius=jn)
    engine = jn.engines[0]
    engine.on_init.onInit(0)                   # the platform reports the engine ready
    assert engine.language == "en"             # the app's language
    clock = FakeClock()
    n = Narrator(speaker, RecordingAudioOut("/dev/null", clock), clock, pace=1.5)
    n.say("a", "Everyone, close your eyes.")
    n.say("b", "Spy, open your eyes.")
    assert len(jn.engines) == 1 and [s[0] for s in engine.spoken] == ["Everyone, close your eyes."]
    text, mode, params = engine.spoken[0]
    assert mode == engine.QUEUE_ADD and params["utteranceId"] and engine.rates == [1.5]
    for _ in range(200):                        # the estimate runs out, the voice still speaks
        clock.advance(0.05)
        n.tick()
    assert len(engine.spoken) == 1 and speaker.is_speaking()
    engine.done.onUtteranceCompleted(params["utteranceId"])   # the platform's callback
    n.tick()
    assert [s[0] for s in engine.spoken] == ["Everyone, close your eyes.", "Spy, open your eyes."]
    n.cancel()
    assert engine.stopped == 1 and not speaker.is_speaking()
    assert len(jn.engines) == 1


def test_the_default_voice_is_the_platforms_then_espeak_and_says_plainly_when_none_can_speak(monkeypatch):
    from companion.core import speakers
    assert isinstance(speakers.make_speaker("auto"), speakers.EspeakSpeaker)   # Linux desktop here
    monkeypatch.setattr(speakers.EspeakSpeaker, "available", staticmethod(lambda binary="espeak-ng": False))
    monkeypatch.setattr(speakers.PlyerSpeaker, "available", staticmethod(lambda: False))
    with pytest.raises(speakers.SpeechError, match="no platform voice and no espeak-ng"):
        speakers.make_speaker("auto")


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_espeak_speaks_the_apps_language_with_its_own_voice(lang, monkeypatch, tmp_path):
    """Real espeak-ng: its fr and de voices exist here, and a French line takes a French voice's
    time (the voice follows the app's language unless the settings name one)."""
    from companion.core import i18n
    from companion.core.speakers import EspeakSpeaker
    monkeypatch.setattr(i18n, "_language", lang)
    speaker = EspeakSpeaker(cache_dir=str(tmp_path))
    assert speaker.voice == lang
    assert speaker.prepare("x", "Bonjour" if lang == "fr" else "Guten Tag", 1.0).duration_s > 0.3
    assert EspeakSpeaker(cache_dir=str(tmp_path), voice="en").voice == "en"
