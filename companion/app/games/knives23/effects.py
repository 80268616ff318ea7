"""The Forum panel: card effects the table makes on the Forum, each with its source named — extra
Fate cards played faceup or facedown (an Issue or a Citizen), a card discarded from the Forum,
Servilia's swap, Sabinus' Doves on Knife cards — and a Sway a Citizen's ability calls for outside
the Gardens and the Sway step (Sempronia's, when a player gives a Fate card: the chosen player
Sways the tapped one). The rules place, refuse or record each; the Forum count, its resolution,
the Dagger and the Curia then follow the real board."""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.theme import ui
from companion.app.screens import load_kv
from companion.app.games.knives23 import common
from companion.core.i18n import text_of, tr
from companion.games.knives23 import issue_name

load_kv(__file__)

FATE = [{"knives": 1}, {"knives": 2}, {"knives": 3}, {"knives": 5},
        {"doves": 1}, {"doves": 2}, {"doves": 3}, None]
DOVES = [{"doves": 1}, {"doves": 2}, {"doves": 3}, None]


class Knives23EffectsScreen(Screen):
    app = ObjectProperty()
    prompt = StringProperty("")
    forum_line = StringProperty("")
    last_note = StringProperty("")
    ability_line = StringProperty("")  # "Ann Sways, by the source's ability:"
    selected = ListProperty([])      # the Forum spaces tapped (1–5), for a discard, a swap, a Dove
    player = StringProperty("")      # who plays the card (an Issue may make any player play)

    def on_pre_enter(self, *_):
        self.selected = []
        view = self.app.view or {}
        self.player = (view.get("turn") or {}).get("player", view.get("tribune", ""))
        issues = view.get("issues") or {}
        colour = issues.get("colour")
        # An Issue being resolved is the likely source; the table may type another.
        self.ids.source.text = text_of(issue_name(issues, colour)) if colour else ""
        self.refresh()

    def refresh(self):
        view = self.app.view or {}
        if not view.get("forum"):
            return
        self.prompt = tr("knives23.ui.effects_prompt")
        who = self.ids.players
        who.clear_widgets()
        for p in view["players"]:
            b = Factory.K23Button(text=p, font_size="22sp", height=who.height)
            b.selected, b.player = p == self.player, p
            b.bind(on_release=lambda btn: self._choose_player(btn.player))
            who.add_widget(b)
        f = view["forum"]
        self.forum_line = tr("knives23.ui.effects_forum", count=f["count"], cards=f["cards"],
                             space=f["next_space"] if f["next_space"] <= 5 else tr("knives23.ui.on_fifth"),
                             curia=view["curia"]["count"])
        notes = view.get("history_notes") or []
        self.last_note = tr("knives23.ui.last_note", note=notes[-1]) if notes else ""
        row = self.ids.forum
        row.clear_widgets()
        for space in f["spaces"]:
            cell = common.forum_cell(space["card"], common.space_label(space))
            if space["space"] in self.selected:
                cell.edge, cell.strong = list(ui.accent), True
            cell.space = space["space"]
            cell.bind(on_touch_down=self._space_touched)
            row.add_widget(cell)
        extra = len(f["extra"])
        row.add_widget(common.K23Cell(text=tr("knives23.ui.extra", n=extra) if extra else "", size_hint_x=0.5,
                                      bg=list(ui.bg), edge=[0, 0, 0, 0]))
        self._fill(self.ids.extra_cards, FATE, self.play_extra)
        self._fill(self.ids.doves, DOVES, self.sabinus, label=lambda c: common.card_text(c) if c
                   else tr("knives23.ui.dove_facedown"))
        # the Forum's effects only while the rules take them (not during a Vote to Exile's call)
        self.ids.forum_effects.disabled = not view.get("can_apply_effects")
        self.ability_line = tr("knives23.ui.ability_sway", player=self.player)
        targets = self.ids.sway_targets
        targets.clear_widgets()
        for p in view["players"]:
            if p == self.player:
                continue
            b = Factory.K23Button(text=p, font_size="22sp", height=targets.height)
            b.target = p
            b.bind(on_release=lambda btn: self.ability_sway(btn.target))
            targets.add_widget(b)

    def _fill(self, grid, cards, action, label=None):
        grid.clear_widgets()
        for card in cards:
            text = (label or (lambda c: common.card_text(c) if c else tr("knives23.card.facedown")))(card)
            b = Factory.K23Button(text=text, font_size="22sp", height=grid.row_default_height)
            b.background_color, b.color = common.card_colours(card, card is not None)
            b.card = card
            b.bind(on_release=lambda btn: action(btn.card))
            grid.add_widget(b)

    def _choose_player(self, player: str) -> None:
        self.player = player
        self.refresh()

    def _space_touched(self, cell, touch):
        if not cell.collide_point(*touch.pos):
            return False
        self.toggle_space(cell.space)
        return True

    def toggle_space(self, space: int) -> None:
        sel = [s for s in self.selected if s != space]
        if len(sel) == len(self.selected):
            sel = (sel + [space])[-2:]       # at most 2 (Servilia's swap)
        self.selected = sel
        self.refresh()

    # -- what the buttons send ---------------------------------------------------------------
    def _source(self) -> str:
        return self.ids.source.text.strip()

    def _done(self, ok: bool) -> None:
        if ok:
            self.selected = []
            self.refresh()

    def play_extra(self, card) -> None:
        data = {"facedown": True} if card is None else {"card": card}
        self._done(self.app.send("play_fate", effect=True, by=self._source(), player=self.player, **data))

    def discard(self) -> None:
        if len(self.selected) != 1:
            self.app.toast(tr("knives23.ui.pick_one_space"))
            return
        self._done(self.app.send("discard_forum", space=self.selected[0], by=self._source()))

    def servilia(self) -> None:
        if not self.selected:
            self.app.toast(tr("knives23.ui.pick_servilia"))
            return
        self._done(self.app.send("servilia_swap", spaces=list(self.selected)))

    def sabinus(self, card) -> None:
        if len(self.selected) != 1:
            self.app.toast(tr("knives23.ui.pick_one_space"))
            return
        data = {"facedown": True} if card is None else {"card": card}
        self._done(self.app.send("sabinus_dove", space=self.selected[0], player=self.player, **data))

    def ability_sway(self, target: str) -> None:
        """The chosen player Sways ``target`` because a Citizen's ability says so (the source
        field names it); the Gardens' and the Sway step's Sways are the board's."""
        self._done(self.app.send("ability_sway", target=target, player=self.player, by=self._source()))


def make(app):
    return Knives23EffectsScreen(name="knives23.effects", app=app)
