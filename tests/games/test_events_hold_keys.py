"""Events hold keys and values, never sentences: every golden game played with the table in
another language records exactly the same journal, and that journal shown in another language
reads in that language (the vote's question, the eyes-closed group, the rules' refusals)."""
from __future__ import annotations

import re

import pytest

from companion.core import i18n
from companion.core.events import Event, RuleError
from tests.games import test_cicero_golden, test_knives23_golden, test_masks_golden

# an event line of a golden transcript: "   12 moved {…}", "  senators_drafted {…}", "= ballot_cast {…}"
EVENT_LINE = re.compile(r"^\s+(?:\d+ |= )?([a-z_]+) (\{.*\})$")


def pseudo(lang: str = "zz") -> i18n.Catalogue:
    """Every English text wrapped in «…» (placeholders kept): a language no sentence can hide in."""
    en = i18n.load_catalogue("en")
    out = i18n.Catalogue({k: tuple(f"«{t}»" for t in v) if isinstance(v, tuple) else f"«{v}»"
                          for k, v in en.items()})
    out.plural_forms = en.plural_forms
    return out


@pytest.fixture
def in_language(monkeypatch):
    def switch(lang):
        if lang == "zz":
            monkeypatch.setitem(i18n._catalogues, "zz", pseudo())
        monkeypatch.setattr(i18n, "_language", lang)
    yield switch


def events_of(text: str) -> list[str]:
    return [m.group(0).strip() for m in map(EVENT_LINE.match, text.splitlines()) if m]


GAMES = {
    "knives23": lambda tmp: test_knives23_golden.transcript(tmp),
    "masks": lambda tmp: test_masks_golden.transcript(tmp, test_masks_golden.ROUNDS["masks_round"]),
    "cicero": lambda tmp: test_cicero_golden.transcript(test_cicero_golden.THREE_PLAYERS, tmp),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_game_played_in_another_language_records_the_same_journal(game, tmp_path, in_language):
    english = GAMES[game](tmp_path / "en")
    in_language("zz")
    other = GAMES[game](tmp_path / "zz")
    assert "«" in other                      # the pseudo-language was spoken…
    assert len(events_of(english)) > 10
    assert events_of(other) == events_of(english)   # …and not one event changed


def test_a_rule_refusal_carries_its_key_english_for_logs_the_tables_language_on_screen(in_language):
    from tests.games.test_knives23_rules import Table
    import tempfile
    from pathlib import Path
    t = Table(Path(tempfile.mkdtemp())).begin()
    in_language("zz")
    with pytest.raises(RuleError) as caught:
        t("eyes_open")                        # no eyes are closed: not now
    exc = caught.value
    assert exc.key == "knives23.error.not_now" and exc.values["phase"]["key"] == "knives23.phase.turn"
    assert "«" not in str(exc)                # English for the journal's log and the referee
    assert i18n.error_text(exc).startswith("«") and i18n.error_text(exc).count("«") == 2  # and its phase


def test_a_vote_question_is_said_in_the_language_it_is_shown_in(tmp_path, in_language):
    from companion.core import votes
    from companion.core.votes import VoteBook, VoteSpec
    spec = VoteSpec("v", "binary", ("Ann", "Bo"), ("red", "grey"),
                    question=i18n.keyed("knives23.vote.issue_question", red="Tax", grey="Games"))
    kind, data = votes.open_vote(VoteBook(), spec)[0]
    book = votes.apply_vote_event(VoteBook(), Event(1, kind, data))
    question = votes.table_view(book.current)["question"]   # a message as data, said when shown
    english = i18n.text_of(question)
    in_language("zz")
    assert votes.table_view(book.current)["question"] == question
    assert i18n.text_of(question) == f"«{english}»"
    assert "Tax" in english and "Games" in english


def test_the_finished_games_summary_in_the_journal_is_english_whatever_the_table_speaks(tmp_path, in_language):
    from companion.core.journal import Journal
    test_knives23_golden.transcript(tmp_path / "en")
    in_language("zz")
    test_knives23_golden.transcript(tmp_path / "zz")
    summaries = []
    for folder in ("en", "zz"):
        (db,) = [p for p in (tmp_path / folder).rglob("*") if p.suffix in (".db", ".sqlite", ".sqlite3")]
        journal = Journal(db)
        summaries.append([g.summary for g in journal.games()])
        journal.close()
    assert summaries[0] == summaries[1] and summaries[0][0] and "«" not in summaries[0][0]
    assert i18n.language() == "zz"   # and the table's language is as it was


def test_eyes_closed_clip_names_are_the_same_in_every_language(in_language):
    """A voice pack's clips are named by the group's id, not by its words in one language."""
    from companion.games.knives23 import cues as k23
    english = k23.eyes_closed_context("revealed_liberators")
    in_language("zz")
    other = k23.eyes_closed_context("revealed_liberators")
    assert english == other    # the same data: the words are said when the narrator speaks
    assert i18n.text_of(english["group"], "en") == "Revealed Liberators" and i18n.text_of(other["group"]).startswith("«")
    assert english["group_key"] == other["group_key"] == "revealed_liberators"
    ids = {s.line_id for s in k23.load("eyes_closed").resolve(other) if hasattr(s, "line_id")}
    said = [s.text for s in k23.load("eyes_closed").resolve(other) if hasattr(s, "text")]
    assert any("«Revealed Liberators»" in t for t in said)   # spoken in the language of the moment
    in_language("en")
    assert ids == {s.line_id for s in k23.load("eyes_closed").resolve(english) if hasattr(s, "line_id")}
    typed = k23.eyes_closed_context("Players with 2 Daggers")   # typed words are said as typed
    assert typed["group"] == "Players with 2 Daggers" and typed["group_key"] == "players_with_2_daggers"
