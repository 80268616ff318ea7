"""Table setup: how many players, their names in clockwise seat order, colours, the first
player, the game's options, and its house rules (the readings the rulebook leaves open, chosen
by the table and remembered for the group, issue 33)."""
from __future__ import annotations

import random
from typing import Any

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen

from companion.app.screens import load_kv
from companion.app.theme import SEAT_COLOURS
from companion.core.events import BadInput
from companion.core.groups import Group, Groups
from companion.core.houserules import SETUP_KEY as HOUSE_RULES
from companion.core.i18n import error_text, tr

load_kv(__file__)
RANDOM = "random"


class SeatRow(Factory.BoxLayout):
    seat = NumericProperty(1)
    colour = StringProperty("red")


class SetupScreen(Screen):
    app = ObjectProperty()
    ui = ObjectProperty(None, allownone=True)
    count = NumericProperty(5)
    count_values = ListProperty([])
    first_values = ListProperty([])
    error = StringProperty("")

    def prepare(self, ui):
        self.ui = ui
        self.error = ""
        self.count_values = [str(n) for n in range(ui.min_players, ui.max_players + 1)]
        self.count = min(max(self.count, ui.min_players), ui.max_players)
        self.ids.count_spinner.text = str(self.count)
        self._build_rows()
        self._build_options()
        self._build_house_rules()
        self.show_groups()

    # -- remembered groups -------------------------------------------------------------------
    def _groups(self) -> Groups:
        try:
            groups = Groups.load(self.app.data_dir)
        except BadInput as exc:
            self.app.toast(error_text(exc))
            return Groups(self.app.data_dir / "groups.json")
        if groups.moved_aside is not None:
            self.app.toast(tr("setup.groups_damaged", file=groups.moved_aside.name))
        return groups

    def show_groups(self):
        """The groups this game can be played with, each one tap from a full table."""
        box = self.ids.groups
        box.clear_widgets()
        for group in self._groups().fitting(self.ui.min_players, self.ui.max_players):
            row = Factory.GroupRow()
            row.group_id = group.id
            row.ids.choose.text = tr("setup.group_choice", name=group.name, players=", ".join(group.players))
            row.ids.choose.bind(on_release=lambda _b, g=group: self.use_group(g))
            row.ids.rename.bind(on_release=lambda _b, g=group: self.ask_rename(g))
            row.ids.forget.bind(on_release=lambda _b, g=group: self.ask_forget(g))
            box.add_widget(row)

    def use_group(self, group: Group):
        """The group's players in their seats with their colours; Start is the next tap."""
        self.count = len(group.players)
        self.ids.count_spinner.text = str(self.count)
        self._build_rows()
        known = dict(SEAT_COLOURS)
        for row, name, colour in zip(self._rows(), group.players, group.colours):
            row.ids.name.text = name
            if colour in known:
                row.colour = colour
        self._refresh_first()
        self.set_house_rules(group.house_rules_for(self.ui.game_id))

    def _popup(self, title: str, body) -> Popup:
        popup = Popup(title=title, content=body, size_hint=(0.8, None), height=body.height + dp(96),
                      title_size="24sp", auto_dismiss=True)
        body.ids.cancel.bind(on_release=lambda *_: popup.dismiss())
        popup.open()
        return popup

    def ask_rename(self, group: Group):
        body = Factory.GroupRenameBox()
        body.ids.name.text = group.name
        popup = self._popup(tr("setup.group_rename_title", name=group.name), body)

        def save(*_):
            try:
                self._groups().rename(group.id, body.ids.name.text)
            except BadInput as exc:
                self.app.toast(error_text(exc))
                return
            popup.dismiss()
            self.show_groups()
        body.ids.ok.bind(on_release=save)
        body.ids.name.bind(on_text_validate=save)
        self.rename_popup = popup

    def ask_forget(self, group: Group):
        """Asked first: a group typed once is a group worth keeping."""
        body = Factory.GroupForgetBox()
        body.ids.question.text = tr("setup.group_forget_confirm", name=group.name)
        popup = self._popup(tr("setup.group_forget"), body)

        def forget(*_):
            popup.dismiss()
            try:
                self._groups().forget(group.id)
            except BadInput as exc:
                self.app.toast(error_text(exc))
            self.show_groups()
        body.ids.ok.bind(on_release=forget)
        self.forget_popup = popup

    def set_count(self, text):
        if text and text.isdigit() and int(text) != self.count:
            self.count = int(text)
            self._build_rows()

    def _build_rows(self):
        box = self.ids.seats
        old = {row.seat: row.ids.name.text for row in box.children}
        box.clear_widgets()
        for seat in range(1, self.count + 1):
            row = SeatRow(seat=seat, colour=SEAT_COLOURS[(seat - 1) % len(SEAT_COLOURS)][0])
            row.ids.name.text = old.get(seat, "")
            row.ids.name.hint_text = tr("setup.default_name", n=seat)
            row.ids.name.bind(text=lambda *_: self._refresh_first())
            row.ids.extra.clear_widgets()
            for f in self.ui.seat_fields:
                field = Factory.SeatField(hint_text=tr(f.label))
                field.key = f.key
                row.ids.extra.add_widget(field)
            box.add_widget(row)
        self._refresh_first()

    def _rows(self):
        return sorted(self.ids.seats.children, key=lambda r: r.seat)

    def names(self):
        return [r.ids.name.text.strip() or tr("setup.default_name", n=r.seat) for r in self._rows()]

    def _refresh_first(self):
        self.first_values = [tr("setup.random_first")] + self.names()
        if self.ids.first_spinner.text not in self.first_values:
            self.ids.first_spinner.text = self.first_values[0]

    def _build_options(self):
        box = self.ids.options
        box.clear_widgets()
        self._option_widgets = {}
        for opt in self.ui.options:
            row = Factory.OptionRow()
            row.ids.label.text = tr(opt.label)
            row.ids.help.text = tr(opt.help) if opt.help else ""
            if opt.kind == "bool":
                w = Factory.OptionToggle(state="down" if opt.default else "normal")
            elif opt.kind == "choice":
                w = Factory.OptionSpinner(values=[tr(f"{opt.label}.{c}") for c in opt.choices],
                                          text=tr(f"{opt.label}.{opt.default}"))
                w.choice_keys = list(opt.choices)
            else:
                w = Factory.OptionSpinner(values=[str(n) for n in range(opt.minimum, opt.maximum + 1)], text=str(opt.default))
            row.ids.slot.add_widget(w)
            self._option_widgets[opt.key] = (opt, w)
            box.add_widget(row)

    def option_values(self):
        out = {}
        for key, (opt, w) in self._option_widgets.items():
            if opt.kind == "bool":
                out[key] = w.state == "down"
            elif opt.kind == "choice":
                out[key] = w.choice_keys[w.values.index(w.text)]
            else:
                out[key] = int(w.text)
        return out

    # -- house rules ---------------------------------------------------------------------------
    def _build_house_rules(self):
        """One row per house rule of the game: its question, the rulebook's words, and each
        reading as a button (the first, the app's reading so far, chosen)."""
        box = self.ids.house_rules
        box.clear_widgets()
        self._house_rule_buttons: dict[str, dict[str, Any]] = {}
        for rule in self.ui.rules.house_rules:
            row = Factory.HouseRuleRow()
            row.ids.question.text = tr(rule.label)
            row.ids.words.text = tr(rule.rule)
            buttons = {}
            for reading in rule.readings:
                button = Factory.ReadingToggle(text=tr(rule.reading_label(reading)),
                                               group=f"house_rule.{rule.name}")
                button.reading = reading
                button.state = "down" if reading == rule.default else "normal"
                row.ids.readings.add_widget(button)
                buttons[reading] = button
            self._house_rule_buttons[rule.name] = buttons
            box.add_widget(row)

    def house_rule_values(self) -> dict[str, str]:
        """``{name: reading}`` as chosen on the screen (a rule with no button down: its default)."""
        out = {}
        for rule in self.ui.rules.house_rules:
            buttons = self._house_rule_buttons.get(rule.name, {})
            out[rule.name] = next((r for r, b in buttons.items() if b.state == "down"), rule.default)
        return out

    def set_house_rules(self, choices):
        """The readings a group chose last time; a rule it never chose, or a reading the game no
        longer lists, takes the default."""
        for rule in self.ui.rules.house_rules:
            reading = choices.get(rule.name, rule.default)
            if reading not in rule.readings:
                reading = rule.default
            for r, button in self._house_rule_buttons.get(rule.name, {}).items():
                button.state = "down" if r == reading else "normal"

    def make_setup(self, table) -> dict:
        """The game's setup from the table, its options and (when the game has any) its house
        rules, recorded as ``setup["house_rules"]`` so a replay and the referee decide alike."""
        setup = self.ui.make_setup(table, self.option_values())
        if self.ui.rules.house_rules:
            setup[HOUSE_RULES] = self.house_rule_values()
        return setup

    def table(self, rng=random):
        names = self.names()
        if len(set(n.casefold() for n in names)) != len(names):
            raise ValueError(tr("setup.duplicate_names"))
        first = self.ids.first_spinner.text
        if first not in names:
            first = rng.choice(names)
        seats = {}
        for row, name in zip(self._rows(), names):
            values = {}
            for field in row.ids.extra.children:
                text = field.text.strip()
                if not text.isdigit():
                    raise ValueError(tr("setup.seat_field_missing", field=field.hint_text, name=name))
                values[field.key] = int(text)
            if values:
                seats[name] = values
        table = {"players": names, "colours": [r.colour for r in self._rows()], "first": first}
        if seats:
            table["seats"] = seats
        return table

    def start(self):
        try:
            table = self.table()
        except ValueError as exc:
            self.error = str(exc)
            self.app.toast(self.error)
            return
        self.error = ""
        setup = self.make_setup(table)
        if self.app.start_game(self.ui, setup):
            # The group is remembered as it sat down, with its house rules for this game; a list
            # that cannot be written is said, and the game goes on.
            try:
                self._groups().remember(table["players"], table["colours"], game=self.ui.game_id,
                                        house_rules=setup.get(HOUSE_RULES))
            except BadInput as exc:
                self.app.toast(error_text(exc))


def make(app):
    return SetupScreen(name="setup", app=app)
