"""The base of a game's screens of play."""
from __future__ import annotations

from kivy.properties import DictProperty, ObjectProperty
from kivy.uix.screenmanager import Screen

from companion.app.theme import COLOUR_RGBA, ui


class GameScreen(Screen):
    """Shows ``app.view`` (the table's view: never a secret) and sends commands through
    ``app.send``. ``view`` is the screen's own copy, refreshed while the screen is showing;
    subclasses rebuild their dynamic parts in ``refresh``.

    A screen of a game the table has left ignores views of any other game (``game_id``), and lets
    go of the app when it leaves its manager: the app holds it only through a bound method (Kivy
    keeps those weakly), so a left game's screens are freed (a lambda here kept every game's
    screens and widgets alive all night: ~19 MB a game, issue 34 item 14)."""

    game_id = ""
    app = ObjectProperty()
    view = DictProperty({})

    def on_kv_post(self, *_):
        self.app.bind(view=self._view_changed)

    def on_manager(self, _screen, manager):
        if manager is None and self.app is not None:
            self.app.unbind(view=self._view_changed)

    def _view_changed(self, *_):
        self._update()

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

    def seat_colour(self, player: str):
        """The colour the table gave this player's seat (transparent for a non-seat, like a
        tile in the center)."""
        session = self.app.session
        setup = session.setup if session is not None else {}
        players, colours = setup.get("players", []), setup.get("colours") or []
        if player in players and players.index(player) < len(colours):
            return COLOUR_RGBA.get(colours[players.index(player)], tuple(ui.panel))
        return (0, 0, 0, 0)


class ResultScreen(Screen):
    """A game's result: drawn from the table's view on entering, once the game is over."""

    app = ObjectProperty()

    def on_pre_enter(self, *_):
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        if view.get("phase") == "over":
            self.show(view)

    def show(self, view: dict):
        raise NotImplementedError
