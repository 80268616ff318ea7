"""The real app in this process, started on a data folder the parent prepared (a settings.json
with wrong values): prints one JSON line of what the table sees once it is up (with `save`: and
after the table changed a setting)."""
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


def main(data: Path, save: bool = False) -> dict:
    clock = FakeClock()
    app = CompanionApp(data_dir=data, engine_clock=clock, speaker=CaptionSpeaker(), boxes="off")
    shown: list[str] = []   # every toast, as shown: on a loaded machine one fades (6 s) before it is read
    app.toast = lambda message, show=app.toast: (shown.append(message), show(message))[1]
    app._run_prepare()
    runTouchApp(embedded=True)
    Driver(app, clock, data.parent).pump(10)
    out = {"toast": shown[-1] if shown else "", "settings": asdict(app.settings),
           "language": i18n.language(), "screen": app.sm.current}
    if save:  # the table changes a setting: it is saved (issue 34, 13)
        app.settings.pace = 1.5
        shown.clear()
        app.save_settings()
        Driver(app, clock, data.parent).pump(4)
        out["toast_after_save"] = shown[-1] if shown else ""
        out["files"] = sorted(p.name for p in data.iterdir())
    app.stop()
    stopTouchApp()
    return out


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), save=sys.argv[2:] == ["save"])), flush=True)
    os._exit(0)
