"""Seven Knights Bewitched: the deciding functions. The Captain from the recommendations, a
round's result and points, the game's winners: called by ``decide`` only, whose events carry
what they decide (``evolve`` keeps the legacy paths of older journals that did not)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from companion.core.tally import CaptainRule, TallyResult

from .state import Arrow, Result, SevenKnightsState
from .tables import Mode, ROUND_POINTS, round_points

# CaptainRule.decided_by -> the catalogue key that explains it to the table.
TIE_HOW = {"did not recommend themself": "how_humble", "farthest clockwise from the First player": "how_farthest"}
# ... and as the journal records it (a key, never the sentence): vote_revealed's "result".
TIE_RECORDED = {"did not recommend themself": "humble", "farthest clockwise from the First player": "farthest"}
TIE_FROM_RECORD = {v: k for k, v in TIE_RECORDED.items()}


def choose_captain(players: Sequence[str], first: str, recommendations: Mapping[str, str | None]) -> TallyResult:
    """The Recommendation Phase's rule, through the shared CaptainRule tally."""
    # every token is placed in front of a player (a recommendation is never empty: "must_recommend")
    return CaptainRule().decide(tuple(players), first, cast(Mapping[str, str], recommendations))


def captain_data(players: Sequence[str], first: str, recommendations: Mapping[str, str | None]) -> dict[str, Any]:
    """The Captain as the journal records it with the recommendations' reveal (decided once, in
    ``decide``): who, the count per player, whether there was a tie and how it was broken."""
    tally = choose_captain(players, first, recommendations)
    return {"captain": tally.winner, "counts": dict(sorted(tally.counts.items())), "tie": tally.tie,
            "decided_by": TIE_RECORDED.get(tally.decided_by or "")}



def toriko_of(arrows: Sequence[Arrow], witch_place: str | None, players: Sequence[str]) -> tuple[str, ...]:
    """Everyone whose arrow points at the Witch's tile saw her and became TORIKO."""
    seen = {a.looker for a in arrows if a.at == witch_place}
    return tuple(p for p in players if p in seen)


def round_result(state: SevenKnightsState, witch_place: str | None, in_order: bool | None,
                 captain_witch: bool = False) -> Result:
    """Who won the round and what each player scores (see setup.POINTS for the reading)."""
    assert state.round.captain is not None  # scored after the Order Phase
    return score_round(state.players, state.rules_mode, state.round.number, state.round.captain,
                       state.round.arrows, witch_place, in_order, captain_witch, state.points_reading)


def score_round(players: Sequence[str], mode: Mode, number: int, captain: str, arrows: Sequence[Arrow], witch_place: str | None,
                in_order: bool | None, captain_witch: bool = False,
                reading: str = ROUND_POINTS.default) -> Result:
    """The Cleanup Phase's table as a pure function (the game and the referee call it);
    ``reading`` is the house rule ``round_points`` (setup.ROUND_POINTS)."""
    toriko = toriko_of(arrows, witch_place, players)
    witch_team = set(toriko) | ({witch_place} if witch_place in players else set())
    if captain_witch:
        winner, why = "witch", "captain_witch"
    elif captain in toriko:
        # FAQ: "What happens if the Captain is TORIKO? A: It's a victory for the Witch Team."
        winner, why = "witch", "captain_toriko"
    elif in_order:
        winner, why = "knights", "in_order"
    else:
        # FAQ: with no Witch team, "All players receive zero points as knights."
        winner, why = ("witch" if witch_team else "none"), "out_of_order"
    points = []
    for p in players:
        team = "witch" if p in witch_team else "knights"
        pts = round_points(number, team, reading) if mode.scored and team == winner else 0
        points.append((p, pts))
    return Result(winner, why, witch_place, toriko, tuple(points), in_order)



def game_winners(players: Sequence[str], mode: Mode, totals: Sequence[int], last_winner: str | None) -> list[str]:
    """"The player(s) with the highest total score after 3 rounds are the winners."; in Unity
    (cooperative) everyone shares a Knights' victory in the last round."""
    if mode.scored:
        best = max(totals)
        return [p for p, t in zip(players, totals) if t == best]
    return list(players) if last_winner == "knights" else []

