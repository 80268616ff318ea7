"""Correct the board: the Forum's cards, the Dagger's space, the Curia's count, each pawn's
Location, whose turn it is and who holds the Issue deck (the Tribune) set by hand to what the real
table shows. Each correction is one event with its reason (undoable, and listed in the history);
the tablet follows the table from then on."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import DictProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.theme import ui
from companion.app.screens import load_kv
from companion.app.games.knives23 import common
from companion.core.i18n import tr
from companion.games.knives23 import table_data

load_kv(__file__)

VALUES = ["empty", "facedown", {"knives": 1}, {"knives": 2}, {"knives": 3}, {"knives": 5},
          {"doves": 1}, {"doves": 2}, {"doves": 3}]


def _entry(value):
    if value == "empty":
        return None
    if value == "facedown":
        return {"faceup": False}
    return {"faceup": True, "card": value}


class Knives23CorrectScreen(Screen):
    app = ObjectProperty()
    forum = ListProperty([None] * 5)   # the working copy: what the table says the Forum holds
    extra = NumericProperty(0)         # facedown cards on top of the 5th space
    dagger = NumericProperty(1)
    curia = NumericProperty(0)
    space = NumericProperty(1)         # the Forum space being set
    summary = StringProperty("")
    last_note = StringProperty("")
    players = ListProperty([])
    locations = DictProperty({})        # the working copy: where the table says each pawn stands
    turn_to = StringProperty("")       # whose turn the table says it is
    tribune_to = StringProperty("")    # who the table says holds the Issue deck
    who = StringProperty("")           # the player being set

    def on_pre_enter(self, *_):
        self.reset()

    def reset(self):
        """The working copy starts from what the tablet believes."""
        view = self.app.view or {}
        if not view.get("forum"):
            return
        self._extra_cards = [dict(c) for c in view["forum"]["extra"]]
        self.forum = [dict(s["card"]) if s["card"] else None for s in view["forum"]["spaces"]]
        self.extra = len(self._extra_cards)
        self.dagger = min(view["kalends"]["dagger"], view["kalends"]["spaces"])
        self.curia = view["curia"]["count"]
        self.space = 1
        self.players = list(view["players"])
        self.locations = dict(view["locations"])
        self.turn_to = (view.get("turn") or {}).get("player", "")
        self.tribune_to = view.get("tribune", "")
        if self.who not in self.players:
            self.who = self.turn_to or self.players[0]
        self.ids.reason.text = ""
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        if not view.get("forum"):
            return
        in_play = not view.get("end")
        self.ids.forum_box.disabled = self.ids.dagger_box.disabled = self.ids.seats_box.disabled = not in_play
        row = self.ids.forum
        row.clear_widgets()
        for i, entry in enumerate(self.forum):
            cell = common.forum_cell(entry, str(i + 1))
            if i + 1 == self.space:
                cell.edge, cell.strong = list(ui.accent), True
            cell.space = i + 1
            cell.bind(on_touch_down=self._space_touched)
            row.add_widget(cell)
        row.add_widget(common.K23Cell(text=tr("knives23.ui.extra", n=self.extra) if self.extra else "",
                                      size_hint_x=0.5, bg=list(ui.bg), edge=[0, 0, 0, 0]))
        grid = self.ids.value_buttons
        grid.clear_widgets()
        for value in VALUES:
            card = value if isinstance(value, dict) else None
            b = Factory.K23Button(text=common.card_text(card) if card else tr(f"knives23.ui.value_{value}"),
                                  font_size="22sp", height=grid.row_default_height)
            b.background_color, b.color = common.card_colours(card, value != "facedown") if value != "empty" \
                else (ui.bg, ui.text)
            b.value = value
            b.bind(on_release=lambda btn: self.set_space(btn.value))
            grid.add_widget(b)
        self._build_seats(view)
        notes = view.get("history_notes") or []
        self.last_note = tr("knives23.ui.last_note", note=notes[-1]) if notes else ""
        k = view["kalends"]
        self.summary = tr("knives23.ui.correct_now", forum=view["forum"]["count"], dagger=k["dagger"],
                          curia=view["curia"]["count"])
        if view.get("turn"):
            self.summary += " " + tr("knives23.ui.correct_seats_now", player=view["turn"]["player"],
                                     tribune=view["tribune"])

    def _build_seats(self, view) -> None:
        """The pawns (each player with their Location), then the Locations for the player picked,
        and giving that player the turn or the Issue deck."""
        row = self.ids.who
        row.clear_widgets()
        for p in self.players:
            b = Factory.K23Button(text=p + "\n" + tr(f"knives23.location.{self.locations.get(p, 'temple')}"),
                                  font_size="22sp", height=row.row_default_height)
            b.selected, b.player = p == self.who, p
            b.bind(on_release=lambda btn: self.pick(btn.player))
            row.add_widget(b)
        grid = self.ids.where
        grid.clear_widgets()
        for loc in table_data()["locations"]:
            b = Factory.K23Button(text=tr(f"knives23.location.{loc}"), font_size="22sp",
                                  height=grid.row_default_height)
            b.selected, b.location = self.locations.get(self.who) == loc, loc
            b.bind(on_release=lambda btn: self.set_location(btn.location))
            grid.add_widget(b)
        # whose turn and the Tribune change only between actions (the rules say when)
        for what, key, now in (("turn", "knives23.ui.give_turn", self.turn_to),
                               ("tribune", "knives23.ui.give_tribune", self.tribune_to)):
            b = Factory.K23Button(text=tr(key, player=self.who), font_size="22sp", height=grid.row_default_height,
                                  disabled=now != self.who and not self.app.legal(f"correct_{what}", "player"))
            b.selected, b.what = now == self.who, what
            b.bind(on_release=lambda btn: self.give(btn.what))
            setattr(self, f"{what}_button", b)
            grid.add_widget(b)

    def _space_touched(self, cell, touch):
        if not cell.collide_point(*touch.pos):
            return False
        self.space = cell.space
        self.refresh()
        return True

    # -- editing the working copy -------------------------------------------------------------
    def set_space(self, value) -> None:
        forum = list(self.forum)
        forum[self.space - 1] = _entry(value)
        self.forum = forum
        self.space = min(5, self.space + 1)
        self.refresh()

    def pick(self, player: str) -> None:
        self.who = player
        self.refresh()

    def set_location(self, location: str) -> None:
        self.locations = {**self.locations, self.who: location}
        self.refresh()

    def give(self, what: str) -> None:
        """The turn or the Issue deck goes to the player picked (in the working copy)."""
        if what == "turn":
            self.turn_to = self.who
        else:
            self.tribune_to = self.who
        self.refresh()

    def bump(self, what: str, by: int) -> None:
        view = self.app.view or {}
        if what == "dagger":
            self.dagger = max(1, min(view["kalends"]["spaces"], self.dagger + by))
        elif what == "curia":
            self.curia = max(0, min(86, self.curia + by))
        else:
            self.extra = max(0, self.extra + by)
            self._extra_cards = (self._extra_cards + [{"faceup": False}] * self.extra)[:self.extra]
        self.refresh()

    # -- recording: one event per part the table changed -------------------------------------
    def record(self) -> None:
        view = self.app.view or {}
        reason = self.ids.reason.text.strip()
        if not reason:
            self.app.toast(tr("knives23.ui.reason_needed"))
            return
        sent = 0
        now = [dict(s["card"]) if s["card"] else None for s in view["forum"]["spaces"]]
        if not view.get("end") and (self.forum != now or self._extra_cards != view["forum"]["extra"]):
            if not self.app.send("correct_forum", spaces=list(self.forum), extra=list(self._extra_cards),
                                 reason=reason):
                return
            sent += 1
        view = self.app.view
        if not view.get("end") and self.dagger != view["kalends"]["dagger"]:
            if not self.app.send("correct_dagger", space=self.dagger, reason=reason):
                return
            sent += 1
        if self.curia != self.app.view["curia"]["count"]:
            if not self.app.send("correct_curia", count=self.curia, reason=reason):
                return
            sent += 1
        if not self.app.view.get("end"):
            for p in self.players:
                if self.locations.get(p) != self.app.view["locations"][p]:
                    if not self.app.send("correct_location", player=p, location=self.locations[p], reason=reason):
                        return
                    sent += 1
            if self.tribune_to and self.tribune_to != self.app.view["tribune"]:
                if not self.app.send("correct_tribune", player=self.tribune_to, reason=reason):
                    return
                sent += 1
            turn = self.app.view.get("turn") or {}
            if self.turn_to and turn and self.turn_to != turn["player"]:
                if not self.app.send("correct_turn", player=self.turn_to, reason=reason):
                    return
                sent += 1
        if not sent:
            self.app.toast(tr("knives23.error.correct_same"))
            return
        if self.app.sm.current == self.name:   # the line under the panel shows what was recorded
            self.reset()


def make(app):
    return Knives23CorrectScreen(name="knives23.correct", app=app)
