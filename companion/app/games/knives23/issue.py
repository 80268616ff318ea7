"""Resolving the chosen Issue: an eyes-closed Issue is narrated by the tablet (the group's words
picked from a list or typed; the same timing whatever they are), then the Kalends-icon question.
"""
from __future__ import annotations

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.app.games.knives23 import common  # noqa: F401
from companion.core.i18n import text_of, tr
from companion.games.knives23 import group_words, table_data

load_kv(__file__)


class Knives23IssueScreen(Screen):
    app = ObjectProperty()
    prompt = StringProperty("")
    group = StringProperty("")

    def on_kv_post(self, *_):
        grid = self.ids.groups
        for key in table_data()["eyes_closed_groups"]:
            b = Factory.K23Button(text=tr(f"knives23.group.{key}"), font_size="22sp", height=dp(56))
            b.group_key = key
            b.bind(on_release=lambda btn: self.narrate(btn.group_key))
            grid.add_widget(b)

    def on_pre_enter(self, *_):
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        phase = view.get("phase")
        if phase not in ("issue_resolve", "eyes_closed"):
            return
        self.prompt = view["prompt"]
        closed = phase == "eyes_closed"
        self.group = text_of(group_words(view.get("eyes_closed") or ""))  # the id, in the table's language
        self.ids.eyes_open_area.opacity = 0 if closed else 1
        self.ids.eyes_open_area.disabled = closed
        self.ids.eyes_open_area.size_hint_y = None if closed else 1
        if closed:
            self.ids.eyes_open_area.height = 0
        area = self.ids.eyes_closed_area
        area.opacity = 1 if closed else 0
        area.size_hint_y = 1 if closed else None
        if not closed:
            area.height = 0

    def narrate(self, group: str) -> None:
        if self.app.send("eyes_closed", group=group):
            self.ids.typed.text = ""


def make(app):
    return Knives23IssueScreen(name="knives23.issue", app=app)
