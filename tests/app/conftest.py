"""App tests: the real Kivy app under the suite's X display (scripts/test.sh starts Xvfb)."""
import os

import pytest

from companion.core.clock import FakeClock


@pytest.fixture(scope="session")
def companion_app(tmp_path_factory):
    if not os.environ.get("DISPLAY"):
        pytest.skip("no X display: run the suite through scripts/test.sh (it starts Xvfb)")
    from kivy.config import Config
    Config.set("graphics", "width", "1280")
    Config.set("graphics", "height", "800")
    Config.set("graphics", "resizable", "1")
    Config.set("kivy", "exit_on_escape", "0")
    from kivy.base import runTouchApp, stopTouchApp

    from companion.app.main import CompanionApp
    from companion.core.audio import RecordingAudioOut
    from companion.core.speakers import CaptionSpeaker

    from .driver import ARTIFACTS, Driver

    clock = FakeClock()
    data_root = tmp_path_factory.mktemp("appdata")
    audio = RecordingAudioOut(str(ARTIFACTS / "app" / "narration.wav"), clock)
    app = CompanionApp(data_dir=data_root / "run0", engine_clock=clock, speaker=CaptionSpeaker(), audio_out=audio)
    app._run_prepare()
    runTouchApp(embedded=True)
    driver = Driver(app, clock, data_root)
    driver.pump(10)
    yield driver
    app.stop()
    stopTouchApp()


@pytest.fixture
def driver(companion_app):
    companion_app.reset()
    return companion_app
