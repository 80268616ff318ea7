"""The base of a game's screens of play."""
from __future__ import annotations

from kivy.properties import DictProperty, ObjectProperty
from kivy.uix.screenmanager import Screen


class GameScreen(Screen):
    """Shows ``app.view`` (the table's view: never a secret) and sends commands through
    ``app.send``. ``view`` is the screen's own copy, refreshed while the screen is showing;
    subclasses rebuild their dynamic parts in ``refresh``.

    A screen of a game the table has left stays bound to the app, so it ignores views of any
    other game (``game_id``)."""

    game_id = ""
    app = ObjectProperty()
    view = DictProperty({})

    def on_kv_post(self, *_):
        self.app.bind(view=lambda *_: self._update())

    def on_pre_enter(self, *_):
        self._update()

    def _update(self):
        if self.manager is None or self.app.game_id != self.game_id:
            return
        self.view = dict(self.app.view or {})
        if self.manager.current == self.name:
            self.refresh_all()

    def refresh_all(self):
        self.refresh()

    def refresh(self):
        pass
