"""A whole scripted game of Seven Knights through the real GameSession and SQLite journal:
the golden transcript (commands in; events and narration out), resuming from the journal, undo.

Regenerate the golden file after an intended change: UPDATE_GOLDEN=1 bash scripts/test.sh tests/games/test_sevenknights_game.py
"""
import json
import os
from pathlib import Path

import pytest

from companion.core import i18n
from companion.core.events import Command, RuleError
from companion.core.journal import Journal
from companion.core.narration import Say
from companion.core.session import GameSession
from companion.games.sevenknights import SevenKnightsRules
from companion.games.sevenknights.cues import cues, script, start_cues

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "sevenknights_basic5.txt"
SETUP = {"players": ["Ann", "Bo", "Cy", "Di", "Ed"], "first": "Ann", "mode": "basic"}


def C(kind, source="tablet", **data):
    return Command(kind, data, source)


def ballots(choices, source="tablet"):
    return [C("cast_ballot", source, voter=v, choice=c) for v, c in zip(SETUP["players"], choices)]


# Round 1: Ed looks at Ann (the Witch) and becomes TORIKO; a tie B/C goes to Bo (Cy recommended
# himself); Knight 2 Bo's formation is in order: the Knights score 2.
# Round 2 (Di first, she had tile 1): the recommendations all go to self: the farthest clockwise
# from Di is Cy; Cy is the Witch: the Witch team (Cy and Bo, who looked at Cy) scores 3.
# Round 3 (Ann first): Di looked at the center tile, the Witch; out of order: Di scores 7.
SCRIPT = [
    C("look", at="Bo"), C("look", at="Cy"), C("look", at="Di"), C("look", at="center"), C("look", at="Ann"),
    C("ask_question", target="Cy", template="odd", answer="yes"),
    C("ask_question", target="Di", template="at_least", n=3, answer="no"),
    C("ask_question", target="Ed", template="larger_than", other="Di", answer="yes"),
    C("ask_question", target="Bo", template="other_is", other="Ann", n=1, answer="no"),
    C("ask_question", target="Bo", template="free", text="Did you see a number larger than 4?", answer="yes"),
    C("open_recommendation"),
    *ballots(["Bo", "Cy", "Cy", "Bo", "Ed"], "phone"),
    C("ask_question", target="Di", template="is_number", n=4, answer="no"),
    C("reveal_captain_tile", tile=2),
    C("enter_result", in_order=True, witch="Ann"),
    C("start_next_round", first="Di"),
    # round 2: Di Ed Ann Bo Cy
    C("look", at="Ann"), C("look", at="Bo"), C("look", at="Di"), C("look", at="Cy"), C("look", at="center"),
    C("ask_question", target="Ed", template="odd", answer="no"),
    C("ask_question", target="Cy", template="at_least", n=2, answer="yes"),
    C("ask_question", target="Ed", template="at_least", n=5, answer="yes"),
    C("ask_question", target="Ann", template="is_number", n=3, answer="no"),
    C("ask_question", target="Di", template="odd", answer="yes"),
    C("open_recommendation"),
    *ballots(["Ann", "Bo", "Cy", "Di", "Ed"]),
    C("ask_question", target="Ed", template="is_number", n=1, answer="no"),
    C("reveal_captain_tile", tile="witch"),
    C("start_next_round", first="Ann"),
    # round 3: Ann Bo Cy Di Ed
    C("look", at="Cy"), C("look", at="Ann"), C("look", at="Ed"), C("look", at="center"), C("look", at="Bo"),
    C("ask_question", target="Ed", template="odd", answer="yes"),
    C("ask_question", target="Cy", template="is_number", n=2, answer="no"),
    C("ask_question", target="Ann", template="at_least", n=4, answer="yes"),
    C("ask_question", target="Ed", template="larger_than", other="Cy", answer="no"),
    C("ask_question", target="Di", template="odd", answer="no"),
    C("open_recommendation"),
    *ballots(["Ed", "Ed", "Ed", "Ann", "Ann"]),
    C("ask_question", target="Cy", template="odd", answer="yes"),
    C("reveal_captain_tile", tile=5),
    C("enter_result", in_order=False, witch="center"),
]


def said(pairs):
    out = []
    for name, ctx in pairs:
        for step in script(name).resolve(ctx):
            if isinstance(step, Say):
                out.append(f"  say {step.line_id}: {step.text}")
    return out


def transcript(session, commands):
    lines = [f"# Seven Knights Bewitched, {SETUP['mode']}, players {' '.join(SETUP['players'])}, first {SETUP['first']}"]
    lines += said(start_cues(session.state))
    for cmd in commands:
        before = session.state
        events = session.execute(cmd)
        lines.append(f"> {cmd.kind} {json.dumps(dict(cmd.data), sort_keys=True)} [{cmd.source}]")
        for ev in events:
            lines.append(f"  {ev.seq:3d} {ev.kind} {json.dumps(dict(ev.data), sort_keys=True)}")
        lines += said(cues(before, session.state))
        v = session.view("table")
        lines.append(f"  = {v['phase']}: {i18n.text_of(v['prompt'])}")
    v = session.view("table")
    lines.append("# totals " + json.dumps(v["totals"]) + " winners " + json.dumps(v["winners"]))
    return "\n".join(lines) + "\n"


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path / "journal.sqlite")
    yield j
    j.close()


def test_golden_transcript(journal):
    session = GameSession.start(journal, SevenKnightsRules(), SETUP)
    text = transcript(session, SCRIPT)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "no golden file: run with UPDATE_GOLDEN=1 once and read it"
    assert text == GOLDEN.read_text(encoding="utf-8")
    # The game is finished in the journal with its shared winners.
    record = journal.game(session.game_id)
    assert record.status == "finished" and list(record.winners) == ["Di"]


def test_resume_from_the_journal_at_every_phase(journal):
    rules = SevenKnightsRules()
    session = GameSession.start(journal, rules, SETUP)
    checked = set()
    for i, cmd in enumerate(SCRIPT):
        session.execute(cmd)
        phase = session.state.phase
        if (phase, session.state.round.number) not in checked or i == len(SCRIPT) - 1:
            checked.add((phase, session.state.round.number))
            again = GameSession.resume(Journal(journal.path), session.game_id, rules)
            assert again.state == session.state
            assert again.view("table") == session.view("table")
    assert len(checked) >= 15


def test_undo_a_mistaken_entry_but_never_a_revealed_vote(journal):
    rules = SevenKnightsRules()
    session = GameSession.start(journal, rules, SETUP)
    session.execute(C("look", at="Bo"))
    session.execute(C("look", at="Ann"))  # Bo meant Cy
    session.undo()
    assert [a["at"] for a in session.view("table")["arrows"]] == ["Bo"] and session.view("table")["turn"] == "Bo"
    session.execute(C("look", at="Cy"))
    for cmd in SCRIPT[2:19]:
        session.execute(cmd)
    assert session.state.phase == "cleanup"
    session.undo()  # the wrong result was entered: take it back
    assert session.state.phase == "formation" and session.view("table")["totals"]["Bo"] == 0
    session.undo()  # the Captain's tile
    session.undo()  # the Captain's question
    assert session.state.phase == "order_question"
    with pytest.raises(RuleError, match="revealed vote"):
        session.undo()
    again = GameSession.resume(journal, session.game_id, rules)
    assert again.state == session.state


def test_a_refused_command_records_nothing(journal):
    rules = SevenKnightsRules()
    session = GameSession.start(journal, rules, SETUP)
    before = list(journal.events(session.game_id))
    with pytest.raises(RuleError):
        session.execute(C("look", at="Ann"))
    assert journal.events(session.game_id) == before
