"""Run by test_boxes_cli_app.py in its own process (one Kivy window per process): a table that
plugs in a vote box and starts the app as a user does.

The box is another process, `python -m hardware.sim -n 1` (the simulator speaks docs/protocol.md;
none of the host code runs there), on a real pseudo-terminal. The app is started through
`companion.__main__.main(["--boxes", "/dev/pts/N", "--data", DIR])` — the very function behind
`python -m companion` — with only App.run swapped for Kivy's embedded start so this script can
draw frames and touch widgets in between. The table then starts a Masks game on the picker, pairs
the box to Ann's seat from the devices panel (its real buttons), and Ann votes on the box while
the others vote on the tablet. Prints one RESULT line of JSON; screenshots in test-artifacts/.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

T0 = time.monotonic()


def note(what):
    # sys.__stderr__: Kivy takes sys.stderr over for its log
    print("%.2f s: %s" % (time.monotonic() - T0, what), file=sys.__stderr__, flush=True)


def start_box(links: Path):
    links.mkdir(parents=True, exist_ok=True)
    box = subprocess.Popen([sys.executable, "-m", "hardware.sim", "-n", "1", "--dir", str(links)],
                           cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, bufsize=1)
    for line in box.stdout:
        if line.startswith("box "):          # "box B0C50001 <link> -> /dev/pts/N"
            return box, line.split()[1], line.split()[-1]
    raise RuntimeError("the box simulator printed no port (exit %s)" % box.poll())


def main(data_dir: str, artifacts: str) -> int:
    box, box_id, pts = start_box(Path(data_dir).parent / (Path(data_dir).name + "-links"))
    note("box %s on %s" % (box_id, pts))
    try:
        return play(box, pts, data_dir)
    except BaseException:
        traceback.print_exc(file=sys.__stderr__)
        return 1
    finally:
        box.terminate()          # the simulator removes its links on SIGTERM
        box.wait(timeout=10)


def play(box, pts: str, data_dir: str) -> int:
    from kivy.app import App
    from kivy.base import runTouchApp, stopTouchApp

    def run_embedded(self):
        self._run_prepare()
        runTouchApp(embedded=True)

    # On App, not CompanionApp: importing companion.app.main here would open the window before
    # main() sets its size.
    App.run = run_embedded
    import companion.__main__ as cli
    assert cli.main(["--boxes", pts, "--data", data_dir]) == 0
    app = App.get_running_app()

    from companion.core.i18n import tr
    from tests.app.driver import Driver
    d = Driver(app, None, Path(data_dir))
    d.pump(10)

    def until(pred, what, timeout=60.0):   # generous: the test machine is shared
        note("waiting for " + what)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            d.pump(1)
            if pred():
                return
        raise TimeoutError("timed out waiting for %s; devices %s; last toast %r" % (
            what, [x.__dict__ for x in app.devices()], app.root.ids.toast.message))

    def boxes():
        return [x for x in app.devices() if x.kind == "box"]

    def press(button):
        box.stdin.write("press 1 %d\n" % button)
        box.stdin.flush()

    result = {"argv": {"boxes": app.boxes_arg, "data": str(app.data_dir)}, "shots": {}}
    until(lambda: [x.connected for x in boxes()] == [True], "the box to say HELLO")
    result["greeted"] = [x.__dict__ for x in boxes()]

    names = ["Ann", "Bo", "Cy", "Di", "Ed"]
    d.start_game("masks", names)
    note("game started")
    d.tap(d.find(root=app.root.ids.topbar, cls="TopButton", text=tr("app.devices")))
    assert app.sm.current == "devices", app.sm.current
    pair1 = d.find(cls="BigButton", text=tr("devices.pair_seat", seat=1, name="Ann"))
    d.tap(pair1)
    result["pairing_shown"] = bool(d.find_all(contains=tr("devices.pairing_now", seat=1,
                                                           name="Ann")))
    press(4)                                   # any button pairs
    until(lambda: [x.seat for x in boxes()] == [1], "the box to be Ann's")
    app.screen("devices").refresh()
    result["shots"]["devices"] = str(d.screenshot("hardware/cli_devices_panel_paired"))
    result["panel_texts"] = d.visible_texts(app.screen("devices"))
    result["paired"] = [x.__dict__ for x in boxes()]

    d.tap(d.find(cls="BigButton", text=tr("app.back")))   # back to the game
    for kind in ("start_hidden_phase", "end_hidden_phase", "end_discussion"):
        assert app.send(kind), kind                        # the Masks round up to its vote
    d.pump(4)
    vote = app.view.get("vote") or {}
    assert vote and not vote.get("revealed"), app.view.get("phase")
    result["options"] = vote["options"]
    press(vote["options"].index("Cy"))        # Ann votes on her box
    until(lambda: "Ann" in app.view["vote"]["voted"], "Ann's box ballot")
    result["voted_after_box"] = list(app.view["vote"]["voted"])
    result["shots"]["vote"] = str(d.screenshot("hardware/cli_vote_box_ballot"))
    d.vote({"Bo": "Cy", "Cy": "Di", "Di": "Cy", "Ed": "Bo"})   # pass-and-play on the tablet
    until(lambda: app.view.get("vote_history"), "the reveal")
    result["shots"]["reveal"] = str(d.screenshot("hardware/cli_reveal"))
    game_id = app.session.game_id
    result["events"] = [(e.kind, e.data, e.source) for e in app.journal.events(game_id)]
    result["game_id"] = game_id
    print("RESULT " + json.dumps(result, default=str), flush=True)
    app.stop()
    stopTouchApp()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
