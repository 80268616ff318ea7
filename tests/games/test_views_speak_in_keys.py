"""Views speak in keys: nothing under companion/games/ or companion/core/ says a sentence in
the current language (an AST scan), and every view of every game, from one recorded journal,
is the same data whatever language is current while it is built, and reads in French and in
German when it is shown (``i18n.texts``) — a French-recorded game replays in German."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from companion.core import i18n
from companion.core.journal import Journal
from companion.core.session import GameSession
from tests.games.random_play import play
from tests.games.test_events_hold_keys import pseudo
from tests.games.test_random_play import IGNORED, SIDE, _rules

ROOT = Path(__file__).resolve().parents[2] / "companion"
# Where a sentence is said on purpose, at the moment it is said: the catalogue itself, and the
# timers' spoken warning (made as the narrator speaks it, like the narration engine's lines), and
# a remembered group's first name ("Thursday group"), given once in the table's language and from
# then on the table's own name for it, renamed like any typed name.
SAYS_NOW = {"core/i18n.py", "core/timers.py", "core/groups.py"}


def calls_that_say(path: Path) -> list[str]:
    """``tr(...)``/``ntr(...)`` calls (by name or as ``i18n.tr``) in a module, with their lines."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in ("tr", "ntr"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}()")
    return found


def test_no_module_of_the_games_or_the_core_says_a_sentence_in_the_current_language():
    scanned = [p for area in ("games", "core") for p in sorted((ROOT / area).rglob("*.py"))]
    assert len(scanned) > 40
    found = [c for p in scanned if str(p.relative_to(ROOT)) not in SAYS_NOW for c in calls_that_say(p)]
    assert found == []


def test_the_scan_finds_a_sentence_said_now(tmp_path):
    (tmp_path / "m.py").write_text("from companion.core import i18n\nx = i18n.tr('a.b')\ny = ntr('a.c', 2)\n")
    global ROOT
    before, ROOT = ROOT, tmp_path
    try:
        assert calls_that_say(tmp_path / "m.py") == ["m.py:2 tr()", "m.py:3 ntr()"]
    finally:
        ROOT = before


# A bug's message, for whoever reads the code or the log (a broken invariant, a wrong argument),
# never shown as a refusal: these may be English.
PROGRAMMER_ERRORS = {"ValueError", "TypeError", "KeyError", "IndexError", "LookupError", "RuntimeError",
                     "AssertionError", "NotImplementedError", "AttributeError"}
SENTENCE = re.compile(r"[A-Za-z]{2,}[\s,;:']+[A-Za-z]{2,}")


def person_facing_errors() -> set[str]:
    """The names of the errors whose message reaches a person: every BadInput, RuleError and
    SpeechError, the journal's storage errors among them."""
    import companion.core.journal  # noqa: F401  (its errors join the subclasses)
    from companion.core.events import BadInput, RuleError
    from companion.core.speakers import SpeechError
    found, todo = set(), [BadInput, RuleError, SpeechError]
    while todo:
        cls = todo.pop()
        found.add(cls.__name__)
        todo += cls.__subclasses__()
    return found


def _literal_words(node: ast.AST) -> str:
    """The literal text of a string or f-string argument ('' for anything else)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return ""


def sentences_raised(path: Path, facing: set[str]) -> list[str]:
    """``raise X("...")``/``raise X(f"...")`` (and a person-facing error made anywhere, e.g.
    returned to be raised, or ``require(condition, "...")``, which raises a RuleError) whose
    message is an English sentence written in the code."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    raised = {id(n.exc) for n in ast.walk(tree) if isinstance(n, ast.Raise) and n.exc is not None}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name == "require" and len(node.args) > 1:
            words = _literal_words(node.args[1])
        elif name in PROGRAMMER_ERRORS or not (id(node) in raised or name in facing):
            continue
        else:
            words = _literal_words(node.args[0])
        if SENTENCE.search(words):
            found.append((node.lineno, f"{path.relative_to(ROOT)}:{node.lineno} {name}({words[:40]!r})"))
    return [text for _line, text in sorted(found)]


def test_no_error_of_the_games_or_the_core_holds_an_english_sentence():
    facing = person_facing_errors()
    assert {"BadInput", "RuleError", "JournalDamaged", "StorageFull", "DataInUse", "SpeechError"} <= facing
    # the games, the core, the phone page's server, the app (its settings file, a device with no
    # game, a camera frame) and the command-line tools
    scanned = [p for area in ("games", "core", "phone", "app") for p in sorted((ROOT / area).rglob("*.py"))]
    scanned += sorted(ROOT.glob("*.py"))
    assert len(scanned) > 60
    assert [c for p in scanned for c in sentences_raised(p, facing)] == []


def test_the_scan_finds_a_sentence_raised(tmp_path):
    (tmp_path / "m.py").write_text(
        "def f(x, path):\n"
        "    if x:\n"
        "        raise BadInput(f'the journal {path} is damaged')\n"
        "    if not x:\n"
        "        raise events.RuleError('Not your turn')\n"
        "    raise ValueError('a clock cannot go back')\n"        # a bug's message: allowed
        "def g(path):\n"
        "    return JournalDamaged(f'journal {path} cannot be opened')\n"
        "def h():\n"
        "    raise BadInput(keyed('journal.full'))\n"             # keyed: allowed
        "    raise BadInput(f'{path}')\n"                        # no words: allowed
        "    require(x, f'{x} cannot vote for themself', RULE)\n")
    global ROOT
    before, ROOT = ROOT, tmp_path
    try:
        assert sentences_raised(tmp_path / "m.py", person_facing_errors()) == [
            "m.py:3 BadInput('the journal  is damaged')", "m.py:5 RuleError('Not your turn')",
            "m.py:8 JournalDamaged('journal  cannot be opened')", "m.py:12 require(' cannot vote for themself')"]
    finally:
        ROOT = before


def test_a_masks_refusal_reads_in_french_and_german_and_its_english_is_unchanged():
    from companion.core.events import Command, RuleError
    from companion.games.masks.rules import MasksRules
    rules = MasksRules()
    state = rules.initial_state({"players": ["Ann", "Ben", "Cat", "Dan", "Eve"]})
    with pytest.raises(RuleError) as e:
        rules.decide(state, Command("end_discussion"))
    assert str(e.value) == "Ending the Discussion is not possible now: the round is in the deal phase"
    assert i18n.text_of(e.value, "fr") == \
        "Terminer la Discussion n'est pas possible maintenant : la manche en est à la phase « distribution »"
    assert i18n.text_of(e.value, "de") == \
        "Das Ende der Diskussion ist jetzt nicht möglich: Die Runde ist in der Phase „Austeilen“"


def views_of_a_journal(game: str, tmp_path: Path, monkeypatch, steps: int = 250):
    """Every view (the table's and each seat's) and outcome the table could see of a randomly
    played journal, replayed from the journal file, each built twice: with English current and
    with a pseudo-language current."""
    rules, setup = _rules(game)
    path = tmp_path / f"{game}.sqlite"
    boundaries: set[int] = set()   # the last event of each command: the states a table sees
    start = GameSession.start.__func__  # type: ignore[attr-defined]

    def start_and_listen(cls, *args, **kwargs):
        session = start(cls, *args, **kwargs)
        boundaries.add(session.events[-1].seq if session.events else 0)
        session.subscribe(lambda new, _state: boundaries.add(new[-1].seq))
        return session

    monkeypatch.setattr(GameSession, "start", classmethod(start_and_listen))
    monkeypatch.setattr(i18n, "_language", "fr")   # the game is recorded in French
    play(rules, setup, 7, steps, path, side=SIDE.get(game, frozenset()), ignored=IGNORED.get(game, frozenset()))
    monkeypatch.setitem(i18n._catalogues, "zz", pseudo())
    journal = Journal(path)
    out = []
    try:
        for record in journal.games(game):
            events = journal.events(record.id)
            for ev in events:
                if ev.seq not in boundaries:
                    continue
                state = rules.fold(record.setup, [e for e in events if e.seq <= ev.seq])
                for viewer in ["table"] + list(state.players):
                    built = {}
                    for lang in ("en", "zz"):
                        monkeypatch.setattr(i18n, "_language", lang)
                        built[lang] = (rules.view(state, viewer), rules.outcome(state))
                    out.append((viewer, built["en"], built["zz"]))
    finally:
        journal.close()
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", ["cicero", "knives23", "masks", "sevenknights"])
def test_every_view_of_a_journal_is_data_and_reads_in_french_and_german(game, tmp_path, monkeypatch):
    views = views_of_a_journal(game, tmp_path, monkeypatch)
    assert len(views) > 200
    prompts = 0
    for viewer, (view, outcome), (view_zz, outcome_zz) in views:
        # built with English current or with the pseudo-language current: the same data
        assert view == view_zz and outcome == outcome_zz, viewer
        shown = {lang: i18n.texts(view, lang) for lang in ("en", "fr", "de", "zz")}
        assert shown["en"] != shown["zz"]       # the view holds words, and the language chooses them
        if isinstance(view.get("prompt"), dict):
            prompts += 1
            assert shown["fr"]["prompt"] != shown["de"]["prompt"] != shown["en"]["prompt"]
            assert "«" in shown["zz"]["prompt"]
        if outcome is not None:
            said = {lang: i18n.text_of(outcome["summary"], lang) for lang in ("en", "zz")}
            assert said["en"] and (said["en"] != said["zz"] or not any(c.isalpha() for c in said["en"]))
    assert prompts > 100

