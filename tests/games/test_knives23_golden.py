"""The scripted 23 Knives game (companion/games/knives23/demo.py) as a readable transcript:
commands in; events, the board and the narrator's lines out. Compared with the checked-in
tests/golden/knives23_game.txt; `UPDATE_GOLDEN=1` rewrites it after a deliberate change."""
from __future__ import annotations

import json
import os
from pathlib import Path

from companion.core import i18n
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.games.knives23 import RULES, demo
from companion.games.knives23.cues import cues, lines

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "knives23_game.txt"


def board(state) -> str:
    v = RULES.view(state, "table")
    turn = f"{v['turn']['player']}/{v['turn']['step']}" if v["turn"] else "-"
    return (f"[{v['phase']}] turn {turn} · tribune {v['tribune']} · dagger {v['kalends']['dagger']}"
            f"/{v['kalends']['spaces']} · forum {v['forum']['count']} · curia {v['curia']['count']}")


def transcript(tmp_path) -> str:
    s = GameSession.start(Journal(tmp_path / "golden.db"), RULES, demo.SETUP)
    out = [f"setup {json.dumps(demo.SETUP, sort_keys=True)}", board(s.state)]
    for cmd in demo.commands():
        out.append(f"> {cmd.kind} {json.dumps(dict(cmd.data), sort_keys=True)} ({cmd.source})")
        before = s.state
        events = s.execute(cmd)
        state = before
        for ev in events:
            data = {k: v for k, v in ev.data.items() if k not in ("allow_abstain", "allow_self", "weights", "kind")}
            out.append(f"  {ev.seq:3d} {ev.kind} {json.dumps(data, sort_keys=True, ensure_ascii=False)}")
            after = RULES.evolve(state, ev)
            for line_id, text in lines(cues(state, ev, after)):
                out.append(f"      say {line_id}: {text}")
            state = after
        out.append("  " + board(s.state))
    out.append(f"outcome {json.dumps(i18n.texts(RULES.outcome(s.state)), sort_keys=True)}")
    return "\n".join(out) + "\n"


def test_the_scripted_game_matches_the_golden_transcript(tmp_path):
    text = transcript(tmp_path)
    if os.environ.get("UPDATE_GOLDEN") == "1" or not GOLDEN.exists():
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
