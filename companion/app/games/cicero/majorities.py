"""Phase VI: the majorities. Caste by Caste, each player's votes -> Primus and Secundus; Guild by
Guild, the symbols -> the Guild card and its holder's choice (its power, or 3 PP). Ties go to the
Princeps. The table shows who holds every card (cards stay with their holder until lost)."""
from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import BooleanProperty
from kivy.uix.label import Label

from companion.app.theme import ui
from companion.app.games.cicero.common import CiceroScreen, house_rule_text
from companion.app.screens import load_kv
from companion.core.i18n import text_of, tr



class CCardCell(Label):
    now = BooleanProperty(False)  # the card being counted now


load_kv(__file__)


class MajoritiesScreen(CiceroScreen):
    tie = None          # the NeedsTieBreak the Princeps is answering
    choices: dict = {}  # the Princeps' answers so far for this count
    _entered: dict = {}  # the numbers entered, kept while the Princeps breaks a tie
    _entered_for = None
    _rows: list[tuple[Any, Any]]   # (seat row, its stepper), made once per set of players

    def refresh(self):
        v = self.view
        if not v:
            return
        self._cards_table()
        body = self.ids.body
        body.clear_widgets()
        if v["phase"] not in ("castes", "guilds"):
            return
        if v.get("pending_guild"):
            g = v["pending_guild"]
            holder = next(x["holder"] for x in v["guilds"] if x["guild"] == g)
            body.add_widget(Factory.CHeading(text=tr("cicero.ui.guild_choice", guild=g, holder=holder)))
            row = Factory.BoxLayout(spacing="8dp", size_hint_y=None, height="80dp")
            row.add_widget(self.button(tr("cicero.ui.use_power"), lambda b: self.app.send("guild_use", use="power")))
            row.add_widget(self.button(tr("cicero.ui.score_pp"), lambda b: self.app.send("guild_use", use="prestige")))
            body.add_widget(row)
            body.add_widget(Factory.Widget())
            return
        name = v["count_next"]
        caste = v["phase"] == "castes"
        body.add_widget(Factory.CHeading(text=tr("cicero.ui.count_caste" if caste else "cicero.ui.count_guild",
                                                 name=name), shorten=False))
        if self.tie is not None:
            body.add_widget(Factory.CLine(text=text_of(self.tie), font_size="22sp", color=ui.accent))
            row = Factory.BoxLayout(spacing="8dp", size_hint_y=None, height="76dp")
            for p in self.tie.among:
                row.add_widget(self.button(p, lambda b: self._break(b.value), value=p, player=p))
            body.add_widget(row)
            body.add_widget(Factory.Widget())
            return
        # The rows are made once and reused: a count is 12 refreshes a round, and making Kivy
        # widgets is the slow part.
        if getattr(self, "_rows", None) is None or [r.player for r, _ in self._rows] != v["players"]:
            self._rows = []
            for p in v["players"]:
                row = Factory.CSeatRow(player=p, stripe=self.seat_colour(p), height="68dp")
                s = self.stepper("", 0, key=p)
                row.add_widget(s)
                self._rows.append((row, s))
        self._steppers = [s for _, s in self._rows]
        # what the numbers count, once above the rows (beside each name it had no room at 22sp)
        body.add_widget(Factory.CLine(text=tr("cicero.ui.votes") if caste else tr("cicero.ui.symbols"),
                                      color=ui.muted))
        for row, s in self._rows:
            s.label = ""
            # the last count of this Caste/Guild carries over: only a change needs a tap
            carried = (v.get("carried") or {}).get(name, {})
            s.number = (self._entered.get(row.player, 0) if self._entered_for == name
                        else carried.get(row.player, 0))
            body.add_widget(row)
        # a count where nobody has a vote: the reading this table plays by, in the rule's words
        rule = Factory.CLine(text=house_rule_text(v, "no_votes"), font_size="18sp", color=ui.muted)
        rule.role = "house_rule"  # for tests and tools that look it up
        body.add_widget(rule)
        body.add_widget(Factory.Widget())
        row = Factory.BoxLayout(spacing="8dp", size_hint_y=None, height="76dp")
        row.add_widget(self.button(tr("cicero.ui.count"), lambda b: self._count(), height="76dp"))
        if (v.get("carried") or {}).get(name) is not None:
            # every count still to make, as last entered: a round needs a tap per change
            row.add_widget(self.button(tr("cicero.ui.count_rest_as_before"), lambda b: self.count_rest(),
                                       height="76dp", value="count_rest"))
        body.add_widget(row)

    def _cards_table(self):
        """Who holds each card: 12 rows of 3 cells, made once and then updated in place."""
        v = self.view
        grid = self.ids.cards
        heads = {tr("cicero.ui.col_caste"), tr("cicero.ui.col_guild")}
        rows = [(tr("cicero.ui.col_caste"), tr("cicero.ui.col_primus"), tr("cicero.ui.col_secundus"))]
        rows += [(c["caste"], c["primus"] or "—", c["secundus"] or "—") for c in v["castes"]]
        rows += [(tr("cicero.ui.col_guild"), tr("cicero.ui.col_holder"), tr("cicero.ui.col_choice"))]
        rows += [(g["guild"], g["holder"] or "—", tr(f"cicero.ui.use_{g['use']}") if g["use"] else "")
                 for g in v["guilds"]]
        if len(grid.children) != 3 * len(rows):
            grid.clear_widgets()
            for _ in range(3 * len(rows)):
                grid.add_widget(Factory.CCardCell())
        cells = list(reversed(grid.children))
        now = v.get("count_next") or v.get("pending_guild")
        for i, (name, a, b) in enumerate(rows):
            head, first, second = cells[3 * i:3 * i + 3]
            head.text, head.bold, head.now = name, True, name == now
            first.text, second.text = a, b
            first.now = second.now = name == now
            first.bold = second.bold = name in heads
            first.color = second.color = head.color = ((0.7, 0.7, 0.72, 1) if name in heads else
                                                       (0.86, 0.69, 0.26, 1) if name == now else (0.96, 0.95, 0.90, 1))

    def _data(self):
        v = self.view
        key = "votes" if v["phase"] == "castes" else "symbols"
        self._entered = {s.key: int(s.number) for s in self._steppers}
        self._entered_for = v["count_next"]
        data = {key: dict(self._entered), **self.choices}
        data["caste" if v["phase"] == "castes" else "guild"] = v["count_next"]
        return data

    def _count(self):
        kind = "count_caste" if self.view["phase"] == "castes" else "count_guild"
        data = self._data()
        tie = self.tie_needed(kind, **data)
        if tie is not None:
            self.tie, self._pending = tie, (kind, data)
            self.refresh()
            return
        self._send(kind, data)

    def count_rest(self):
        """Count every Caste and Guild still to count with the numbers last entered, stopping where
        a person must decide (a tie for the Princeps, a Guild card's use) or a count was never made."""
        self._carrying = True
        while self._carrying:
            v = self.app.view or {}
            name = v.get("count_next")
            carried = (v.get("carried") or {}).get(name) if name else None
            if v.get("phase") not in ("castes", "guilds") or v.get("pending_guild") or carried is None:
                break
            self._entered, self._entered_for = dict(carried), name
            kind = "count_caste" if v["phase"] == "castes" else "count_guild"
            data = {"votes" if kind == "count_caste" else "symbols": dict(carried),
                    "caste" if kind == "count_caste" else "guild": name}
            tie = self.tie_needed(kind, **data)
            if tie is not None:
                self.tie, self._pending = tie, (kind, data)
                self.refresh()
                return  # _break carries on after the Princeps' choice
            if not self.app.send(kind, **data):
                break
        self._carrying = False

    def _break(self, player):
        kind, data = self._pending
        data = {**data, getattr(self.tie, "field", "choice"): player}
        self.choices = {k: data[k] for k in ("primus", "secundus", "choice") if k in data}
        self.tie = None
        tie = self.tie_needed(kind, **data)
        if tie is not None:  # a Primus tie, then a Secundus tie in the same count
            self.tie, self._pending = tie, (kind, data)
            self.refresh()
            return
        self._send(kind, data)

    def _send(self, kind, data):
        self.tie, self.choices = None, {}
        if self.app.send(kind, **data):
            self._entered, self._entered_for = {}, None
            if getattr(self, "_carrying", False):
                self.count_rest()
        else:
            self._carrying = False
            self.refresh()


def make(app):
    return MajoritiesScreen(name="cicero.majorities", app=app)
