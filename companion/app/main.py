"""The Kivy app: a shell of shared screens around the chosen game's screens.

Data goes one way: a touch (or a device) makes a Command; the session's rules turn it into
events in the journal; the app re-reads the table view and the screens show it. Device threads
only post to ``self.commands``; ``_drain`` runs them on the main thread.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import BooleanProperty, DictProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import NoTransition
from kivy.utils import platform

from companion.core import i18n
from companion.core.clock import MonotonicClock
from companion.core.events import BadInput, Command, RuleError
from companion.core.inputs import CommandQueue, DeviceInfo, InputSource
from companion.core.journal import Journal, default_data_dir
from companion.core.narration import Narrator
from companion.core.session import GameSession
from companion.core.timers import END_LINE, Countdown, spoken_warning
from companion.app import games as game_registry
from companion.app.gameui import GameUI
from companion.app.settings import Settings
from companion.app import widgets  # noqa: F401  (registers the shared widgets with the kv Factory)

log = logging.getLogger(__name__)
HERE = Path(__file__).resolve().parent
SHELL_SCREENS = ("picker", "setup", "devices", "settings", "history", "past_games", "vote", "reveal")
# Screens of play: a new table view may switch between these by itself. The utility screens
# (settings, devices, history, …) are never pulled away from under the narrator's finger.
PLAY_SCREENS = ("vote", "reveal")
# Commands from devices that report on the device itself, for screens, not for the rules.
DEVICE_NEWS = frozenset({"tokens_seen", "tokens_calibration", "box_pressed", "box_conflict"})


class CompanionApp(App):
    title = "Table Companion"
    view = DictProperty({})           # the current game's table view
    game_id = StringProperty("")
    bar_title = StringProperty("")
    caption = StringProperty("")
    caption_size = NumericProperty(34)
    can_undo = BooleanProperty(False)
    state_version = NumericProperty(0)  # bumps after every recorded batch
    session = ObjectProperty(None, allownone=True)
    # True while one player holds the tablet for a secret choice: the top bar is locked so no
    # tap there (undo, history) can touch anyone else's ballot.
    private = BooleanProperty(False)
    narration_paused = BooleanProperty(False)
    # The narration controls show while the narrator speaks or is paused, and for a while after
    # its last line, so "repeat" is there when someone asks "what did it say?".
    narration_active = BooleanProperty(False)
    NARRATION_LINGER = 12.0  # engine-clock seconds

    def __init__(self, data_dir: str | os.PathLike | None = None, engine_clock=None,
                 speaker=None, audio_out=None, boxes: str | None = None, **kwargs):
        super().__init__(**kwargs)
        # `--boxes` from the command line: 'auto', 'off' or a list of ports; None = the setting.
        self.boxes_arg = boxes
        if data_dir:
            self.data_dir = Path(data_dir)
        elif platform == "android":
            self.data_dir = Path(self.user_data_dir)  # the app's private storage
        else:
            self.data_dir = default_data_dir()
        self.engine_clock = engine_clock or MonotonicClock()
        self._speaker_override = speaker
        self._audio_override = audio_out
        self.commands = CommandQueue()
        self.sources: list[InputSource] = []          # InputSources feeding self.commands
        self.game_ui: GameUI | None = None
        self.journal: Journal | None = None
        self.settings = Settings()
        self.narrator: Narrator | None = None   # made in build(), remade when the voice changes
        self._seen_reveals = 0
        self._device_listeners: dict[str, list] = {}
        # two boxes claim one id: neither counts until the table keeps one (devices panel)
        self.listen("box_conflict", lambda command: self.toast(command.data["message"]))
        self.voice_problem = ""
        self.box_source = None     # the vote boxes' BoxSource while boxes are on

    # -- start-up --------------------------------------------------------------------------
    def build(self):
        self.data_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.settings = Settings.load(self.data_dir / "settings.json")
        except BadInput as exc:
            log.error("%s — using default settings", exc)
            self._startup_error = str(exc)
        i18n.set_language(self.settings.language)
        self.caption_size = self.settings.caption_size
        self.journal = Journal(self.data_dir / "journal.sqlite3")
        Builder.load_file(str(HERE / "app.kv"))
        from companion.app.screens import load_all
        root = Builder.load_string("Root:\n")
        sm = root.ids.sm
        sm.transition = NoTransition()
        for screen in load_all(self):
            sm.add_widget(screen)
        self.root_widget = root
        self.bar_title = i18n.tr("app.title")
        self._make_narrator()
        Clock.schedule_interval(self._drain, 1 / 20)
        Clock.schedule_interval(self._tick_engines, 1 / 20)
        from companion.app.backkey import BackKey
        self.back_key = BackKey(self)
        return root

    def on_start(self):
        if os.environ.get("TABLE_COMPANION_FIRST_FRAME"):
            # benchmarks/app_cold_start.py: report when the first frame has been drawn, then quit.
            import time

            def report(*_):
                print(f"first-frame {time.time():.3f}", flush=True)
                self.stop()
            Window.bind(on_flip=lambda *_: Clock.schedule_once(report, 0))
        err = getattr(self, "_startup_error", None)
        if err:
            self.toast(err)
        self.goto("picker")
        self._start_boxes()
        unfinished = self.journal.unfinished()
        if unfinished:
            self.screen("picker").offer_resume(unfinished[0])

    def on_stop(self):
        for src in self.sources:
            try:
                src.stop()
            except OSError:  # a port or socket that fails to close must not block closing the app
                log.exception("stopping %s", src)
        if self.narrator is not None:
            self.narrator.cancel()
            self.narrator.stop_background()

    def on_pause(self):
        # Android: the tablet sleeps. Everything is already in the journal; allow the pause.
        return True

    # -- narration -------------------------------------------------------------------------
    def _make_narrator(self):
        from companion.app.narration import make_narrator
        self.narrator = make_narrator(self, self._speaker_override, self._audio_override)

    def say(self, line_id: str, text: str):
        if self.narrator is not None:
            self.narrator.say(line_id, text)

    def spoken_countdown(self, seconds: float, warnings, name: str, on_end=None, say_end: bool = True):
        """A countdown on the engines' clock whose warnings (and, unless ``say_end`` is False,
        its end) the narrator speaks; ``on_end`` runs after that, on the main thread."""
        def end():
            if say_end:
                self.say(*END_LINE)
            if on_end is not None:
                Clock.schedule_once(lambda dt: on_end(), 0)
        return Countdown(float(seconds), self.engine_clock, warnings=warnings, name=name,
                         on_warning=lambda mark: self.say(*spoken_warning(mark)), on_end=end)

    def narration_toggle_pause(self):
        if self.narrator.paused:
            self.narrator.resume()
        else:
            self.narrator.pause()
        self.narration_paused = self.narrator.paused

    def set_caption(self, text):
        self.caption = text or ""

    def _tick_engines(self, dt):
        if self.narrator is not None:
            self.narrator.tick()
            n = self.narrator
            last = n.history[-1].ended_at if n.history else None
            recent = last is not None and self.engine_clock.now() - last < self.NARRATION_LINGER
            self.narration_active = bool(n.busy or n.paused or recent)
        if self.game_ui is not None and hasattr(self.game_ui, "tick"):
            self.game_ui.tick(self)

    # -- screens ---------------------------------------------------------------------------
    @property
    def sm(self):
        return self.root.ids.sm

    def screen(self, name):
        return self.sm.get_screen(name)

    def built_screen(self, name: str):
        """The screen of that name, or None when it is not built (no game attached)."""
        return self.sm.get_screen(name) if self.sm.has_screen(name) else None

    def goto(self, name: str):
        if name in ("history",) and not self.game_id:
            return
        self.sm.current = name

    def go_home(self):
        """Back to the game's current screen, or to the picker when no game is on."""
        if self.game_id:
            self._show_play_screen(force=True)
        else:
            self.goto("picker")

    def toast(self, message: str):
        self.root.ids.toast.show(message)

    # -- games -----------------------------------------------------------------------------
    def choose_game(self, game_id: str):
        ui = game_registry.load_ui(game_id)
        if ui is None:
            self.toast(i18n.tr("picker.not_available"))
            return
        self.screen("setup").prepare(ui)
        self.goto("setup")

    def start_game(self, ui, setup: dict):
        try:
            session = GameSession.start(self._journal(), ui.rules, setup)
        except (BadInput, RuleError) as exc:
            self.toast(str(exc))
            return False
        self._attach(ui, session)
        return True

    def resume_game(self, game_id: int):
        record = self._journal().game(game_id)
        ui = game_registry.load_ui(record.game)
        if ui is None:
            self.toast(i18n.tr("picker.not_available"))
            return False
        try:
            session = GameSession.resume(self._journal(), game_id, ui.rules)
        except (BadInput, RuleError) as exc:
            self.toast(str(exc))
            return False
        self._attach(ui, session)
        return True

    def leave_game(self):
        """Back to the picker; the game stays in the journal, resumable."""
        self.session = None
        self.game_ui = None
        self.game_id = ""
        self.view = {}
        self.bar_title = i18n.tr("app.title")
        if self.narrator is not None:  # the last game's words must not hang over the picker
            self.narrator.cancel()
        self.caption = ""
        Window.allow_screensaver = True
        self.goto("picker")

    def abandon_game(self, game_id: int):
        self._journal().abandon(game_id)

    def _journal(self) -> Journal:
        assert self.journal is not None, "build() opens the journal"
        return self.journal

    def _attach(self, ui, session):
        for name in [s.name for s in self.sm.screens if "." in s.name]:
            self.sm.remove_widget(self.sm.get_screen(name))
        self.game_ui = ui
        self.session = session
        self.game_id = ui.game_id
        self.bar_title = i18n.tr(ui.title)
        for screen in ui.build_screens(self):
            self.sm.add_widget(screen)
        Window.allow_screensaver = False  # the screen stays awake during a game
        for src in self.sources:  # devices catch up: boxes learn a vote is open
            src.on_attach(session.events)
        view = session.view("table")
        self._seen_reveals = len(view.get("vote_history", []))
        self._publish([], force_screen=True)

    # -- commands --------------------------------------------------------------------------
    def send(self, kind: str, source: str = "tablet", **data) -> bool:
        return self.send_command(Command(kind, data, source))

    def send_command(self, command: Command) -> bool:
        """Run a command through the rules. A refusal shows its one-line reason and changes nothing."""
        if self.session is None:
            self.toast(i18n.tr("app.no_game"))
            return False
        try:
            events = self.session.execute(command)
        except (RuleError, BadInput) as exc:
            self.toast(str(exc))
            return False
        self._publish(events)
        return True

    def undo(self):
        if self.session is None:
            return
        try:
            events = self.session.undo()
        except RuleError as exc:
            self.toast(str(exc))
            return
        self._publish(events, force_screen=True)

    def _drain(self, dt):
        for src in self.sources:
            src.poll()
        refused = self.commands.drain(self._handle_device_command)
        for cmd, exc in refused:
            self.toast(f"{cmd.source}: {exc}")
            for src in self.sources:
                src.on_refused(cmd, exc)

    def listen(self, kind: str, callback):
        """Device news that is not a game action (``tokens_seen``, ``tokens_calibration``,
        ``box_pressed``…): delivered to ``callback(command)`` on the main thread, never to the rules."""
        self._device_listeners.setdefault(kind, []).append(callback)

    def _handle_device_command(self, command: Command):
        if command.kind in DEVICE_NEWS:
            for cb in list(self._device_listeners.get(command.kind, ())):
                cb(command)
            return
        self.execute_from_device(command)

    def execute_from_device(self, command: Command):
        """Run a device's command through the rules on the main thread and show the result;
        a refusal raises (RuleError/BadInput) so the device can be told why."""
        if self.session is None:
            raise RuleError("No game is in progress")
        events = self.session.execute(command)
        self._publish(events)
        return events

    def _publish(self, events, force_screen=False):
        self.view = dict(self.session.view("table"))
        self.can_undo = self.session.can_undo()
        self.state_version += 1
        if self.game_ui is not None and events:
            self.game_ui.on_events(self, events, self.view)
        if events:
            for src in self.sources:
                src.on_events(events)
        self._show_play_screen(force=force_screen)

    def _show_play_screen(self, force=False):
        current = self.sm.current
        in_play = current in PLAY_SCREENS or "." in current
        if not (in_play or force):
            return
        view = self.view
        history = view.get("vote_history", [])
        vote = view.get("vote")
        if vote and not vote.get("revealed"):
            target = "vote"
        elif len(history) > self._seen_reveals:
            target = "reveal"
        else:
            target = self.game_ui.screen_for(view)
        if current != target:
            self.sm.current = target

    def reveal_seen(self):
        """The table has looked at the last reveal; back to play."""
        self._seen_reveals = len(self.view.get("vote_history", []))
        self._show_play_screen(force=True)

    # -- devices ---------------------------------------------------------------------------
    def add_source(self, source):
        self.sources.append(source)
        source.start(self.commands.post)
        if self.session is not None:
            source.on_attach(self.session.events)

    def remove_source(self, source):
        """Stop a source and forget it (a camera or phone server the table switched off)."""
        source.stop()
        if source in self.sources:
            self.sources.remove(source)

    def _start_boxes(self):
        """Vote boxes as `--boxes` says, else as the Devices setting says: 'auto' opens the
        ports that look like boxes and watches for more (hardware.discovery), a list opens
        those ports; the HELLO handshake tells boxes from other serial devices."""
        from hardware.discovery import parse_boxes
        if self.box_source is not None:
            self.remove_source(self.box_source)
            self.box_source = None
        if self.boxes_arg is not None:
            wanted = self.boxes_arg
        else:
            wanted = self.settings.box_ports if self.settings.boxes_enabled else "off"
        ports = parse_boxes(wanted)
        if ports is None:
            return None
        from hardware.source import BoxSource
        try:
            source = BoxSource(str(self.data_dir), ports=ports)
            self.add_source(source)
        except (OSError, ValueError) as exc:  # a port the OS refuses (SerialException is an OSError),
            # or a port list it cannot read: say so; the app runs on without boxes
            log.exception("starting the vote boxes on %s", ports)
            self.toast(i18n.tr("devices.boxes_failed", error=str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
            return None
        self.box_source = source
        return source

    def devices(self) -> list[DeviceInfo]:
        out = [DeviceInfo("tablet", "tablet", i18n.tr("devices.tablet"), detail=i18n.tr("devices.tablet_detail"))]
        for src in self.sources:
            out.extend(src.devices())
        return out

    # -- settings --------------------------------------------------------------------------
    def save_settings(self):
        try:
            self.settings.save(self.data_dir / "settings.json")
        except BadInput as exc:
            self.toast(str(exc))
            return
        self.caption_size = self.settings.caption_size
        if self.settings.language != i18n.language():
            i18n.set_language(self.settings.language)
        self.voice_problem = ""
        self._speaker_override = None  # the table chose a voice: it wins over the start-up one
        self._make_narrator()
        if self.voice_problem:
            self.toast(i18n.tr("settings.voice_unavailable", problem=self.voice_problem))


def main(argv=None):
    CompanionApp().run()
