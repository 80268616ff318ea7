"""The setup checklist (rulebook Setup I–VII), with what changes by player count and option;
play begins with the starting player once every step is ticked.

Step I is the board itself: the rulebook prints neither the Kalends track's length, its black
spaces, the Dagger's start by player count nor which Forum spaces take faceup cards only, so the
table checks a drawing of them against its own board, corrects it, and confirms. The group's board
is remembered in the app's data folder for the next game."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import BooleanProperty, DictProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.theme import ui
from companion.app.screens import load_kv
from companion.app.games.knives23 import common
from companion.core.events import BadInput
from companion.core.i18n import tr
from companion.games.knives23 import default_board, load_group_board, save_group_board

load_kv(__file__)


class Knives23ChecklistScreen(Screen):
    app = ObjectProperty()
    who = StringProperty("")
    all_done = BooleanProperty(False)
    board = DictProperty({})        # the board being checked (the group's format: starts per count)
    board_note = StringProperty("")
    confirmed = BooleanProperty(False)

    def on_pre_enter(self, *_):
        self.board = {}
        self.refresh()

    def _start_board(self, view) -> dict:
        """The group's remembered board, else our guesses; what this game's setup set explicitly
        (the setup screen's Kalends options) wins for this game."""
        try:
            remembered = load_group_board(self.app.data_dir)
        except BadInput as exc:
            self.app.toast(str(exc))
            remembered = None
        board = remembered or default_board()
        explicit = (self.app.session.setup.get("kalends") or {}) if self.app.session else {}
        n = str(len(view["players"]))
        k = view["kalends"]
        if "spaces" in explicit:
            board["spaces"] = k["spaces"]
        if "black_spaces" in explicit:
            board["black_spaces"] = len(k["black"])
        if "dagger_start" in explicit or "spaces" in explicit:
            board["dagger_start"] = {**board["dagger_start"], n: view["kalends"]["dagger"]}
        board["dagger_start"][n] = min(board["dagger_start"][n], board["spaces"])
        return board

    def refresh(self):
        view = self.app.view or {}
        steps = view.get("setup")
        if not steps:
            return
        self.who = tr("knives23.ui.setup_who", players=", ".join(view["players"]),
                      n=len(view["players"]), tribune=view["tribune"])
        box = self.ids.steps
        box.clear_widgets()
        for s in steps:
            b = Factory.K23CheckButton(text=s["text"])
            b.step, b.done = s["step"], s["done"]   # kv-declared properties exist only after creation
            b.bind(on_release=lambda btn: self.tick(btn))
            box.add_widget(b)
        self.all_done = all(s["done"] for s in steps)
        self.confirmed = view["board"]["confirmed"]
        if not self.board:
            self.board = self._start_board(view)
        self._draw(view)

    # -- the drawing of the board ------------------------------------------------------------
    def _draw(self, view):
        b, n = self.board, str(len(view["players"]))
        start = b["dagger_start"][n]
        black_from = b["spaces"] - b["black_spaces"]
        row = self.ids.kalends
        row.clear_widgets()
        small = "22sp"
        for space in range(1, b["spaces"] + 1):
            black, here = space > black_from, space == start
            row.add_widget(common.K23Cell(text=str(space), font_size=small,
                                          bg=list(ui.accent if here else common.BLACK if black else ui.panel),
                                          fg=list(common.DARK_TEXT if here else ui.text),
                                          edge=list((1, 1, 1, 0.9) if black else ui.muted), strong=here or black))
        row.add_widget(common.K23Cell(text=tr("knives23.ui.curia_space"), font_size=small, size_hint_x=2,
                                      bg=common.curia_fill(), fg=list(ui.ink_for(common.curia_fill())),
                                      strong=True))
        forum = self.ids.forum_icons
        forum.clear_widgets()
        for i, kind in enumerate(b["forum"]["spaces"] + [b["forum"]["extra"]]):
            label = tr(f"knives23.ui.icon_{kind}")
            cell = Factory.K23Button(text=(f"{i + 1}\n" if i < 5 else tr("knives23.ui.icon_extra") + "\n") + label,
                                     font_size="22sp", height=dp(84), halign="center")
            cell.bind(width=lambda b, w: setattr(b, "text_size", (w - dp(8), None)))  # "up or down" wraps
            cell.selected = kind == "faceup"
            cell.icon = i
            cell.bind(on_release=lambda btn: self.toggle_icon(btn.icon))
            forum.add_widget(cell)
        self.ids.spaces_label.text = tr("knives23.ui.board_spaces", n=b["spaces"])
        self.ids.black_label.text = tr("knives23.ui.board_black", n=b["black_spaces"])
        self.ids.start_label.text = tr("knives23.ui.board_start", n=start, players=n)
        if self.confirmed:
            self.board_note = tr("knives23.ui.board_confirmed")
        elif b.get("confirmed"):
            self.board_note = tr("knives23.ui.board_remembered", date=b["confirmed"])
        else:
            self.board_note = tr("knives23.ui.board_guess")

    def bump(self, what: str, by: int) -> None:
        b = dict(self.board)
        n = str(len(self.app.view["players"]))
        if what == "spaces":
            b["spaces"] = max(2, min(20, b["spaces"] + by))
        elif what == "black":
            b["black_spaces"] = b["black_spaces"] + by
        else:
            b["dagger_start"] = {**b["dagger_start"], n: b["dagger_start"][n] + by}
        b["black_spaces"] = max(0, min(b["spaces"], b["black_spaces"]))
        b["dagger_start"] = {k: max(1, min(b["spaces"], v)) for k, v in b["dagger_start"].items()}
        self.board = b
        self.refresh()

    def toggle_icon(self, i: int) -> None:
        b = dict(self.board)
        forum = {"spaces": list(b["forum"]["spaces"]), "extra": b["forum"]["extra"]}
        flip = {"either": "faceup", "faceup": "either"}
        if i < 5:
            forum["spaces"][i] = flip[forum["spaces"][i]]
        else:
            forum["extra"] = flip[forum["extra"]]
        b["forum"] = forum
        self.board = b
        self.refresh()

    def confirm(self) -> None:
        """This is our board: for this game (an event) and for the group's next games (a file)."""
        b = self.board
        n = str(len(self.app.view["players"]))
        if not self.app.send("confirm_board", spaces=b["spaces"], black_spaces=b["black_spaces"],
                             dagger_start=b["dagger_start"][n], forum=b["forum"]):
            return
        import datetime
        try:
            save_group_board(self.app.data_dir, {**b, "confirmed": datetime.date.today().isoformat()})
        except BadInput as exc:
            self.app.toast(str(exc))   # the game has its board; only the memory for next time failed

    def tick(self, button):
        if button.step == "I" and not button.done:
            self.confirm()       # step I is the board: ticking it confirms the drawing
        elif not button.done:
            self.app.send("tick_setup", step=button.step)


def make(app):
    return Knives23ChecklistScreen(name="knives23.checklist", app=app)
