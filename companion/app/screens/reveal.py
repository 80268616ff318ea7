"""The reveal: a count-in ("put the tablet down in the middle — reveal in 3, 2, 1", shown and
spoken), then the outcome in words as the headline and every ballot under the choice it went
to, so the last voter's tap does not show the ballots in their hands.

The ballots turn over when the voice has said the count-in's "1": the count-in line is queued
with a mark after it, and the screen waits for the narrator to pass that mark (issue 33: when
the last ballot came while the vote's question was still being spoken, a fixed delay turned them
over before the voice reached "1"). Without a count-in on its way (no narrator, or the screen
shown again), a fixed count-in on the engines' clock stands in."""
from __future__ import annotations

import math

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import DictProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.app.screens.vote import option_label
from companion.core.i18n import tr
from companion.core.narration import Mark, Say, slug

load_kv(__file__)

# Seconds on the engines' clock of the count-in when no voice counts in (no narrator, or the
# reveal shown again): about the time the count-in line takes to say.
COUNT_IN = 3.5
COUNT_IN_LINE = "reveal_count_in"
# The narrator passes this mark right after the count-in line has been said to its end.
TURN_OVER = "reveal_turn_over"


def say_count_in(app) -> None:
    """Queued before the game's own words on the result, so the voice counts in first; the mark
    after it is when the ballots turn over."""
    narrator = app.narrator
    if narrator is not None:
        narrator.enqueue_steps([Say(slug(COUNT_IN_LINE), tr("touches.reveal.count_in_say")), Mark(TURN_OVER)])


def ballot_rows(vote: dict) -> list[tuple[str, str]]:
    """(voter, what they voted) in seat order; missing and abstaining voters say so (the vote
    history lists them so)."""
    rows = []
    ballots = vote.get("ballots", {})
    for name in vote.get("voters", []):
        if name in ballots:
            choice = ballots[name]
            rows.append((name, tr("vote.abstained") if choice is None else option_label(choice)))
        else:
            rows.append((name, tr("vote.missing")))
    return rows


def count_rows(vote: dict) -> list[tuple[str, int]]:
    counts = vote.get("counts", {})
    return sorted(((option_label(o), n) for o, n in counts.items()), key=lambda r: -r[1])


def ballot_groups(vote: dict) -> list[tuple[str, int, list[str]]]:
    """(what was chosen, its count, who chose it in seat order) for each option, then the
    abstentions and the missing ballots, when there are any."""
    ballots = vote.get("ballots", {})
    counts = vote.get("counts", {})
    voters = vote.get("voters", [])
    groups = [(option_label(o), counts.get(o, 0), [v for v in voters if ballots.get(v, ...) == o])
              for o in vote.get("options", [])]
    # a pick among many players: only the options somebody chose
    if len(groups) > 3:
        groups = [g for g in groups if g[1] or g[2]]
    abstained = [v for v in voters if v in ballots and ballots[v] is None]
    missing = [v for v in voters if v not in ballots]
    if abstained:
        groups.append((tr("vote.abstained"), len(abstained), abstained))
    if missing:
        groups.append((tr("vote.missing"), len(missing), missing))
    return groups


def plain_outcome(vote: dict) -> str:
    """The headline when the game says nothing of its own: the options the vote's view names as
    having most votes (``leaders``, reckoned by the rules' own tally), or the tie."""
    best = [option_label(o) for o in vote.get("leaders") or ()]
    if not best:
        return ""
    if len(best) == 1:
        return tr("touches.reveal.most", option=best[0])
    return tr("touches.reveal.tie", options=", ".join(best))


class RevealScreen(Screen):
    app = ObjectProperty()
    vote = DictProperty({})
    mode = StringProperty("shown")   # count_in | shown
    count = StringProperty("")
    headline = StringProperty("")
    question = StringProperty("")
    missing = StringProperty("")
    note = StringProperty("")
    _ticker = None
    _voice = False   # the voice counts in (else the fixed COUNT_IN)

    def on_pre_enter(self, *_):
        history = (self.app.view or {}).get("vote_history") or []
        self.vote = history[-1] if history else {}
        view = self.app.view or {}
        ui = self.app.game_ui
        self.question = self.vote.get("question", "")
        outcome = ui.reveal_outcome(view, self.vote) if ui is not None and self.vote else ""
        self.headline = outcome or plain_outcome(self.vote)
        missing = self.vote.get("missing") or []
        self.missing = tr("reveal.forced", names=", ".join(missing)) if missing else ""
        self.note = ui.reveal_note(view, self.vote) if ui is not None and self.vote else ""
        self._offer_correction(view)
        groups = self.ids.groups
        groups.clear_widgets()
        found = ballot_groups(self.vote)
        rows = max((len(names) for _, _, names in found), default=0)
        for label, n, names in found:
            column = Factory.BallotGroup()
            column.add_widget(Factory.CountLabel(text=tr("touches.reveal.group", option=label, n=n)))
            for name in names:
                column.add_widget(Factory.BallotLabel(text=name))
            for _gap in range(rows - len(names)):   # every column as tall: the headings line up on top
                column.add_widget(Factory.BallotGap())
            groups.add_widget(column)
        self._start_count_in()

    def on_leave(self, *_):
        self._stop()

    # -- the count-in: the voice's, or a fixed one ------------------------------------------
    def _start_count_in(self):
        narrator = self.app.narrator
        # the voice counts in: the ballots turn over when it has said "1" (the mark after it)
        self._voice = narrator is not None and narrator.has_pending_mark(TURN_OVER)
        self._count_in_until = self.app.engine_clock.now() + COUNT_IN
        self.mode = "count_in"
        self._tick()
        if self._ticker is None and self.mode == "count_in":
            self._ticker = Clock.schedule_interval(lambda dt: self._tick(), 0.1)

    def _count_left(self) -> float | None:
        """Seconds of the count-in left; None while the voice has not reached it yet (the
        question still being said); 0 once done."""
        narrator = self.app.narrator
        if not self._voice:
            return max(0.0, self._count_in_until - self.app.engine_clock.now())
        if narrator is None or not narrator.has_pending_mark(TURN_OVER):
            return 0.0   # said to its end (or dropped with the game's narration)
        left = narrator.line_left(COUNT_IN_LINE)
        return max(left, 1e-3) if left is not None else None

    def _tick(self):
        left = self._count_left()
        if left is not None and left <= 0:
            self.mode = "shown"
            self._stop()
            return
        self.count = "3" if left is None else str(max(1, min(3, math.ceil(left))))

    def _stop(self):
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    # --- a correction of what was revealed, where the game's view allows it (issue 33) -------
    correction = StringProperty("")  # the game's "correct what was revealed" button ("" = none)

    def _offer_correction(self, view) -> None:
        ui = self.app.game_ui
        self.correction = ui.reveal_correction(view) if ui is not None and self.vote else ""

    def correct(self) -> None:
        """The table noticed a mistake on the reveal: the game's correction screen."""
        ui = self.app.game_ui
        if ui is not None and self.correction:
            ui.open_correction(self.app)


def make(app):
    return RevealScreen(name="reveal", app=app)
