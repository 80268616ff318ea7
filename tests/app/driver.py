"""Drives the real Kivy app in this process, under the X display the suite runs in.

One Kivy window lives per process, so one app is shared by all app tests (``companion_app``
fixture); ``Driver.reset()`` gives each test a fresh journal and the picker. The engines'
clock (narration, timers) is a FakeClock the test moves; Kivy's own clock runs as usual, so
frames are pumped with ``pump()``.

A pumped frame is Kivy's whole loop (clock, input, layout, canvas instructions) except the
drawing itself: the window's pixels are drawn when a test looks at them (``screenshot``).
Under Xvfb the software renderer (llvmpipe) takes 100-150 ms to draw one frame of the app on
this 2-core machine (one full-window rectangle alone costs ~18 ms): drawing every frame was
over half an app test's time, and nothing but a screenshot reads the pixels. Touches, layout
and texts do not depend on drawing (Kivy lays out and makes label textures on its clock).
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from kivy.base import EventLoop
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.tests.common import UnitTestTouch

from companion.core.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def frame(draw: bool = False) -> None:
    """One pass of Kivy's loop, as ``EventLoop.idle()`` (Kivy 2.3), the window drawn only when
    ``draw`` (see the module's docstring)."""
    if draw:
        Window.canvas.ask_update()
        EventLoop.idle()
        return
    Clock.tick()
    EventLoop.dispatch_input()
    Builder.sync()
    Clock.tick_draw()
    Builder.sync()


def _popup_moving() -> bool:
    from kivy.uix.modalview import ModalView
    return any(isinstance(w, ModalView) and not (w._is_open and w._anim_alpha >= 1.0) for w in Window.children)


class Driver:
    def __init__(self, app, clock, data_root: Path):
        self.app = app
        self.clock = clock
        self.data_root = data_root
        self._resets = 0

    # -- time ------------------------------------------------------------------------------
    def pump(self, frames: int = 4):
        """``frames`` frames, then more while a popup fades in or out: Kivy animates a ModalView
        for 0.1 s of real time, and a popup half open has not run its ``on_open`` yet (nor does
        a half-closed one let touches through)."""
        for _ in range(frames):
            frame()
        end = time.monotonic() + 2.0
        while _popup_moving() and time.monotonic() < end:
            frame()

    def pump_until(self, condition, what: str, timeout: float = 45.0):
        """Frames until ``condition()`` holds (the app drains its command queue and device
        threads reach it on Kivy's clock), then two more; AssertionError naming ``what`` after
        ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < end, f"timed out waiting for {what}"
            self.pump(1)
        self.pump(2)

    def wait(self, seconds: float, draw: bool = False):
        """Let real time pass with frames run (for Kivy animations and hold buttons)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            frame(draw)

    def advance(self, seconds: float, step: float = 0.25):
        """Move the engines' clock (narration, timers), ticking them like the app does."""
        remaining = seconds
        while remaining > 1e-9:
            dt = min(step, remaining)
            self.clock.advance(dt)
            remaining -= dt
            self.app._tick_engines(dt)
        self.pump(2)

    # -- state -----------------------------------------------------------------------------
    def reset(self, size=(1280, 800)):
        """Fresh journal, no game, the picker, at the given window size."""
        self._resets += 1
        app = self.app
        # A popup the last test left open (a correction panel, a question) would take this test's
        # taps: closed first, as the table would close it.
        from kivy.uix.modalview import ModalView
        for w in list(Window.children):
            if isinstance(w, ModalView):
                w.dismiss(animation=False)
        if app.session is not None:
            app.leave_game()
        app.journal.close()
        data = self.data_root / f"run{self._resets}"
        data.mkdir(parents=True, exist_ok=True)
        app.data_dir = data
        app.journal = Journal(data / "journal.sqlite3")
        # A test that saved Settings (a voice, a language) leaves them behind: every test starts
        # from the defaults and the captions-only test voice on the engines' fake clock.
        from companion.app.settings import Settings
        from companion.core import i18n
        from companion.core.speakers import CaptionSpeaker
        if app.settings != Settings() or i18n.language() != "en":
            app.settings = Settings()
            if i18n.language() != "en":
                i18n.set_language("en")
                app._rebuild_screens()   # as Settings does: the top bar and the shell in English too
        app._speaker_override = CaptionSpeaker()
        app._make_narrator()
        app.narrator.cancel()
        app.narrator.history.clear()   # one narrator lives through every test: a fresh transcript
        app.narrator.dropped.clear()
        app.caption = ""
        app.root.ids.toast._clear()  # a message from the last test is not this test's
        for src in list(app.sources):
            src.stop()
        app.sources.clear()
        self.set_size(*size)
        app.goto("picker")
        self.pump(6)

    def set_size(self, w: int, h: int):
        if tuple(Window.size) != (w, h):
            Window.size = (w, h)
            # The X server answers the resize asynchronously: draw until the window has it.
            self.wait(0.5, draw=True)
        self.pump(6)

    @property
    def screen(self):
        return self.app.sm.current_screen

    # -- finding and touching --------------------------------------------------------------
    def find_all(self, root=None, text=None, cls=None, contains=None, **attrs):
        root = root or self.app.root
        found = []
        for w in root.walk(restrict=True):
            if cls is not None and type(w).__name__ != cls:
                continue
            if text is not None and getattr(w, "text", None) != text:
                continue
            if contains is not None and contains not in str(getattr(w, "text", "")):
                continue
            if any(getattr(w, k, object()) != v for k, v in attrs.items()):
                continue
            found.append(w)
        return found

    def find(self, root=None, **kw):
        found = self.find_all(root=root or self.screen, **kw)
        if not found:
            raise LookupError(f"no widget matching {kw} on screen {self.app.sm.current}")
        return found[0]

    def visible_texts(self, root=None) -> list[str]:
        """Texts a person could read now: skips hidden subtrees and widgets off the window."""
        out = []

        def walk(w):
            if getattr(w, "opacity", 1) <= 0.01:
                return
            text = getattr(w, "text", None)
            if isinstance(text, str) and text.strip():
                x, y = w.to_window(w.x, w.y)
                if x < Window.width and y < Window.height and x + w.width > 0 and y + w.height > 0:
                    out.append(text)
            for c in w.children:
                walk(c)

        walk(root or self.app.root)
        return out

    def settle(self, widget, frames: int = 30):
        """Draw frames until the widget stops moving (layouts run over several frames)."""
        last = None
        for _ in range(frames):
            self.pump(1)
            where = (tuple(widget.to_window(*widget.center)), tuple(widget.size))
            if where == last:
                break
            last = where
        return last[0]

    def through_knives23_checklist(self):
        """23 Knives' setup checklist ticked line by line, then Begin: the game is at its first turn."""
        screen = self.screen
        self.tap(screen.ids.confirm_button)
        for _ in range(12):   # the list is drawn again after each tick
            left = [b for b in self.find_all(root=screen, cls="K23CheckButton") if not b.done]
            if not left:
                break
            self.tap(left[0])
        self.tap(screen.ids.begin_button)
        assert self.app.view["phase"] == "turn", self.app.view["phase"]

    def scroll_into_view(self, widget):
        """A widget in a list that scrolls brought into sight, as a person scrolls to it."""
        from kivy.uix.scrollview import ScrollView
        parent = widget.parent
        while parent is not None and parent is not parent.parent:
            if isinstance(parent, ScrollView):
                self.pump(2)   # its content laid out first
                parent.scroll_to(widget, padding=0, animate=False)
                self.pump(2)
                return
            parent = parent.parent

    def _hidden_by_scrolling(self, widget, x, y) -> bool:
        """True when the point is outside a list that scrolls, around the widget: a person would
        scroll to the widget first (a touch there would land on whatever is drawn instead)."""
        from kivy.uix.scrollview import ScrollView
        parent = widget.parent
        while parent is not None and parent is not parent.parent:
            if isinstance(parent, ScrollView):
                left, bottom = parent.to_window(parent.x, parent.y)
                if not (left <= x <= left + parent.width and bottom <= y <= bottom + parent.height):
                    return True
            parent = parent.parent
        return False

    def tap(self, widget):
        """A real touch at the widget's centre, through the window's input dispatch. A widget in
        a list that scrolls is scrolled into sight first, only when it is out of sight."""
        x, y = self.settle(widget)
        # A widget taken off the screen (its list drawn again) has no place to touch: its own
        # coordinates would land the tap on whatever is drawn there.
        assert widget.get_root_window() is not None, f"{type(widget).__name__} is no longer on the screen"
        if self._hidden_by_scrolling(widget, x, y):
            self.scroll_into_view(widget)
            x, y = self.settle(widget)
        touch = UnitTestTouch(x, y)
        # Down and up reach the window in the same frame: a tap, however slow the machine.
        touch.touch_down()
        touch.touch_up()
        self.pump(3)

    def hold(self, widget, timeout: float = 20.0):
        """Press and hold a HoldButton until it acts (real time; frames may be slow under load)."""
        x, y = self.settle(widget)
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        end = time.monotonic() + timeout
        while widget.progress < 1.0 and time.monotonic() < end:
            frame()
        touch.touch_up()
        self.pump(3)

    def type_into(self, text_input, text: str):
        text_input.text = text
        self.pump(1)

    # -- screenshots -----------------------------------------------------------------------
    def screenshot(self, name: str) -> Path:
        """Saves test-artifacts/<name>.png of the window as it is now (drawn for it)."""
        self.pump(4)
        for _ in range(2):
            frame(draw=True)
        out = ARTIFACTS / f"{name}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.stem + "_tmp.png")
        written = Window.screenshot(name=str(tmp))
        shutil.move(written, out)
        return out

    # -- common flows ----------------------------------------------------------------------
    def start_game(self, game_id: str, names: list[str], first: str | None = None,
                   options: dict | None = None, seat_values: dict | None = None,
                   house_rules: dict | None = None):
        """Through the real picker and setup screens (``house_rules``: {rule: reading} tapped)."""
        self.app.goto("picker")
        self.pump(4)
        card = self.find(cls="GameCard", game_id=game_id)
        self.tap(card)
        setup = self.screen
        assert setup.name == "setup", setup.name
        setup.ids.count_spinner.text = str(len(names))
        self.pump(3)
        rows = sorted(setup.ids.seats.children, key=lambda r: r.seat)
        for row, name in zip(rows, names):
            self.type_into(row.ids.name, name)
            for field in row.ids.extra.children:
                field.text = str((seat_values or {}).get(name, {}).get(field.key, ""))
        if first is not None:
            setup.ids.first_spinner.text = first
        for key, value in (options or {}).items():
            opt, w = setup._option_widgets[key]
            if opt.kind == "bool":
                w.state = "down" if value else "normal"
            elif opt.kind == "choice":
                w.text = w.values[w.choice_keys.index(value)]
            else:
                w.text = str(value)
        for name, reading in (house_rules or {}).items():
            self.tap(setup._house_rule_buttons[name][reading])
        self.pump(2)
        self.tap(setup.ids.start_button)
        assert self.app.session is not None, "the game did not start"
        self.pump(4)

    def vote(self, ballots: dict):
        """Pass-and-play: each voter in turn holds their name and taps their choice. The "vote
        recorded" screen hides itself after a moment (tests/app/test_touches_app.py waits for
        it); here it is let go at once."""
        for voter, choice in ballots.items():
            vote_screen = self.app.screen("vote")
            assert self.app.sm.current == "vote", f"expected the vote screen, on {self.app.sm.current}"
            self.hold(self.find(cls="VoterButton", voter=voter))
            assert vote_screen.mode == "choose"
            if choice is None:
                from companion.core.i18n import tr
                self.tap(self.find(cls="ChoiceButton", text=tr("vote.abstain")))
            else:
                self.tap(self.find(cls="ChoiceButton", option=choice))
            if self.app.sm.current == "vote" and vote_screen.mode == "done":
                vote_screen._hide_done()
                self.pump(2)

    def count_in(self, most: float = 60.0):
        """The reveal's count-in follows the voice on the engines' clock: move the clock on (the
        lines queued before it, then "3, 2, 1") until the ballots are face up."""
        screen = self.app.screen("reveal")
        assert self.app.sm.current == "reveal", self.app.sm.current
        moved = 0.0
        screen._tick()   # the screen's own 0.1 s tick, run at each step of the clock
        while screen.mode != "shown" and moved < most:
            self.advance(0.25)
            moved += 0.25
            screen._tick()
        self.pump(3)
        assert screen.mode == "shown", f"still counting in after {moved:.2f} s of the engines' clock"

    def continue_reveal(self, most: float = 60.0):
        """Past the count-in, then the reveal's Continue."""
        self.count_in(most)
        self.tap(self.app.screen("reveal").ids.continue_button)
