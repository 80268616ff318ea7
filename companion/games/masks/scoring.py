"""The mask game's result, decided once in ``decide`` and recorded (the count with the reveal or a
correction, the verdict with the Identities): the tally, who looks for the Executioner, the
Royalist warnings, and the verdict. Replaying a recorded game calls none of these, except for a
journal written before results were recorded (evolve.py's legacy paths)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.events import BadInput, RuleError
from companion.core.i18n import keyed
from companion.core.tally import PluralityAllTiedOut, TallyResult

from .setup import CENTER_MAJORITY, CENTER_TIE, DEFAULT_HOUSE_RULES, EXECUTIONER_TIE, reading
from .state import (CENTER, DRAW, FACTION, MARTYR, PEOPLE, ROYAL_CARDS, ROYALS, WARNING_RULES, RoyalistWarning,
                    Verdict, VoteCount)

# The rulebook's words the verdict quotes (rules.py quotes them too, for its refusals).
RULE_EXECUTIONER = ("Executioner (P) \u2013 No action during the Hidden Phase. If you receive the "
                    "most votes during the Voting Phase, choose another player to be eliminated "
                    "instead.")


def most_voted(players: Sequence[str], ballots: Mapping[str, str | None]) -> TallyResult:
    """The choices with the most votes, players in seat order, then the center."""
    return PluralityAllTiedOut().decide(ballots, order=list(players) + [CENTER])


def vote_counts(players: Sequence[str], ballots: Mapping[str, str | None]) -> dict[str, int]:
    """Votes for every player and the center, zeros included, in seat order."""
    counts = most_voted(players, ballots).counts
    return {o: counts.get(o, 0) for o in list(players) + [CENTER]}


def top_players(players: Sequence[str], ballots: Mapping[str, str | None]) -> tuple[str, ...]:
    """The players (not the center) with the most votes: who looks for the Executioner."""
    return tuple(p for p in most_voted(players, ballots).leaders if p != CENTER)


def who_checks(most: Sequence[str], top: Sequence[str], house: Mapping[str, str]) -> tuple[str, ...]:
    """The most-voted players who would be eliminated and whom the Executioner's card would save:
    they look for it. Nobody when the house rules eliminate nobody (a tie with the center,
    ``nobody_out``) or give no choice (players tied, ``all_out``)."""
    if top and CENTER in most and reading(house, CENTER_TIE) == "nobody_out":
        return ()
    if len(top) > 1 and reading(house, EXECUTIONER_TIE) == "all_out":
        return ()
    return tuple(top)


def executioner_to_choose(players: Sequence[str], identities: Mapping[str, str],
                          ballots: Mapping[str, str | None],
                          house: Mapping[str, str] = DEFAULT_HOUSE_RULES) -> str | None:
    """The player holding the Executioner if they are among those with the most votes (who
    look for it: ``who_checks``)."""
    tally = most_voted(players, ballots)
    for p in who_checks(tally.leaders, [p for p in tally.leaders if p != CENTER], house):
        if identities.get(p) == "Executioner":
            return p
    return None


def count_of(players: Sequence[str], ballots: Mapping[str, str | None],
             house: Mapping[str, str] = DEFAULT_HOUSE_RULES) -> VoteCount:
    """The count worked out from the ballots (in ``decide``, with the reveal or a correction)."""
    most, top = most_voted(players, ballots).leaders, top_players(players, ballots)
    return VoteCount(vote_counts(players, ballots), most, top, who_checks(most, top, house))


def royalist_warnings(players: Sequence[str], identities: Mapping[str, str],
                      royalist: str | None) -> tuple[RoyalistWarning, ...]:
    """Warnings, never refusals: cards move after the Hidden Phase (the Gambler swaps with a
    Bystander, the Harlot and the Fugitive move Identities), so the final cards may differ from
    the ones the Royal saw when tapping. ``identities`` may be partial (a screen being filled)."""
    if royalist is None or royalist not in players:
        return ()
    out: list[RoyalistWarning] = []
    holder = {card: p for p, card in identities.items()}
    royals = [holder[c] for c in ROYAL_CARDS if c in holder]
    mine = identities.get(royalist)

    def warn(key: str, **params: Any) -> None:
        out.append(RoyalistWarning(key, params, WARNING_RULES[key]))

    if len(royals) == 2:
        warn("both_royals", name=royalist)
    if mine in ROYAL_CARDS:
        warn("royal_self", name=royalist, card=keyed(f"masks.identity.{mine}"))
    if mine == "Martyr":
        warn("martyr", name=royalist)
    if len(royals) == 1 and royals[0] != royalist:
        seat, n = players.index(royals[0]), len(players)
        neighbours = {players[(seat - 1) % n], players[(seat + 1) % n]}
        if royalist not in neighbours:
            warn("not_neighbour", name=royalist, royal=royals[0])
    if not royals and len(identities) == len(players):
        warn("no_royal", name=royalist)
    return tuple(out)


def judge(players: Sequence[str], identities: Mapping[str, str], center: Sequence[str],
          royalist: str | None, ballots: Mapping[str, str | None],
          executioner_target: str | None, house: Mapping[str, str] = DEFAULT_HOUSE_RULES) -> Verdict:
    """Who is eliminated and who wins, under the house rules chosen (``house``, every name of
    setup.HOUSE_RULES with its reading). Inputs already checked (rules.check_*)."""
    tally = most_voted(players, ballots)
    readings: list[str] = []
    top_players = [p for p in tally.leaders if p != CENTER]
    center_saves = bool(top_players) and CENTER in tally.leaders and reading(house, CENTER_TIE) == "nobody_out"
    if top_players and CENTER in tally.leaders:
        readings.append("masks.reading.center_tie")
    if len(top_players) > 1 and not center_saves:
        readings.append("masks.reading.tie")
        if any(identities[p] == "Executioner" for p in top_players):
            readings.append("masks.reading.executioner_tie")

    executioner = executioner_to_choose(players, identities, ballots, house)
    eliminated = set() if center_saves else set(top_players)
    if executioner is not None:
        if executioner_target is None:
            raise RuleError(keyed("masks.error.executioner_must_choose", player=executioner), RULE_EXECUTIONER)
        if executioner_target not in players:
            raise BadInput(keyed("masks.error.not_a_player", name=executioner_target))
        if executioner_target == executioner:
            raise RuleError(keyed("masks.error.executioner_not_self", player=executioner), RULE_EXECUTIONER)
        eliminated.discard(executioner)
        eliminated.add(executioner_target)
    elif executioner_target is not None:
        if executioner_target not in players:
            raise BadInput(keyed("masks.error.not_a_player", name=executioner_target))
        raise RuleError(keyed("masks.error.no_executioner_choice"), RULE_EXECUTIONER)
    out = tuple(p for p in players if p in eliminated)

    holder = {identities[p]: p for p in players}
    royals_at_table = [holder[c] for c in ROYAL_CARDS if c in holder]
    royal_side = [p for p in players if FACTION[identities[p]] == ROYALS or p == royalist]
    people_side = [p for p in players if FACTION[identities[p]] == PEOPLE and p != royalist]

    # decided_by names the rulebook's bullet that decided (docs/referee.md lists them).
    if "Martyr" in holder and holder["Martyr"] in eliminated:
        result, winners, why = MARTYR, [holder["Martyr"]], "martyr_eliminated"
    elif not royals_at_table and "Martyr" in center:
        result, winners, why = DRAW, [], "royals_and_martyr_in_center"
    elif not royals_at_table:
        cast = [ballots[p] for p in people_side if ballots[p] is not None]
        on_center = sum(1 for c in cast if c == CENTER)
        of = len(cast)
        if len(cast) < len(people_side):   # the Vanguard abstained, a People player: a house rule
            readings.append("masks.reading.center_majority")
            if reading(house, CENTER_MAJORITY) == "all_people":
                of = len(people_side)
        if on_center * 2 > of:
            result, winners, why = PEOPLE, people_side, "people_majority_on_center"
        else:
            result, winners, why = ROYALS, royal_side, "no_people_majority_on_center"
            readings.append("masks.reading.royals_in_center")
    elif any(p in eliminated for p in royals_at_table):
        result, winners, why = PEOPLE, people_side, "royal_eliminated"
    else:
        result, winners, why = ROYALS, royal_side, "no_royal_eliminated"
    return Verdict(counts=vote_counts(players, ballots), most_voted=tally.leaders, eliminated=out,
                   result=result, winners=tuple(p for p in players if p in winners),
                   readings=tuple(readings), executioner=executioner,
                   executioner_target=executioner_target if executioner else None,
                   decided_by=why, warnings=royalist_warnings(players, identities, royalist))
