"""The board: whose turn and which of the five steps, the Location's action, the Forum, the
Kalends with the Dagger, the Curia's count; and the buttons for what this step allows."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import NumericProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen
from kivy.uix.textinput import TextInput

from companion.app.theme import ui
from companion.app.screens import load_kv
from companion.app.games.knives23 import common  # noqa: F401  (the shared widgets' kv)
from companion.core.i18n import tr
from companion.games.knives23 import table_data

load_kv(__file__)

FATE_BUTTONS = [{"knives": 1}, {"knives": 2}, {"knives": 3}, {"knives": 5},
                {"doves": 1}, {"doves": 2}, {"doves": 3}, None]


class Knives23BoardScreen(Screen):
    app = ObjectProperty()
    status = StringProperty("")
    prompt = StringProperty("")
    player_line = StringProperty("")
    action_help = StringProperty("")
    action_cols = NumericProperty(4)
    mode = StringProperty("")        # "" or "exile_target"
    told = StringProperty("")        # the physical steps the last action asks of the table

    def on_pre_enter(self, *_):
        self.mode = ""
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        if not view.get("kalends"):
            return
        self.ids.board.show(view)
        self.prompt = view.get("prompt", "")
        self.status = tr("knives23.ui.status", round=view.get("round", 0), tribune=view.get("tribune", ""))
        if view.get("shamed"):
            self.status += " · " + tr("knives23.ui.shamed", names=", ".join(view["shamed"]))
        told = view.get("told") or []
        self.told = "\n".join([tr("knives23.ui.at_the_table")] + [f"• {line}" for line in told]) if told else ""
        turn = view.get("turn")
        steps = self.ids.steps
        steps.clear_widgets()
        if turn:
            self.player_line = tr("knives23.ui.player_at", player=turn["player"], location=turn["location_name"])
            for step, name in zip(turn["steps"], turn["step_names"]):
                here = step == turn["step"]
                steps.add_widget(common.K23Cell(text=name, font_size="22sp",
                                                bg=list(ui.accent if here else ui.bg),
                                                fg=list(common.DARK_TEXT if here else ui.muted),
                                                strong=here))
            self.action_help = turn["action"] if turn["step"] == "action" else tr(f"knives23.help.{turn['step']}")
            # Right after a flush, a Dagger move or an exile, the table's steps matter more than
            # "move your pawn": they take the room of the help and the steps row.
            quiet = bool(told) and turn["step"] == "move"
            if quiet:
                self.action_help = ""
                steps.clear_widgets()
            steps.opacity = 0 if quiet else 1   # (no steps: the grid's minimum height is 0)
        self._build_actions(view)

    # -- the buttons for this moment -------------------------------------------------------
    def _button(self, text, on_press, **kw):
        b = Factory.K23Button(text=text, **kw)
        b.bind(on_release=lambda *_: on_press())
        self.ids.actions.add_widget(b)
        return b

    def _build_actions(self, view):
        box = self.ids.actions
        box.clear_widgets()
        send = self.app.send
        phase, turn = view.get("phase"), view.get("turn")
        if phase == "exile_called":
            self.action_cols = 1
            ex = view["exile"]
            remaining = self.app.game_ui.bribe_remaining() if self.app.game_ui else None
            self.bribe_label = None
            if ex.get("bribe_seconds"):
                self.bribe_label = Factory.K23Big(color=ui.accent)
                box.add_widget(self.bribe_label)
                self.update_timer(remaining if remaining is not None else ex["bribe_seconds"])
            self.open_vote_button = self._button(tr("knives23.ui.open_exile_vote"), lambda: send("start_exile_vote"))
            return
        if phase != "turn" or not turn:
            return
        step = turn["step"]
        if step == "move":
            self.action_cols = 3
            allowed = self.app.legal("move", "location")
            for loc in table_data()["locations"]:
                self._button(tr(f"knives23.location.{loc}"), lambda loc=loc: send("move", location=loc),
                             disabled=loc not in allowed)
            return
        if self.mode == "exile_target":
            self.action_cols = 3
            for p in self.app.legal("call_exile", "target"):
                self._button(p, lambda p=p: self._exile(p))
            self._button(tr("knives23.ui.cancel"), self._cancel_mode)
            return
        if step == "action" and turn["location"] == "forum":
            self.action_cols = 4
            for card in FATE_BUTTONS:
                label = common.card_text(card) if card else tr("knives23.card.facedown")
                bg, fg = common.card_colours(card, card is not None)
                b = self._button(label, (lambda c=card: send("play_fate", card=c)) if card else
                                 (lambda: send("play_fate", facedown=True)),
                                 disabled=turn["fate_played"] >= table_data()["fate_per_forum_action"])
                b.background_color, b.color = bg, fg
            exile = self._button(tr("knives23.ui.call_exile"), self._choose_target,
                                 disabled=not self.app.legal("call_exile", "target"))
            exile.background_color = ui.danger
        elif step in ("action", "sway") and (step == "sway" or turn["location"] == "gardens"):
            self.action_cols = 3
            for p in self.app.legal("sway", "target"):
                self._button(tr("knives23.ui.sway", player=p), lambda p=p: send("sway", target=p))
        elif step == "issue":
            self._issue_actions(view, turn)
            return
        else:
            self.action_cols = 2
        self._button(tr("knives23.ui.end_turn" if step == "discard" and not turn["is_tribune"]
                        else "knives23.ui.next_step"), lambda: send("next_step"))
        if step != "discard":
            # When nothing more is recorded this turn, one tap ends it (or takes the Tribune to
            # the Issue) instead of a tap per step.
            quick = self._button(tr("touches.k23.to_issue" if turn["is_tribune"] else "knives23.ui.end_turn"),
                                 lambda: self.end_turn_now(turn["player"]))
            quick.background_color, quick.color = ui.accent, common.DARK_TEXT

    def end_turn_now(self, player: str) -> None:
        """The remaining steps, each through the rules as "Next step" would send it."""
        for _ in range(8):
            view = self.app.view or {}
            turn = view.get("turn")
            if view.get("phase") != "turn" or not turn or turn["player"] != player \
                    or turn["step"] in ("move", "issue"):
                return
            if not self.app.send("next_step"):
                return

    def update_timer(self, seconds: float) -> None:
        """Quid Pro Quo: the bribe countdown (driven by the UI's tick on the engines' clock)."""
        label = getattr(self, "bribe_label", None)
        ex = (self.app.view or {}).get("exile") or {}
        if label is not None and ex:
            s = int(seconds + 0.999)
            label.text = tr("knives23.ui.bribe", target=ex["target"], time=f"{s // 60}:{s % 60:02d}")

    def _issue_actions(self, view, turn):
        issues = view.get("issues")
        send = self.app.send
        self.action_cols = 1
        if issues is None:
            self.action_cols = 2   # two rows: the optional names side by side, then the button
            self.red = TextInput(hint_text=tr("knives23.ui.red_issue"), multiline=False, font_size="24sp",
                                 size_hint_y=None, height=68)
            self.grey = TextInput(hint_text=tr("knives23.ui.grey_issue"), multiline=False, font_size="24sp",
                                  size_hint_y=None, height=68)
            self.ids.actions.add_widget(self.red)
            self.ids.actions.add_widget(self.grey)
            # The names are a courtesy: an empty one is "the red Issue" / "the grey Issue".
            self.ids.actions.add_widget(Factory.K23Line(text=tr("touches.k23.names_optional"), color=ui.muted,
                                                        valign="middle"))
            self._button(tr("knives23.ui.place_issues"),
                         lambda: send("place_issues", **{colour: field.text for colour, field in
                                                         (("red", self.red), ("grey", self.grey)) if field.text.strip()}))
        elif view.get("tria_ludio") and not issues.get("vote") and not issues.get("held_over"):
            self._button(tr("knives23.ui.end_turn"), lambda: send("next_step"))
        else:
            self._button(tr("knives23.ui.hold_issue_vote"), lambda: send("hold_issue_vote"))

    def _choose_target(self):
        self.mode = "exile_target"
        self._build_actions(self.app.view)

    def _cancel_mode(self):
        self.mode = ""
        self._build_actions(self.app.view)

    def _exile(self, target):
        self.mode = ""
        if not self.app.send("call_exile", target=target):
            self._build_actions(self.app.view)


def make(app):
    return Knives23BoardScreen(name="knives23.board", app=app)
