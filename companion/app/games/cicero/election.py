"""Phase I and the 2-player Automatii: the revealed Senators and the Automatii's Servants, each
player's Senate votes, the debate timer (adjustable), then the shell's secret vote; a tie is the
outgoing Princeps' to break."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import ListProperty, NumericProperty

from companion.app.games.cicero.common import CiceroScreen
from companion.app.screens import load_kv
from companion.app.theme import ui
from companion.core.i18n import tr
from companion.games.cicero import CASTES, ZONES

load_kv(__file__)


def clock_text(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 60}:{s % 60:02d}"


class ElectionScreen(CiceroScreen):
    revealed = ListProperty(["", "", ""])  # the Automatii: the Castes of the 3 revealed Senators
    debate_seconds = NumericProperty(120)

    def refresh(self):
        v = self.view
        phase = v.get("phase")
        body = self.ids.body
        body.clear_widgets()
        self.ids.timer.text = ""
        if phase == "automatii":
            self._automatii(body)
        elif phase == "automatii_actions":
            a = v["automatii"]
            for sp in a["spaces"]:
                caste = sp.rpartition("_")[0]
                body.add_widget(Factory.CLine(text=tr("cicero.ui.automatii_space", zone=ZONES[caste], caste=caste),
                                              font_size="26sp"))
            body.add_widget(Factory.Widget())
            body.add_widget(self.button(tr("cicero.ui.automatii_done"), lambda b: self.app.send("next_step"),
                                        height="80dp"))
        elif phase == "election":
            self._announce(body)
        elif phase == "debate":
            self._debate(body)
        elif phase == "election_tie":
            body.add_widget(Factory.CHeading(text=tr("cicero.ui.outgoing_decides", outgoing=v["princeps"])))
            tally = v["vote_history"][-1]["counts"] if v.get("vote_history") else {}
            for p in v["election"]["tied"]:
                body.add_widget(self.button(tr("cicero.ui.tied_choice", player=p, votes=tally.get(p, 0)),
                                            lambda b: self.app.send("tie_break", choice=b.value), player=p,
                                            value=p, height="80dp"))
            body.add_widget(Factory.Widget())

    # the Automatii -----------------------------------------------------------------------
    def _automatii(self, body):
        for i in range(3):
            body.add_widget(Factory.CHeading(text=tr("cicero.ui.revealed_senator", n=i + 1)))
            grid = Factory.GridLayout(cols=6, spacing="6dp", size_hint_y=None, height="64dp")
            grid.role = f"revealed_{i + 1}"
            for caste in CASTES:
                grid.add_widget(self.button(caste, lambda b, i=i: self._reveal(i, b.value), value=caste,
                                            selected=self.revealed[i] == caste, font_size="22sp"))
            body.add_widget(grid)
        body.add_widget(Factory.Widget())
        b = self.button(tr("cicero.ui.place_automatii"), lambda b: self._place(), height="80dp")
        b.disabled = "" in self.revealed
        body.add_widget(b)

    def _reveal(self, i, caste):
        r = list(self.revealed)
        r[i] = caste
        self.revealed = r
        self.refresh()

    def _place(self):
        if self.app.send("automatii_reveal", castes=list(self.revealed)):
            self.revealed = ["", "", ""]

    # announcing the Senate votes and the debate ----------------------------------------------
    def _announce(self, body):
        v = self.view
        announced = v["election"]["senate_votes"]
        last = v["election"]["last_announced"]
        self._steppers = []
        for p in v["players"]:
            row = Factory.CSeatRow(player=p, stripe=self.seat_colour(p))
            s = self.stepper(tr("cicero.ui.senate_votes"), announced.get(p, last.get(p, 0)), key=p)
            row.add_widget(s)
            self._steppers.append(s)
            body.add_widget(row)
        if v["two_player"]:
            to = v["election"]["automatii_to"]
            body.add_widget(Factory.CLine(text=tr("cicero.ui.automatii_votes", votes=v["election"]["automatii_votes"],
                                                  player=to), font_size="24sp", color=ui.accent))
        timer = self.stepper(tr("cicero.ui.debate_length"), self.debate_seconds, step=30, minimum=30)
        timer.bind(number=lambda s, n: setattr(self, "debate_seconds", n))
        body.add_widget(timer)
        body.add_widget(Factory.Widget())
        body.add_widget(self.button(tr("cicero.ui.start_debate"), lambda b: self._start(), height="80dp"))

    def _start(self):
        votes = {s.key: int(s.number) for s in self._steppers}
        if self.app.send("senate_votes", votes=votes):
            self.app.send("start_debate", seconds=int(self.debate_seconds))

    def _debate(self, body):
        ui = self.app.game_ui
        remaining = ui.debate_remaining()
        self.ids.timer.text = clock_text(remaining) if remaining is not None else ""
        votes = self.view["election"]["senate_votes"]
        body.add_widget(Factory.CLine(text=tr("cicero.ui.announced", votes=", ".join(
            f"{p} {votes[p]}" for p in self.view["players"])), font_size="24sp"))
        row = Factory.BoxLayout(size_hint_y=None, height="72dp", spacing="10dp")
        row.add_widget(self.button(tr("cicero.ui.less_time"), lambda b: ui.debate_add(-30)))
        row.add_widget(self.button(tr("cicero.ui.more_time"), lambda b: ui.debate_add(30)))
        row.add_widget(self.button(tr("cicero.ui.pause_timer"), lambda b: ui.debate_toggle()))
        body.add_widget(row)
        body.add_widget(Factory.Widget())
        body.add_widget(self.button(tr("cicero.ui.open_ballot"), lambda b: self.app.send("open_ballot"),
                                    height="84dp"))

    def show_time(self, remaining):
        if self.view.get("phase") == "debate":
            self.ids.timer.text = clock_text(remaining)


def make(app):
    return ElectionScreen(name="cicero.election", app=app)
