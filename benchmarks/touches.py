"""Touches per common action: the real app under Xvfb, driven like the app tests, counting every
tap and hold a person makes (keystrokes on a keyboard are counted apart).

    PYTHONPATH=$PWD KIVY_HOME=$PWD/.kivy-home xvfb-run -a -s "-screen 0 1280x1280x24" \\
        .venv/bin/python benchmarks/touches.py --label after

Each run writes test-artifacts/touches/<label>.json; when a "before" and an "after" file are
both there the table shows them side by side. The steps adapt to the flow the tree has (e.g. a
pass-and-play ballot that needs a second hold, an "End the turn" offered only at the last step,
Issue names the rules require), so the same script measures the tree before and after a change.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from _args import parse_quick

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "test-artifacts" / "touches"
NAMES = ["Ann", "Bo", "Cy", "Di", "Ed"]
ISSUES = ("Ides of March", "Vestal Virgins")


def make_driver():
    os.environ.setdefault("KIVY_NO_ARGS", "1")  # Kivy would read this script's own arguments
    from kivy.config import Config
    Config.set("graphics", "width", "1280")
    Config.set("graphics", "height", "800")
    Config.set("graphics", "resizable", "1")
    Config.set("kivy", "exit_on_escape", "0")
    from kivy.base import runTouchApp

    from companion.app.main import CompanionApp
    from companion.core.audio import RecordingAudioOut
    from companion.core.clock import FakeClock
    from companion.core.speakers import CaptionSpeaker
    from tests.app.driver import Driver

    class CountingDriver(Driver):
        """The test driver, counting what a person's fingers do."""
        touches = 0
        keys = 0

        def tap(self, widget):
            self.touches += 1
            super().tap(widget)

        def hold(self, widget, timeout: float = 20.0):
            self.touches += 1
            super().hold(widget, timeout)

        def type_into(self, text_input, text: str):
            self.keys += len(text)
            super().type_into(text_input, text)

    clock = FakeClock()
    data = Path(tempfile.mkdtemp(prefix="touches-"))
    app = CompanionApp(data_dir=data / "run0", engine_clock=clock, speaker=CaptionSpeaker(),
                       audio_out=RecordingAudioOut(str(data / "narration.wav"), clock))
    app._run_prepare()
    runTouchApp(embedded=True)
    driver = CountingDriver(app, clock, data)
    driver.pump(10)
    return driver


class Count:
    """Touches and keystrokes between entering and leaving the block."""

    def __init__(self, driver, rows: dict, name: str):
        self.d, self.rows, self.name = driver, rows, name

    def __enter__(self):
        self.t, self.k = self.d.touches, self.d.keys

    def __exit__(self, *exc):
        if exc[0] is None:
            self.rows[self.name] = {"touches": self.d.touches - self.t, "keys": self.d.keys - self.k}


def tr(key, **kw):
    from companion.core.i18n import tr as _tr
    return _tr(key, **kw)


def start_game(d, names):
    """Picker → setup → game, typing the names (or taking a remembered group, if the tree has one)."""
    d.app.goto("picker")
    d.pump(4)
    d.tap(d.find(cls="GameCard", game_id="knives23"))
    setup = d.screen
    # a tree that remembers groups offers this table's group: one tap fills the seats
    rows = [r for r in (setup.ids.groups.children if "groups" in setup.ids else [])
            if "choose" in r.ids and all(n in r.ids.choose.text for n in names)]
    if rows:
        d.tap(rows[0].ids.choose)
    else:
        setup.ids.count_spinner.text = str(len(names))
        d.touches += 2   # open the spinner, pick the count
        d.pump(3)
        rows = sorted(setup.ids.seats.children, key=lambda r: r.seat)
        for row, name in zip(rows, names):
            d.tap(row.ids.name)
            d.type_into(row.ids.name, name)
    setup.ids.first_spinner.text = names[0]   # fixed for a repeatable run: not counted
    d.pump(2)
    d.tap(setup.ids.start_button)
    assert d.app.session is not None, "the game did not start"


def buttons(d, text):
    return [b for b in d.find_all(root=d.screen, cls="K23Button", text=text) if not b.disabled and b.opacity > 0]


def finish_turn(d, until_issue=False):
    """After the action: the fewest taps the board offers to end the turn (or reach the Issue)."""
    player = d.app.view["turn"]["player"]
    for _ in range(6):
        turn = d.app.view.get("turn") or {}
        if d.app.view.get("phase") != "turn" or turn.get("player") != player or turn.get("step") == "issue":
            return
        quick = [tr(k) for k in ("touches.k23.to_issue", "knives23.ui.end_turn") if _has(k)]
        for text in quick + [tr("knives23.ui.next_step")]:
            found = buttons(d, text)
            if found:
                d.tap(found[0])
                break
        else:
            raise AssertionError(f"no button ends {player}'s turn at {turn.get('step')}")
    raise AssertionError("the turn did not end")


def _has(key):
    from companion.core import i18n
    return i18n.has(key)


def vote(d, ballots):
    """Pass-and-play, then the reveal, back to the board."""
    app = d.app
    screen = app.screen("vote")
    for voter, choice in ballots.items():
        assert app.sm.current == "vote", app.sm.current
        d.hold(d.find(cls="VoterButton", voter=voter))
        if screen.mode == "private":         # a second hold on a hand-over screen
            d.hold(screen.ids.show_choices)
        assert screen.mode == "choose", screen.mode
        d.tap(d.find(cls="ChoiceButton", option=choice))
        if app.sm.current == "vote" and screen.mode == "done":
            if getattr(screen, "hides_itself", False):
                end = time.monotonic() + 10
                while screen.mode == "done" and time.monotonic() < end:
                    d.wait(0.1)
            else:
                d.tap(screen.ids.done_button)
    assert app.sm.current == "reveal", app.sm.current
    d.advance(8)   # a count-in, if the tree has one: no touch
    d.wait(0.3)
    d.tap(app.screen("reveal").ids.continue_button)


def place_issues(d):
    from companion.core.events import BadInput, Command, RuleError
    s = d.app.session
    try:
        s.rules.decide(s.state, Command("place_issues", {}, "tablet"))
        need_names = False
    except (BadInput, RuleError):
        need_names = True
    screen = d.screen
    if need_names:
        for field, name in zip((screen.red, screen.grey), ISSUES):
            d.tap(field)
            d.type_into(field, name)
    d.tap(d.find(cls="K23Button", text=tr("knives23.ui.place_issues")))


def curia(d, rows):
    """The demo game (commands sent, not counted) up to the Curia, then its reveal by taps."""
    from companion.games.knives23 import demo
    d.reset()
    d.start_game("knives23", demo.SETUP["players"], options={"curia_knowledge": True, "kalends_spaces": 4,
                                                             "dagger_start": 2})
    cmds = demo.commands()
    first = next(i for i, c in enumerate(cmds) if c.kind == "abilities_done")
    for c in cmds[:first]:
        assert d.app.send_command(c), (c, d.app.root.ids.toast.message)
        if d.app.sm.current == "reveal":
            d.app.reveal_seen()
    d.pump(4)
    assert d.app.sm.current == "knives23.curia", d.app.sm.current
    cards = [c for c in cmds[first + 1:] if c.kind == "curia_card"]
    with Count(d, rows, "Curia reveal, whole (abilities + 10 cards)"):
        d.tap(d.screen.abilities_button)
        for i, c in enumerate(cards):
            from companion.app.games.knives23 import common
            button = next(b for b in d.find_all(root=d.screen, cls="K23Button", text=common.card_text(c.data["card"])))
            if i == 0:
                with Count(d, rows, "Curia reveal, per card"):
                    d.tap(button)
            else:
                d.tap(button)
    assert d.app.view["phase"] in ("tableaux", "opportunists"), d.app.view["phase"]


def measure(quick: bool = False) -> dict:
    d = make_driver()
    rows: dict = {}
    d.reset()
    with Count(d, rows, "Start a game, 5 players the first time"):
        start_game(d, NAMES)
    d.app.leave_game()
    with Count(d, rows, "Start a game, 5 known players"):
        start_game(d, NAMES)
    if quick:
        return rows
    d.through_knives23_checklist()
    tribune = d.app.view["tribune"]
    # Ann: an ordinary turn, nothing recorded
    with Count(d, rows, "Ordinary 23 Knives turn"):
        d.tap(buttons(d, tr("knives23.location.baths"))[0])
        finish_turn(d)
    # Bo: to the Forum, an Exile of Cy (3 Exile, 2 Remain)
    d.tap(buttons(d, tr("knives23.location.forum"))[0])
    with Count(d, rows, "An Exile (call, target, 5 ballots, reveal)"):
        d.tap(buttons(d, tr("knives23.ui.call_exile"))[0])
        d.tap(buttons(d, "Cy")[0])
        with Count(d, rows, "A 5-player vote (ballots + reveal)"):
            vote(d, {"Ann": "exile", "Bo": "exile", "Cy": "remain", "Di": "exile", "Ed": "remain"})
    assert d.app.view["exiles"][-1]["exiled"], d.app.view["exiles"]
    finish_turn(d)
    while d.app.view["turn"]["player"] != tribune:
        d.tap(buttons(d, tr("knives23.location.tiber"))[0])
        finish_turn(d)
    with Count(d, rows, "Tribune's turn to the Issue step"):
        d.tap(buttons(d, tr("knives23.location.baths"))[0])
        finish_turn(d, until_issue=True)
    with Count(d, rows, "Issue vote (place Issues, 5 ballots, reveal)"):
        place_issues(d)
        vote(d, {"Ann": "red", "Bo": "red", "Cy": "grey", "Di": "red", "Ed": "grey"})
    assert d.app.view["phase"] == "issue_resolve", d.app.view["phase"]
    curia(d, rows)
    return rows


def table(runs: dict) -> str:
    labels = [lab for lab in ("before", "after") if lab in runs] + [lab for lab in runs if lab not in ("before", "after")]
    names = list(dict.fromkeys(n for lab in labels for n in runs[lab]))
    w = max(len(n) for n in names)
    head = f"{'action':<{w}}  " + "  ".join(f"{lab:>16}" for lab in labels)
    lines = [head, "-" * len(head)]
    for n in names:
        cells = []
        for lab in labels:
            r = runs[lab].get(n)
            cell = "—" if r is None else str(r["touches"]) + (f" +{r['keys']} keys" if r["keys"] else "")
            cells.append(f"{cell:>16}")
        lines.append(f"{n:<{w}}  " + "  ".join(cells))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="after", help="name of this tree's run (before / after)")
    args = parse_quick(ap, argv)
    if not os.environ.get("DISPLAY"):
        raise SystemExit("error: no X display; run under xvfb-run")
    rows = measure(quick=args.quick)
    if args.quick:  # a tiny run (starting a game) is no "before" or "after": shown, not kept
        runs = {"quick": rows}
    else:
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / f"{args.label}.json").write_text(json.dumps(rows, indent=1))
        runs = {p.stem: json.loads(p.read_text()) for p in sorted(OUT.glob("*.json"))}
    print("touches (taps + holds; keystrokes apart) per action, real app at 1280x800")
    print(table(runs))
    sys.stdout.flush()  # os._exit does not flush: a pipe would get nothing
    os._exit(0)   # the embedded Kivy loop has no clean stop outside a test session


if __name__ == "__main__":
    main()
