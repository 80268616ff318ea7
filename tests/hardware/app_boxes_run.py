"""Run by test_app_boxes.py in its own process (one Kivy window per process, and the app tests
own the suite's): the real app under X, eight simulated boxes on real ptys, a 23 Knives Vote to
Exile cast on the boxes. Saves screenshots and prints one JSON line of what it saw.

The app calls BoxSource.on_events / on_refused itself; the one piece of wiring it does not have
yet (box_pressed commands) is done here, marked WIRING."""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

# Run as a file: this checkout first (the shared venv's editable install may point at another)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kivy.config import Config

Config.set("graphics", "width", "1280")
Config.set("graphics", "height", "800")

from kivy.base import EventLoop, runTouchApp, stopTouchApp  # noqa: E402
from kivy.core.window import Window  # noqa: E402

from companion.app import games as game_registry  # noqa: E402
from companion.app.main import CompanionApp  # noqa: E402
from companion.core.audio import RecordingAudioOut  # noqa: E402
from companion.core.clock import FakeClock  # noqa: E402
from companion.core.speakers import CaptionSpeaker  # noqa: E402
from companion.games.knives23 import demo  # noqa: E402
from hardware.sim import LED_RECORDED, LED_REVEALED, SimulatedBoxes  # noqa: E402
from hardware.source import BoxSource  # noqa: E402


def pump(frames=4):
    for _ in range(frames):
        EventLoop.idle()


T0 = time.monotonic()
SIM = []                              # the boxes, for failure messages
app_view = lambda: None               # noqa: E731


def pump_until(pred, what, timeout=10.0):
    print("%.2f s: waiting for %s" % (time.monotonic() - T0, what), file=sys.__stderr__, flush=True)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        EventLoop.idle()
        if pred():
            return
    raise TimeoutError("timed out waiting for %s (box LEDs %s, vote %s)" % (
        what, [b.leds for b in SIM], (app_view() or {}).get("vote"))
        + " box 2 heard: %s" % [str(m) for m in SIM[1].received[-8:]] if SIM else "")


def screenshot(out: Path) -> str:
    print("%.2f s: screenshot %s" % (time.monotonic() - T0, out.name), file=sys.__stderr__)
    pump(8)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = Window.screenshot(name=str(out.with_name(out.stem + "_tmp.png")))
    shutil.move(written, out)
    return str(out)


def _masks_to_vote(app):
    for kind in ("start_hidden_phase", "end_hidden_phase", "end_discussion"):
        assert app.send(kind), kind


SEVEN_KNIGHTS_SETUP = {"players": ["Ann", "Bo", "Cy", "Di", "Ed"], "first": "Ann", "mode": "basic"}


def _sevenknights_to_vote(app):
    for at in ("Bo", "Cy", "Di", "center", "Ann"):
        assert app.send("look", at=at), at
    for target, template, extra in (("Cy", "odd", {}), ("Di", "at_least", {"n": 3}),
                                    ("Ed", "larger_than", {"other": "Di"}),
                                    ("Bo", "other_is", {"other": "Ann", "n": 1}),
                                    ("Bo", "free", {"text": "Larger than 4?"})):
        assert app.send("ask_question", target=target, template=template, answer="yes", **extra)
    assert app.send("open_recommendation")


def _cicero_to_vote(app):
    # The scripted Cicero table (companion/games/cicero/demo.py) up to its first Senate vote;
    # ties are broken by the Princeps as the demo does.
    from companion.games.cicero import demo as cicero_demo

    def send(command):
        if command.kind == "open_ballot":      # the vote itself goes through the app
            assert app.send_command(command), (command, app.view.get("phase"))
        else:   # the round before it is fast-forwarded in the session: no screens redrawn
            app.session.execute(command)       # raises NeedsTieBreak on a tie

    for _ in range(500):
        view = app.session.view("table")
        vote = view.get("vote")
        if vote and not vote.get("revealed"):
            return
        cicero_demo.execute_breaking_ties(send, cicero_demo.table_move(view))
    raise AssertionError("Cicero never opened a vote")


OTHER_GAMES = [
    # Royals and Martyr Masks: everyone points to the next player, the last to the center
    ("masks", {"players": ["Ann", "Bo", "Cy", "Di", "Ed"]}, _masks_to_vote,
     lambda voters, v: "center" if v == voters[-1] else voters[voters.index(v) + 1]),
    # Cicero: weighted, everyone gives their votes to Livia (the tablet weighs them)
    ("cicero", {"players": ["Livia", "Marcus", "Octavia"],
                "ages": {"Livia": 34, "Marcus": 41, "Octavia": 29}}, _cicero_to_vote,
     lambda voters, v: voters[0]),
    # Seven Knights: a clear Captain, no tie
    ("sevenknights", SEVEN_KNIGHTS_SETUP, _sevenknights_to_vote, lambda voters, v: "Bo"),
]


def start_app(data_dir: str) -> CompanionApp:
    """The real app, its window up, narration as captions on a fake clock."""
    clock = FakeClock()
    app = CompanionApp(data_dir=data_dir, engine_clock=clock, speaker=CaptionSpeaker(),
                       audio_out=RecordingAudioOut(str(Path(data_dir) / "narration.wav"), clock))
    app._run_prepare()
    runTouchApp(embedded=True)
    pump(10)
    return app


def main(data_dir: str, artifacts: str, games: list[str]) -> int:
    artifacts = Path(artifacts)
    app = start_app(data_dir)

    sim = SimulatedBoxes(n=8, battery=None).start()
    SIM.extend(sim.boxes)
    global app_view
    app_view = lambda: app.view       # noqa: E731
    for i, b in enumerate(sim.boxes):
        b.battery = (95, 80, 64, 41, None, 88, 23, None)[i]
    boxes = BoxSource(str(Path(data_dir) / "boxes"), ports=sim.ports)
    seen = {"box_pressed": []}

    # WIRING (not in the app yet): pairing presses are the devices panel's business, not the
    # game's; the app hands them to the game's rules, which refuse them.
    handle = app._handle_device_command

    def _handle(command):
        if command.kind == "box_pressed":
            seen["box_pressed"].append(dict(command.data))
            return
        handle(command)
    app._handle_device_command = _handle

    app.add_source(boxes)
    # the devices panel shows last_seen against the engine clock; keep it on monotonic time
    app.engine_clock = type("Mono", (), {"now": staticmethod(time.monotonic)})()
    pump_until(lambda: sum(d.connected for d in boxes.devices()) == 8, "8 boxes")

    # pair boxes 1..5 to seats 1..5 (in the order the players sit); 6..8 stay unpaired
    for seat in range(1, 6):
        boxes.pair(seat)
        seq = sim.press(seat - 1, 0)
        pump_until(lambda: sim.boxes[seat - 1].is_acked(seq), "pairing of seat %d" % seat)
    pump_until(lambda: len(seen["box_pressed"]) == 5, "pairing presses drained")
    seq = sim.press(6, 1)          # an unpaired box's press: ignored, and shown
    pump_until(lambda: sim.boxes[6].is_acked(seq), "the unpaired press")
    sim.unplug(7)                  # one box unplugged: shown as not connected
    pump_until(lambda: not boxes.devices()[7].connected, "box 8 missing")

    shots, devices, mid, last, journal_sources = {}, [], {}, {}, []
    if "knives23" in games:
        app.goto("devices")
        pump(10)
        shots["devices"] = screenshot(artifacts / "hardware" / "devices_panel_8_boxes.png")
        # the rest of the list: scroll to the eighth box's line
        lst = app.screen("devices").ids.list
        line8 = [w for w in lst.children if "B0C50008" in getattr(w, "text", "")][0]
        lst.parent.scroll_to(line8, padding=40, animate=False)
        pump(6)
        shots["devices_end"] = screenshot(artifacts / "hardware" / "devices_panel_8_boxes_end.png")
        devices = [d.__dict__ for d in boxes.devices()]
        app.go_home()
        pump(4)

        print("%.2f s: starting the game" % (time.monotonic() - T0), file=sys.__stderr__)
        ui = game_registry.load_ui("knives23")
        assert app.start_game(ui, dict(demo.SETUP)), "the game did not start"
        pump(6)
        for cmd in demo.commands():
            if cmd.kind == "cast_ballot":
                break
            assert app.send_command(cmd), "refused: %s" % (cmd,)
        pump(6)
        print("%.2f s: played to the vote" % (time.monotonic() - T0), file=sys.__stderr__)
        vote = app.view.get("vote") or {}
        assert vote and not vote.get("revealed"), "no vote open after the demo's call_exile"
        assert app.sm.current == "vote", app.sm.current

        # Two players vote on their boxes: the table sees who, never what.
        options = vote["options"]
        choices = {"Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile"}
        for i, name in enumerate(("Ann", "Cy")):
            sim.press(("Ann", "Bo", "Cy", "Di").index(name), options.index(choices[name]))
        pump_until(lambda: len(app.view["vote"]["voted"]) == 2, "two box ballots recorded")
        pump_until(lambda: sim.boxes[0].leds[0] == LED_RECORDED and
                   sim.boxes[2].leds[0] == LED_RECORDED, "vote-received LEDs")
        mid = dict(app.view["vote"])
        shots["vote"] = screenshot(artifacts / "hardware" / "vote_in_progress_boxes.png")

        for name in ("Bo", "Di"):
            sim.press(("Ann", "Bo", "Cy", "Di").index(name), options.index(choices[name]))
        pump_until(lambda: len(app.view.get("vote_history", [])) >= 1, "the reveal")
        pump_until(lambda: all(sim.boxes[i].leds[0] == LED_REVEALED for i in range(4)),
                   "revealed LEDs")
        pump(6)
        shots["reveal"] = screenshot(artifacts / "hardware" / "vote_revealed_boxes.png")
        last = app.view["vote_history"][-1]
        journal_sources = sorted({e.source for e in app.session.events if e.kind == "ballot_cast"})

    # The other games: play each to its vote, every player votes on a box. (Seven Knights runs
    # in a process of its own: a game's screens keep listening to the app's view after the game
    # is left, and Cicero's and Seven Knights' screens fail on another game's view.)
    others = {}
    for game_id, setup, play, pick in OTHER_GAMES:
        if game_id not in games:
            continue
        if app.session is not None:
            app.leave_game()
        pump(4)
        assert app.start_game(game_registry.load_ui(game_id), setup), game_id
        pump(4)
        play(app)
        pump(4)
        vote = app.view.get("vote") or {}
        assert vote and not vote.get("revealed"), "%s: no vote open" % game_id
        voters, options = vote["voters"], vote["options"]
        before = len(app.view.get("vote_history", []))
        for seat, voter in enumerate(voters, 1):
            sim.press(seat - 1, options.index(pick(voters, voter)))
        pump_until(lambda: len(app.view.get("vote_history", [])) > before, game_id + " reveal")
        pump_until(lambda: all(sim.boxes[i].leds[0] == LED_REVEALED
                               for i in range(len(voters))), game_id + " revealed LEDs")
        done = app.view["vote_history"][-1]
        others[game_id] = {"kind": vote["kind"], "ballots": done["ballots"],
                           "sources": done["sources"], "counts": done["counts"],
                           "expected": {v: pick(voters, v) for v in voters}}
        shots[game_id] = screenshot(artifacts / "hardware" / ("vote_revealed_%s.png" % game_id))

    result = {
        "shots": shots, "devices": devices, "mid_vote": mid, "revealed": last,
        "ballot_sources": journal_sources, "box_pressed": seen["box_pressed"],
        "counters": dict(boxes.manager.counters), "others": others,
    }
    return report_and_quit(result, app, boxes, sim)


def report_and_quit(result: dict, app, *devices) -> int:
    """Prints the one JSON line the test reads, stops the devices and the app."""
    print("RESULT " + json.dumps(result, default=str))
    sys.stdout.flush()
    for device in devices:
        device.stop()
    app.stop()
    stopTouchApp()
    return 0


def run_as_script(main, *args):
    """Exits with ``main(*args)``; a failure's traceback goes to the real stderr (Kivy takes
    over sys.stderr), so the reason reaches the test's report."""
    try:
        sys.exit(main(*args))
    except Exception:
        import traceback
        traceback.print_exc(file=sys.__stderr__)
        sys.exit(1)


if __name__ == "__main__":
    run_as_script(main, sys.argv[1], sys.argv[2], sys.argv[3].split(","))
