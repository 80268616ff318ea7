"""Golden transcripts: a whole scripted Cicero game (3 players, and 2 with the Automatii), commands
in, events and narration lines out, compared with tests/golden/cicero_*.txt.

Regenerate after an intended change: UPDATE_GOLDEN=1 bash scripts/test.sh tests/games/test_cicero_golden.py
then read the diff.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from companion.core import i18n
from companion.core.events import BadInput, Command, RuleError
from companion.core.journal import Journal
from companion.core.narration import Say
from companion.core.session import GameSession
from companion.games.cicero import CiceroRules
import companion.games.cicero.cues as narration
from companion.games.cicero import event_cues as cues
from companion.games.cicero.demo import (THREE_PLAYERS, TWO_PLAYERS, execute_breaking_ties, princeps_breaks,
                                        table_move)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

# Illegal moves the table tries once when it first reaches (phase, round): each must be refused
# with a one-line reason and record nothing.
PROBES = {
    ("draft", 0): [Command("draft_pick", {"player": "Marcus"})],
    ("servants", 1): [Command("place_servant", {"player": "Octavia", "space": "senate_1"})],
    ("tribute", 1): [Command("pay_tribute", {"player": "Livia", "how": "gold"})],
    ("ballot", 2): [Command("cast_ballot", {"voter": "Livia", "choice": "Cicero"})],
    ("castes", 2): [Command("count_caste", {"caste": "Oratores", "votes": {"Livia": -1, "Marcus": 0}})],
    ("automatii", 3): [Command("automatii_reveal", {"castes": ["Belligerator"] * 3})],
}


def _data(d) -> str:
    return json.dumps(d, sort_keys=True, ensure_ascii=False)


def transcript(setup, tmp_path) -> str:
    rules = CiceroRules()
    session = GameSession.start(Journal(tmp_path / "golden.db"), rules, setup)
    out = [f"# Cicero: {', '.join(setup['players'])}"]

    def record(before, events):
        for ev in events:
            out.append(f"  {ev.kind} {_data(ev.data)}")
        for script, ctx in cues(before, session.state, events):
            for step in script.resolve(ctx):
                if isinstance(step, Say):
                    out.append(f"  say {step.line_id}: {step.text}")

    record(rules.initial_state(setup), session.events)
    probed = set()
    while rules.outcome(session.state) is None:
        key = (session.state.phase, session.state.round)
        if key in PROBES and key not in probed:
            probed.add(key)
            for probe in PROBES[key]:
                n = len(session.events)
                with pytest.raises((RuleError, BadInput)) as refusal:
                    session.execute(probe)
                assert len(session.events) == n and "\n" not in str(refusal.value)
                out.append(f"> {probe.kind} {_data(probe.data)}")
                out.append(f"  refused: {refusal.value}")
        command = table_move(session.view("table"))
        before = session.state
        out.append(f"> {command.kind} {_data(command.data)}")

        def on_tie(cmd, tie):
            out.append(f"  needs {tie.chooser}'s choice among {', '.join(tie.among)}: {tie.args[0]}")
            out.append(f"> {cmd.kind} {_data(princeps_breaks(cmd, tie).data)}")

        events = execute_breaking_ties(session.execute, command, on_tie)
        record(before, events)
    out.append(f"# outcome {_data(i18n.texts(rules.outcome(session.state)))}")
    expected = set(PROBES) if len(setup["players"]) == 2 else set(PROBES) - {("automatii", 3)}
    assert probed == expected
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("name, setup", [("cicero_3p", THREE_PLAYERS), ("cicero_2p_automatii", TWO_PLAYERS)])
def test_golden_transcript(name, setup, tmp_path):
    text = transcript(setup, tmp_path)
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path}: run with UPDATE_GOLDEN=1 and read it"
    assert text == path.read_text(encoding="utf-8")


def test_every_script_parses_and_every_placeholder_is_filled(tmp_path):
    names = sorted(p.stem for p in narration.SCRIPTS.glob("*.txt"))
    used = set(narration.PHASE_SCRIPTS.values())
    for name in names:
        script = narration.script(name)
        missing = script.placeholders() - set(narration.context(CiceroRules().initial_state(THREE_PLAYERS))) - {
            "princeps", "votes", "names", "outgoing", "placed", "others"}
        assert not missing, (name, missing)
    # Every script file is played somewhere in the two golden games.
    played = set()
    for golden in GOLDEN.glob("cicero_*.txt"):
        played |= {line.split(":", 1)[0].split()[-1] for line in golden.read_text().splitlines()
                   if line.startswith("  say ")}
    spoken_ids = {step.line_id for n in names for step in narration.script(n).steps if isinstance(step, Say)}
    assert spoken_ids <= played | {"count_intro", "count_one", "count_two", "count_three"}, spoken_ids - played
    assert used <= set(names)
