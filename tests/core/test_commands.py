"""The command tables (companion/core/commands.py): dispatch with typed arguments, what is
legal now, per seat, and the rule words each command quotes."""
from __future__ import annotations

import importlib
import re
from dataclasses import replace
from pathlib import Path

import pytest

from companion.core import votes
from companion.core.commands import legal_commands, legal_values
from companion.core.events import BadInput, Command
from companion.games.masks.rules import CENTER, MasksRules
from tests.games.random_play import secret_leaks

P = ("Ada", "Bo", "Cy", "Dee", "Eli")
RULES = Path("/work/shared/rules")
GAMES = {"masks": ("MasksRules", "royals-and-martyr-masks.txt"),
         "knives23": ("Knives23Rules", "23-knives.txt"),
         "sevenknights": ("SevenKnightsRules", "seven-knights-bewitched.txt"),
         "cicero": ("CiceroRules", "cicero.txt")}


def _step(rules, state, kind, **data):
    from companion.core.rules import fold_step
    from companion.core.events import Event
    for i, (k, d) in enumerate(rules.decide(state, Command(kind, data))):
        state = fold_step(rules, state, Event(i + 1, k, d))
    return state


def _discussion():
    rules = MasksRules()
    state = rules.initial_state({"players": list(P)})
    for kind in ("start_hidden_phase", "end_hidden_phase"):
        state = _step(rules, state, kind)
    return rules, state


def test_a_wrong_type_is_bad_input_naming_the_argument_before_any_rule():
    rules = MasksRules()
    state = rules.initial_state({"players": list(P)})  # the deal: the Vanguard is not usable yet
    with pytest.raises(BadInput, match=r"^use_vanguard\.player: 3 is not a player"):
        rules.decide(state, Command("use_vanguard", {"player": 3}))
    with pytest.raises(BadInput, match="has no argument “who”"):
        rules.decide(state, Command("use_vanguard", {"who": "Ada"}))
    with pytest.raises(BadInput, match="use_vanguard needs player: who used"):
        rules.decide(state, Command("use_vanguard", {}))


def test_legal_commands_list_the_allowed_values_and_follow_the_rules():
    rules, state = _discussion()
    legal = {e.name: e for e in legal_commands(rules, state)}
    assert set(legal) == {"use_vanguard", "end_discussion"}
    assert legal["use_vanguard"].args["player"] == P
    state = _step(rules, state, "use_vanguard", player="Cy")
    assert legal_values(rules, state, "use_vanguard", "player") == ()  # "already been used"
    state = _step(rules, state, "end_discussion")
    assert [e.name for e in legal_commands(rules, state)] == ["cast_ballot"]
    # The Vanguard may only abstain; the others never themselves, never abstain.
    assert legal_values(rules, state, "cast_ballot", "choice", seat="Cy") == ()
    mine = legal_commands(rules, state, seat="Ada")
    assert [e.name for e in mine] == ["cast_ballot"]
    assert mine[0].args["voter"] == ("Ada",)
    assert set(mine[0].args["choice"]) == {"Bo", "Cy", "Dee", "Eli", CENTER}


def test_every_game_lists_something_legal_at_the_start_and_types_every_argument():
    for game, (cls, _) in GAMES.items():
        rules = getattr(importlib.import_module(f"companion.games.{game}.rules"), cls)()
        setup = {"players": list(P[:4]), "ages": {p: 20 + i for i, p in enumerate(P[:4])}} \
            if game == "cicero" else {"players": list(P if game == "masks" else P[:4])}
        assert legal_commands(rules, rules.initial_state(setup)), game
        for spec in rules.commands:
            assert spec.rule and spec.doc and spec.who, (game, spec.name)


def _words(text: str) -> str:
    text = re.sub(r"\n- ", " ", text)  # the rulebook's bulleted lists read as one sentence
    text = text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2019", "'").replace("\u2013", "-")
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_command_quotes_its_rulebook(game):
    cls, book = GAMES[game]
    rules = getattr(importlib.import_module(f"companion.games.{game}.rules"), cls)()
    text = _words((RULES / book).read_text(encoding="utf-8"))
    for spec in rules.commands:
        # a quotation may leave words out with "[...]"
        for part in _words(spec.rule).split("[...]"):
            assert part.strip(" .") in text, f"{game} {spec.name}: {part!r} is not in the rulebook"


def test_the_secrecy_check_catches_a_view_that_shows_a_ballot():
    class Leaky(MasksRules):
        def view(self, state, viewer):
            v = super().view(state, viewer)
            if state.book.current is not None:
                v["peek"] = state.book.current.choices()
            return v

    rules, state = _discussion()
    state = _step(rules, state, "end_discussion")
    state = _step(rules, state, "cast_ballot", voter="Ada", choice="Bo")
    assert secret_leaks(MasksRules(), state) == []
    assert set(secret_leaks(Leaky(), state)) == set(P[1:]) | {"table", "narrator"}
    # the voter's own ballot is theirs to see
    assert "Ada" not in secret_leaks(Leaky(), state)
    assert isinstance(state.book.current.ballots["Ada"], votes.Ballot)
    assert replace(state) == state
