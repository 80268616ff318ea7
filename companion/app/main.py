"""The Kivy app: a shell of shared screens around the chosen game's screens.

Data goes one way: a touch (or a device) makes a Command; the session's rules turn it into
events in the journal; the app re-reads the table view and the screens show it. Device threads
only post to ``self.commands``; ``_drain`` runs them on the main thread.
"""
from __future__ import annotations

import logging
import math
import os
import shutil
import sys
import time
from typing import TYPE_CHECKING, Any, Callable
from pathlib import Path

from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import BooleanProperty, DictProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import NoTransition
from kivy.utils import platform

from companion.core import i18n, votes
from companion.core.clock import MonotonicClock
from companion.core.commands import legal_values
from companion.core.events import BadInput, Command, RuleError
from companion.core.inputs import CommandQueue, DeviceInfo, InputSource
from companion.core.journal import (DataInUse, DataLock, Journal, JournalDamaged, JournalError,
                                    StorageUnavailable, default_data_dir, move_aside, unwritable)
from companion.core.narration import Narrator
from companion.core.session import TIMER, GameSession, repair
from companion.core.timers import Countdown, spoken_end, spoken_warning, warning_still_true
from companion.app import games as game_registry
from companion.app.gameui import GameUI
from companion.app.settings import Settings
from companion.app import widgets  # noqa: F401  (registers the shared widgets with the kv Factory)

if TYPE_CHECKING:
    from hardware.source import BoxSource

log = logging.getLogger(__name__)
HERE = Path(__file__).resolve().parent


def _text_records() -> None:
    """Log lines holding half a UTF-16 pair (a port or file name in an unknown encoding) are
    written with it escaped: Kivy's log file refuses one, and that error closed the app. Set when
    the app starts (``CompanionApp.build``), not on import: importing a module changes no
    process-wide logging."""
    make = logging.getLogRecordFactory()
    if getattr(make, "text_only", False):
        return

    def record(*args, **kwargs):
        rec = make(*args, **kwargs)
        plain = rec.getMessage

        def message() -> str:
            return i18n.escaped(plain())
        rec.getMessage = message  # type: ignore[method-assign]  # this record's own method, on purpose
        return rec
    record.text_only = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(record)


SHELL_SCREENS = ("picker", "setup", "devices", "settings", "history", "past_games", "vote", "reveal")
# Screens of play: a new table view may switch between these by itself. The utility screens
# (settings, devices, history, …) are never pulled away from under the narrator's finger.
PLAY_SCREENS = ("vote", "reveal")
# Commands from devices that report on the device itself, for screens, not for the rules.
DEVICE_NEWS = frozenset({"tokens_seen", "tokens_calibration", "box_pressed", "box_conflict"})
# Below this much free space in the data folder, starting a game warns (a game's journal is a few
# hundred KB; SQLite needs room for its write-ahead log).
LOW_SPACE_BYTES = 20_000_000
# Event data fields that name who acted, safe to show in the undo toast.
PUBLIC_KEYS = ("player", "voter", "caller", "target")


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
        self._voice_error_at: float | None = None  # when a failing line was last said on screen
        self.box_source: BoxSource | None = None     # the vote boxes' BoxSource while boxes are on
        self.refused = ""               # set when another copy of the app holds the data folder
        # (text, [(id, label, action)]) for the picker
        self.storage_notice: tuple[str, list[tuple[str, str, Callable[[], Any]]]] | None = None
        self.damaged_journal: Path | None = None
        self._lock: DataLock | None = None
        self._timers: dict[str, tuple] = {}  # name -> (countdown, key): the game's journaled timers
        self._countdowns: list[Countdown] = []

    # -- start-up --------------------------------------------------------------------------
    def build(self):
        _text_records()  # before anything is logged
        # The settings first: a journal that cannot be opened is said in the table's language.
        problems: list[BadInput] = []
        try:
            self.settings, problems = Settings.read(self.data_dir / "settings.json")
        except (BadInput, OSError) as exc:
            log.error("%s — using default settings", exc)
            self._startup_error = i18n.error_text(exc)
        try:
            i18n.set_language(self.settings.language)
        except BadInput as exc:  # a language whose catalogue is gone or broken: English, said once
            log.error("%s — using English", exc)
            self._startup_error = i18n.error_text(exc)
            self.settings.language = "en"
        if problems:  # the wrong ones at their defaults, the others kept: said in one line
            log.error("%s — using their defaults", "; ".join(map(str, problems)))
            said = i18n.tr("settings.problem.partly_used", problems="; ".join(map(i18n.error_text, problems)))
            self._startup_error = " ".join(filter(None, [getattr(self, "_startup_error", ""), said]))
        if not self._open_storage():
            return self._refusal()
        self.caption_size = self.settings.caption_size
        from companion.app.screens import load_all, load_app_kv
        load_app_kv()
        root = Builder.load_string("Root:\n")
        sm = root.ids.sm
        sm.transition = NoTransition()
        for screen in load_all(self):
            sm.add_widget(screen)
        from companion.app.notices import ActionToast
        self.action_toast = ActionToast()
        root.add_widget(self.action_toast)
        self.root_widget = root
        self.bar_title = i18n.tr("app.title")
        self._make_narrator()
        Clock.schedule_interval(self._drain, 1 / 20)
        self._wake_engines(0)
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
        if self.refused:
            return
        err = getattr(self, "_startup_error", None)
        if err:
            self.toast(err)
        self.goto("picker")
        self._start_boxes()
        if self.storage_notice:
            self.screen("picker").show_notice(*self.storage_notice)
        assert self.journal is not None   # _open_storage() made one (a refused start returned above)
        try:
            unfinished = self.journal.unfinished()
        except JournalError as exc:  # a row damaged beyond what opening checks
            log.error("%s", exc)
            self.toast(i18n.error_text(exc))
            return
        if unfinished:
            self.screen("picker").offer_resume(unfinished[0])

    # -- storage ---------------------------------------------------------------------------
    def _open_storage(self) -> bool:
        """Lock the data folder and open its journal, whatever state they are in. False only
        when another copy of the app holds the folder (this one must not write)."""
        path = self.data_dir / "journal.sqlite3"
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self._lock = DataLock(self.data_dir).acquire()
        except DataInUse as exc:
            self.refused = i18n.error_text(exc)
            log.error("%s", exc)
            print(f"table companion: {exc}", file=sys.stderr, flush=True)
            return False
        except (OSError, StorageUnavailable) as exc:
            self._journal_in_memory(exc, "created")
            return True
        try:
            try:
                self.journal = Journal(path, lock=self._lock, on_put_back=self._put_back_files)
            except JournalDamaged as exc:
                # Unreadable: keep it byte for byte under a dated name, start afresh, say so.
                log.error("%s", exc)
                self.damaged_journal = move_aside(path)
                log.error("the unreadable journal is kept as %s", self.damaged_journal)
                self.journal = Journal(path, lock=self._lock, on_put_back=self._put_back_files)
                self.storage_notice = (self._salvage(self.damaged_journal), [
                    ("export_button", i18n.tr("storage.export"), self.export_damaged)])
        except (OSError, JournalError) as exc:
            self._journal_in_memory(exc, "written")
            return True
        try:
            notes = repair(self.journal)
        except JournalError as exc:
            log.error("journal repair failed: %s", exc)
            notes = []
        for note in notes:
            log.warning("journal repaired: %s", note)
        return True

    def _put_back_files(self) -> None:
        """The data folder was deleted under the app and the journal has just been put back
        (``Journal._put_back``): the settings and the box pairings go back with it, and the
        table is told. Never raises: the write that put the journal back has succeeded."""
        back = ["journal.sqlite3"]
        try:
            self.settings.save(self.data_dir / "settings.json")
            back.append("settings.json")
        except BadInput as exc:
            log.error("settings not put back: %s", exc)
        manager = getattr(self.box_source, "manager", None)
        if manager is not None:
            try:
                with manager._lock:  # the box threads change the pairings under this lock
                    if manager._seats:
                        manager._save_pairing()
                        back.append(os.path.basename(manager.pairing_path))
            except (OSError, ValueError) as exc:
                log.error("box pairings not put back: %s", exc)
        log.warning("the data folder %s was deleted under the app: put back %s", self.data_dir, ", ".join(back))
        text = i18n.tr("storage.put_back", folder=str(self.data_dir), files=", ".join(back))
        Clock.schedule_once(lambda dt: self.toast(text), 0)

    def _salvage(self, damaged: Path) -> str:
        """Copy every game of the damaged journal that reads back and replays into the fresh
        one; the notice's line says how many (the log names each game cut short or lost)."""
        from companion.core.salvage import salvage
        assert self.journal is not None  # the fresh journal, opened first
        try:
            report = salvage(damaged, self.journal)
        except JournalError as exc:  # the fresh journal cannot take them (a full disk): as before
            log.error("salvage of %s stopped: %s", damaged, exc)
            return i18n.tr("storage.damaged", name=damaged.name)
        found = report.games + len(report.lost)
        if not report.games:
            return i18n.tr("storage.damaged", name=damaged.name)
        return i18n.tr("storage.salvaged", kept=report.games, found=found, short=len(report.cut),
                       name=damaged.name)

    def _journal_in_memory(self, problem: Exception, verb: str) -> None:
        """The data folder cannot be used: play on with a journal in memory, and say so."""
        if isinstance(problem, OSError):
            problem = unwritable(self.data_dir, i18n.reason_of(problem), verb)
        log.error("%s", problem)
        self.journal = Journal(":memory:")
        text = i18n.error_text(problem).rstrip(".")
        self.storage_notice = (i18n.tr("storage.unwritable", problem=text), [])

    def _refusal(self):
        from kivy.uix.label import Label
        Clock.schedule_once(lambda dt: self.stop(), 6)
        return Label(text=self.refused, font_size="24sp",
                     halign="center", text_size=(Window.width * 0.8, None))

    def export_damaged(self):
        """Copy the journal that could not be read to where the table can take it away."""
        if self.damaged_journal is None:
            return
        try:
            folder = export_dir()
            folder.mkdir(parents=True, exist_ok=True)
            for src in sorted(self.damaged_journal.parent.glob(self.damaged_journal.name + "*")):
                shutil.copy2(src, folder / src.name)
        except OSError as exc:
            self.toast(i18n.tr("storage.export_failed", problem=exc.strerror or exc))
            return
        self.toast(i18n.tr("storage.exported", path=folder / self.damaged_journal.name))

    def _warn_low_space(self):
        try:
            free = shutil.disk_usage(self.data_dir).free
        except OSError:
            return
        if free < LOW_SPACE_BYTES:
            self.toast(i18n.tr("storage.low_space", mb=round(free / 1e6, 1)))

    def on_stop(self):
        self._note_timers_left()
        if self._lock is not None:
            self._lock.release()
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
        if self.voice_problem and not getattr(self, "_voice_problem_shown", False):
            self._voice_problem_shown = True  # said once, plainly, where the table looks
            Clock.schedule_once(lambda dt: self.toast(self.voice_problem_text()), 0)

    def voice_problem_text(self) -> str:
        key = "narration.no_voice" if self.settings.voice == "auto" else "settings.voice_unavailable"
        return i18n.tr(key, problem=self.voice_problem)

    def say(self, line_id: str, text: str):
        if self.narrator is not None:
            self.narrator.say(line_id, text)

    def spoken_countdown(self, seconds: float, warnings, name: str, on_end=None, say_end: bool = True,
                         restore: tuple | None = None):
        """A countdown on the engines' clock whose warnings (and, unless ``say_end`` is False,
        its end) the narrator speaks; ``on_end`` runs after that, on the main thread.

        Warnings are reports keyed by the timer: urgent (before other waiting lines, cutting a
        report short) and dropped if no longer true when their turn comes."""
        countdown = None

        def warn(mark):
            assert self.narrator is not None   # made in build(), before any countdown
            self.narrator.report(name, *spoken_warning(mark), urgent=True, finish=True,
                                 still_true=lambda: warning_still_true(countdown, mark))

        def end():
            if say_end:
                assert self.narrator is not None   # made in build(), before any countdown
                self.narrator.report(name, *spoken_end(), urgent=True)
            if on_end is not None:
                Clock.schedule_once(lambda dt: on_end(), 0)
        if restore is not None:  # (journaled state, seconds away): as the table last saw it
            state, away = restore
            countdown = Countdown.restore(state, self.engine_clock, away_s=away, on_warning=warn, on_end=end)
        else:
            countdown = Countdown(float(seconds), self.engine_clock, warnings=warnings, name=name,
                                  on_warning=warn, on_end=end)
        self._countdowns = [c for c in self._countdowns if not c.ended] + [countdown]
        self._wake_engines(0)
        return countdown

    def journaled_countdown(self, name: str, key, seconds: float, warnings, on_end=None,
                            say_end: bool = True):
        """A spoken countdown whose state (started, paused, resumed, time added, ended) is kept
        in the game's journal: if this game already ran the timer ``name`` for ``key`` (the seq
        of the event that began its phase), it comes back as the table last saw it."""
        session = self.session
        key = str(key)
        last = None
        if session is not None:
            last = next((e for e in reversed(session.events) if e.kind == TIMER
                         and e.data.get("name") == name and e.data.get("key") == key), None)
        countdown = None
        if last is not None:
            # Left with the app (quit, or back to the picker): it goes on from exactly there.
            # Otherwise the app was killed while it ran: the table talked on meanwhile.
            away = 0.0 if last.data.get("action") == "left" else max(0.0, time.time() - last.at)
            try:
                countdown = self.spoken_countdown(seconds, warnings, name, on_end, say_end,
                                                  restore=(last.data.get("state"), away))
            except BadInput as exc:  # a record this version cannot read: a fresh timer
                log.warning("timer %s not restored: %s", name, exc)
                last = None
            else:
                if countdown.ended and on_end is not None:
                    # It ran out just before the app stopped: what follows the end still must.
                    Clock.schedule_once(lambda dt: on_end(), 0)
        if countdown is None:
            countdown = self.spoken_countdown(seconds, warnings, name, on_end, say_end)
        if last is None:
            self._note_timer(session, name, key, "started", countdown)
        countdown.on_change = lambda action, cd: self._note_timer(session, name, key, action, cd)
        self._timers[name] = (countdown, key)
        return countdown

    def _note_timers_left(self):
        """The game is left (or the app closes) while a timer runs: record where it was."""
        for name, (countdown, key) in self._timers.items():
            if countdown.running and not countdown.ended:
                self._note_timer(self.session, name, key, "left", countdown)
        self._timers = {}

    def _note_timer(self, session, name, key, action, countdown):
        if session is None or session is not self.session:
            return
        try:
            session.note(TIMER, {"name": name, "key": key, "action": action, "state": countdown.to_dict()})
        except BadInput as exc:  # storage full: the timer runs on, unrecorded, and the table is told
            self.toast(i18n.error_text(exc))

    def live_event(self, kind: str):
        """The latest event of ``kind`` in the current game that is not undone (or None)."""
        return self.session.live_event(kind) if self.session is not None else None

    def narration_toggle_pause(self):
        assert self.narrator is not None   # made in build(), before the narration bar is shown
        if self.narrator.paused:
            self.narrator.resume()
        else:
            self.narrator.pause()

    @property
    def narration_progress(self):
        from companion.app.narration import NarrationProgress
        return NarrationProgress(self.session, on_error=self.toast)

    def on_narration_change(self):
        """The narrator's one state, shown everywhere: the bar, the Hidden Phase screen."""
        n = self.narrator
        if n is None:
            return
        self.narration_paused = n.paused
        self._wake_engines(n.next_change_in())

    # A voice that fails fails every line: the table is told once, then again after this long.
    VOICE_ERROR_EVERY_S = 300.0

    def on_narration_error(self, exc):
        """A line the voice could not say is shown as a caption only; say so, once, not once a
        line (espeak-ng failing every line, a full cache disk)."""
        now = self.engine_clock.now()
        last = self._voice_error_at
        if last is not None and now - last < self.VOICE_ERROR_EVERY_S:
            return
        self._voice_error_at = now
        said = i18n.tr("app.voice_failed", problem=i18n.error_text(exc))
        Clock.schedule_once(lambda dt: self.toast(said), 0)

    def on_narration_mark(self, name):
        hook = getattr(self.game_ui, "on_narration_mark", None)
        if hook is not None:  # a game keeps its script's step (23 Knives' eyes-closed Issue)
            hook(self, name)
        # A screen may be waiting for the voice (the verdict after the last Curia total).
        if self.session is not None:
            Clock.schedule_once(lambda dt: self.session is not None and self._show_play_screen(), 0)

    def set_caption(self, text):
        self.caption = text or ""

    # The engines (narration, timers) wake when something is due, not on a poll: the narrator's
    # next change, each timer's next warning or end, and the next second a timer's display shows.
    # A slow safety wake catches state that arrives without a command (a resumed game).
    SAFETY_WAKE = 1.0
    _engine_due: float   # when the scheduled _engine_event fires (set with it in _wake_engines)

    def _wake_engines(self, delay):
        if delay is None:
            return
        delay = max(0.0, delay)
        due = time.monotonic() + delay
        ev = getattr(self, "_engine_event", None)
        if ev is not None and ev.is_triggered and self._engine_due <= due + 1e-4:
            return
        if ev is not None:
            ev.cancel()
        self._engine_due = due
        self._engine_event = Clock.schedule_once(self._tick_engines, delay)

    def _tick_engines(self, dt):
        ev = getattr(self, "_engine_event", None)
        if ev is not None:
            ev.cancel()
            self._engine_event = None
        now = self.engine_clock.now()
        waits: list[float | None] = [self.SAFETY_WAKE]
        if self.narrator is not None:
            self.narrator.tick()
            n = self.narrator
            last = n.history[-1].ended_at if n.history else None
            recent = last is not None and now - last < self.NARRATION_LINGER
            self.narration_active = bool(n.busy or n.paused or recent)
            self.narration_paused = n.paused
            waits.append(n.next_change_in())
            if recent and last is not None and not (n.busy or n.paused):
                waits.append(last + self.NARRATION_LINGER - now)
        if self.game_ui is not None:
            self.game_ui.tick(self)
        self._countdowns = [c for c in self._countdowns if not c.ended]
        for c in self._countdowns:
            waits.append(c.next_event_in())
            if c.running:  # the displayed whole second changes
                rem = c.remaining()
                waits.append(rem - math.floor(rem) + 0.001)
        self._wake_engines(min(w for w in waits if w is not None))

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
            self.toast(i18n.error_text(exc))
            return False
        self._attach(ui, session)
        self._warn_low_space()
        return True

    def resume_game(self, game_id: int):
        """Resume an unfinished (or abandoned) game; a game that cannot be replayed is named in a
        toast and the app stays where it is."""
        try:
            record = self._journal().game(game_id)
            ui = game_registry.load_ui(record.game)
            if ui is None:
                self.toast(i18n.tr("picker.not_available"))
                return False
            session = GameSession.resume(self._journal(), game_id, ui.rules)
            if record.status == "abandoned":
                self._journal().reopen(game_id)
        except (BadInput, RuleError) as exc:
            self.toast(i18n.error_text(exc))
            return False
        self._attach(ui, session)
        return True

    def leave_game(self):
        """Back to the picker; the game stays in the journal, resumable."""
        self._note_timers_left()
        if self.game_ui is not None:
            self.game_ui.on_left(self)
        self.session = None
        for src in self.sources:  # boxes leave a waiting press unanswered, as after a restart
            src.on_detach()
        self.game_ui = None
        self.game_id = ""
        self.view = {}
        self.bar_title = i18n.tr("app.title")
        if self.narrator is not None:  # the last game's words must not hang over the picker
            self.narrator.cancel()
        self.caption = ""
        Window.allow_screensaver = True
        self.goto("picker")

    def abandon_game(self, game_id: int) -> bool:
        try:
            self._journal().abandon(game_id)
        except JournalError as exc:
            self.toast(i18n.error_text(exc))
            return False
        return True

    def _journal(self) -> Journal:
        assert self.journal is not None, "build() opens the journal"
        return self.journal

    def _rebuild_screens(self) -> None:
        """Every screen made again in the new language: a .kv rule says tr(...) once, when its
        widget is made. The game, its journal and the narrator carry on untouched."""
        from companion.app.screens import load_all
        current, old = self.sm.current, self.root_widget   # build() made it: the window's root
        # The old screens leave their manager: a left game's screens still bound to the view
        # must not take the next game's view for theirs.
        self.sm.clear_widgets()
        root = Builder.load_string("Root:\n")
        self.root_widget = root
        self.root = root
        self.sm.transition = NoTransition()
        for screen in load_all(self):
            self.sm.add_widget(screen)
        self.action_toast.parent.remove_widget(self.action_toast)
        root.add_widget(self.action_toast)
        if self.game_ui is not None:
            for screen in self.game_ui.build_screens(self):
                self.sm.add_widget(screen)
        self.bar_title = i18n.tr(self.game_ui.title if self.game_ui is not None else "app.title")
        Window.remove_widget(old)
        Window.add_widget(root)
        if self.sm.has_screen(current):
            self.sm.current = current
        if self.session is not None:
            self._publish([])   # the view's prompts in the new language

    def _attach(self, ui, session):
        for name in [s.name for s in self.sm.screens if "." in s.name]:
            self.sm.remove_widget(self.sm.get_screen(name))
        self._note_timers_left()  # a game switched for another: its timers are left as they were
        if self.game_ui is not None and self.game_ui is not ui:
            self.game_ui.on_left(self)
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

    def legal(self, name: str, arg: str) -> tuple:
        """The values of ``arg`` the rules accept now for command ``name``: a screen offers exactly
        these (companion.core.commands.legal_values), never its own copy of the rule."""
        if self.session is None:
            return ()
        return legal_values(self.session.rules, self.session.state, name, arg)

    def send_command(self, command: Command) -> bool:
        """Run a command through the rules. A refusal shows its one-line reason and changes nothing."""
        if self.session is None:
            self.toast(i18n.tr("app.no_game"))
            return False
        try:
            events = self.session.execute(command)
        except (RuleError, BadInput) as exc:
            self.toast(i18n.error_text(exc))
            return False
        self._publish(events)
        return True

    def undo(self):
        """Undo the last table action and name it, with a Redo button (an undo that forgives)."""
        if self.session is None:
            return
        try:
            events = self.session.undo()
        except (RuleError, BadInput) as exc:
            self.toast(i18n.error_text(exc))
            return
        self._publish(events, force_screen=True)
        undone = self.session.event(int(events[-1].data["undoes"]))
        self.action_toast.show(i18n.tr("undo.undone", what=self.describe_event(undone)),
                               i18n.tr("undo.redo"), self.redo)

    def redo(self):
        if self.session is None:
            return
        try:
            events = self.session.redo()
        except (RuleError, BadInput) as exc:
            self.toast(i18n.error_text(exc))
            return
        self._publish(events, force_screen=True)
        undo = self.session.event(int(events[-1].data["undoes"]))
        redone = self.session.event(int(undo.data["undoes"])) if undo is not None else None
        self.toast(i18n.tr("undo.redone", what=self.describe_event(redone)))

    @staticmethod
    def describe_event(event) -> str:
        """A table action in a few words, for the undo toast ("Ann's ballot")."""
        if event is None:
            return ""
        key = f"undo.what.{event.kind}"
        if i18n.has(key):
            try:
                return i18n.tr(key, **event.data)
            except (KeyError, IndexError, ValueError):
                pass
        # Only who acted or was named: an event may hold a secret (a ballot's choice).
        detail = ", ".join(str(event.data[k]) for k in PUBLIC_KEYS if isinstance(event.data.get(k), str))
        kind = event.kind.replace("_", " ")
        return f"{kind} ({detail})" if detail else kind

    def _drain(self, dt):
        for src in self.sources:
            try:
                src.poll()
            except JournalError as exc:  # a phone's command hit a full disk: say so, keep going
                self.toast(i18n.error_text(exc))
        refused = self.commands.drain(self._handle_device_command)
        for cmd, error in refused:
            storage_fault = isinstance(error, JournalError)   # no rule refused it
            if cmd.kind == "cast_ballot" and self._vote_open() and not storage_fault:
                # The rules' reason may name the choice ("Ann cannot vote for themself"): while
                # the vote is secret the table learns only that a ballot was not counted.
                log.warning("%s: ballot refused: %s", cmd.source, error)
                self.toast(f"{cmd.source}: {i18n.tr('app.ballot_not_counted')}")
            elif cmd.kind == "cast_ballot" and cmd.source.startswith("box:") and storage_fault:
                # the box got no answer and sends the ballot again (hardware.manager, RETRY)
                why = i18n.error_text(error)
                self.toast(f"{cmd.source}: {i18n.tr('app.ballot_waits_for_storage', problem=why)}")
            else:
                self.toast(f"{cmd.source}: {i18n.error_text(error)}")
            for src in self.sources:
                src.on_refused(cmd, error)

    def _vote_open(self) -> bool:
        """A vote opened and not yet revealed or cancelled (its ballots are secret): the game's
        view says so (``vote``: the vote in progress, ``votes.table_view``)."""
        if self.session is None:
            return False
        return votes.vote_open(self.view)

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
            raise RuleError(i18n.keyed("app.no_game_in_progress"))
        events = self.session.execute(command)
        self._publish(events)
        return events

    def _publish(self, events, force_screen=False):
        # the rules' view holds messages as keys and values; the screens get them said now
        self.view = i18n.texts(dict(self.session.view("table")))
        self.can_undo = self.session.can_undo()
        self.state_version += 1
        if any(e.kind == "vote_revealed" for e in events or ()):
            from companion.app.screens.reveal import say_count_in
            say_count_in(self)   # the voice counts in before the game's words on the result
        if self.game_ui is not None and events:
            self.game_ui.on_events(self, events, self.view)
            self.game_ui.tick_timer(self)   # a phase's countdown starts with the event that starts it
        if events:
            for src in self.sources:
                src.on_events(events)
        self._show_play_screen(force=force_screen)
        self._wake_engines(0)  # a new state may start or stop a timer

    def _show_play_screen(self, force=False):
        current = self.sm.current
        in_play = current in PLAY_SCREENS or "." in current
        if not (in_play or force):
            return
        view = self.view
        history = view.get("vote_history", [])
        if votes.vote_open(view):
            target = "vote"
        elif len(history) > self._seen_reveals:
            target = "reveal"
        else:
            assert self.game_ui is not None   # a game is on: _attach() set it with the session
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
        damaged = getattr(source.manager, "pairing_problem", None)
        if damaged:  # boxes.json could not be read: the boxes start unpaired, said where people look
            path, problem, kept = damaged
            self.toast(i18n.tr("devices.pairing_unreadable", path=path, problem=problem, kept=kept))
        return source

    def devices(self) -> list[DeviceInfo]:
        out = [DeviceInfo("tablet", "tablet", i18n.tr("devices.tablet"), detail=i18n.tr("devices.tablet_detail"))]
        for src in self.sources:
            out.extend(src.devices())
        return out

    # -- settings --------------------------------------------------------------------------
    def save_settings(self):
        from companion.app.settings import SettingsNotSaved
        unsaved = kept = None
        try:
            kept = self.settings.save(self.data_dir / "settings.json")
        except SettingsNotSaved as exc:  # a full disk, a read-only folder: they apply all the same
            log.error("%s", exc)
            unsaved = exc
        except BadInput as exc:
            self.toast(i18n.error_text(exc))
            return
        self.caption_size = self.settings.caption_size
        if self.settings.language != i18n.language():
            i18n.set_language(self.settings.language)
            self._rebuild_screens()
        self.voice_problem = ""
        self._voice_error_at = None    # a new voice that fails is said at once
        self._speaker_override = None  # the table chose a voice: it wins over the start-up one
        self._voice_problem_shown = True  # save_settings says it itself, now
        self._make_narrator()  # keeps the narrator: the new settings apply from the next line
        # Said last: the screens made again in a new language have a new toast.
        if kept is not None:
            log.warning("the settings file that could not be read is kept as %s", kept)
        said = [self.voice_problem_text() if self.voice_problem else "",
                i18n.error_text(unsaved) if unsaved is not None else "",
                i18n.tr("settings.problem.kept_aside", kept=str(kept)) if kept is not None else ""]
        if any(said):
            self.toast("  ".join(t for t in said if t))


def export_dir() -> Path:
    """Where "Export" copies a file the table may want to keep: ``TABLE_COMPANION_EXPORT``, the
    shared Download folder on Android, ~/Documents on a desktop."""
    env = os.environ.get("TABLE_COMPANION_EXPORT")
    if env:
        return Path(env)
    if platform == "android":
        from android.storage import primary_external_storage_path
        return Path(primary_external_storage_path()) / "Download"
    return Path.home() / "Documents" / "table-companion"


def main(argv=None):
    CompanionApp().run()
