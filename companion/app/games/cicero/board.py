"""Phases II and III: Cicero's pleading (the card's 4 influences and 2 Castes), then the board's
15 spaces: whose turn it is to place a Servant, which spaces are taken (the Automatii's too)."""
from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import ListProperty

from companion.app.games.cicero.common import CiceroScreen
from companion.app.screens import load_kv
from companion.core.i18n import tr
from companion.games.cicero import AUTOMATII, CASTES

load_kv(__file__)


def demand_text(cicero: dict | None) -> str:
    if not cicero:
        return ""
    return tr("cicero.ui.demand", influences=", ".join(cicero["influences"]),
              castes=tr("cicero.word.and").join(cicero["senator_castes"]))


def first_princeps_text(view: dict) -> str:
    """Round 1: "Marcus is the first Princeps, as the oldest (Senate votes: ...)" and the corrections."""
    first = view.get("first_princeps")
    if not first:
        return ""

    def counts(numbers: dict) -> str:
        return ", ".join(f"{p} {numbers[p]}" for p in view["players"] if p in numbers)
    text = tr("cicero.ui.first_princeps_result", princeps=first["princeps"],
              by=tr(f"cicero.ui.first_by.{first['decided_by']}"), votes=counts(first["votes"]),
              oratores=counts(first["oratores"]))
    for c in first.get("corrections") or ():
        b = c["before"]
        text += "\n" + tr("cicero.ui.first_corrected", reason=c["reason"], princeps=b["princeps"],
                          votes=counts(b["votes"]), oratores=counts(b["oratores"]))
    return text


def election_text(view: dict) -> str:
    result = view["election"]["result"]
    if not result:
        return first_princeps_text(view) if view.get("round") == 1 else ""
    tally = ", ".join(f"{p} {n}" for p, n in sorted(result["tally"].items(), key=lambda kv: -kv[1]))
    text = tr("cicero.ui.elected", princeps=result["princeps"], tally=tally)
    if result.get("automatii_to"):
        text += "\n" + tr("cicero.ui.automatii_gave", player=result["automatii_to"])
    if result.get("tie"):
        text += "\n" + tr("cicero.ui.tie_broken_by", outgoing=result["outgoing"])
    for c in result.get("corrections") or ():
        text += "\n" + tr("cicero.ui.corrected", player=c["player"], before=c["before"], after=c["after"],
                          reason=c["reason"])
    return text


def effect_text(view: dict) -> tuple[str, str]:
    """While Servants are placed: what the last placement gave its player and the others, or,
    before the first, what each kind of space gives; the influence limit under it."""
    if view.get("phase") != "servants" and not view.get("last_effect"):
        return "", ""
    last = view.get("last_effect")
    if last:
        return tr("cicero.ui.last_placed"), f"{last['placer']}\n{last['others']}\n{tr('cicero.ui.influence_limit')}"
    kinds = view.get("space_kinds") or []
    heads = (tr("cicero.ui.senate"), tr("cicero.ui.first_space"), tr("cicero.ui.second_space"))
    lines = [f"[b]{h}[/b] {k['placer']} {k['others']}" for h, k in zip(heads, kinds)]
    return tr("cicero.ui.space_kinds"), "\n".join(lines + [tr("cicero.ui.influence_limit")])


class BoardScreen(CiceroScreen):
    influences = ListProperty([])   # the Cicero card being entered
    castes = ListProperty([])
    _spaces: dict[str, tuple[Any, str]] | None   # the board's buttons and labels by space, once built
    _spaces_parent: Any                          # the body they were built in

    def refresh(self):
        v = self.view
        if not v:
            return
        self.ids.demand.text = demand_text(v.get("cicero"))
        self.ids.election.text = election_text(v)
        self.ids.correct_votes_button.disabled = not (v.get("election") or {}).get("correctable")
        self.ids.correct_first_button.disabled = not v.get("first_princeps_correctable")
        self.ids.effect_heading.text, self.ids.effect.text = effect_text(v)
        if v["phase"] == "accusation":
            self._card()
        else:
            self._board()

    def correct_votes(self):
        """The announced Senate votes set right (the election's result screen's way back)."""
        from companion.app.games.cicero.correct import open_votes
        return open_votes(self)

    def correct_first(self):
        """The first Princeps' starting votes set right (round 1, until the first Servant)."""
        from companion.app.games.cicero.correct import open_first
        return open_first(self)

    # Cicero's card ---------------------------------------------------------------------------
    def _card(self):
        body = self.ids.body
        body.clear_widgets()
        self._spaces = None
        body.add_widget(Factory.CHeading(text=tr("cicero.ui.card_influences", shown=", ".join(self.influences) or "—")))
        grid = Factory.GridLayout(cols=3, spacing="6dp", size_hint_y=None, height="118dp")
        grid.role = "influences"  # for tests and tools that look the section up
        for c in CASTES:
            grid.add_widget(self.button(c, lambda b: self._add_influence(b.value), value=c,
                                        selected=c in self.influences, font_size="22sp", height="56dp"))
        body.add_widget(grid)
        body.add_widget(self.button(tr("cicero.ui.clear"), lambda b: self._clear(), height="52dp", font_size="22sp"))
        body.add_widget(Factory.CHeading(text=tr("cicero.ui.card_castes")))
        grid = Factory.GridLayout(cols=3, spacing="6dp", size_hint_y=None, height="118dp")
        grid.role = "senator_castes"
        for c in CASTES:
            grid.add_widget(self.button(c, lambda b: self._toggle_caste(b.value), value=c,
                                        selected=c in self.castes, font_size="22sp", height="56dp"))
        body.add_widget(grid)
        b = self.button(tr("cicero.ui.reveal_card"), lambda b: self._reveal(), height="64dp")
        b.disabled = len(self.influences) != 4 or len(self.castes) != 2
        body.add_widget(b)

    def _add_influence(self, caste):
        if len(self.influences) < 4:
            self.influences = self.influences + [caste]
        self._card()

    def _clear(self):
        self.influences = []
        self._card()

    def _toggle_caste(self, caste):
        if caste in self.castes:
            self.castes = [c for c in self.castes if c != caste]
        elif len(self.castes) < 2:
            self.castes = self.castes + [caste]
        self._card()

    def _reveal(self):
        if self.app.send("cicero_card", influences=list(self.influences), senator_castes=list(self.castes)):
            self.influences, self.castes = [], []

    # the board -------------------------------------------------------------------------------
    def _board(self):
        """The 15 spaces, built once per game and then updated in place (a refresh per Servant)."""
        v = self.view
        holders = {b["space"]: b["holder"] for b in v["board"]}
        body = self.ids.body
        if not getattr(self, "_spaces", None) or self._spaces_parent is not body or not body.children:
            self._spaces = {}
            body.clear_widgets()
            body.add_widget(Factory.CHeading(text=tr("cicero.ui.senate")))
            senate = Factory.BoxLayout(spacing="6dp", size_hint_y=None, height="52dp")
            for n in (1, 2, 3):
                senate.add_widget(self._space(f"senate_{n}", str(n)))
            body.add_widget(senate)
            grid = Factory.GridLayout(cols=3, spacing="6dp", size_hint_y=None)
            grid.bind(minimum_height=grid.setter("height"))
            for caste in CASTES:
                # the Caste is what the influence counts in (its zone's name did not fit at 22sp)
                grid.add_widget(Factory.CCell(text=caste))
                grid.add_widget(self._space(f"{caste}_1", tr("cicero.ui.first_space")))
                grid.add_widget(self._space(f"{caste}_2", tr("cicero.ui.second_space")))
            body.add_widget(grid)
            self._spaces_parent = body
        assert self._spaces is not None   # built just above, or kept from the last refresh
        for space, (button, label) in self._spaces.items():
            holder = holders.get(space)
            button.text = f"{label}: {holder}" if holder else label
            button.stripe = ((0.6, 0.6, 0.6, 1) if holder == AUTOMATII else
                             self.seat_colour(holder) if holder else (0, 0, 0, 0))
            button.disabled = holder is not None or v["phase"] != "servants"

    def _space(self, space, label):
        b = self.button(label, lambda b: self._place(b.value), value=space, height="50dp", font_size="22sp")
        assert self._spaces is not None   # called by _board() while it builds them
        self._spaces[space] = (b, label)
        return b

    def _place(self, space):
        self.app.send("place_servant", player=self.view["next_to_place"], space=space)


def make(app):
    return BoardScreen(name="cicero.board", app=app)
