"""A fresh copy of the real app on a data folder another copy used: what its Settings screen
and the masks setup screen show. Prints one JSON line."""
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("KIVY_NO_ARGS", "1")
from kivy.config import Config  # noqa: E402

Config.set("graphics", "width", "1280")
Config.set("graphics", "height", "800")

from kivy.base import runTouchApp, stopTouchApp  # noqa: E402

from companion.app.main import CompanionApp  # noqa: E402
from companion.core.clock import FakeClock  # noqa: E402
from companion.core.speakers import CaptionSpeaker  # noqa: E402
from tests.app.driver import Driver  # noqa: E402


def main(folder: Path) -> dict:
    clock = FakeClock()
    app = CompanionApp(data_dir=folder, engine_clock=clock, speaker=CaptionSpeaker())
    app._run_prepare()
    runTouchApp(embedded=True)
    d = Driver(app, clock, folder)
    d.pump(10)
    app.goto("settings")
    d.pump(6)
    ids = app.screen("settings").ids
    out = {"pace_slider": round(ids.pace.value, 2), "pace": app.settings.pace,
           "masking": ids.masking.state, "caption_size": app.settings.caption_size}
    app.choose_game("masks")
    d.pump(6)
    setup = app.screen("setup")
    out["groups"] = [row.ids.choose.text for row in reversed(setup.ids.groups.children)]
    d.screenshot("people/restart_setup_groups")
    app.stop()
    stopTouchApp()
    return out


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
