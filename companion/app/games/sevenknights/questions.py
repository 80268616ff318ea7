"""Question Phase (and the Captain's additional question): the shared question log and a
composer with the rulebook's example questions as templates.

"We can only speak during the Question Phase, and that's just a single question with a single
answer each. Writing down questions and sharing them with everyone is one way to go." The log
is that shared sheet: who asked whom, the question, Yes or No.
"""
from __future__ import annotations

from kivy.factory import Factory
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from companion.app.games.sevenknights.common import SKScreen, player_button
from companion.app.screens import load_kv
from companion.core.i18n import text_of, tr
from companion.games.sevenknights import NEEDS_N, NEEDS_OTHER, TEMPLATES, question_text

load_kv(__file__)


def grid_cols(n: int) -> int:
    """Players in at most two rows (7 others at 8 players: 4 + 3), so the composer fits 1280x800."""
    return max(1, n if n <= 4 else (n + 1) // 2)


class QuestionsScreen(SKScreen):
    target = StringProperty("")
    template = StringProperty("odd")
    n = NumericProperty(0)
    other = StringProperty("")
    preview = StringProperty("")
    ready = BooleanProperty(False)
    needs_n = BooleanProperty(False)
    needs_other = BooleanProperty(False)
    free = BooleanProperty(False)
    _asker = ""

    def refresh(self):
        v = self.view
        if not v:
            return
        self._log()
        if v.get("phase") not in ("questions", "order_question"):
            return
        if v.get("turn") != self._asker:  # a new asker: a fresh draft
            self._asker = v.get("turn") or ""
            self.target, self.template, self.n, self.other = "", "odd", 0, ""
            self.ids.free_text.text = ""
        self._composer()

    def _log(self):
        rows = []
        for i, q in enumerate(self.view.get("questions", []), start=1):
            who = tr("sevenknights.ui.captain_mark") + " " if q["by_captain"] else ""
            colour = "5cb85c" if q["answer"] == "yes" else "e06055"
            rows.append(tr("sevenknights.ui.log_row", i=i, who=who, asker=q["asker"], target=q["target"],
                           question=q["text"], answer=f"[color={colour}][b]{q['answer_text']}[/b][/color]"))
        self.fill(self.ids.log, rows or [tr("sevenknights.ui.no_questions")],
                  lambda s: Factory.SKLogRow(text=s))

    def _composer(self):
        """Build the composer's buttons; only rebuild a grid whose choices changed (a tap
        merely moves the highlight)."""
        v = self.view
        self.needs_n, self.needs_other = self.template in NEEDS_N, self.template in NEEDS_OTHER
        self.free = self.template == "free"
        targets = v.get("ask_options", [])
        self.ids.targets.cols = grid_cols(len(targets))
        self._sync(self.ids.targets, targets, self.target,
                   lambda p: self._compact(player_button(self, p, on_press=self.set_target)))
        self._sync(self.ids.templates, TEMPLATES, self.template, self._template_button)
        self._sync(self.ids.numbers, list(range(1, 8)) if self.needs_n else [], self.n, self._number_button)
        others = [p for p in v.get("players", []) if p != self.target] if self.needs_other else []
        self.ids.others.cols = grid_cols(len(others))
        self._sync(self.ids.others, others, self.other,
                   lambda p: self._compact(player_button(self, p, on_press=self.set_other)))
        self._preview()

    @staticmethod
    def _compact(button):
        button.height, button.font_size = "52dp", "22sp"
        return button

    @staticmethod
    def _sync(box, keys, selected, make):
        current = [w.key for w in reversed(box.children)]
        if current != list(keys):
            box.clear_widgets()
            for k in keys:
                w = make(k)
                w.key = k
                box.add_widget(w)
        for w in box.children:
            w.selected = w.key == selected

    def _template_button(self, key):
        b = Factory.SKSmallButton(text=tr(f"sevenknights.qlabel.{key}"), height="52dp")
        b.bind(on_release=lambda *_: self.set_template(key))
        return b

    def _number_button(self, n):
        b = Factory.SKSmallButton(text=str(n), height="52dp")
        b.bind(on_release=lambda *_: self.set_n(n))
        return b

    def set_target(self, p):
        self.target = p
        if self.other == p:
            self.other = ""
        self._composer()

    def set_template(self, key):
        self.template = key
        self._composer()

    def set_n(self, n):
        self.n = n
        self._composer()

    def set_other(self, p):
        self.other = p
        self._composer()

    def on_free_text(self, *_):
        self._preview()

    def _draft(self) -> dict | None:
        if not self.target:
            return None
        d = {"target": self.target, "template": self.template}
        if self.needs_n:
            if not self.n:
                return None
            d["n"] = int(self.n)
        if self.needs_other:
            if not self.other:
                return None
            d["other"] = self.other
        if self.free:
            text = self.ids.free_text.text.strip()
            if not text:
                return None
            d["text"] = text
        return d

    def _preview(self):
        d = self._draft()
        self.ready = d is not None
        if d is None:
            self.preview = tr("sevenknights.ui.compose_hint")
        else:
            self.preview = tr("sevenknights.ui.preview", asker=self._asker, target=self.target,
                              question=text_of(question_text(dict(d, n=d.get("n"), other=d.get("other")))))

    def answer(self, yes: bool):
        d = self._draft()
        if d is None:
            return
        self.app.send("ask_question", answer="yes" if yes else "no", **d)


def make(app):
    return QuestionsScreen(name="sevenknights.questions", app=app)
