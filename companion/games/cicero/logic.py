"""Cicero's rule functions: pure, Kivy-free, shared by the game (rules.py) and the referee.

Each function validates what it is given and raises ``BadInput`` (malformed input: an unknown
name, a negative number) or ``RuleError``/``NeedsTieBreak`` (the rules forbid it, or a person must
break a tie) with the rulebook's words.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.events import BadInput, NeedsTieBreak, RuleError
from companion.core.i18n import keyed
from companion.core.tally import WeightedPlurality

from .tables import (AUTOMATII, AUTOMATII_VOTES, CASTES, GUILD_PP, GUILDS, PRIMUS_PP, ROUNDS, SECUNDUS_PP, SERVANTS,
                     TRIBUTE_PP, TRIBUTE_WAYS, ZONES)

# The rulebook's sentences, quoted by refusals and tie-breaks.
R_PLAYERS = "A game lasts 5 rounds with 2, 3 or 4 players, or 4 rounds with 5 players."
R_FIRST_PRINCEPS = ("Each player adds up the total votes in the Senate of their 2 Senators. If one player has a "
                    "strict majority, they become Princeps and receive the corresponding token. In case of a tie, "
                    "the player with the most votes in the Oratores Caste becomes Princeps. If there is still a "
                    "tie, the oldest of the tied players is designated.")
R_ELECTION = "The player who receives the most votes becomes Princeps."
R_VOTE = ("Then each player raises a finger and, after a count of 3, clearly indicates the player to whom they "
          "give all of their votes (they may of course vote for themselves).")
R_ELECTION_TIE = "In case of a tie, the outgoing Princeps decides the winner from among the tied players."
R_AUTOMATII_VOTES = ("When the Princeps is elected, the Automatii Family systematically gives 5 votes to whichever "
                     "of the players has the fewest PP. If the 2 players have the same number of PP, the 5 votes "
                     "go to the opponent of the current Princeps.")
R_AUTOMATII_SAME_THREE = "If all 3 revealed Senators belong to the same Caste, draw again."
R_AUTOMATII_SAME_TWO = ("If 2 of the revealed Senators belong to the same Caste, place only 2 of the 3 Servants. "
                        "However, the 2 players then each recover an influence and draw an Action card on that space.")
R_CASTE_TIE = ("In case of a tie, the Princeps breaks the tie and decides which player wins the majority (the "
               "Princeps may choose to break the tie in their own favour).")
R_GUILD_TIE = ("The most influential player takes the card of that Guild (there is no second place, unlike with "
               "the Castes). In case of a tie, the Princeps again breaks the tie.")
R_PRIMUS = ("The player who is most influential in a Caste takes the Primus card of that Caste; the second "
            "player takes the Secundus card.")
R_KEEP_CARDS = ("The Primus and Secundus cards remain the property of the players who acquired them until they "
                "lose their majority at a later count. The majority card that is lost is then transferred to the "
                "player who took it.")


R_SECOND_TRIBUTE = ("Otherwise, the players must complete the payment of their tribute to Cicero in a different "
                    "way from the first time: by paying the other 2 influences, by discarding 1 Senator from one "
                    "of the 2 Castes indicated, or by losing 10 PP.")


def and_list(names: Sequence[str]) -> dict | str:
    """"A, B and C" (the catalogue's words, said when shown)."""
    names = list(names)
    return names[0] if len(names) == 1 else keyed("cicero.word.and_list", names=", ".join(names[:-1]), last=names[-1])


def whole(value: Any, what: Any, low: int = 0) -> int:
    """A whole number from ``low`` (bools are not numbers here)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise BadInput(keyed("cicero.err.not_whole", what=what, low=low, value=repr(value)))
    return value


def signed(value: Any, what: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadInput(keyed("cicero.err.not_integer", what=what, value=repr(value)))
    return value


def check_players(names: Any) -> tuple[str, ...]:
    """2 to 5 different, non-empty names; "Automatii" is the 2-player game's third Family."""
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) and n.strip() for n in names):
        raise BadInput(keyed("cicero.err.players_shape"))
    names = tuple(n.strip() for n in names)
    if len(set(names)) != len(names):
        raise BadInput(keyed("cicero.err.players_twice"))
    if not 2 <= len(names) <= 5:
        raise BadInput(keyed("cicero.err.player_count", n=len(names)), R_PLAYERS)
    if AUTOMATII in names:
        raise BadInput(keyed("cicero.err.automatii_name", name=AUTOMATII))
    return names


def known(name: Any, players: Sequence[str], what: Any) -> str:
    if name not in players:
        raise BadInput(keyed("cicero.err.unknown_name", what=what, name=repr(name), players=", ".join(players)))
    return name


def check_caste(name: Any) -> str:
    if name not in CASTES:
        raise BadInput(keyed("cicero.err.unknown_caste", name=repr(name), castes=", ".join(CASTES)))
    return name


def check_guild(name: Any) -> str:
    if name not in GUILDS:
        raise BadInput(keyed("cicero.err.unknown_guild", name=repr(name), guilds=", ".join(GUILDS)))
    return name


def numbers_for(players: Sequence[str], values: Any, what: Any, *, all_needed: bool = True) -> dict[str, int]:
    """``{player: whole number >= 0}``: every name known; every player present when needed."""
    if not isinstance(values, Mapping):
        raise BadInput(keyed("cicero.err.numbers_shape", what=what))
    out = {}
    for name, n in values.items():
        known(name, players, what)
        out[name] = whole(n, keyed("cicero.word.of_player", what=what, player=name))
    if all_needed:
        missing = [p for p in players if p not in out]
        if missing:
            raise BadInput(keyed("cicero.err.numbers_missing", what=what, names=", ".join(missing)))
    return {p: out[p] for p in players if p in out}


# -- setup ------------------------------------------------------------------------------------

def servants_for(n_players: int) -> int:
    """"They take their Servants (3 for a 2- or 3-player game, 2 for a 4- or 5-player game).\""""
    return SERVANTS[n_players]


def rounds_for(n_players: int) -> int:
    """"A game lasts 5 rounds with 2, 3 or 4 players, or 4 rounds with 5 players.\""""
    return ROUNDS[n_players]


def draft_turns(players: Sequence[str], youngest: str) -> tuple[tuple[str, int], ...]:
    """Who takes how many white-backed Senators, in order.

    "They then choose one Senator card and pass the remaining cards to their left-hand neighbour.
    [...] Once the pack reaches the last player, that player immediately chooses two cards and
    passes the pack to their right-hand neighbour." Seat order is the order the pack goes left.
    """
    start = players.index(youngest)
    seats = list(players[start:]) + list(players[:start])
    out = [(p, 1) for p in seats[:-1]] + [(seats[-1], 2)]
    out += [(p, 1) for p in reversed(seats[:-1])]
    return tuple(out)


# -- the first Princeps -----------------------------------------------------------------------

@dataclass(frozen=True)
class FirstPrinceps:
    princeps: str
    decided_by: str  # "votes", "oratores" or "age"


def first_princeps(names: Sequence[str], votes: Mapping[str, int], oratores: Mapping[str, int],
                   ages: Mapping[str, int], oldest: str | None = None,
                   majority: str = "most_votes") -> FirstPrinceps:
    """The most Senate votes; a tie goes to the most Oratores votes, then to the oldest.
    ``oldest`` names the older of players the same age in years, when the table knows.

    ``majority`` is the house rule "first_princeps_majority" ("If one player has a strict majority"):
    "most_votes" (more votes than each other player; a tie for the most goes to the Oratores) or
    "more_than_half" (more than half of all the Senate votes; without one, the Oratores votes of
    every player decide, then age)."""
    pool = list(names)
    if majority == "more_than_half":
        total = sum(votes[p] for p in pool)
        over = [p for p in pool if 2 * votes[p] > total]
        if over:
            return FirstPrinceps(over[0], "votes")
        steps: tuple[tuple[str, Mapping[str, int]], ...] = (("oratores", oratores),)
    else:
        steps = (("votes", votes), ("oratores", oratores))
    for key, scores in steps:
        top = max(scores[p] for p in pool)
        pool = [p for p in pool if scores[p] == top]
        if len(pool) == 1:
            return FirstPrinceps(pool[0], key)
    eldest_age = max(ages[p] for p in pool)
    pool = [p for p in pool if ages[p] == eldest_age]
    if len(pool) == 1:
        return FirstPrinceps(pool[0], "age")
    if oldest in pool:
        return FirstPrinceps(oldest, "age")
    # Not a malformed input: a fact the table must add (who is older, born the same year).
    need = NeedsTieBreak(keyed("cicero.err.first_princeps_same_age", names=and_list(pool), age=eldest_age),
                         None, pool, R_FIRST_PRINCEPS)
    need.field = "oldest"
    raise need


# -- electing the Princeps ----------------------------------------------------------------------

def automatii_beneficiary(prestige: Mapping[str, int], current_princeps: str) -> str:
    """Who the Automatii give their 5 votes to (2-player game)."""
    a, b = prestige
    if prestige[a] != prestige[b]:
        return a if prestige[a] < prestige[b] else b
    return b if current_princeps == a else a


@dataclass(frozen=True)
class Election:
    princeps: str
    tally: Mapping[str, int]       # weighted votes per player who received any
    tie: bool
    tied: tuple[str, ...] = ()     # the players tied for the most votes, when tied
    automatii_to: str | None = None


def elect_princeps(names: Sequence[str], senate_votes: Mapping[str, int], ballots: Mapping[str, str | None],
                   outgoing: str, outgoing_choice: str | None = None,
                   automatii_prestige: Mapping[str, int] | None = None,
                   automatii_to: str | None = None) -> Election:
    """Each player gives all their Senate votes to one player; the most votes wins; "In case of a
    tie, the outgoing Princeps decides the winner from among the tied players." In the 2-player
    game the Automatii add 5 votes for the player with the fewest PP.

    Raises NeedsTieBreak (chooser: the outgoing Princeps) on a tie with no choice given, BadInput
    when the choice names someone not tied, RuleError when a player gave no ballot: "each player
    ... clearly indicates the player to whom they give all of their votes" (no abstaining).

    ``automatii_to`` names the Automatii's beneficiary already decided for this election (a
    correction of the announced totals decides the same election again: the PP it looked at may
    have moved since).
    """
    missing = [p for p in names if ballots.get(p) is None]
    if missing:
        raise RuleError(keyed("cicero.err.ballots_missing", names=and_list(missing)), R_VOTE)
    for voter, choice in ballots.items():
        known(voter, names, "voter")
        if choice is not None:
            known(choice, names, f"the player {voter} votes for")
    known(outgoing, names, "outgoing Princeps")
    weights = dict(senate_votes)
    given = {v: c for v, c in ballots.items() if c is not None}
    if automatii_to is None and automatii_prestige is not None:
        automatii_to = automatii_beneficiary(automatii_prestige, outgoing)
    if automatii_to is not None:
        known(automatii_to, names, "Automatii's beneficiary")
        weights[AUTOMATII] = AUTOMATII_VOTES
        given[AUTOMATII] = automatii_to
    tally = WeightedPlurality(tie_breaker=outgoing, rule=R_ELECTION_TIE)
    try:
        result = tally.decide(given, weights, tie_choice=outgoing_choice, order=names)
    except NeedsTieBreak as tie:
        need = NeedsTieBreak(keyed("cicero.err.election_tie", names=and_list(tie.among),
                                votes=max(tally_counts(given, weights).values()), outgoing=outgoing),
                             outgoing, tie.among, R_ELECTION_TIE)
        need.field = "outgoing_choice"
        raise need from None
    counts = {p: result.counts[p] for p in names if p in result.counts}
    assert result.winner is not None  # a tie was broken above
    return Election(result.winner, counts, result.tie, result.leaders if result.tie else (), automatii_to)


def tally_counts(given: Mapping[str, str], weights: Mapping[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for voter, choice in given.items():
        out[choice] = out.get(choice, 0) + weights[voter]
    return out


# -- the 2-player Automatii ---------------------------------------------------------------------

@dataclass(frozen=True)
class AutomatiiPlacement:
    castes: tuple[str, ...]       # the Castes of the 3 revealed Senators, as revealed
    spaces: tuple[str, ...]       # where the Automatii's Servants go (second spaces)
    doubled: str | None           # the Caste revealed twice: both actions on that space


def automatii_placement(castes: Any) -> AutomatiiPlacement:
    """"Place one Servant on the second space of the zone corresponding to the Castes of the 3
    revealed Senators.\" With the two special cases."""
    if not isinstance(castes, (list, tuple)) or len(castes) != 3:
        raise BadInput(keyed("cicero.err.automatii_three"))
    castes = tuple(check_caste(c) for c in castes)
    distinct = tuple(dict.fromkeys(castes))
    if len(distinct) == 1:
        raise RuleError(keyed("cicero.err.automatii_draw_again", caste=castes[0]), R_AUTOMATII_SAME_THREE)
    doubled = next((c for c in distinct if castes.count(c) == 2), None)
    return AutomatiiPlacement(castes, tuple(f"{c}_2" for c in distinct), doubled)


# -- majorities ---------------------------------------------------------------------------------

def _ranked_winner(scores: Mapping[str, int], order: Sequence[str], princeps: str, choice: str | None,
                   message_key: str, what: Any, rule: str, field_name: str) -> str | None:
    """The player with the most (at least 1); a tie is the Princeps' to break. The NeedsTieBreak
    raised names in ``field`` the command field that carries the Princeps' choice."""
    contenders = {p: n for p, n in scores.items() if n > 0}
    if not contenders:
        return None
    tally = WeightedPlurality(tie_breaker=princeps, rule=rule)
    try:
        return tally.decide({p: p for p in contenders}, contenders, tie_choice=choice, order=order).winner
    except NeedsTieBreak as tie:
        need = NeedsTieBreak(keyed(message_key, what=what, names=and_list(tie.among),
                                n=contenders[tie.among[0]], princeps=princeps),
                             princeps, tie.among, rule)
        need.field = field_name
        raise need from None


@dataclass(frozen=True)
class CasteCount:
    primus: str | None      # who holds the Primus card after the count
    secundus: str | None    # who holds the Secundus card after the count
    taken: tuple[str, ...]  # "primus"/"secundus": the cards a player took at this count


def caste_majority(names: Sequence[str], votes: Mapping[str, int], princeps: str,
                   held: tuple[str | None, str | None] = (None, None),
                   primus_choice: str | None = None, secundus_choice: str | None = None,
                   caste: str = "", no_votes: str = "kept") -> CasteCount:
    """Primus to the most votes in the Caste, Secundus to the next; ties broken by the Princeps.

    Reading where the text is open: a card moves only to a player who takes it ("transferred to
    the player who took it"), and taking one needs at least 1 vote; with nobody to take it, a card
    stays with its holder — except a player never holds both cards of one Caste: a Secundus holder
    who becomes Primus with nobody to take Secundus returns Secundus to the supply.
    ``no_votes`` is the house rule "no_votes" for a Caste in which nobody has a vote at all:
    "kept" (the reading above) or "supply" (every holder lost the majority: both cards go back).
    """
    if no_votes == "supply" and not any(votes.values()):
        return CasteCount(None, None, ())
    primus = _ranked_winner(votes, names, princeps, primus_choice, "cicero.err.tie_primus", caste, R_CASTE_TIE,
                            "primus")
    rest = {p: n for p, n in votes.items() if p != primus}
    secundus = _ranked_winner(rest, names, princeps, secundus_choice, "cicero.err.tie_secundus", caste,
                              R_CASTE_TIE, "secundus") if primus else None
    taken = tuple(k for k, v in (("primus", primus), ("secundus", secundus)) if v)
    new_primus = primus or held[0]
    new_secundus = secundus or (held[1] if held[1] != new_primus else None)
    return CasteCount(new_primus, new_secundus, taken)


def guild_majority(names: Sequence[str], symbols: Mapping[str, int], princeps: str, held: str | None = None,
                   choice: str | None = None, guild: str = "", no_votes: str = "kept") -> tuple[str | None, bool]:
    """The Guild card to the player with the most symbols (ties: the Princeps); the same reading
    as the Castes when nobody has a symbol (``no_votes``). Returns (holder, taken at this count)."""
    if no_votes == "supply" and not any(symbols.values()):
        return None, False
    winner = _ranked_winner(symbols, names, princeps, choice, "cicero.err.tie_guild", guild, R_GUILD_TIE,
                            "choice")
    return (winner, True) if winner else (held, False)


def zone_of(caste: str) -> str:
    return ZONES[caste]


# -- the tribute --------------------------------------------------------------------------------

def second_tribute_ways(first: str) -> tuple[str, ...]:
    """The ways left for the second payment (see check_second_tribute for the reading)."""
    return tuple(w for w in TRIBUTE_WAYS if w != first or w == "influences")


def check_second_tribute(player: str, first: str | None, second: str) -> None:
    """"complete the payment of their tribute to Cicero in a different way from the first time".

    Reading: influences may be paid twice (the rule's own "by paying the other 2 influences" of the
    4 shown); a Senator discarded twice or -10 PP twice is the same way again, refused."""
    if first is None:
        raise RuleError(keyed("cicero.err.no_first_tribute", player=player), R_SECOND_TRIBUTE)
    if second not in second_tribute_ways(first):
        raise RuleError(keyed("cicero.err.same_tribute", player=player, how=keyed(f"cicero.tribute.{first}")),
                        R_SECOND_TRIBUTE)


def tribute_prestige(first: str, second: str | None) -> int:
    """PP the tribute costs: "you immediately lose 10 Prestige Points (-10 PP)" for each payment in PP."""
    return sum(TRIBUTE_PP for how in (first, second) if how == "prestige")


# -- the Prestige phase -------------------------------------------------------------------------

def card_points(players: Sequence[str], caste_cards: Mapping[str, Sequence[str | None]],
                guild_cards: Mapping[str, str | None], guild_use: Mapping[str, str]) -> dict[str, dict[str, int]]:
    """PP each player's majority cards bring: "A Primus card is worth 6 PP; a Secundus card is worth
    only 3 PP." and "3 PP for each card whose power they chose not to use.\""""
    out = {p: {"primus": 0, "secundus": 0, "guilds": 0, "total": 0} for p in players}
    for primus, secundus in caste_cards.values():
        if primus:
            out[primus]["primus"] += PRIMUS_PP
        if secundus:
            out[secundus]["secundus"] += SECUNDUS_PP
    for guild, holder in guild_cards.items():
        if holder and guild_use.get(guild) == "prestige":
            out[holder]["guilds"] += GUILD_PP
    for p in out:
        out[p]["total"] = out[p]["primus"] + out[p]["secundus"] + out[p]["guilds"]
    return out


def most_prestigious(final: Mapping[str, int]) -> list[str]:
    """"the most prestigious Family is declared the winner" (equal Prestige: all of them)."""
    best = max(final.values())
    return [p for p in final if final[p] == best]


# -- Phase III: what each space gives --------------------------------------------------------

def space_effect(space: str) -> tuple[str, dict]:
    """The catalogue key and parameters of a space's action: "Placing a Servant immediately
    triggers an action for the player who placed it, and also an action for each of the other
    players." (cicero.effect.<kind>.placer / .others)"""
    kind, _, n = space.rpartition("_")
    if kind == "senate":
        return "senate", {"pile": n}
    if kind not in CASTES or n not in ("1", "2"):
        raise BadInput(keyed("cicero.err.unknown_space", space=repr(space), spaces="senate_1..3, <Caste>_1, <Caste>_2"))
    return ("first" if n == "1" else "second"), {"caste": kind, "zone": ZONES[kind]}


def space_effect_text(space: str, placer: str | None = None) -> dict[str, dict]:
    kind, params = space_effect(space)
    return {"placer": keyed(f"cicero.effect.{kind}.placer", player=placer or keyed("cicero.effect.you"), **params),
            "others": keyed(f"cicero.effect.{kind}.others", **params)}


def space_kind_texts() -> list[dict[str, dict]]:
    """The three kinds of space (Senate, first, second) in general words, for a legend: sentences
    of their own (cicero.effect.kind.*), since no pile or Caste is named before a Servant is placed."""
    you = keyed("cicero.effect.you")
    return [{"placer": keyed(f"cicero.effect.kind.{k}.placer", player=you), "others": keyed(f"cicero.effect.kind.{k}.others")}
            for k in ("senate", "first", "second")]


# -- the physical set-up ------------------------------------------------------------------------

def setup_checklist(n_players: int) -> list[tuple[str, dict]]:
    """The rulebook's Setup, in order, with this table's numbers (catalogue keys cicero.setup.*)."""
    steps = [("board", {}), ("families", {"servants": SERVANTS[n_players]}), ("legions", {}), ("actions", {}),
             ("senators", {"white": 12}), ("majority_cards", {}), ("triumvirate", {"rounds": ROUNDS[n_players]}),
             ("cicero", {})]
    if n_players == 2:
        steps.append(("automatii", {}))
    return steps
