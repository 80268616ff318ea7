"""A whole Cicero game through GameSession and a real SQLite journal, reopened at several points:
the resumed state equals the live one; undo takes back one table action."""
from __future__ import annotations

import pytest

from companion.core.events import Command, RuleError
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.cicero import CiceroRules
from companion.games.cicero.demo import THREE_PLAYERS, TWO_PLAYERS, execute_breaking_ties, table_move


@pytest.mark.parametrize("setup", [THREE_PLAYERS, TWO_PLAYERS], ids=["3p", "2p"])
def test_resume_at_every_phase_change_gives_the_same_state(tmp_path, setup):
    path = tmp_path / "journal.db"
    live = GameSession.start(Journal(path), CiceroRules(), setup)
    checked = 0
    last_phase = None
    while live.rules.outcome(live.state) is None:
        execute_breaking_ties(live.execute, table_move(live.view("table")))
        if live.state.phase != last_phase:  # reopen the file from scratch at each new phase
            last_phase = live.state.phase
            again = GameSession.resume(Journal(path), live.game_id, CiceroRules())
            assert again.state == live.state
            assert again.view("table") == live.view("table")
            checked += 1
    assert checked > 40
    record = Journal(path).game(live.game_id)
    assert record.status == "finished" and list(record.winners) == list(live.state.winners)


def test_undo_takes_back_one_servant_and_the_turn_returns(tmp_path):
    s = GameSession.start(Journal(tmp_path / "j.db"), CiceroRules(), THREE_PLAYERS)
    while s.state.phase != "servants":
        execute_breaking_ties(s.execute, table_move(s.view("table")))
    first = s.view("table")["next_to_place"]
    s.execute(Command("place_servant", {"space": "senate_2"}))
    assert s.view("table")["next_to_place"] != first
    s.undo()
    assert s.view("table")["next_to_place"] == first and s.state.placements == ()
    again = GameSession.resume(Journal(tmp_path / "j.db"), s.game_id, CiceroRules())
    assert again.state == s.state


def test_undo_of_a_tribute_gives_the_10_prestige_back(tmp_path):
    s = GameSession.start(Journal(tmp_path / "j.db"), CiceroRules(), THREE_PLAYERS)
    while s.state.phase != "tribute":
        execute_breaking_ties(s.execute, table_move(s.view("table")))
    before = dict(s.state.prestige)
    s.execute(Command("pay_tribute", {"player": "Livia", "how": "prestige"}))
    assert s.state.prestige["Livia"] == before["Livia"] - 10
    s.undo()
    assert s.state.prestige == before and s.state.tribute == {}


def test_undo_of_the_final_score_reopens_the_finished_game(tmp_path):
    path = tmp_path / "j.db"
    s = GameSession.start(Journal(path), CiceroRules(), TWO_PLAYERS)
    while s.rules.outcome(s.state) is None:
        execute_breaking_ties(s.execute, table_move(s.view("table")))
    assert Journal(path).game(s.game_id).status == "finished"
    s.undo()
    assert s.state.phase == "prestige" and Journal(path).game(s.game_id).status == "playing"


def test_a_refused_command_leaves_the_journal_untouched(tmp_path):
    path = tmp_path / "j.db"
    s = GameSession.start(Journal(path), CiceroRules(), THREE_PLAYERS)
    n = len(Journal(path).events(s.game_id))
    with pytest.raises(RuleError):
        s.execute(Command("draft_pick", {"player": "Livia"}))
    assert len(Journal(path).events(s.game_id)) == n
