"""Which narration scripts a Cicero event calls for (the scripts are data files in scripts/).

``cues(before, after, events)`` -> ``[(Script, context)]`` for the app's narrator (and the golden
transcript) to queue in order. Cicero has no eyes-closed phase, so the lines only guide the table.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from companion.core.events import Event
from companion.core.i18n import keyed
from companion.core.narration import Script, load_script, shared_script

from .logic import and_list, space_effect_text
from .state import CiceroState
from .tables import ZONES

SCRIPTS = Path(__file__).resolve().parent / "scripts"

# A phase entered -> the script that opens it.
PHASE_SCRIPTS = {
    "draft": "draft", "first_princeps": "first_princeps", "automatii": "automatii", "election": "election",
    "accusation": "accusation", "servants": "servants", "tribute": "tribute", "triumvirate": "triumvirate",
    "second_tribute": "second_tribute", "castes": "castes", "guilds": "guilds", "prestige": "prestige",
    "round_end": "round_end",
}


def script(name: str) -> Script:
    if name.startswith("shared:"):
        return shared_script(name.split(":", 1)[1])
    return load_script(str(SCRIPTS / f"{name}.txt"))


def _duration(seconds: int) -> dict:
    if seconds % 60 == 0:
        return keyed("cicero.say.minutes", n=seconds // 60)
    return keyed("cicero.say.seconds", n=seconds)


def context(state: CiceroState) -> dict:
    """Every placeholder the scripts use, from the state after the events."""
    automatii = state.automatii or {}
    return {
        "youngest": state.youngest, "pack": 2 * len(state.players), "round": state.round, "rounds": state.rounds,
        "princeps": state.princeps or "",
        "zones": ", ".join(ZONES[s.rpartition("_")[0]] for s in automatii.get("spaces", ())),
        "zone": ZONES[automatii["doubled"]] if automatii.get("doubled") else "",
        "duration": _duration(state.debate_seconds or 0),
        "winners": and_list(state.winners) if state.winners else "",
    }


def cues(before: CiceroState, after: CiceroState, events: Sequence[Event]) -> list[tuple[Script, dict]]:
    """The scripts to play after ``events`` took the state from ``before`` to ``after``."""
    out: list[tuple[str, dict]] = []
    ctx = context(after)
    for ev in events:
        kind, d = ev.kind, ev.data
        if kind == "game_started":
            out.append(("draft", {}))
        elif kind == "first_princeps_elected":
            out += [("first_princeps_named", {"princeps": d["princeps"]}), ("round_start", {})]
        elif kind == "first_princeps_corrected" and d["princeps"] != d["before"]["princeps"]:
            # the corrected counts gave another first Princeps: the table hears who is first now
            out.append(("first_princeps_named", {"princeps": d["princeps"]}))
        elif kind == "round_started":
            out.append(("round_start", {}))
        elif kind == "automatii_placed":
            out.append(("automatii_placed", {}))
            if d.get("doubled"):
                out.append(("automatii_doubled", {}))
        elif kind == "servant_placed":
            # The others act at once too: say what the space gives them.
            out.append(("servant_placed", {"placed": keyed("cicero.say.placed", player=d["player"]),
                                           "others": space_effect_text(d["space"], d["player"])["others"]}))
        elif kind == "debate_started":
            out.append(("debate", {}))
        elif kind == "vote_opened":
            out += [("shared:count_of_three", {}), ("ballot", {})]
        elif kind in ("princeps_elected", "princeps_chosen"):
            out.append(("princeps_elected", {"princeps": d["princeps"], "votes": d["tally"].get(d["princeps"], 0)}))
        elif kind == "senate_votes_corrected" and d["princeps"] != d["princeps_before"]:
            # the corrected totals gave another Princeps: the table hears who leads now
            out.append(("princeps_elected", {"princeps": d["princeps"], "votes": d["tally"].get(d["princeps"], 0)}))
        elif kind == "princeps_tied":
            out.append(("princeps_tied", {"names": and_list(d["tied"]), "outgoing": d["outgoing"]}))
        elif kind == "prestige_scored" and d.get("last"):
            out.append(("game_end", {}))
    # The script of the phase the table has now reached (once, after the events' own lines).
    if after.phase != before.phase or after.round != before.round:
        name = PHASE_SCRIPTS.get(after.phase)
        if name and not (name == "draft" and any(e.kind == "game_started" for e in events)):
            out.append((name, {}))
    return [(script(name), {**ctx, **extra}) for name, extra in out]
