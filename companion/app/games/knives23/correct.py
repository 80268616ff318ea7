"""Correct the board: the Forum's cards, the Dagger's space and the Curia's count set by hand to
what the real board shows. Each correction is one event with its reason (undoable, and listed in
the history); the tablet's counts follow the board from then on."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.theme import ui
from companion.app.screens import load_kv
from companion.app.games.knives23 import common
from companion.core.i18n import tr

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
        self.ids.reason.text = ""
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        if not view.get("forum"):
            return
        in_play = not view.get("end")
        self.ids.forum_box.disabled = self.ids.dagger_box.disabled = not in_play
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
        notes = view.get("history_notes") or []
        self.last_note = tr("knives23.ui.last_note", note=notes[-1]) if notes else ""
        k = view["kalends"]
        self.summary = tr("knives23.ui.correct_now", forum=view["forum"]["count"], dagger=k["dagger"],
                          curia=view["curia"]["count"])

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
        if not sent:
            self.app.toast(tr("knives23.error.correct_same"))
            return
        if self.app.sm.current == self.name:   # the line under the panel shows what was recorded
            self.reset()


def make(app):
    return Knives23CorrectScreen(name="knives23.correct", app=app)
