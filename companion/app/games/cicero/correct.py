"""Setting the tablet right when the table knows better, each correction one command with its
reason (undoable): the first Princeps' count of the starting Senators (until the first Servant of
round 1 is placed), the Senate votes a Family announced aloud, entered wrong (the Princeps is
decided again from the revealed ballots, until the first Servant is placed), and who holds the
majority cards (they go on scoring each Prestige phase)."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView

from companion.app.games.cicero.common import house_rule_text
from companion.app.screens import load_kv
from companion.core.events import BadInput, Command, NeedsTieBreak, RuleError
from companion.core.i18n import text_of, tr
from companion.games.cicero import CASTES, GUILDS

load_kv(__file__)


def result_text(view: dict) -> str:
    """"Marcus is Princeps (Marcus 14, Octavia 7, Livia 6)" and the corrections recorded."""
    from companion.app.games.cicero.board import election_text
    return election_text(view)


class _Panel(ModalView):
    app = ObjectProperty()
    screen = ObjectProperty(None, allownone=True)  # the CiceroScreen it opened from: buttons, seat colours
    message = StringProperty("")  # a refusal, shown here: the panel covers the app's toast

    def on_open(self):
        self.app.bind(view=self._changed)
        self.build()

    def on_dismiss(self):
        self.app.unbind(view=self._changed)

    def _changed(self, *_):
        self.build()

    def button(self, *args, **kw):
        return self.screen.button(*args, **kw)

    def send(self, kind: str, **data) -> bool:
        ok = self.app.send(kind, **data)
        self.message = "" if ok else self.app.root.ids.toast.message
        return ok

    def reason(self) -> str | None:
        text = self.ids.reason.text.strip()
        if not text:
            self.message = tr("cicero.ui.reason_needed")
            return None
        return text


class VotesCorrection(_Panel):
    """The announced Senate votes of this round's election, one Family's total at a time."""
    player = StringProperty("")
    tied = ListProperty([])   # the corrected totals tie: the outgoing Princeps chooses among these

    def build(self):
        v = self.app.view or {}
        election = v.get("election") or {}
        self.ids.title.text = tr("cicero.ui.correct_votes_title", round=v.get("round", 0))
        self.ids.now.text = tr("cicero.ui.correct_now", result=result_text(v))
        announced = election.get("senate_votes") or {}
        row = self.ids.players
        row.clear_widgets()
        for p in v.get("players", []):
            row.add_widget(self.button(tr("cicero.ui.recorded_total", player=p, votes=announced.get(p, 0)),
                                       lambda b: self.choose(b.value), selected=p == self.player, player=p,
                                       value=p, font_size="24sp"))
        self.ids.true_total.label = tr("cicero.ui.true_total", player=self.player) if self.player else ""
        self.ids.true_total.disabled = not self.player
        self.ids.true_total.opacity = 1 if self.player else 0   # no number before a Family is chosen
        ties = self.ids.ties
        ties.clear_widgets()
        if self.tied:
            ties.add_widget(Factory.CLine(text=tr("cicero.ui.correction_tie", names=" / ".join(self.tied),
                                                  outgoing=(election.get("result") or {}).get("outgoing", "")),
                                          font_size="22sp"))
            for p in self.tied:
                ties.add_widget(self.button(p, lambda b: self.record(b.value), player=p, value=p, height="64dp"))
        self.ids.record_button.disabled = not self.player or not election.get("correctable")

    def choose(self, player: str):
        self.player = player
        self.ids.true_total.number = ((self.app.view or {}).get("election") or {}).get("senate_votes", {}).get(player, 0)
        self.tied = []
        self.message = ""
        self.build()

    def record(self, choice: str | None = None):
        reason = self.reason()
        if reason is None or not self.player:
            return
        data = {"player": self.player, "votes": int(self.ids.true_total.number), "reason": reason}
        if choice is not None:
            data["choice"] = choice
        else:
            session = self.app.session
            try:  # a tie the outgoing Princeps breaks: asked first, nothing recorded
                session.check(Command("correct_senate_votes", data))
            except NeedsTieBreak as tie:
                self.tied = list(tie.among)
                self.build()
                return
            except (RuleError, BadInput):
                pass  # refused: send() shows why
        if self.send("correct_senate_votes", **data):
            self.tied, self.player = [], ""
            self.ids.reason.text = ""
            self.build()


class CardsCorrection(_Panel):
    """Who holds each Caste's Primus and Secundus cards and each Guild card."""

    def on_open(self):
        v = self.app.view or {}
        self.cards = {c["caste"]: [c["primus"], c["secundus"]] for c in v.get("castes", [])}
        self.guilds = {g["guild"]: g["holder"] for g in v.get("guilds", [])}
        super().on_open()

    def build(self):
        v = self.app.view or {}
        grid = self.ids.grid
        grid.clear_widgets()
        for caste in CASTES:
            grid.add_widget(Factory.CCell(text=caste))
            for i, card in enumerate(("primus", "secundus")):
                holder = self.cards[caste][i]
                grid.add_widget(self.button(tr(f"cicero.ui.{card}_is", player=holder or tr("cicero.ui.supply")),
                                            lambda b, c=caste, i=i: self.cycle_caste(c, i), player=holder,
                                            value=f"{caste}:{card}", font_size="22sp", height="52dp"))
        for guild in GUILDS:
            grid.add_widget(Factory.CCell(text=guild))
            holder = self.guilds[guild]
            grid.add_widget(self.button(tr("cicero.ui.guild_card_is", player=holder or tr("cicero.ui.supply")),
                                        lambda b, g=guild: self.cycle_guild(g), player=holder,
                                        value=f"{guild}:card", font_size="22sp", height="52dp"))
            grid.add_widget(Factory.Widget(size_hint_y=None, height="52dp"))
        notes = v.get("card_corrections") or []
        self.ids.last.text = (tr("cicero.ui.cards_corrected", name=notes[-1]["name"], reason=notes[-1]["reason"])
                              if notes else "")

    def _next(self, holder):
        order = [None] + list((self.app.view or {}).get("players", []))
        return order[(order.index(holder) + 1) % len(order)]

    def cycle_caste(self, caste: str, i: int):
        self.cards[caste][i] = self._next(self.cards[caste][i])
        self.build()

    def cycle_guild(self, guild: str):
        self.guilds[guild] = self._next(self.guilds[guild])
        self.build()

    def record(self):
        reason = self.reason()
        if reason is None:
            return
        v = self.app.view or {}
        for c in v.get("castes", []):
            if [c["primus"], c["secundus"]] != self.cards[c["caste"]]:
                primus, secundus = self.cards[c["caste"]]
                if not self.send("correct_caste_cards", caste=c["caste"], primus=primus, secundus=secundus,
                                 reason=reason):
                    return
        for g in v.get("guilds", []):
            if g["holder"] != self.guilds[g["guild"]]:
                if not self.send("correct_guild_card", guild=g["guild"], holder=self.guilds[g["guild"]],
                                 reason=reason):
                    return
        self.ids.reason.text = ""


class FirstPrincepsCorrection(_Panel):
    """The first Princeps' count: each Family's Senate and Oratores votes of its 2 starting
    Senators, as the table counts them now (round 1, until the first Servant is placed)."""
    tied = ListProperty([])   # the corrected counts tie on age too: the table says who is the oldest
    _tie_text = ""

    def on_open(self):
        first = (self.app.view or {}).get("first_princeps") or {}
        box = self.ids.players
        box.clear_widgets()
        self._steppers = []
        for p in (self.app.view or {}).get("players", []):
            row = Factory.CSeatPairRow(player=p, stripe=self.screen.seat_colour(p))
            pair = Factory.CStepperPair()
            for field, label in (("votes", "cicero.ui.senate_votes"), ("oratores", "cicero.ui.oratores_votes")):
                s = self.screen.stepper(tr(label), (first.get(field) or {}).get(p, 0), key=f"{field}:{p}")
                pair.add_widget(s)
                self._steppers.append(s)
            row.add_widget(pair)
            box.add_widget(row)
        super().on_open()

    def build(self):
        v = self.app.view or {}
        from companion.app.games.cicero.board import first_princeps_text
        self.ids.now.text = tr("cicero.ui.correct_now", result=first_princeps_text(v))
        self.ids.rule.text = house_rule_text(v, "first_princeps_majority")
        ties = self.ids.ties
        ties.clear_widgets()
        if self.tied:
            ties.add_widget(Factory.CLine(text=self._tie_text, font_size="22sp"))
            row = Factory.BoxLayout(spacing="8dp", size_hint_y=None, height="64dp")
            for p in self.tied:
                row.add_widget(self.button(p, lambda b: self.record(b.value), player=p, value=p))
            ties.add_widget(row)
        self.ids.record_button.disabled = not v.get("first_princeps_correctable")

    def counts(self) -> dict:
        data: dict[str, dict[str, int]] = {"votes": {}, "oratores": {}}
        for s in self._steppers:
            field, player = s.key.split(":", 1)
            data[field][player] = int(s.number)
        return data

    def record(self, oldest: str | None = None):
        reason = self.reason()
        if reason is None:
            return
        data: dict = {**self.counts(), "reason": reason}
        if oldest is not None:
            data["oldest"] = oldest
        else:
            try:  # tied on votes, Oratores and age in years: the table says who is older first
                self.app.session.check(Command("correct_first_princeps", data))
            except NeedsTieBreak as tie:
                self.tied, self._tie_text = list(tie.among), text_of(tie)
                self.build()
                return
            except (RuleError, BadInput):
                pass  # refused: send() shows why
        if self.send("correct_first_princeps", **data):
            self.tied = []
            self.ids.reason.text = ""
            self.build()


def open_first(screen) -> FirstPrincepsCorrection:
    panel = FirstPrincepsCorrection(app=screen.app, screen=screen)
    panel.open()
    return panel


def open_votes(screen) -> VotesCorrection:
    panel = VotesCorrection(app=screen.app, screen=screen)
    panel.open()
    return panel


def open_cards(screen) -> CardsCorrection:
    panel = CardsCorrection(app=screen.app, screen=screen)
    panel.open()
    return panel
