"""A scripted table for Cicero: what the players would enter, phase by phase.

Used by the golden transcripts, the journal tests, the app test and ``python -m companion demo``.
``table_move(view)`` reads the public table view and returns the next Command, so the same table
plays any seating; the numbers are chosen so that every tie-break in the rulebook happens in a
full game (first Princeps on age, an election tie, Primus/Secundus/Guild ties).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from companion.core.events import Command, NeedsTieBreak

if TYPE_CHECKING:  # only for the annotation: the scripted table plays a session it is given
    from companion.core.session import GameSession

from .tables import CASTES, GUILDS, SPACES, TRIBUTE_WAYS

THREE_PLAYERS = {"players": ["Livia", "Marcus", "Octavia"], "ages": {"Livia": 34, "Marcus": 41, "Octavia": 29}}
TWO_PLAYERS = {"players": ["Livia", "Marcus"], "ages": {"Livia": 34, "Marcus": 41}}

# The 2-player game's revealed Senators per round (round 2 shows a Caste twice). The golden test
# first tries three Belligerators in round 3: "draw again".
AUTOMATII_REVEALS = {
    1: ["Oratores", "Pontifex", "Plebeius"],
    2: ["Mercatores", "Mercatores", "Insidiator"],
    3: ["Pontifex", "Belligerator", "Oratores"],
    4: ["Pontifex", "Insidiator", "Oratores"],
    5: ["Plebeius", "Belligerator", "Mercatores"],
}


def senate_votes(players: Sequence[str], r: int) -> dict[str, int]:
    if r == 3:  # everyone equal, everyone votes for themself: a tie for the outgoing Princeps
        return {p: 5 for p in players}
    return {p: 3 + (i + r) % 4 for i, p in enumerate(players)}


def ballot(players: Sequence[str], r: int, voter: str) -> str:
    i = players.index(voter)
    if r in (2, 3):
        return voter                      # everyone for themself
    if r == 4:
        return players[0]                 # a landslide
    return players[(i + 1) % len(players)]  # each to their left-hand neighbour


def table_move(v: dict) -> Command:
    """The next thing this scripted table enters, given the table view."""
    phase, players, r = v["phase"], v["players"], v["round"]
    idx = {p: i for i, p in enumerate(players)}
    if phase == "draft":
        return Command("draft_pick", {"player": v["draft"]["player"]})
    if phase == "first_princeps":
        # Livia and Marcus tie on votes and on Oratores: the oldest (Marcus) is designated.
        votes = {p: (5 if i < 2 else 3) for i, p in enumerate(players)}
        return Command("first_princeps", {"votes": votes, "oratores": {p: 2 for p in players}})
    if phase == "automatii":
        return Command("automatii_reveal", {"castes": AUTOMATII_REVEALS[r]})
    if phase in ("automatii_actions", "round_end"):
        return Command("next_step", {})
    if phase == "election":
        missing = [p for p in players if p not in v["election"]["senate_votes"]]
        if missing:
            return Command("senate_votes", {"votes": {missing[0]: senate_votes(players, r)[missing[0]]}})
        return Command("start_debate", {"seconds": 120})
    if phase == "debate":
        return Command("open_ballot", {})
    if phase == "ballot":
        voter = v["vote"]["waiting"][0]
        return Command("cast_ballot", {"voter": voter, "choice": ballot(players, r, voter)}, source="tablet")
    if phase == "election_tie":
        return Command("tie_break", {"choice": v["election"]["tied"][-1]})
    if phase == "accusation":
        return Command("cicero_card", {"influences": ["Insidiator", "Mercatores", "Belligerator", "Belligerator"],
                                       "senator_castes": ["Mercatores", "Pontifex"]})
    if phase == "servants":
        player = v["next_to_place"]
        free = [b["space"] for b in v["board"] if b["holder"] is None]
        start = (2 * r + 5 * idx[player]) % len(SPACES)
        order = list(SPACES[start:]) + list(SPACES[:start])
        return Command("place_servant", {"player": player, "space": next(s for s in order if s in free)})
    if phase in ("tribute", "second_tribute"):
        paid = v["second_tribute" if phase == "second_tribute" else "tribute"]
        player = next(p for p in players if p not in paid)
        # the second payment "in a different way from the first time"
        shift = 1 if phase == "second_tribute" else 0
        return Command("pay_tribute", {"player": player, "how": TRIBUTE_WAYS[(idx[player] + r + shift) % 3]})
    if phase == "triumvirate":
        return Command("triumvirate", {"general": ("Caesar", "Crassus", "Pompey")[r % 3], "satisfied": r % 2 == 1})
    if phase == "castes" and v["count_next"]:
        c = CASTES.index(v["count_next"])
        return Command("count_caste", {"caste": v["count_next"],
                                       "votes": {p: (i * (c + 1) + r) % 4 for i, p in enumerate(players)}})
    if phase == "guilds" and v["pending_guild"]:
        g = GUILDS.index(v["pending_guild"])
        return Command("guild_use", {"use": "prestige" if (g + r) % 2 else "power"})
    if phase == "guilds":
        g = GUILDS.index(v["count_next"])
        return Command("count_guild", {"guild": v["count_next"],
                                       "symbols": {p: (i * (g + 2) + r) % 3 for i, p in enumerate(players)}})
    if phase == "prestige":
        return Command("score_prestige", {"senators": {p: (idx[p] + r) % 3 for p in players}})
    raise ValueError(f"the scripted table has no move for phase {phase!r}")


def princeps_breaks(command: Command, tie: NeedsTieBreak) -> Command:
    """The Princeps' choice, as the tablet asks for it: the last of the tied players in seat order."""
    data = dict(command.data)
    data[getattr(tie, "field", "choice")] = tie.among[-1]
    return Command(command.kind, data, command.source)


def execute_breaking_ties(execute: Callable[[Command], Any], command: Command,
                          on_tie: Callable[[Command, NeedsTieBreak], object] | None = None) -> Any:
    """Runs ``execute(command)``; each tie the rules ask the Princeps to break (a Primus tie, then
    a Secundus tie, in one count) is broken by ``princeps_breaks`` and the command sent again."""
    for _ in range(4):
        try:
            return execute(command)
        except NeedsTieBreak as tie:
            if on_tie is not None:
                on_tie(command, tie)
            command = princeps_breaks(command, tie)
    return execute(command)


def play(session: GameSession, move: Callable[[Any], Command] = table_move,
         limit: int = 5000) -> GameSession:
    """Plays the scripted table until the game is over; the Princeps breaks any tie asked for."""
    for _ in range(limit):
        if session.rules.outcome(session.state) is not None:
            return session
        execute_breaking_ties(session.execute, move(session.view("table")))
    raise RuntimeError("the scripted game did not end")
