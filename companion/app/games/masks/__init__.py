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
from companion.core.i18n import ntr, text_of, tr
from companion.core.narration import Say
from companion.core.timers import Countdown
from companion.games.masks import narration
from companion.games.masks.rules import DISCUSSION_SECONDS, MasksRules, choice_words

# Spoken near the end of the Discussion ("Once the 7 minutes are up, proceed immediately to the
# Voting Phase").
WARNINGS = (120, 60, 30, 10)
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
        self.hidden: narration.HiddenPhase | None = None
        self.countdown: Countdown | None = None
        self._countdown_game = None
        self.correcting = False   # the table opened "Correct a pointing" (while the rules allow it)

    def make_setup(self, table: Mapping[str, Any], options: Mapping[str, Any]) -> dict:
        minutes = options.get("discussion_minutes", DISCUSSION_SECONDS // 60)
        return {**table, "options": dict(options), "discussion_seconds": int(minutes) * 60}

    def build_screens(self, app) -> list:
        from companion.app.games.masks import (correct, deal, discussion, executioner, hidden, identities,
                                               result)
        if self.hidden is not None:
            self.hidden.detach()
        self.hidden, self.countdown, self._countdown_game = None, None, None
        self.correcting = False
        return [m.make(app) for m in (deal, hidden, discussion, identities, executioner, result, correct)]

    def screen_for(self, view: Mapping[str, Any]) -> str:
        if self.correcting and view.get("can_correct"):
            return "masks.correct"
        self.correcting = False   # the game moved on (or was undone past the reveal): it closes
        return "masks." + PHASE_SCREEN.get(view.get("phase") or "", "deal")

    def open_correction(self, app) -> None:
        """"Correct a pointing": over the screen of play, while the rules allow it."""
        self.correcting = True
        app.go_home()

    def close_correction(self, app) -> None:
        self.correcting = False
        app.go_home()

    # narration and timer ---------------------------------------------------------------
    def on_events(self, app, events: Sequence[Event], view: Mapping[str, Any]) -> None:
        for ev in events:
            if ev.kind == "hidden_phase_started":
                if app.session is not None:  # a new Hidden Phase starts at step 1
                    app.narration_progress.clear(app.session.game_id, "masks.hidden")
                self.start_hidden_phase(app)
            elif ev.kind == "discussion_started":
                self._stop_hidden(app)
                app.narrator.say("masks_discussion_start", ntr(
                    "masks.say.discussion_start", _minutes(ev.data["seconds"])))
                self._start_countdown(app, float(ev.data["seconds"]), ev.seq)
            elif ev.kind == "undo":
                # The table stepped back: stop what belonged to the phase it left.
                if view.get("phase") == "deal":
                    self._stop_hidden(app)
                if view.get("phase") != "discussion":
                    self.countdown = None
            elif ev.kind == "vote_revealed" and view.get("phase") == "executioner_check":
                app.narrator.say("masks_executioner_check", tr(
                    "masks.say.executioner_check", names=", ".join(view.get("top_players", []))))
            elif ev.kind == "pointing_corrected":
                # the correction, then what the corrected count asks of the table now
                choice = text_of(choice_words(ev.data["choice"]))
                app.narrator.say("masks_pointing_corrected", " ".join(
                    [tr("masks.say.corrected", voter=ev.data["voter"], choice=choice), view.get("prompt", "")]))
            elif ev.kind in ("executioner_shown", "executioner_chose", "no_executioner_shown"):
                # who chooses now, then "everyone reveals": said as well as shown
                app.narrator.say(f"masks_{ev.kind}", view.get("prompt", ""))
            elif ev.kind == "discussion_ended":
                self.countdown = None
                app.narrator.cancel()
                app.narrator.enqueue_script(narration.voting_script(), {})
        if view.get("phase") == "over" and any(e.kind in ("identities_revealed", "executioner_chose")
                                               for e in events):
            app.narrator.say("masks_result", view.get("result_text", ""))

    def start_hidden_phase(self, app) -> None:
        """(Re)start the Hidden Phase narration from step 1 (also after a resumed game)."""
        narrator = app.narrator
        if self.hidden is None or self.hidden.narrator is not narrator:
            if self.hidden is not None:
                self.hidden.detach()
            self.hidden = narration.HiddenPhase(
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

    def _start_countdown(self, app, seconds: float, key) -> None:
        # "Once the 7 minutes are up, proceed immediately to the Voting Phase." The vote's script
        # opens with "Time is up", so the countdown's end says nothing itself. Its pauses and
        # added minutes are journaled (key: the discussion's start), so a resume shows them.
        self.countdown = app.journaled_countdown("masks.discussion", key, seconds, WARNINGS,
                                                 on_end=lambda: self._discussion_over(app), say_end=False)
        self._countdown_game = app.session.game_id if app.session else None

    def _discussion_over(self, app) -> None:
        if (app.view or {}).get("phase") == "discussion":
            app.send("end_discussion")

    def tick(self, app) -> None:
        view = app.view or {}
        if view.get("phase") != "discussion":
            return
        if self.countdown is None or self._countdown_game != (app.session and app.session.game_id):
            # A resumed game: the timer as the journal last saw it (paused or running).
            started = app.live_event("discussion_started")
            total = float(view.get("discussion_seconds", DISCUSSION_SECONDS))
            self._start_countdown(app, total, started.seq if started else 0)
        assert self.countdown is not None  # started just above, or running
        self.countdown.poll()
        # The clock on screen follows the engine tick, whatever the frame rate.
        if app.sm.current == "masks.discussion":
            app.sm.current_screen.update_clock()


def _minutes(seconds: int) -> float:
    minutes = seconds / 60
    return int(minutes) if minutes == int(minutes) else round(minutes, 1)


def _refresh(app, screen_name: str) -> None:
    screen = app.built_screen(screen_name)
    if screen is not None:  # not built (no game attached): nothing to refresh
        screen.refresh()


def hidden_step_texts() -> dict[int, list[str]]:
    """Each Hidden Phase step's spoken lines, for the step card on the hidden screen."""
    out = {}
    for n, steps in narration.step_of(narration.hidden_phase_script()).items():
        out[n] = [s.text for s in steps if isinstance(s, Say)]
    return out


UI = MasksUI  # the app makes one per game attached (load_ui)
