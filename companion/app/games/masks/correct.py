"""Correct a pointing: after the reveal, a pointing the tablet got wrong (a finger landed on the
wrong name) is set to what the table saw. "On the count of 3, everyone points to one other
player": the pointing is public, so the correction shows nothing secret. One event with its
reason (undoable); the vote is decided again and the table's screen shows the new count.

Whose pointing, what they really pointed at: the screen offers only what the rules accept now
(the command table's own candidates), never its own copy of the rule."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import StringProperty

from companion.app.gamescreen import GameScreen
from companion.app.screens import load_kv
from companion.core.i18n import tr
from companion.games.masks import CENTER

load_kv(__file__)

COMMAND = "correct_pointing"


def accepted(app, voter: str | None = None) -> list[dict]:
    """The (voter, choice) pairs the rules accept now, for one voter or all, in the table's order."""
    session = app.session
    if session is None:
        return []
    table = session.rules.commands
    spec = table[COMMAND]
    out: list[dict] = []
    for c in table.candidates(spec, session.state):
        pair = {"voter": c.get("voter"), "choice": c.get("choice")}
        if (voter is None or pair["voter"] == voter) and pair not in out \
                and table.accepts(session.rules, session.state, COMMAND, c):
            out.append(pair)
    return out


def choice_label(choice: str | None) -> str:
    return tr("masks.correct.center") if choice == CENTER else str(choice or "")


class MasksCorrectScreen(GameScreen):
    game_id = "masks"
    voter = StringProperty("")     # whose pointing the table is setting right
    choice = StringProperty("")    # what they really pointed at
    really = StringProperty("")
    done = StringProperty("")      # the corrections recorded so far, one a line

    def on_pre_enter(self, *_):
        self.voter, self.choice = "", ""
        self.ids.reason.text = ""
        super().on_pre_enter()

    def refresh(self):
        view = self.app.view or {}
        history = view.get("vote_history") or []
        ballots = history[-1].get("ballots", {}) if history else {}
        voters = []
        for pair in accepted(self.app):
            if pair["voter"] not in voters:
                voters.append(pair["voter"])
        if self.voter not in voters:
            self.voter, self.choice = "", ""
        box = self.ids.voters
        box.clear_widgets()
        for name in voters:
            b = Factory.MasksCorrectToggle(
                text=tr("masks.correct.now", voter=name, choice=choice_label(ballots.get(name))),
                state="down" if name == self.voter else "normal")
            b.value = name
            b.bind(on_release=lambda btn: self.pick_voter(btn.value))
            box.add_widget(b)
        box = self.ids.choices
        box.clear_widgets()
        if self.voter:
            self.really = tr("masks.correct.really", voter=self.voter)
            for pair in accepted(self.app, self.voter):
                b = Factory.MasksCorrectToggle(text=choice_label(pair["choice"]),
                                               state="down" if pair["choice"] == self.choice else "normal")
                b.value = pair["choice"]
                b.bind(on_release=lambda btn: self.pick_choice(btn.value))
                box.add_widget(b)
        else:
            self.really = tr("masks.correct.pick_voter")
        self.done = "\n".join(view.get("corrections", []))

    def pick_voter(self, name: str) -> None:
        self.voter, self.choice = name, ""
        self.refresh()

    def pick_choice(self, choice: str) -> None:
        self.choice = choice
        self.refresh()

    def record(self) -> None:
        if not self.voter:
            self.app.toast(tr("masks.correct.pick_voter"))
            return
        if not self.choice:
            self.app.toast(tr("masks.correct.choose_first"))
            return
        reason = self.ids.reason.text.strip()
        if not reason:
            self.app.toast(tr("masks.correct.reason_needed"))
            return
        if self.app.send(COMMAND, voter=self.voter, choice=self.choice, reason=reason):
            # back to the screen of play, which shows the corrected count and the correction
            self.app.game_ui.close_correction(self.app)


def make(app):
    return MasksCorrectScreen(name="masks.correct", app=app)
