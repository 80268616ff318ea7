"""Results are recorded once: every outcome (a tally's winner, a tie broken, a Captain, a
Princeps, a count, an elimination, points, a game's winners) is decided in ``decide`` and carried
by an event; ``evolve`` only applies it (companion/core/rules.py says the contract).

The journals replayed here are every game's recorded journals: the golden games (tests/golden),
the worked games of docs/commands.md, and random playthroughs (tests/games/random_play.py).

- Replayed with every deciding function replaced by one that raises, each game folds to the
  very same state, outcome and table view: replaying never decides anything again.
- Replayed after a tally or scoring function changes its answer, a recorded game keeps its
  result (on the code before this change, Seven Knights' Captain and winners, the mask game's
  count and verdict, Cicero's tribute cost and 23 Knives' Forum going into the Curia were worked
  out again while folding, and changed).
- The same journals with the recorded results taken out (a journal of an older version) replay
  to the same state by the legacy path, which only such events take.
- A journal records the rules version each game was played under, and the export shows it.
"""
from __future__ import annotations

import importlib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import pytest

from companion.core import commands_doc, tally
from companion.core.events import BadInput, Command, Event, RuleError
from companion.core.journal import Journal
from companion.core.rules import TABLE, rules_version_of
from companion.core.session import GameSession, rules_for

ROOT = Path(__file__).resolve().parents[2]

# Each game's deciding functions: (module, attribute). Replaying a recorded game calls none.
DECIDING: dict[str, list[tuple[str, str]]] = {
    "knives23": [("companion.games.knives23.scoring", n) for n in
                 ("issue_vote_outcome", "exile_outcome", "final_result")]
    + [("companion.games.knives23.rules", "final_result_of")],
    "sevenknights": [("companion.games.sevenknights.scoring", n) for n in
                     ("choose_captain", "captain_data", "score_round", "round_result", "game_winners")],
    "masks": [("companion.games.masks.scoring", n) for n in
              ("most_voted", "vote_counts", "top_players", "who_checks", "count_of", "executioner_to_choose",
               "judge")],
    "cicero": [("companion.games.cicero.logic", n) for n in
               ("first_princeps", "elect_princeps", "automatii_beneficiary", "tally_counts", "caste_majority",
                "guild_majority", "card_points", "most_prestigious")],
}
# Every tally of core.tally, whichever game calls it.
TALLIES = (tally.BinaryMajority, tally.PluralityAllTiedOut, tally.WeightedPlurality, tally.CaptainRule)
# What a view may still work out for a game in progress: a forecast of what the next decision
# will be (Cicero's election screen says whom the Automatii will back, its Prestige screen the
# points the cards would bring). Never a recorded result; a finished game's outcome needs none.
FORECASTS = {("companion.games.cicero.logic", "automatii_beneficiary"),
             ("companion.games.cicero.logic", "card_points")}


# The events that carry a decision (or undo one): the points of a journal worth replaying to.
DECISIONS = frozenset({"vote_revealed", "vote_result", "tie_broken", "game_over", "captain_tile_revealed",
                       "formation_revealed", "toriko_revealed", "arrow_corrected", "pointing_corrected", "executioner_chose", "identities_revealed",
                       "first_princeps_elected", "first_princeps_corrected", "princeps_elected", "princeps_tied",
                       "princeps_chosen",
                       "senate_votes_corrected", "caste_counted", "guild_counted", "majority_cards_corrected",
                       "prestige_scored", "undo"})


class Decided(AssertionError):
    """A deciding function was called while a recorded game was replayed."""


def _every_reference(module: str, name: str) -> list[tuple[Any, str]]:
    """Where the function is reachable: its module and every companion module that imported it."""
    original = getattr(importlib.import_module(module), name)
    return [(m, attr) for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("companion")
            for attr, value in list(vars(m).items()) if value is original]


def replace_deciding(monkeypatch, game: str, make: Callable[[str, Callable], Callable],
                     skip: frozenset = frozenset(), tallies: bool = True) -> None:
    """Every deciding function of ``game`` (and the core tallies) replaced by ``make(name, original)``."""
    for module, name in DECIDING[game]:
        if (module, name) in skip:
            continue
        original = getattr(importlib.import_module(module), name)
        new = make(f"{module}.{name}", original)
        for holder, attr in _every_reference(module, name):
            monkeypatch.setattr(holder, attr, new)
    if tallies:
        for cls in TALLIES:
            monkeypatch.setattr(cls, "decide", make(f"{cls.__name__}.decide", cls.decide))


def raising(name: str, original: Callable) -> Callable:
    def decide_again(*args, **kwargs):
        raise Decided(f"{name} was called while replaying a recorded game")
    return decide_again


# -- the recorded journals ------------------------------------------------------------------------

Recorded = tuple[str, str, dict, list[Event]]   # (where it comes from, game, setup, events)


def _games_in(path: Path, where: str) -> list[Recorded]:
    journal = Journal(path)
    try:
        return [(f"{where} #{g.id}", g.game, dict(g.setup), journal.events(g.id)) for g in journal.games()]
    finally:
        journal.close()


def _golden_games(tmp: Path) -> list[Recorded]:
    from tests.games import test_cicero_golden, test_knives23_golden, test_masks_golden, test_sevenknights_game
    out: list[Recorded] = []
    (tmp / "k").mkdir()
    test_knives23_golden.transcript(tmp / "k")
    out += _games_in(tmp / "k" / "golden.db", "golden knives23")
    for name, setup in (("3p", test_cicero_golden.THREE_PLAYERS), ("2p", test_cicero_golden.TWO_PLAYERS)):
        (tmp / f"c{name}").mkdir()
        test_cicero_golden.transcript(setup, tmp / f"c{name}")
        out += _games_in(tmp / f"c{name}" / "golden.db", f"golden cicero {name}")
    for name, commands in test_masks_golden.ROUNDS.items():
        (tmp / name).mkdir()
        test_masks_golden.transcript(tmp / name, commands)
        out += _games_in(tmp / name / "golden.sqlite", f"golden {name}")
    from companion.games.sevenknights.rules import SevenKnightsRules
    journal = Journal(tmp / "sk.sqlite")
    test_sevenknights_game.transcript(GameSession.start(journal, SevenKnightsRules(), test_sevenknights_game.SETUP),
                                      test_sevenknights_game.SCRIPT)
    journal.close()
    return out + _games_in(tmp / "sk.sqlite", "golden sevenknights")


def _doc_games(tmp: Path) -> list[Recorded]:
    """docs/commands.md's worked games, played as ``referee GAME play`` plays them (undo too)."""
    journal = Journal(tmp / "doc.sqlite")
    try:
        for game, text in commands_doc.examples_in((ROOT / "docs" / "commands.md").read_text("utf-8")).items():
            data = json.loads(text)
            rules = rules_for(game)
            session = GameSession.start(journal, rules, data["setup"])
            for entry in data["commands"]:
                args = {k: v for k, v in entry.items() if k != "command"}
                if entry["command"] == "undo" and "undo" not in rules.commands:
                    session.undo()
                else:
                    session.execute(Command(entry["command"], args, "tablet"))
            assert rules.outcome(session.state) is not None, f"the worked {game} game does not end"
    finally:
        journal.close()
    return _games_in(tmp / "doc.sqlite", "docs/commands.md")


def _random_games(tmp: Path, game: str) -> list[Recorded]:
    from tests.games.random_play import play
    from tests.games.test_random_play import IGNORED, SIDE, _rules
    rules, setup = _rules(game)
    path = tmp / f"random-{game}.sqlite"
    done = play(rules, setup, 7, 600, path, side=SIDE.get(game, frozenset()),
                ignored=IGNORED.get(game, frozenset()))
    assert done.finished >= 1, done   # at least one whole game, to its result
    return _games_in(path, f"random {game} seed 7")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, list[Recorded]]:
    tmp = tmp_path_factory.mktemp("recorded")
    (tmp / "golden").mkdir()
    games = _golden_games(tmp / "golden") + _doc_games(tmp)
    out: dict[str, list[Recorded]] = {}
    for entry in games:
        out.setdefault(entry[1], []).append(entry)
    return out


@pytest.fixture(scope="module")
def random_recorded(tmp_path_factory) -> dict[str, list[Recorded]]:
    tmp = tmp_path_factory.mktemp("random")
    return {game: _random_games(tmp, game) for game in DECIDING}


GAMES = sorted(DECIDING)


def _folded(game: str, setup: dict, events: list[Event]):
    rules = rules_for(game)
    state = rules.fold(setup, events)
    return state, rules.outcome(state)


def _view(game: str, state) -> Any:
    return rules_for(game).view(state, TABLE)


def _check_replay_decides_nothing(monkeypatch, game: str, games: list[Recorded], prefixes: bool) -> int:
    """Every journal (and, with ``prefixes``, every point of it where a result was recorded)
    folds with the deciding functions raising to what it folds to without."""
    checked = 0
    for where, _game, setup, events in games:
        cuts = [len(events)]
        if prefixes:   # after each command that decided something (one command's events share one time)
            ends = [i + 1 for i, e in enumerate(events) if i + 1 == len(events) or events[i + 1].at != e.at]
            cuts = [n for k, n in enumerate(ends) if n == len(events)
                    or any(e.kind in DECISIONS for e in events[(ends[k - 1] if k else 0):n])]
        expected = []
        for n in cuts:
            state, outcome = _folded(game, setup, events[:n])
            expected.append((n, state, outcome, _view(game, state)))
        with monkeypatch.context() as m:
            replace_deciding(m, game, raising)
            for n, state, outcome, _ in expected:
                again, outcome_again = _folded(game, setup, events[:n])
                assert again == state, f"{where}: after {n} events the replay differs"
                assert outcome_again == outcome, f"{where}: after {n} events the outcome differs"
        with monkeypatch.context() as m:   # the table's view: only forecasts may be worked out
            replace_deciding(m, game, raising, skip=frozenset(FORECASTS))
            for n, state, _, view in expected:
                assert _view(game, state) == view, f"{where}: after {n} events the view differs"
        checked += 1
    return checked


# -- (a) replaying decides nothing ------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_golden_and_documented_games_replay_with_every_deciding_function_raising(game, recorded, monkeypatch):
    games = recorded[game]
    assert any(_folded(game, s, e)[1] is not None for _, _, s, e in games), "no finished game to replay"
    assert _check_replay_decides_nothing(monkeypatch, game, games, prefixes=True) == len(games) >= 2


@pytest.mark.parametrize("game", GAMES)
def test_random_playthroughs_replay_with_every_deciding_function_raising(game, random_recorded, monkeypatch):
    games = random_recorded[game]
    assert _check_replay_decides_nothing(monkeypatch, game, games, prefixes=False) == len(games) >= 1


def test_the_raising_functions_do_raise_where_a_game_decides(recorded, monkeypatch):
    """The replacement reaches the functions the rules call: playing (deciding) raises."""
    from companion.games.sevenknights.rules import SevenKnightsRules
    from tests.games import test_sevenknights_game as sk
    replace_deciding(monkeypatch, "sevenknights", raising)
    session = GameSession.start(Journal(":memory:"), SevenKnightsRules(), sk.SETUP)
    with pytest.raises(Decided, match="captain_data|choose_captain"):
        for command in sk.SCRIPT:
            try:
                session.execute(command)
            except (RuleError, BadInput):   # the script tries refused commands too
                pass


# -- (b) a recorded game keeps its result after a rule changes -------------------------------------

def _other(names, among) -> list[str]:
    """A different answer than ``names``: the players it left out (or the first of them)."""
    rest = [p for p in among if p not in names]
    return rest or list(among[:1])


def changed_answers(game: str) -> Callable[[str, Callable], Callable]:
    """Each deciding function giving a different answer than today's (a later 'fix')."""
    def make(name: str, original: Callable) -> Callable:
        short = name.rsplit(".", 1)[-1] if not name.endswith(".decide") else name

        def changed(*args, **kwargs):
            out = original(*args, **kwargs)
            if short == "CaptainRule.decide":              # the farthest seat is always Captain
                seats = args[1]
                return replace(out, winner=seats[-1] if out.winner != seats[-1] else seats[0], tie=not out.tie)
            if short == "PluralityAllTiedOut.decide":      # the least voted choice is on top
                least = min(out.counts, key=lambda c: out.counts[c]) if out.counts else None
                return replace(out, leaders=(least,) if least else (), winner=least)
            if short == "game_winners" or short == "most_prestigious":
                return _other(out, args[0] if short == "game_winners" else list(args[0]))
            if short == "judge":
                return replace(out, winners=tuple(_other(out.winners, args[0])), result="draw")
            if short == "final_result":
                return {**out, "winners": _other(out["winners"], [t.name for t in args[0]]),
                        "caesar_dead": not out["caesar_dead"]}
            if short == "elect_princeps":
                return replace(out, princeps=_other([out.princeps], args[0])[0])
            return out
        return changed
    return make


@pytest.mark.parametrize("game", GAMES)
def test_a_recorded_game_keeps_its_result_after_a_scoring_or_tally_function_changes(game, recorded, monkeypatch):
    finished = [(w, s, e) for w, _, s, e in recorded[game] if _folded(game, s, e)[1] is not None]
    assert finished
    for where, setup, events in finished:
        state, outcome = _folded(game, setup, events)
        with monkeypatch.context() as m:
            replace_deciding(m, game, changed_answers(game))
            again, outcome_again = _folded(game, setup, events)
        assert outcome_again == outcome and again == state, f"{where}: the result changed with the rule"


def test_a_recorded_game_keeps_its_prestige_after_a_cost_changes(recorded, monkeypatch):
    """Cicero's tribute in Prestige costs TRIBUTE_PP: the cost paid is recorded with it."""
    from companion.games.cicero import rules as cicero_rules
    paid = [(w, s, e) for w, _, s, e in recorded["cicero"]
            if any(x.kind == "tribute_paid" and x.data["how"] == "prestige" for x in e)]
    assert paid
    for where, setup, events in paid:
        before = _folded("cicero", setup, events)
        with monkeypatch.context() as m:
            m.setattr(cicero_rules, "TRIBUTE_PP", cicero_rules.TRIBUTE_PP * 2)
            assert _folded("cicero", setup, events) == before, f"{where}: the Prestige changed with the cost"


def test_a_recorded_game_keeps_its_turns_ends_after_the_forum_limit_changes(recorded, random_recorded, monkeypatch):
    """23 Knives: "Once there are 5 or more Fate cards in the Forum after the end of your turn"
    the Forum goes into the Curia. Each turn's end records whether it did."""
    from companion.games.knives23.tables import tables
    games = recorded["knives23"] + random_recorded["knives23"]
    for where, _, setup, events in games:
        before = _folded("knives23", setup, events)
        with monkeypatch.context() as m:
            m.setitem(tables()["forum"], "flush_at", tables()["forum"]["flush_at"] + 1)
            assert _folded("knives23", setup, events) == before, f"{where}: a turn's end changed"
    # (and the games replayed had Forums going into the Curia at a turn's end)
    assert sum(1 for _, _, _, events in games for e in events if e.data.get("flush")) >= 3


def test_a_recorded_game_keeps_its_end_after_the_number_of_rounds_changes(recorded, monkeypatch):
    """Seven Knights: "The game ends after 3 rounds." A finished game stays finished, with its
    winners, when a later version plays more rounds."""
    from companion.games.sevenknights import tables as sk_setup
    finished = [(w, s, e) for w, _, s, e in recorded["sevenknights"] if _folded("sevenknights", s, e)[1]]
    assert finished
    for where, setup, events in finished:
        before = _folded("sevenknights", setup, events)
        with monkeypatch.context() as m:
            for key, mode in list(sk_setup.MODES.items()):
                m.setitem(sk_setup.MODES, key, replace(mode, rounds=mode.rounds + 1))
            assert _folded("sevenknights", setup, events) == before, f"{where}: the game's end changed"


def test_the_changed_rules_do_change_a_game_played_afresh(monkeypatch):
    """The changed functions are real changes: a game played now under them ends otherwise."""
    from companion.games.masks.rules import MasksRules
    from tests.games import test_masks_golden as mg

    def play() -> Any:
        session = GameSession.start(Journal(":memory:"), MasksRules(), {"players": mg.PLAYERS})
        for command in mg.ROUNDS["masks_round"]:
            if isinstance(command, Command):
                try:
                    session.execute(command)
                except (RuleError, BadInput):   # the golden round tries refused commands too
                    pass
        return MasksRules().outcome(session.state)
    today = play()
    replace_deciding(monkeypatch, "masks", changed_answers("masks"), tallies=False,
                     skip=frozenset(DECIDING["masks"]) - {("companion.games.masks.scoring", "judge")})
    assert today is not None and play()["winners"] != today["winners"]


# -- old journals: the legacy path ----------------------------------------------------------------

# What this change added to the events: taken out, a journal reads as an older version wrote it.
RECORDED_KEYS = {"vote_revealed": ("result", "count"), "pointing_corrected": ("count",),
                 "identities_revealed": ("verdict",), "executioner_chose": ("verdict",),
                 "formation_revealed": ("winners", "last"), "captain_tile_revealed": ("winners", "last"),
                 "tribute_paid": ("delta",), "turn_ended": ("flush",), "issue_resolved": ("flush",),
                 "board_corrected": ("flush",), "game_started": ("rules_version",)}


def as_older_version(events: list[Event]) -> list[Event]:
    return [replace(e, data={k: v for k, v in e.data.items() if k not in RECORDED_KEYS.get(e.kind, ())})
            for e in events]


@pytest.mark.parametrize("game", GAMES)
def test_a_journal_recorded_before_results_were_replays_to_the_same_result(game, recorded, random_recorded):
    stripped = 0
    for where, _, setup, events in recorded[game] + random_recorded[game]:
        old = as_older_version(events)
        stripped += old != events
        assert _folded(game, setup, old) == _folded(game, setup, events), f"{where}: the old journal replays otherwise"
    assert stripped


# -- the rules version ------------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_each_game_records_the_rules_version_it_is_played_under(game, recorded, tmp_path):
    package = importlib.import_module(f"companion.games.{game}")
    assert isinstance(package.RULES_VERSION, int) and rules_for(game).rules_version == package.RULES_VERSION
    for where, _, _, events in recorded[game]:
        assert events[0].kind == "game_started" and rules_version_of(events) == package.RULES_VERSION, where
    assert rules_version_of(as_older_version(recorded[game][0][3])) is None


def test_the_export_shows_the_rules_version(recorded, tmp_path):
    from companion import export
    from companion.games.masks import RULES_VERSION
    from tests.games import test_masks_golden as mg
    mg.transcript(tmp_path, mg.ROUNDS["masks_round"])
    journal = Journal(tmp_path / "golden.sqlite")
    try:
        [game] = journal.games()
        path = export.export_game(journal, game.id, "json", tmp_path)
        report = json.loads(path.read_text("utf-8"))
        assert report["rules_version"] == RULES_VERSION == 1
    finally:
        journal.close()
