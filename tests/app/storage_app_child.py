"""The real app in this process, on a data folder the parent made a small tmpfs (private mount
namespace): a game started with little space left warns; a tap and a box press on a full disk
are refused with the storage message and change nothing; once space is freed the game goes on.
With `two_copies`: a second copy takes the folder from under it (issue 34, 7). Prints one JSON line."""
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
from companion.core.audio import RecordingAudioOut  # noqa: E402
from companion.core.clock import FakeClock  # noqa: E402
from companion.core.events import Command  # noqa: E402
from companion.core.i18n import tr  # noqa: E402
from companion.core.speakers import CaptionSpeaker  # noqa: E402
from tests.app.driver import Driver  # noqa: E402
from tests.core.storage_child import fill  # noqa: E402


def main(folder: Path) -> dict:
    clock = FakeClock()
    app = CompanionApp(data_dir=folder / "data", engine_clock=clock, speaker=CaptionSpeaker(),
                       audio_out=RecordingAudioOut("/tmp/storage-child.wav", clock))
    app._run_prepare()
    runTouchApp(embedded=True)
    d = Driver(app, clock, folder)
    d.pump(10)
    out = {}
    d.start_game("masks", ["Ann", "Ben", "Cat", "Dan", "Eve"])
    out["low_space_toast"] = app.root.ids.toast.message
    app.root.ids.toast._clear()
    filler = fill(folder)
    events_before = len(app.session.events)
    d.tap(d.find(text=tr("masks.deal.start")))  # a tap on a full disk
    out["tap_toast"] = app.root.ids.toast.message
    out["phase_after_tap"] = app.view["phase"]
    d.screenshot("storage/disk_full_tap")
    app.commands.post(Command("start_hidden_phase", {}, source="box:01"))  # a box press
    app._drain(0)
    out["box_toast"] = app.root.ids.toast.message
    out["events_unchanged"] = len(app.session.events) == events_before
    out["still_running"] = True
    filler.unlink()
    app.root.ids.toast._clear()
    d.tap(d.find(text=tr("masks.deal.start")))
    out["phase_after_freeing"] = app.view["phase"]
    out["toast_after_freeing"] = app.root.ids.toast.message
    app.stop()
    stopTouchApp()
    return out


def two_copies(data: Path) -> dict:
    """Issue 34, 7: the app plays a game; its journal.lock is deleted; it says "lock deleted" and
    waits for a line on stdin (the parent has then started a second copy that took the folder
    and wrote to the game); two taps and a box press follow, each refused."""
    clock = FakeClock()
    app = CompanionApp(data_dir=data, engine_clock=clock, speaker=CaptionSpeaker(), boxes="off",
                       audio_out=RecordingAudioOut("/tmp/storage-child-two.wav", clock))
    shown: list[str] = []   # every toast as shown (one fades after 6 s: a loaded machine is slow)
    app.toast = lambda message, show=app.toast: (shown.append(message), show(message))[1]
    app._run_prepare()
    runTouchApp(embedded=True)
    d = Driver(app, clock, data.parent)
    d.pump(10)
    d.start_game("masks", ["Ann", "Ben", "Cat", "Dan", "Eve"])
    out = {"game": app.session.game_id, "events_before": len(app.session.events)}
    (data / "journal.lock").unlink()
    print("lock deleted", flush=True)
    sys.stdin.readline()
    toasts = []
    for command in (Command("start_hidden_phase", {}), Command("start_hidden_phase", {}),
                    Command("start_hidden_phase", {}, source="box:01")):
        shown.clear()
        if command.source == "tablet":
            d.tap(d.find(text=tr("masks.deal.start")))
        else:
            app.commands.post(command)
            app._drain(0)
        toasts.append(shown[-1] if shown else "")
    out["toasts"] = toasts
    out["phase"] = app.view["phase"]
    out["events_after"] = len(app.session.events)
    d.screenshot("storage/first_copy_after_the_second_took_the_folder")
    app.stop()
    stopTouchApp()
    return out


if __name__ == "__main__":
    if sys.argv[2:] == ["two_copies"]:
        print(json.dumps(two_copies(Path(sys.argv[1]))), flush=True)
    else:
        print(json.dumps(main(Path(sys.argv[1]))), flush=True)
    os._exit(0)
