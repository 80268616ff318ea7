"""The real app in this process, started on a data folder the parent prepared (a settings.json
with wrong values): prints one JSON line of what the table sees once it is up."""
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

os.environ.setdefault("KIVY_NO_ARGS", "1")
from kivy.config import Config  # noqa: E402

Config.set("graphics", "width", "1280")
Config.set("graphics", "height", "800")

from kivy.base import runTouchApp, stopTouchApp  # noqa: E402

from companion.app.main import CompanionApp  # noqa: E402
from companion.core import i18n  # noqa: E402
from companion.core.clock import FakeClock  # noqa: E402
from companion.core.speakers import CaptionSpeaker  # noqa: E402
from tests.app.driver import Driver  # noqa: E402


def main(data: Path) -> dict:
    clock = FakeClock()
    app = CompanionApp(data_dir=data, engine_clock=clock, speaker=CaptionSpeaker(), boxes="off")
    app._run_prepare()
    runTouchApp(embedded=True)
    Driver(app, clock, data.parent).pump(10)
    out = {"toast": app.root.ids.toast.message, "settings": asdict(app.settings),
           "language": i18n.language(), "screen": app.sm.current}
    app.stop()
    stopTouchApp()
    return out


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))), flush=True)
    os._exit(0)
