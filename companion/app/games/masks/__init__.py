"""The Royals-and-Martyr mask game on the tablet: its screens, its narration and its timer.

Screens of play (the shell adds its own vote and reveal screens in between):
deal -> hidden (narrated) -> discussion (timer) -> [vote, reveal] -> executioner (the
most-voted players check for the Executioner, who shows that card alone and chooses) ->
identities (everyone reveals) -> result.

After the reveal, until the Executioner's check is answered (or the Identities are entered when
nobody needs the check), "Correct a pointing" opens the correct screen over the screen of play:
the table sets a pointing the tablet got wrong to what everyone saw, and the vote is decided again.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from kivy.clock import Clock

from companion.app.gameui import GameUI, OptionField
from companion.core.events import Event
from companion.core.i18n import tr
from companion.core.narration import Say
from companion.core.timers import Countdown
from companion.games.masks import (DISCUSSION_SECONDS, Cue, HiddenPhase, MasksRules, closing_cues, event_cues,
                                   hidden_phase_script, queue_cue, step_of)

SCREENS = ("deal", "hidden", "discussion", "identities", "executioner", "result", "correct")
PHASE_SCREEN = {"deal": "deal", "hidden": "hidden", "discussion": "discussion",
                "voting": "discussion", "identities": "identities", "executioner_check": "executioner",
                "executioner": "executioner", "over": "result"}


class MasksUI(GameUI):
    def __init__(self) -> None:
        super().__init__(
            game_id="masks", rules=MasksRules(), title="masks.title", blurb="masks.blurb",
            options=[OptionField("discussion_minutes", "masks.option.discussion_minutes", "int",
                                 DISCUSSION_SECONDS // 60, minimum=1, maximum=30,
                                 help="masks.option.discussion_minutes_help")])
        self.hidden: HiddenPhase | None = None
        self.correcting = False   # the table opened "Correct a pointing" (while the rules allow it)

    def make_setup(self, table: Mapping[str, Any], options: Mapping[str, Any]) -> dict:
        minutes = options.get("discussion_minutes", DISCUSSION_SECONDS // 60)
        return {**table, "options": dict(options), "discussion_seconds": int(minutes) * 60}

    def build_screens(self, app) -> list:
        from companion.app.games.masks import (correct, deal, discussion, executioner, hidden, identities,
                                               result)
        if self.hidden is not None:
            self.hidden.detach()
        self.hidden = None
        self.correcting = False
        return [m.make(app) for m in (deal, hidden, discussion, identities, executioner, result, correct)]

    def screen_for(self, view: Mapping[str, Any]) -> str:
        if self.correcting and view.get("can_correct"):
            return "masks.correct"
        self.correcting = False   # the game moved on (or was undone past the reveal): it closes
        return "masks." + PHASE_SCREEN.get(view.get("phase") or "", "deal")

    def reveal_correction(self, view: Mapping[str, Any]) -> str:
        """"Correct a pointing" on the reveal too, where the table notices a mistapped pointing."""
        return tr("masks.correct.open") if view.get("can_correct") else ""

    def open_correction(self, app) -> None:
        """"Correct a pointing": over the screen of play, while the rules allow it (from the
        reveal as well: the reveal counts as seen, so closing it comes back to play)."""
        self.correcting = True
        app.reveal_seen()

    def close_correction(self, app) -> None:
        self.correcting = False
        app.go_home()

    # narration and timer ---------------------------------------------------------------
    def on_events(self, app, events: Sequence[Event], view: Mapping[str, Any]) -> None:
        for ev in events:
            # what the phase left behind stops before the game's lines on the new one
            if ev.kind == "discussion_started":
                self._stop_hidden(app)
            elif ev.kind == "discussion_ended":
                app.narrator.cancel()   # the countdown stops with the phase (the view's timer)
            elif ev.kind == "undo":
                # The table stepped back: stop what belonged to the phase it left.
                if view.get("phase") == "deal":
                    self._stop_hidden(app)
            for cue in event_cues(ev, view):   # what the game says after this event
                _say(app, cue)
            if ev.kind == "hidden_phase_started":
                if app.session is not None:  # a new Hidden Phase starts at step 1
                    app.narration_progress.clear(app.session.game_id, "masks.hidden")
                self.start_hidden_phase(app)
        for cue in closing_cues(events, view):
            _say(app, cue)

    def start_hidden_phase(self, app) -> None:
        """(Re)start the Hidden Phase narration from step 1 (also after a resumed game)."""
        narrator = app.narrator
        if self.hidden is None or self.hidden.narrator is not narrator:
            if self.hidden is not None:
                self.hidden.detach()
            self.hidden = HiddenPhase(
                narrator, varied=app.settings.random_pauses,
                on_step=lambda n: self._hidden_step(app, n),
                on_done=lambda: Clock.schedule_once(lambda dt: self._hidden_done(app), 0))
        if app.settings.masking_loop:
            try:
                narrator.start_background()
            except OSError:  # the masking sound cannot be written (full disk): narration goes on
                pass
        game = app.session.game_id if app.session else None
        self.hidden.start(from_step=app.narration_progress.step(game, "masks.hidden"))
        _refresh(app, "masks.hidden")

    def _hidden_step(self, app, step: int) -> None:
        if app.session is not None:  # kept as it goes: a killed app resumes at this step
            app.narration_progress.record(app.session.game_id, "masks.hidden", step)
        _refresh(app, "masks.hidden")

    def _hidden_done(self, app) -> None:
        if app.session is not None:
            app.narration_progress.clear(app.session.game_id, "masks.hidden")
        if (app.view or {}).get("phase") == "hidden":
            app.send("end_hidden_phase")

    def on_left(self, app) -> None:
        # The Hidden Phase hooks the app's one narrator (its on_mark): a left game's stayed
        # chained, so every later game wrote each step once per Masks game played before it
        # (and kept that game alive): issue 34 item 14.
        if self.hidden is not None:
            self.hidden.detach()
            self.hidden = None

    def _stop_hidden(self, app) -> None:
        if app.session is not None:
            app.narration_progress.clear(app.session.game_id, "masks.hidden")
        if self.hidden is not None:
            app.narrator.cancel()
        app.narrator.stop_background()

    # the Discussion's time (the view's timer) ------------------------------------------------
    @property
    def countdown(self) -> Countdown | None:
        return self.timer.countdown

    def show_timer(self, app, countdown) -> None:
        # The clock on screen follows the engine tick, whatever the frame rate.
        if app.sm.current == "masks.discussion":
            app.sm.current_screen.update_clock()


def _say(app, cue: Cue) -> None:
    # a report stays true while the app's view (the table's, now) still shows what it says
    queue_cue(app.narrator, cue, lambda: app.view)


def _refresh(app, screen_name: str) -> None:
    screen = app.built_screen(screen_name)
    if screen is not None:  # not built (no game attached): nothing to refresh
        screen.refresh()


def hidden_step_texts() -> dict[int, list[str]]:
    """Each Hidden Phase step's spoken lines, for the step card on the hidden screen."""
    out = {}
    for n, steps in step_of(hidden_phase_script()).items():
        out[n] = [s.text for s in steps if isinstance(s, Say)]
    return out


UI = MasksUI  # the app makes one per game attached (load_ui)
