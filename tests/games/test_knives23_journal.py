"""A 23 Knives game interrupted at any point resumes where it was: a real SQLite journal,
reopened (GameSession.resume) at many points of the scripted game; the state is equal."""
from __future__ import annotations

import pytest

from companion.core.events import BadInput, Command, RuleError
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.knives23 import RULES, demo


def test_the_scripted_game_resumes_equal_at_every_tenth_command(tmp_path):
    path = tmp_path / "knives.db"
    s = GameSession.start(Journal(path), RULES, demo.SETUP)
    commands = demo.commands()
    for i, cmd in enumerate(commands):
        s.execute(cmd)
        if i % 10 == 0 or i == len(commands) - 1:
            again = GameSession.resume(Journal(path), s.game_id, RULES)
            assert again.state == s.state, f"after command {i} ({cmd.kind})"
            assert again.view("table") == s.view("table")
            s = again  # carry on in the reopened session, as after a crash
    assert s.state.phase == "over" and s.state.result["winners"] == ["Bo", "Di"]
    record = Journal(path).game(s.game_id)
    assert record.status == "finished" and list(record.winners) == ["Bo", "Di"]


def test_a_refused_command_changes_nothing_recorded(tmp_path):
    path = tmp_path / "knives.db"
    s = GameSession.start(Journal(path), RULES, demo.SETUP)
    for cmd in demo.commands()[:12]:
        s.execute(cmd)
    before = list(Journal(path).events(s.game_id))
    for bad in (Command("play_fate", {"card": {"knives": 4}}), Command("call_exile", {"target": "Zed"}),
                Command("fly", {}), Command("cast_ballot", {"voter": "Ann", "choice": "red"})):
        with pytest.raises((BadInput, RuleError)) as err:
            s.execute(bad)
        assert "\n" not in str(err.value)
    assert Journal(path).events(s.game_id) == before
    assert GameSession.resume(Journal(path), s.game_id, RULES).state == s.state


def test_undo_then_resume_folds_the_same(tmp_path):
    path = tmp_path / "knives.db"
    s = GameSession.start(Journal(path), RULES, demo.SETUP)
    for cmd in demo.commands()[:11]:   # through the first Fate cards at the Forum
        s.execute(cmd)
    forum = s.view("table")["forum"]["count"]
    s.undo()
    assert s.view("table")["forum"]["count"] == forum - 1
    assert GameSession.resume(Journal(path), s.game_id, RULES).state == s.state


def test_every_view_is_json_and_the_table_never_sees_a_ballot_before_the_reveal():
    """Secrets reach a screen only through a per-viewer view: the table view of a vote in
    progress says who has voted, never what; a player's own view shows only their ballot."""
    import json

    from companion.core.events import Event
    state = RULES.initial_state(demo.SETUP)
    for cmd in demo.commands():
        for kind, data in RULES.decide(state, cmd):
            state = RULES.evolve(state, Event(0, kind, data, cmd.source))
        for viewer in ("table", "narrator", "Ann", "Di"):
            view = RULES.view(state, viewer)
            assert json.loads(json.dumps(view)) == view
        table = RULES.view(state, "table")
        if table["vote"] is not None:
            assert "ballots" not in table["vote"] and "my_ballot" not in table
            cast = state.book.current.choices()
            for name in ("Ann", "Di"):
                assert RULES.view(state, name)["my_ballot"] == cast.get(name)


def test_undoing_a_called_exile_before_any_ballot(tmp_path):
    s = GameSession.start(Journal(tmp_path / "k.db"), RULES, demo.SETUP)
    cmds = demo.commands()
    n = next(i for i, c in enumerate(cmds) if c.kind == "call_exile") + 1
    for cmd in cmds[:n]:
        s.execute(cmd)
    assert s.state.phase == "exile_vote"
    s.undo()                                   # the vote is not open any more...
    assert s.state.phase == "exile_called" and s.state.book.current is None
    s.execute(Command("start_exile_vote"))     # ...and can be opened again
    assert s.state.phase == "exile_vote"
    s.undo()
    s.undo()                                   # and the call itself taken back
    assert s.state.phase == "turn" and not s.state.turn.exile_called
    assert GameSession.resume(Journal(tmp_path / "k.db"), s.game_id, RULES).state == s.state
