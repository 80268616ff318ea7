"""Which narration scripts the table hears when Seven Knights' state moves on (no Kivy).

``cues(before, after)`` compares two states and returns ``[(script, context)]`` to queue, in
order; ``script(name)`` loads one (``shared:NAME`` is a script from companion/narration/). The
app queues them on its Narrator; the golden transcript test resolves them into text.
"""
from __future__ import annotations

import os

from companion.core.i18n import joined, keyed
from companion.core.narration import Script, load_script, shared_script

from .rules import question_flags
from .scoring import TIE_HOW
from .state import SevenKnightsState, winners
from .tables import Mode

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")


def script(name: str) -> Script:
    if name.startswith("shared:"):
        return shared_script(name.split(":", 1)[1])
    return load_script(os.path.join(SCRIPTS, f"{name}.txt"))


def start_cues(state: SevenKnightsState) -> list[tuple[str, dict]]:
    """What is said when a game (or a round) starts."""
    mode, n = state.rules_mode, len(state.players)
    deal = "deal_groping" if mode.witch and not mode.witch_dealt else \
        "deal_center" if mode.center.get(n) else "deal"
    what = keyed("sevenknights.say.what_center_allowed") if mode.center_in_player_search and mode.center.get(n) \
        else keyed("sevenknights.say.what_player")
    return [("round_start", {"round": state.round.number, "rounds": mode.rounds, "first": state.round.first,
                             "deal": keyed(f"sevenknights.say.{deal}")}),
            (_for_mode("search", mode), {"first": state.round.first, "what": what})]


def _for_mode(name: str, mode: Mode) -> str:
    """A phase's script, or its Unity variant: with no Witch Tile nobody becomes TORIKO, nobody may
    lie, nobody's recommendation is limited, and "during the Order Phase arrange all prepared
    tiles"."""
    return name if mode.witch else f"{name}_unity"


def cues(before: SevenKnightsState, after: SevenKnightsState) -> list[tuple[str, dict]]:
    out: list[tuple[str, dict]] = []
    first = after.round.first
    if after.round.number != before.round.number:  # a new round: Cleanup ended
        return start_cues(after)
    if after.search != before.search and after.phase == "search":
        out.append(("search_center", {"first": first}))
    if after.phase != before.phase:
        ph, rnd = after.phase, after.round
        if ph == "questions":
            out.append((_for_mode("questions", after.rules_mode), {"first": first}))
        elif ph == "recommendation":
            out.append((_for_mode("recommendation", after.rules_mode), {}))
        elif ph == "order_question":
            # The votes were in secret; the table sees them together on "Go!".
            how = keyed("sevenknights.say." + TIE_HOW.get(rnd.decided_by or "", "how_most"))
            out += [("shared:ready_set_go", {}), ("captain", {"captain": rnd.captain, "how": how})]
        elif ph == "captain_reveal":
            out.append(("captain_tile", {}))
        elif ph == "formation":
            out.append((_for_mode("formation", after.rules_mode), {"tile": rnd.captain_tile}))
        elif ph in ("cleanup", "game_over"):
            out.append(_result_cue(after))
            if after.rules_mode.scored:
                out.append(("cards", {}))
            if ph == "cleanup":
                out.append(("next_first", {}))
            else:
                w = winners(after)
                text = keyed("sevenknights.say.winners", winners=", ".join(w)) if w else keyed("sevenknights.result.none")
                out.append(("game_over", {"winners": text}))
    elif after.round.result is not None and after.round.result != before.round.result:
        # an Arrow corrected after the result: the result the corrected Arrows give (a report:
        # it replaces the old result's line if that is still waiting)
        out.append(_result_cue(after))
    new = [i for i in after.round.forbidden if i not in before.round.forbidden]
    if new and after.round.number == before.round.number:
        # a corrected Arrow shows questions already asked were forbidden: the table is told
        flags = [keyed(f"sevenknights.flag.{f.key}", **f.params) for f in question_flags(after.round)
                 if f.params["i"] in new]
        out.append(("questions_rechecked", {"questions": joined(flags, " ")}))
    return out


def _result_cue(state: SevenKnightsState) -> tuple[str, dict]:
    """The round's result line: the Captain's own tile was the Witch, the Captain revealed their
    TORIKO status (FAQ), or the formation's result."""
    result = state.round.result
    assert result is not None  # the round is scored
    if result.why == "captain_witch":
        return ("captain_witch", {})
    if result.why == "captain_toriko" and result.in_order is None:
        return ("captain_toriko", {"captain": state.round.captain})
    return ("result", {"result": keyed(f"sevenknights.result.{result.winner}")})
