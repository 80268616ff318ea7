"""End of Game IV and V: each player's revealed Citizen and Sway entered on the tablet (their
Allegiance shown as it is worked out), then the Opportunists' play from their hands."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion.app.theme import ui
from companion.app.screens import load_kv
from companion.app.games.knives23 import common
from companion.core.i18n import tr
from companion.games.knives23 import blood_of, fate_total, side_of

load_kv(__file__)

SWAY = [{"laurels": 1}, {"laurels": 2}, {"blood": 1}, {"blood": 2}]
FATE = [{"knives": 1}, {"knives": 2}, {"knives": 3}, {"knives": 5},
        {"doves": 1}, {"doves": 2}, {"doves": 3}]


def sway_text(card) -> str:
    (kind, value), = card.items()
    return tr(f"knives23.ui.sway_{kind}", n=value)


def set_line(citizen: dict, sets: list, claim: int) -> str:
    """Cicero's 2 Sway sets, each with the Allegiance it gives, the claimed one marked."""
    parts = []
    for i, cards in enumerate(sets):   # shown while being entered: no check of the split yet
        value = blood_of(citizen, cards)
        side = tr(f"knives23.allegiance.{side_of(value)}")
        parts.append(tr("knives23.ui.cicero_set", n=i + 1, cards=", ".join(sway_text(c) for c in cards) or "\u2014",
                        allegiance=side, value=abs(value), claimed=tr("knives23.ui.claimed") if i == claim else ""))
    return " · ".join(parts)


def tableau_line(name: str, t: dict, allegiance: dict) -> str:
    """One entered tableau, with the Allegiance the rules worked out (the view's "allegiances")."""
    c = t["citizen"]
    citizen = " + ".join(tr(f"knives23.ui.sway_{k}", n=c[k]) for k in ("laurels", "blood") if c.get(k))
    sway = ", ".join(sway_text(s) for s in t["sway"]) or "\u2014"
    if t.get("cicero"):
        sway = set_line(c, t["cicero"]["sets"], t["cicero"]["claim"] - 1)
    return tr("knives23.ui.tableau_line", name=name, citizen=citizen, sway=sway,
              allegiance=tr(f"knives23.allegiance.{allegiance['allegiance']}"), value=allegiance["value"])


class Knives23TableauxScreen(Screen):
    app = ObjectProperty()
    headline = StringProperty("")
    prompt = StringProperty("")
    entry_heading = StringProperty("")
    laurels = NumericProperty(0)
    blood = NumericProperty(0)
    sway = ListProperty([])
    play = ListProperty([])
    player = StringProperty("")
    cicero = BooleanProperty(False)   # this player's Citizen is Cicero: 2 Sway sets
    sets = ListProperty([[], []])
    fill = NumericProperty(0)         # the set the Sway buttons add to
    claim = NumericProperty(0)        # the set Cicero claims

    def on_pre_enter(self, *_):
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        phase = view.get("phase")
        if phase not in ("tableaux", "opportunists"):
            return
        end = view["end"]
        total = end["running_total"]
        self.headline = tr("knives23.ui.curia_verdict", total=total,
                           fate=tr("knives23.caesar_dead" if end["caesar_dead"] else "knives23.caesar_lives"))
        self.prompt = view["prompt"]
        entered = self.ids.entered
        entered.clear_widgets()
        for name in view["players"]:
            if name in end["tableaux"]:
                line = tableau_line(name, end["tableaux"][name], end["allegiances"][name])
                entered.add_widget(Factory.K23Line(text=line, font_size="22sp"))
        box = self.ids.entry
        box.clear_widgets()
        if phase == "tableaux":
            waiting = end["waiting_tableaux"]
            if self.player != waiting[0]:
                self.player, self.laurels, self.blood, self.sway = waiting[0], 0, 0, []
                self.cicero, self.sets, self.fill, self.claim = False, [[], []], 0, 0
            self.entry_heading = tr("knives23.ui.tableau_of", player=self.player)
            self._tableau_entry(box)
        else:
            opps = end["opportunists"] or []
            self.entry_heading = tr("knives23.ui.opportunists", names=", ".join(opps) or tr("knives23.no_one"))
            self._play_entry(box, bool(opps))

    # a Citizen and Sway
    def _row(self, box, height=dp(64)):
        row = BoxLayout(spacing=dp(6), size_hint_y=None, height=height)
        box.add_widget(row)
        return row

    def _btn(self, row, text, fn, height=dp(64), **kw):
        b = Factory.K23Button(text=text, height=height, **kw)
        b.bind(on_release=lambda *_: fn())
        row.add_widget(b)
        return b

    def _tableau_entry(self, box):
        for kind in ("laurels", "blood"):
            row = self._row(box)
            row.add_widget(Factory.K23Line(text=tr(f"knives23.ui.citizen_{kind}"), size_hint_x=1.4,
                                           height=dp(64), valign="middle", text_size=(dp(220), dp(64))))
            less = self._btn(row, "\u2212", lambda k=kind: self._bump(k, -1), size_hint_x=0.5)
            row.add_widget(Factory.K23Big(text=str(getattr(self, kind)), size_hint_x=0.5, height=dp(64)))
            more = self._btn(row, "+", lambda k=kind: self._bump(k, 1), size_hint_x=0.5)
            less.bump, more.bump = (kind, -1), (kind, 1)
        row = self._row(box, dp(52))
        self.cicero_button = self._btn(row, tr("knives23.ui.cicero"), self._toggle_cicero, font_size="22sp",
                                       size_hint_x=1.3, height=dp(52))
        self.cicero_button.selected = self.cicero
        if self.cicero:
            for i in (0, 1):
                b = self._btn(row, tr("knives23.ui.fill_set", n=i + 1), lambda i=i: self._set("fill", i),
                              font_size="22sp", height=dp(52))
                b.selected, b.fill_set = self.fill == i, i
            b = self._btn(row, tr("knives23.ui.claim_set", n=self.claim + 1), self._toggle_claim, font_size="22sp",
                          height=dp(52))
            self.claim_button = b
        row = self._row(box)
        for card in SWAY:
            b = self._btn(row, "+ " + sway_text(card), lambda c=card: self._add_sway(c), font_size="22sp")
            if "blood" in card:
                b.background_color = common.card_fill("knives")
        if self.cicero:
            text = set_line({"laurels": self.laurels, "blood": self.blood}, [list(x) for x in self.sets], self.claim)
        else:
            text = tr("knives23.ui.sway_list", cards=", ".join(sway_text(s) for s in self.sway) or "\u2014")
        box.add_widget(Factory.K23Line(text=text, font_size="22sp" if self.cicero else "22sp"))
        row = self._row(box)
        self._btn(row, tr("knives23.ui.clear"), self._clear, size_hint_x=0.4)
        self.confirm_button = self._btn(row, tr("knives23.ui.enter_tableau", player=self.player), self._enter)

    def _bump(self, kind, by):
        setattr(self, kind, max(0, min(9, getattr(self, kind) + by)))
        self.refresh()

    def _add_sway(self, card):
        if self.cicero:
            sets = [list(x) for x in self.sets]
            sets[self.fill].append(card)
            self.sets = sets
        else:
            self.sway = self.sway + [card]
        self.refresh()

    def _toggle_cicero(self):
        """Cicero: "split their Sway cards ... into 2 sets as equally as possible and choose one set
        to claim" — the Sway entered so far goes into the sets, alternately."""
        self.cicero = not self.cicero
        if self.cicero:
            self.sets = [self.sway[0::2], self.sway[1::2]]
            self.sway = []
        else:
            self.sway = self.sets[0] + self.sets[1]
            self.sets = [[], []]
        self.refresh()

    def _set(self, what, value):
        setattr(self, what, value)
        self.refresh()

    def _toggle_claim(self):
        self.claim = 1 - self.claim
        self.refresh()

    def _clear(self):
        self.laurels, self.blood, self.sway, self.play, self.sets = 0, 0, [], [], [[], []]
        self.refresh()

    def _enter(self):
        citizen = {k: v for k, v in (("laurels", self.laurels), ("blood", self.blood)) if v}
        if self.cicero:
            sent = self.app.send("tableau", player=self.player, citizen=citizen,
                                 cicero={"sets": [list(x) for x in self.sets], "claim": self.claim + 1})
        else:
            sent = self.app.send("tableau", player=self.player, citizen=citizen, sway=list(self.sway))
        if sent:
            self.player = ""
            self.refresh()

    def enter_tableau(self, player, citizen, sway):
        """What a tester's (or an accessibility switch's) taps would set, then the confirm."""
        self.player, self.laurels, self.blood = player, citizen.get("laurels", 0), citizen.get("blood", 0)
        self.sway = list(sway)
        self.refresh()

    # the Opportunists' play
    def _play_entry(self, box, any_opportunist):
        if any_opportunist:
            row = self._row(box)
            for card in FATE[:4]:
                self._btn(row, common.card_text(card), lambda c=card: self._add_play(c), font_size="22sp")
            row = self._row(box)
            for card in FATE[4:]:
                self._btn(row, common.card_text(card), lambda c=card: self._add_play(c), font_size="22sp")
            total = fate_total(self.play)
            box.add_widget(Factory.K23Line(text=tr("knives23.ui.play_list",
                                                   cards=", ".join(common.card_text(c) for c in self.play) or "\u2014",
                                                   total=f"{total:+d}")))
        row = self._row(box, dp(72))
        if any_opportunist:
            self._btn(row, tr("knives23.ui.clear"), self._clear, size_hint_x=0.4)
        self.play_button = self._btn(row, tr("knives23.ui.play_done"), self._play_done)
        self.play_button.background_color = ui.good

    def _add_play(self, card):
        self.play = self.play + [card]
        self.refresh()

    def _play_done(self):
        if self.app.send("opportunist_play", cards=list(self.play)):
            self.play = []


def make(app):
    return Knives23TableauxScreen(name="knives23.tableaux", app=app)
