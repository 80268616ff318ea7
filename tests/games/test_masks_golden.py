"""Golden transcripts: scripted mask-game rounds (commands in; events, refusals, prompts and
narration out) compared with checked-in text. A change in behaviour shows as a readable diff.

Regenerate after an intended change: UPDATE_GOLDEN=1 bash scripts/test.sh tests/games/test_masks_golden.py
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from companion.core import i18n
from companion.core.events import BadInput, Command, RuleError
from companion.core.journal import Journal
from companion.core.narration import Say, script_timeline
from companion.core.session import GameSession
from companion.core.speakers import CaptionSpeaker
from companion.games.masks import cues, narration
from companion.games.masks.rules import MasksRules

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
PLAYERS = ["Ann", "Ben", "Cat", "Dan", "Eve"]


def _j(data) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def narrate(lines: list[str], script) -> None:
    # Timed with the silent caption speaker: deterministic on every machine.
    for start, _end, label in script_timeline(script, {}, CaptionSpeaker()):
        if label == "pause":
            continue
        step = next((s for s in script.steps if isinstance(s, Say) and s.line_id == label), None)
        lines.append(f"~ {start:7.2f}  {label}" + (f": {step.text}" if step else ""))


def transcript(tmp_path, commands) -> str:
    journal = Journal(tmp_path / "golden.sqlite")
    session = GameSession.start(journal, MasksRules(), {"players": PLAYERS})
    lines = [f"setup players={_j(PLAYERS)}", f"  prompt: {i18n.text_of(session.view('table')['prompt'])}"]
    for command in commands:
        if command == "NARRATE hidden":
            narrate(lines, narration.hidden_phase_script())
            continue
        if command == "NARRATE voting":
            narrate(lines, cues.voting_script())
            continue
        lines.append(f"> {command.kind} {_j(dict(command.data))}" + (
            f" from {command.source}" if command.source != "tablet" else ""))
        try:
            events = session.execute(command)
        except (RuleError, BadInput) as exc:
            lines.append(f"  ! {type(exc).__name__}: {exc}")
            continue
        for ev in events:
            lines.append(f"  = {ev.kind} {_j(dict(ev.data))}")
        view = session.view("table")
        lines.append(f"  phase: {view['phase']} | prompt: {i18n.text_of(view['prompt'])}")
        if view.get("counts") and events[-1].kind == "vote_revealed":
            lines.append(f"  counts: {_j(view['counts'])}")
        for reading in view.get("readings", []) if view["phase"] == "over" else []:
            lines.append(f"  reading: {i18n.text_of(reading)}")
        for warning in view.get("warnings", []) if view["phase"] == "over" else []:
            lines.append(f"  warning: {i18n.text_of(warning)}")
    journal.close()
    return "\n".join(lines) + "\n"


def C(kind, source="tablet", **data):
    return Command(kind, data, source)


IDS = {"Ann": "Queen", "Ben": "King", "Cat": "Executioner", "Dan": "Pamphleteer", "Eve": "Martyr"}

ROUNDS = {
    "masks_round": [
        C("end_discussion"),                               # refused: still dealing
        C("start_hidden_phase"),
        "NARRATE hidden",
        C("end_hidden_phase"),
        C("use_vanguard", player="Dan"),
        C("use_vanguard", player="Eve"),                   # refused: already used
        C("end_discussion"),
        "NARRATE voting",
        C("cast_ballot", voter="Ann", choice="Ann"),       # refused: oneself
        C("cast_ballot", voter="Dan", choice="Ann"),       # refused: the Vanguard abstains
        C("cast_ballot", voter="Ann", choice=None),        # refused: no abstaining
        C("cast_ballot", voter="Ann", choice="Cat"),
        C("cast_ballot", "box:2", seat=2, option=2),
        C("reveal_vote", force=True),                     # refused: still waiting
        C("cast_ballot", "phone:c", voter="Cat", choice="center"),
        C("cast_ballot", voter="Eve", choice="center"),
        C("enter_identities", identities=IDS, center=["Spy", "Fugitive", "Harlot"]),  # refused: check first
        C("executioner_check", player="Ann"),              # refused: Ann is not on top
        C("executioner_check", player="Cat"),              # Cat shows the Executioner alone
        C("executioner_chooses", target="Cat"),            # refused: another player
        C("executioner_chooses", target="Eve"),
        C("enter_identities", identities={**IDS, "Dan": "Queen"},
          center=["Spy", "Fugitive", "Harlot"]),           # refused: the Queen twice
        C("enter_identities", identities=IDS, center=["Spy", "Fugitive", "Harlot"], royalist="Dan"),
    ],
    "masks_royals_in_center": [
        C("start_hidden_phase"),
        C("end_hidden_phase"),
        C("end_discussion"),
        C("cast_ballot", voter="Ann", choice="center"),
        C("cast_ballot", voter="Ben", choice="center"),
        C("cast_ballot", voter="Cat", choice="Dan"),
        C("cast_ballot", voter="Dan", choice="Cat"),
        C("cast_ballot", voter="Eve", choice="Ann"),
        C("enter_identities", identities={"Ann": "Spy", "Ben": "Pamphleteer", "Cat": "Fugitive",
                                          "Dan": "Harlot", "Eve": "Martyr"},
          center=["Queen", "King", "Executioner"], royalist=None),
    ],
}


@pytest.mark.parametrize("name", sorted(ROUNDS))
def test_golden_transcript(name, tmp_path):
    text = transcript(tmp_path, ROUNDS[name])
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"{golden} is missing: run with UPDATE_GOLDEN=1 once"
    assert text == golden.read_text(encoding="utf-8")
