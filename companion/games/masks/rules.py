"""The Royals-and-Martyr mask game: its rules as data and pure functions (no Kivy).

The tablet is the narrator. It never learns who holds which Identity until the table turns the
cards over after the vote, so nothing it says or shows before then can depend on the Bystanders.

Round: deal checklist -> Hidden Phase (narrated) -> Discussion (timer; the Vanguard's use is
recorded because that player abstains) -> Voting (one secret pick vote, revealed at once) ->
the Executioner's check (the most-voted players look at their own card; the one holding the
Executioner shows that card alone and names a player) -> every Identity is turned over and
entered -> the result.

Readings where the rulebook is silent (each is shown to the table when it applies). The first
three are house rules (``HOUSE_RULES``): the group may choose the other reading at setup, and the
setup records it (``setup["house_rules"]``); the reading below is the default.

- A player tied with the center for the most votes (``center_tie``): the tied *players* are
  eliminated. "If multiple people tie for the most votes, they all are eliminated" eliminates
  everyone at the top; the center is not a person and cannot be eliminated, so it protects
  nobody. (House rule ``nobody_out``: a tie with the center eliminates nobody.)
- The Executioner tied with other players for the most votes (``executioner_tie``): the
  Executioner did "receive the most votes", so they name another player who is eliminated in
  their place; the others tied with them are still eliminated. (House rule ``all_out``: only
  the most votes alone give the choice; everyone tied is eliminated, the Executioner too.)
- "A majority of their votes" when the Vanguard abstains (``center_majority``): more than half
  of the votes the People cast (``votes_cast``); house rule ``all_people``: more than half of
  the People's players, the abstaining Vanguard's missing vote counting as not on the center.
- Both Royals among the Bystanders and the People without a majority on the center: no Royal
  was eliminated, so the Royal faction wins, with no Royal at the table ("If no Royals is
  eliminated, the Royals win").
- "A majority of their votes" is more than half of the votes the People's faction cast (an
  abstaining Vanguard casts none); the Royalist's vote is not a People's vote, since the
  Royalist's "superseding objective is to protect the Royal".
- The Executioner is whoever holds the Executioner card at the end (cards move during the
  game, so a player may not know they hold it): each most-voted player looks at their own card,
  and the Executioner among them shows it and chooses *before* the other cards are turned over,
  since "choose another player to be eliminated instead" is a choice made without seeing them.
- The Royalist is entered as tapped; final Identities may differ (the Gambler, the Fugitive, the
  Harlot move cards), so a Royalist the Royalist rule would not allow is warned about, not refused.
- A pointing the tablet got wrong may be corrected after the reveal: "On the count of 3, everyone
  points to one other player" is done in the open, so the table saw what each player really
  pointed at and the correction shows nothing secret. It is allowed from the reveal until the
  most-voted players answer the Executioner's check (or, when no player needs the check, until
  the Identities are entered): that check is made by "the most votes", so once a player has
  looked for the Executioner because of the count, the count is settled (undo the answer to
  correct it). The vote is then decided again by the same code as the reveal.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from collections.abc import Mapping, Sequence
from typing import Any

from companion.core import votes
from companion.core.commands import (DEVICE, SEAT, TABLE, Arg, ballot_args, command, CommandTable,
                                     force_arg, PerPlayer, players_of)
from companion.core.events import BadInput, Command, Event, RuleError
from companion.core.houserules import HouseRule, applies, chosen
from companion.core.i18n import joined, keyed
from companion.core.rules import GameRules, Outcome, known_setup, require
from companion.core.schema import List, Null, Player, Text
from companion.core.tally import PluralityAllTiedOut, TallyResult
from companion.core.timers import timer_view

CENTER = votes.CENTER  # the Bystanders, as a vote option

# The version of these rules a game is played under (recorded when it starts: core.rules).
RULES_VERSION = 1

PEOPLE, ROYALS, MARTYR, DRAW = "people", "royals", "martyr", "draw"

# The Identity cards in the rulebook's order of play, with their faction: (P), (R), (M).
IDENTITIES: tuple[str, ...] = (
    "Pamphleteer", "Spy", "Fugitive", "Harlot", "Martyr", "Queen", "King", "Executioner",
)
FACTION: Mapping[str, str] = {
    "Pamphleteer": PEOPLE, "Spy": PEOPLE, "Fugitive": PEOPLE, "Harlot": PEOPLE,
    "Martyr": MARTYR, "Queen": ROYALS, "King": ROYALS, "Executioner": PEOPLE,
}
ROYAL_CARDS = ("Queen", "King")
MASKS: tuple[str, ...] = ("Mendicant", "Confessor", "Vanguard", "Gambler", "Monger")

PLAYERS = 5
BYSTANDERS = 3
DISCUSSION_SECONDS = 7 * 60
DISCUSSION_WARNINGS = (120, 60, 30, 10)  # the Discussion's time left, spoken near its end
MIN_DISCUSSION, MAX_DISCUSSION = 60, 30 * 60
VOTE_ID = "masks-vote"

# The rulebook's sentences, quoted by the errors and by the tests.
RULE_PLAYERS = "Players 5 (+1 Narrator, or use a recording for the Hidden Phase)"
RULE_DEAL = ("Since there are 8 Identities and only 5 players, the 3 remaining Identity Cards "
             "are placed face-down in the middle and are referred to as \u201cBystanders\u201d.")
RULE_POINT = "On the count of 3, everyone points to one other player, who gets their vote."
RULE_NO_ABSTAIN = ("Players cannot abstain from voting except through the effect of Mask of "
                   "the Vanguard.")
RULE_VANGUARD = ("Vanguard \u2013 You can reveal one Bystander at any point during the Discussion "
                 "Phase, but if you do, abstain from voting during the Voting Phase.")
RULE_USED = "If a Mask's effect has already been used, it cannot be used by the new owner."
RULE_MOST = "The player with the most votes is eliminated."
RULE_TIE = "If multiple people tie for the most votes, they all are eliminated."
RULE_EXECUTIONER = ("Executioner (P) \u2013 No action during the Hidden Phase. If you receive the "
                    "most votes during the Voting Phase, choose another player to be eliminated "
                    "instead.")
RULE_ROYALIST = ("If there is only 1 Royal in play, that Royal will tap the shoulder of an "
                 "adjacent player to their left or right. That person is now a Royalist")
RULE_ROYALIST_ONE = "If there is only 1 Royal in play"
RULE_ROYALIST_NEIGHBOUR = ("that Royal will tap the shoulder of an adjacent player to their left or "
                           "right. That person is now a Royalist")
RULE_ROYALIST_MARTYR = "The Martyr cannot be selected as a Royalist."
RULE_REVEAL = "Once all votes are cast, players reveal their Identity Cards to determine who won."
RULE_DISCUSSION = "Players have 7 minutes to talk."
# The longest reason the table may give for a correction (one line under the vote).
MAX_REASON = 80

# The readings the rulebook leaves open, chosen by the group at setup (the first is the default:
# the app's reading before house rules). Catalogue keys: masks.house.<name>[.rule|.<reading>].
CENTER_TIE = HouseRule("masks", "center_tie", ("players_out", "nobody_out"))
EXECUTIONER_TIE = HouseRule("masks", "executioner_tie", ("chooses", "all_out"))
CENTER_MAJORITY = HouseRule("masks", "center_majority", ("votes_cast", "all_people"))
HOUSE_RULES: tuple[HouseRule, ...] = (CENTER_TIE, EXECUTIONER_TIE, CENTER_MAJORITY)
DEFAULT_HOUSE_RULES: Mapping[str, str] = {h.name: h.default for h in HOUSE_RULES}
# A verdict's reading (its recorded key) decided by a house rule: shown as that rule applied.
HOUSE_READINGS: Mapping[str, HouseRule] = {
    "masks.reading.center_tie": CENTER_TIE, "masks.reading.executioner_tie": EXECUTIONER_TIE,
    "masks.reading.center_majority": CENTER_MAJORITY,
}


# --- checking input (shared by the app's commands and the referee) ------------------------

def check_players(players: Any) -> tuple[str, ...]:
    if not isinstance(players, (list, tuple)):
        raise BadInput(keyed("refusals.masks.players"))
    if len(players) != PLAYERS:
        raise BadInput(keyed("refusals.masks.player_count", n=len(players)))
    names = []
    for p in players:
        if not isinstance(p, str) or not p.strip():
            raise BadInput(keyed("refusals.players_not_names"))
        if p == CENTER:
            raise BadInput(keyed("refusals.masks.center_name", name=CENTER))
        names.append(p)
    if len(set(names)) != len(names):
        raise BadInput(keyed("refusals.players_twice"))
    return tuple(names)


def _check_identity(value: Any, where: Any) -> str:
    if value not in IDENTITIES:
        raise BadInput(keyed("masks.error.not_an_identity", where=where, value=repr(value),
                             identities=", ".join(IDENTITIES)))
    return value


def _one_for_each_player(players: Sequence[str], given: Any, shape_key: str, missing_key: str) -> None:
    """The table's entry holds one value for each player, and nobody else."""
    if not isinstance(given, Mapping):
        raise BadInput(keyed(shape_key))
    unknown = [n for n in given if n not in players]
    if unknown:
        raise BadInput(keyed("masks.error.not_a_player", name=unknown[0]))
    missing = [p for p in players if p not in given]
    if missing:
        raise BadInput(keyed(missing_key, player=missing[0]))


def check_identities(players: Sequence[str], identities: Any, center: Any
                     ) -> tuple[dict[str, str], tuple[str, ...]]:
    """The final Identities in front of the players and in the center: 8 different cards."""
    _one_for_each_player(players, identities, "masks.error.identities_shape", "masks.error.identity_missing")
    ids = {p: _check_identity(identities[p], p) for p in players}
    seen: dict[str, Any] = {}

    def once(card: str, where: Any) -> None:
        if card in seen:
            raise RuleError(keyed("masks.error.identity_twice", card=keyed(f"masks.identity.{card}"),
                                  first=seen[card], second=where), RULE_DEAL)
        seen[card] = where

    for p in players:  # the players' cards first: the likeliest slip at the table
        once(ids[p], p)
    if not isinstance(center, (list, tuple)) or len(center) != BYSTANDERS:
        raise BadInput(keyed("masks.error.center_three"))
    center_words = keyed("masks.error.the_center")
    mid = tuple(_check_identity(c, center_words) for c in center)
    for c in mid:
        once(c, center_words)
    return ids, mid


def check_royalist(players: Sequence[str], royalist: Any) -> str | None:
    if royalist is None:
        return None
    if royalist not in players:
        raise BadInput(keyed("masks.error.not_a_player", name=royalist))
    return royalist


@dataclass(frozen=True)
class RoyalistWarning:
    """A Royalist the Royalist rule would not allow, given the final Identities."""
    key: str                    # catalogue key under masks.warn.
    params: Mapping[str, Any]
    rule: str                   # the rulebook's words

    def text(self) -> dict:
        return keyed("rule.quoted", text=keyed(f"masks.warn.{self.key}", **self.params), rule=self.rule)


# Each warning's rulebook words, by its key (a recorded verdict holds the key, never the words).
WARNING_RULES: Mapping[str, str] = {
    "both_royals": RULE_ROYALIST_ONE, "royal_self": RULE_ROYALIST_NEIGHBOUR, "martyr": RULE_ROYALIST_MARTYR,
    "not_neighbour": RULE_ROYALIST_NEIGHBOUR, "no_royal": RULE_ROYALIST_ONE,
}


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


def check_votes(players: Sequence[str], ballots: Any) -> dict[str, str | None]:
    """Every player's final vote: another player, "center", or None (the Vanguard abstained)."""
    _one_for_each_player(players, ballots, "masks.error.votes_shape", "masks.error.vote_missing")
    out: dict[str, str | None] = {}
    for p in players:
        choice = ballots[p]
        if choice is not None and choice != CENTER and choice not in players:
            raise BadInput(keyed("masks.error.voted_for_nobody", player=p, name=choice))
        if choice == p:
            raise RuleError(keyed("masks.error.voted_self", player=p), RULE_POINT)
        out[p] = choice
    abstained = [p for p in players if out[p] is None]
    if len(abstained) > 1:
        raise RuleError(keyed("masks.error.abstained", names=", ".join(abstained)), RULE_NO_ABSTAIN)
    return out


# --- the vote and the result ---------------------------------------------------------------

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
    if top and CENTER in most and house.get(CENTER_TIE.name) == "nobody_out":
        return ()
    if len(top) > 1 and house.get(EXECUTIONER_TIE.name) == "all_out":
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


@dataclass(frozen=True)
class VoteCount:
    """The revealed vote's count as the journal records it (decided once, with the reveal or
    a correction): votes per player and the center in seat order, the top of the count, and
    the players on top (who look for the Executioner)."""
    counts: Mapping[str, int]
    most_voted: tuple[str, ...]
    top_players: tuple[str, ...]
    checkers: tuple[str, ...] = ()   # who looks for the Executioner (``who_checks``)

    def record(self) -> dict:
        out = {"counts": dict(self.counts), "most_voted": list(self.most_voted),
               "top_players": list(self.top_players)}
        if self.checkers != self.top_players:   # only a house rule makes them differ
            out["checkers"] = list(self.checkers)
        return out

    @classmethod
    def of(cls, players: Sequence[str], ballots: Mapping[str, str | None],
           house: Mapping[str, str] = DEFAULT_HOUSE_RULES) -> "VoteCount":
        """The count worked out from the ballots (in ``decide``)."""
        most, top = most_voted(players, ballots).leaders, top_players(players, ballots)
        return cls(vote_counts(players, ballots), most, top, who_checks(most, top, house))

    @classmethod
    def recorded(cls, players: Sequence[str], d: Mapping[str, Any]) -> "VoteCount":
        """The count as recorded (the journal keeps no key order: seat order again)."""
        counts = d["counts"]
        top = tuple(d["top_players"])
        return cls({o: int(counts.get(o, 0)) for o in list(players) + [CENTER]},
                   tuple(d["most_voted"]), top, tuple(d.get("checkers", top)))


@dataclass(frozen=True)
class Verdict:
    counts: Mapping[str, int]          # votes per player and "center"
    most_voted: tuple[str, ...]        # the top of the count (may include "center")
    eliminated: tuple[str, ...]        # in seat order
    result: str                        # people | royals | martyr | draw
    winners: tuple[str, ...]           # players at the table who win, in seat order
    readings: tuple[str, ...] = ()     # catalogue keys of the readings applied, for the table
    executioner: str | None = None
    executioner_target: str | None = None
    decided_by: str = ""               # which of the rulebook's win conditions decided it
    warnings: tuple[RoyalistWarning, ...] = ()

    def to_dict(self) -> dict:
        return {"eliminated": list(self.eliminated), "result": self.result,
                "winners": list(self.winners)}

    def reasons(self) -> dict:
        """What the engine computed on the way (the referee's full answer)."""
        return {"counts": dict(self.counts), "most_voted": list(self.most_voted),
                "executioner": self.executioner, "executioner_target": self.executioner_target,
                "decided_by": self.decided_by, "readings": list(self.readings),
                "warnings": [w.key for w in self.warnings]}

    def record(self) -> dict:
        """The whole verdict as the journal records it (keys and values: the warnings' rulebook
        words are found again by their keys)."""
        return {**self.to_dict(), **self.reasons(),
                "warnings": [{"key": w.key, "params": dict(w.params)} for w in self.warnings]}

    @classmethod
    def recorded(cls, players: Sequence[str], d: Mapping[str, Any]) -> "Verdict":
        counts = d["counts"]
        return cls(counts={o: int(counts.get(o, 0)) for o in list(players) + [CENTER]},
                   most_voted=tuple(d["most_voted"]), eliminated=tuple(d["eliminated"]), result=d["result"],
                   winners=tuple(d["winners"]), readings=tuple(d["readings"]), executioner=d["executioner"],
                   executioner_target=d["executioner_target"], decided_by=d["decided_by"],
                   warnings=tuple(RoyalistWarning(w["key"], dict(w["params"]), WARNING_RULES[w["key"]])
                                  for w in d["warnings"]))


def judge(players: Sequence[str], identities: Mapping[str, str], center: Sequence[str],
          royalist: str | None, ballots: Mapping[str, str | None],
          executioner_target: str | None, house: Mapping[str, str] = DEFAULT_HOUSE_RULES) -> Verdict:
    """Who is eliminated and who wins, under the house rules chosen (``house``, every name of
    HOUSE_RULES with its reading). Inputs already checked (check_* above)."""
    tally = most_voted(players, ballots)
    readings: list[str] = []
    top_players = [p for p in tally.leaders if p != CENTER]
    center_saves = bool(top_players) and CENTER in tally.leaders and house[CENTER_TIE.name] == "nobody_out"
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
            if house[CENTER_MAJORITY.name] == "all_people":
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


# --- the game as a journalled state machine -----------------------------------------------

DEAL, HIDDEN, DISCUSSION, VOTING, EXECUTIONER_CHECK, EXECUTIONER, IDENTITIES_PHASE, OVER = (
    "deal", "hidden", "discussion", "voting", "executioner_check", "executioner", "identities",
    "over")


@dataclass(frozen=True)
class MasksState:
    players: tuple[str, ...]
    discussion_seconds: int = DISCUSSION_SECONDS
    phase: str = DEAL
    vanguard: str | None = None                 # who used the Mask of the Vanguard
    book: votes.VoteBook = field(default_factory=votes.VoteBook)
    ballots: Mapping[str, str | None] | None = None  # the revealed vote
    identities: Mapping[str, str] | None = None      # the final Identities, once entered
    center: tuple[str, ...] = ()
    royalist: str | None = None
    verdict: Verdict | None = None
    count: VoteCount | None = None              # the revealed vote's count, as recorded
    # The Executioner's check, before the general reveal: done (True), who showed the card, and
    # whom they chose. (A journal written before the check existed has it False throughout.)
    checked: bool = False
    executioner: str | None = None
    executioner_target: str | None = None
    # A revealed pointing may still be corrected (from the reveal until the Executioner's check
    # is answered or the Identities are entered), and the corrections made, for the table.
    correctable: bool = False
    corrections: tuple[Mapping[str, Any], ...] = ()
    # The readings the group chose where the rulebook is open (every name of HOUSE_RULES).
    house_rules: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_HOUSE_RULES))


def _seconds(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise BadInput(keyed("refusals.masks.discussion_seconds", least=MIN_DISCUSSION, most=MAX_DISCUSSION))
    if not MIN_DISCUSSION <= value <= MAX_DISCUSSION or value != int(value):  # whole seconds
        raise BadInput(keyed("refusals.masks.discussion_seconds", least=MIN_DISCUSSION, most=MAX_DISCUSSION))
    return int(value)


class MasksRules(GameRules):
    game_id = "masks"
    rules_version = RULES_VERSION
    title = "masks.title"
    min_players = PLAYERS
    max_players = PLAYERS
    house_rules = HOUSE_RULES

    def initial_state(self, setup: Mapping[str, Any]) -> MasksState:
        if not isinstance(setup, Mapping):
            raise BadInput(keyed("refusals.setup_not_object"))
        # colours, first, seats, options: the app's table setup, kept with the game
        known_setup(setup, ("players", "discussion_seconds", "colours", "first", "seats", "options",
                            "house_rules"))
        players = check_players(setup.get("players"))
        seconds = _seconds(setup.get("discussion_seconds", DISCUSSION_SECONDS))
        return MasksState(players=players, discussion_seconds=seconds, house_rules=chosen(setup, HOUSE_RULES))

    # commands -------------------------------------------------------------------------
    def decide(self, state: MasksState, command: Command) -> list[tuple[str, Mapping[str, Any]]]:
        return COMMANDS.dispatch(self, state, command)

    def _phase(self, state: MasksState, *phases: str, what: str) -> None:
        """Refuse ``what`` (the key of its words: ``masks.doing.*``) outside ``phases``."""
        require(state.phase in phases, keyed("masks.refusal.not_now", what=keyed(what),
                                             phase=keyed(f"masks.phase_name.{state.phase}")))

    def _do_start_hidden_phase(self, state, data):
        # The deal checklist is done: the narrator takes over.
        self._phase(state, DEAL, what="masks.doing.start_hidden")
        return [("hidden_phase_started", {})]

    def _do_end_hidden_phase(self, state, data):
        self._phase(state, HIDDEN, what="masks.doing.end_hidden")
        return [("discussion_started", {"seconds": state.discussion_seconds})]

    def _do_use_vanguard(self, state, data):
        self._phase(state, DISCUSSION, what="masks.doing.use_vanguard")
        player = data.get("player")
        if player not in state.players:
            raise BadInput(keyed("masks.error.not_a_player", name=player))
        require(state.vanguard is None, keyed("masks.refusal.vanguard_used", player=state.vanguard), RULE_USED)
        return [("vanguard_used", {"player": player})]

    def _do_end_discussion(self, state, data):
        self._phase(state, DISCUSSION, what="masks.doing.end_discussion")
        spec = votes.VoteSpec(
            vote_id=VOTE_ID, kind="pick", voters=state.players,
            options=state.players + (CENTER,), allow_self=False,
            allow_abstain=state.vanguard is not None, question=keyed("masks.vote.question"))
        events = [("discussion_ended", {})] + votes.open_vote(state.book, spec)
        if state.vanguard is not None:
            # The Vanguard's abstention is recorded at once, so the seats still map one to one
            # onto the players (a vote box at seat 3 is always the third player).
            events.append(("ballot_cast", {"vote_id": VOTE_ID, "voter": state.vanguard,
                                           "choice": None}))
        return events

    def _do_cast_ballot(self, state, data):
        self._phase(state, VOTING, what="masks.doing.cast_ballot")
        vote = state.book.current
        # (An undo of the vote's opening alone leaves the Voting phase with no vote open.)
        require(vote is not None, keyed("masks.refusal.no_vote_undo"))
        # Read the ballot leniently first, so a refusal can quote this rulebook's words.
        lenient = replace(vote.spec, allow_self=True, allow_abstain=True)
        voter, choice = votes.normalise_ballot(lenient, data)
        # (The Vanguard may only abstain again, e.g. after the table undid that ballot.)
        require(voter != state.vanguard or choice is None,
                keyed("masks.refusal.vanguard_abstains", voter=voter), RULE_VANGUARD)
        require(choice != voter, keyed("masks.refusal.not_self", voter=voter), RULE_POINT)
        require(choice is not None or voter == state.vanguard, keyed("masks.refusal.no_abstain", voter=voter),
                RULE_NO_ABSTAIN)
        return self._with_count(state, votes.cast(state.book, data, ""))

    def _do_reveal_vote(self, state, data):
        self._phase(state, VOTING, what="masks.doing.reveal")
        require(state.book.current is not None, keyed("masks.refusal.no_vote"))
        waiting = state.book.current.waiting
        require(not waiting, keyed("masks.refusal.waiting", players=", ".join(waiting)), RULE_NO_ABSTAIN)
        return self._with_count(state, votes.reveal(state.book, False))

    def _with_count(self, state, events):
        """The reveal carries the count it makes (``count``): decided here, once."""
        return votes.on_reveal(state.book, events, "count",
                               lambda ballots: VoteCount.of(state.players, ballots, state.house_rules).record())

    def _do_correct_pointing(self, state, data):
        """A revealed pointing set to what the table saw (``voter`` really pointed at
        ``choice``), with the table's ``reason``. The pointing is public ("On the count of 3,
        everyone points to one other player"), so correcting it reveals nothing. Allowed from the
        reveal until the Executioner's check is answered (see the module's readings)."""
        if state.identities is not None:
            raise RuleError(keyed("masks.refusal.correct_after_identities"), RULE_REVEAL)
        if state.ballots is None:
            raise RuleError(keyed("masks.refusal.correct_not_revealed"), RULE_POINT)
        require(state.correctable, keyed("masks.refusal.correct_after_check"), RULE_EXECUTIONER)
        vote = state.book.find(VOTE_ID)
        assert vote is not None and vote.revealed  # the ballots came from it
        # Read it leniently first, as a ballot is, so a refusal quotes this rulebook's words.
        lenient = replace(vote.spec, allow_self=True, allow_abstain=True)
        voter, choice = votes.normalise_ballot(lenient, {"voter": data.get("voter"),
                                                         "choice": data.get("choice")})
        require(voter != state.vanguard, keyed("masks.refusal.correct_vanguard", voter=voter), RULE_VANGUARD)
        require(choice is not None, keyed("masks.refusal.no_abstain", voter=voter), RULE_NO_ABSTAIN)
        require(choice != voter, keyed("masks.refusal.not_self", voter=voter), RULE_POINT)
        before = state.ballots.get(voter)
        require(choice != before, keyed("masks.refusal.correct_same", voter=voter,
                                        choice=choice_words(choice)))
        reason = data.get("reason")
        if not isinstance(reason, str) or not reason.strip() or len(reason.strip()) > MAX_REASON \
                or "\n" in reason:
            raise BadInput(keyed("masks.error.correction_reason", most=MAX_REASON))
        count = VoteCount.of(state.players, {**state.ballots, voter: choice},  # decided again, as at the reveal
                             state.house_rules)
        return [("pointing_corrected", {"vote_id": VOTE_ID, "voter": voter, "before": before,
                                        "choice": choice, "reason": reason.strip(), "count": count.record()})]

    def _do_executioner_check(self, state, data):
        """Which most-voted player showed the Executioner (``player``), or nobody (null)."""
        self._phase(state, EXECUTIONER_CHECK, what="masks.doing.executioner_check")
        player = data.get("player")
        if player is None:
            return [("no_executioner_shown", {})]
        assert state.count is not None  # the vote was revealed
        top = state.count.checkers
        if player not in state.players:
            raise BadInput(keyed("masks.error.not_a_player", name=player))
        require(player in top, keyed("masks.refusal.not_most", player=player, top=", ".join(top)),
                RULE_EXECUTIONER)
        return [("executioner_shown", {"player": player})]

    def _do_enter_identities(self, state, data):
        self._phase(state, IDENTITIES_PHASE, what="masks.doing.enter_identities")
        ids, center = check_identities(state.players, data.get("identities"), data.get("center"))
        royalist = check_royalist(state.players, data.get("royalist"))
        if state.checked:
            # The cards turned over must agree with the card shown alone before them.
            shown = state.executioner
            holder = executioner_to_choose(state.players, ids, state.ballots, state.house_rules)
            if shown is not None:
                require(ids[shown] == "Executioner",
                        keyed("masks.refusal.shown_not_executioner", player=shown,
                              identity=keyed(f"masks.identity.{ids[shown]}")), RULE_EXECUTIONER)
            else:
                require(holder is None, keyed("masks.refusal.executioner_hidden", player=holder),
                        RULE_EXECUTIONER)
        revealed: dict[str, Any] = {"identities": ids, "center": list(center), "royalist": royalist}
        # The result, decided here once: after the check (every new game), with the choice made;
        # in a game from before the check, unless the Executioner is still to choose.
        if state.checked or not executioner_to_choose(state.players, ids, state.ballots, state.house_rules):
            target = state.executioner_target if state.checked else None
            revealed["verdict"] = judge(state.players, ids, center, royalist, state.ballots, target,
                                        state.house_rules).record()
        return [("identities_revealed", revealed)]

    def _do_executioner_chooses(self, state, data):
        self._phase(state, EXECUTIONER, what="masks.doing.executioner_choice")
        target = data.get("target")
        if target not in state.players:
            raise BadInput(keyed("masks.error.not_a_player", name=target))
        executioner = state.executioner or executioner_to_choose(
            state.players, state.identities, state.ballots, state.house_rules)
        require(target != executioner, keyed("masks.refusal.choose_other", executioner=executioner),
                RULE_EXECUTIONER)
        chose: dict[str, Any] = {"executioner": executioner, "target": target}
        if state.identities is not None:  # a game from before the check: the choice decides it
            chose["verdict"] = judge(state.players, state.identities, state.center, state.royalist,
                                     state.ballots, target, state.house_rules).record()
        return [("executioner_chose", chose)]

    # the fold -------------------------------------------------------------------------
    def evolve(self, state: MasksState, event: Event) -> MasksState:
        kind, d = event.kind, event.data
        if kind in votes.VOTE_EVENTS:
            book = votes.apply_vote_event(state.book, event)
            state = replace(state, book=book)
            if kind == "vote_revealed" and book.current is None and book.history:
                return self._decided(state, d)
            return state
        if kind == "pointing_corrected":
            book = votes.amend_revealed(state.book, d["vote_id"], d["voter"], d["choice"], event.source)
            note = {k: d.get(k) for k in ("voter", "before", "choice", "reason")}
            # the count decided again (in decide), by the very code the reveal ran
            return self._decided(replace(state, book=book, corrections=state.corrections + (note,)), d)
        if kind == "hidden_phase_started":
            return replace(state, phase=HIDDEN)
        if kind == "discussion_started":
            return replace(state, phase=DISCUSSION)
        if kind == "vanguard_used":
            return replace(state, vanguard=d["player"])
        if kind == "discussion_ended":
            return replace(state, phase=VOTING)
        if kind == "no_executioner_shown":
            return replace(state, phase=IDENTITIES_PHASE, checked=True, correctable=False)
        if kind == "executioner_shown":
            return replace(state, phase=EXECUTIONER, checked=True, executioner=d["player"],
                           correctable=False)
        if kind == "identities_revealed":
            state = replace(state, identities=dict(d["identities"]), center=tuple(d["center"]),
                            royalist=d.get("royalist"), correctable=False)
            if "verdict" in d:
                return self._judged(state, d)
            assert state.identities is not None and state.ballots is not None  # revealed after the vote
            if state.checked:  # legacy: judged here, as the version that recorded it did
                return self._judged(state, d, state.executioner_target)
            # A journal from before the check: the Executioner chose after the reveal.
            holder = executioner_to_choose(state.players, state.identities, state.ballots, state.house_rules)
            if holder:
                return replace(state, phase=EXECUTIONER, executioner=holder)
            return self._judged(state, d, None)
        if kind == "executioner_chose":
            if state.identities is None:
                return replace(state, phase=IDENTITIES_PHASE, executioner_target=d["target"])
            return self._judged(state, d, d["target"])
        return state  # an event kind this version does not know: nothing to fold

    def _decided(self, state: MasksState, d: Mapping[str, Any]) -> MasksState:
        """The revealed vote (as revealed, or as corrected since) and its recorded count: who is
        on top; a player on top may hold the Executioner: they check before anyone reveals."""
        vote = state.book.find(VOTE_ID)
        if vote is None or not vote.revealed:
            return state  # a correction of a vote this journal never revealed: nothing to fold
        ballots = vote.choices()
        # Legacy: an event recorded before its count was has it worked out here, as then.
        count = VoteCount.recorded(state.players, d["count"]) if "count" in d else VoteCount.of(state.players, ballots)
        check = bool(count.checkers)
        return replace(state, ballots=ballots, count=count, checked=not check, correctable=True,
                       phase=EXECUTIONER_CHECK if check else IDENTITIES_PHASE)

    def _judged(self, state: MasksState, d: Mapping[str, Any], target: str | None = None) -> MasksState:
        """The verdict the event records; legacy (an event recorded before verdicts were): judged
        here with ``target``, as the version that recorded it did."""
        if "verdict" in d:
            return replace(state, phase=OVER, verdict=Verdict.recorded(state.players, d["verdict"]))
        assert state.identities is not None and state.ballots is not None  # judged after both
        verdict = judge(state.players, state.identities, state.center, state.royalist,
                        state.ballots, target, state.house_rules)
        return replace(state, phase=OVER, verdict=verdict)

    # views ----------------------------------------------------------------------------
    def view(self, state: MasksState, viewer: str) -> dict:
        # The tablet never holds a secret before the reveal: the Identities are entered only
        # once they are face up, so every viewer sees the same thing.
        v = {
            "game": self.game_id, "phase": state.phase, "prompt": self.prompt(state),
            "players": list(state.players), "discussion_seconds": state.discussion_seconds,
            "vanguard": state.vanguard,
            "vote": _vote_view(state.book.current),
            "vote_history": [votes.table_view(x) for x in state.book.history],
        }
        if state.count is not None:
            v["counts"] = dict(state.count.counts)
            v["most_voted"] = list(state.count.most_voted)
            v["top_players"] = list(state.count.top_players)
        v["can_correct"] = state.correctable
        v["house_rules"] = dict(state.house_rules)
        if state.count is not None and state.verdict is None:
            v["house_notes"] = house_notes(state)
        if state.phase == DISCUSSION:
            # "Once the 7 minutes are up, proceed immediately to the Voting Phase": the vote's
            # script opens with "Time is up", so the countdown's end says nothing itself
            v["timer"] = timer_view("masks.discussion", state.discussion_seconds, DISCUSSION_WARNINGS,
                                    "discussion_started", then="end_discussion", say_end=False)
        if state.corrections:
            v["corrections"] = [correction_text(c) for c in state.corrections]
        if state.executioner_target is not None and state.verdict is None:
            v["executioner_target"] = state.executioner_target
        if state.identities is not None:
            v["identities"] = dict(state.identities)
            v["center"] = list(state.center)
            v["royalist"] = state.royalist
        if state.phase == EXECUTIONER or state.phase == IDENTITIES_PHASE and state.checked:
            v["executioner"] = state.executioner  # (a journal from before the check: found when folded)
        if state.verdict is not None:
            vd = state.verdict
            v.update(vd.to_dict())
            v["executioner"] = vd.executioner
            v["executioner_target"] = vd.executioner_target
            v["readings"] = [reading_text(k, state.house_rules) for k in vd.readings]
            v["warnings"] = [w.text() for w in vd.warnings]
            v["decided_by"] = vd.decided_by
            v["result_text"] = result_text(vd)
        return v

    def prompt(self, state: MasksState) -> dict:
        if state.phase == EXECUTIONER_CHECK:
            assert state.count is not None  # the vote was revealed
            top = state.count.checkers
            return keyed("masks.prompt.executioner_check_one" if len(top) == 1
                      else "masks.prompt.executioner_check", names=", ".join(top))
        if state.phase == EXECUTIONER:
            # known from the check, or (a journal from before the check) from the identities
            return keyed("masks.prompt.executioner", name=state.executioner)
        if state.phase == IDENTITIES_PHASE and state.executioner_target is not None:
            return keyed("masks.prompt.identities_after_choice", name=state.executioner,
                      target=state.executioner_target)
        if state.phase == OVER:
            assert state.verdict is not None  # the game is judged
            return result_text(state.verdict)
        return keyed(f"masks.prompt.{state.phase}")

    def outcome(self, state: MasksState) -> Outcome | None:
        if state.verdict is None:
            return None
        return {"winners": list(state.verdict.winners), "summary": result_text(state.verdict)}


def _vote_view(vote: votes.VoteState | None) -> dict | None:
    """The core's table view, plus what the shared vote screen needs to offer the right
    choices: never oneself, and no abstaining (the Vanguard's is already recorded)."""
    view = votes.table_view(vote)
    if view is not None:
        view["allow_self"] = False
        view["allow_abstain"] = False
    return view


def reading_text(key: str, house: Mapping[str, str]) -> dict:
    """A verdict's reading for the table: a house rule's as the reading that applied (with the
    rulebook's words), any other as its catalogue text."""
    rule = HOUSE_READINGS.get(key)
    return applies(rule, house[rule.name]) if rule is not None else keyed(key)


def house_notes(state: MasksState) -> list[dict]:
    """The house rules deciding the revealed count (before the result): a tie with the center,
    players tied (where an Executioner among them may or may not choose)."""
    assert state.count is not None  # the vote was revealed
    top, most = state.count.top_players, state.count.most_voted
    notes = []
    if top and CENTER in most:
        notes.append(applies(CENTER_TIE, state.house_rules[CENTER_TIE.name]))
    if len(top) > 1 and not (CENTER in most and state.house_rules[CENTER_TIE.name] == "nobody_out"):
        notes.append(applies(EXECUTIONER_TIE, state.house_rules[EXECUTIONER_TIE.name]))
    return notes


def choice_words(choice: str | None) -> Any:
    """A pointing in words: a player's name, or the Bystanders in the center."""
    return keyed("masks.correction.center") if choice == CENTER else choice


def correction_text(note: Mapping[str, Any]) -> dict:
    """One corrected pointing, for the table: who, what the tablet had, what it is now, why."""
    return keyed("masks.correction.note", voter=note["voter"], choice=choice_words(note["choice"]),
                 before=choice_words(note["before"]), reason=note["reason"])


def result_text(verdict: Verdict) -> dict:
    """One sentence for the table: who was eliminated and which faction won (said when shown)."""
    winners = ", ".join(verdict.winners) or keyed("masks.result.no_one")
    return joined([keyed("masks.result.eliminated", names=", ".join(verdict.eliminated))
                   if verdict.eliminated else keyed("masks.result.nobody_eliminated"),
                   keyed("masks.result.executioner", executioner=verdict.executioner,
                         target=verdict.executioner_target) if verdict.executioner else None,
                   keyed(f"masks.result.{verdict.result}", winners=winners)])


# --- the command table: what the table may ask of the round (companion.core.commands) --------

RULE_HIDDEN = ("Everyone closes their eyes. The narrator will call on specific Identities to open "
               "their eyes and perform the action detailed on their card.")
RULE_DISCUSSION_END = "Once the 7 minutes are up, proceed immediately to the Voting Phase."


_cmd = partial(command, passes="data")


_players = players_of


def _choices(state):
    return state.players + (CENTER,)


COMMANDS = CommandTable("masks", [
    _cmd("start_hidden_phase", MasksRules._do_start_hidden_phase, RULE_HIDDEN,
         doc="the deal is done: the narrator starts the Hidden Phase"),
    _cmd("end_hidden_phase", MasksRules._do_end_hidden_phase, RULE_DISCUSSION,
         doc="everyone opens their eyes: the Discussion's 7 minutes start"),
    _cmd("use_vanguard", MasksRules._do_use_vanguard, RULE_VANGUARD,
         Arg("player", Player(), values=_players, doc="who used the Mask of the Vanguard"),
         doc="the Vanguard revealed a Bystander and will abstain"),
    _cmd("end_discussion", MasksRules._do_end_discussion, RULE_DISCUSSION_END,
         doc="the Discussion is over: the secret vote opens"),
    _cmd("cast_ballot", MasksRules._do_cast_ballot, RULE_POINT, *ballot_args(_choices),
         who=(SEAT, DEVICE, TABLE), seat_arg="voter", doc="one secret vote (it may be changed until the reveal)"),
    _cmd("reveal_vote", MasksRules._do_reveal_vote, RULE_NO_ABSTAIN, force_arg(),
         doc="every vote is in: reveal them at once"),
    _cmd("correct_pointing", MasksRules._do_correct_pointing, RULE_POINT,
         Arg("voter", Player(), values=_players, doc="whose pointing the tablet got wrong"),
         Arg("choice", Player(extra=(CENTER,)), values=_choices,
             doc="what they really pointed at: another player or \"center\""),
         Arg("reason", Text(), doc="why it is corrected (one line)",
             sample=lambda s, rng: "tapped the wrong name"),
         doc="a revealed pointing set to what the table saw (until the Executioner's check is answered)"),
    _cmd("executioner_check", MasksRules._do_executioner_check, RULE_EXECUTIONER,
         Arg("player", Null(Player()), doc="the most-voted player who showed the Executioner, or null",
             values=lambda s: (None,) + (s.count.checkers if s.count else ())),
         doc="the most-voted players look at their own card"),
    _cmd("executioner_chooses", MasksRules._do_executioner_chooses, RULE_EXECUTIONER,
         Arg("target", Player(), values=_players, doc="who is eliminated instead"),
         doc="the Executioner names another player"),
    _cmd("enter_identities", MasksRules._do_enter_identities, RULE_REVEAL,
         Arg("identities", PerPlayer(Text()), doc="each player's final Identity (one of the 8 cards)",
),
         Arg("center", List(Text()), doc="the 3 Bystanders' Identities",
),
         Arg("royalist", Null(Player()), False, "the tapped Royalist, or null",
             values=lambda s: (None,) + s.players),
         doc="every Identity is turned over and entered", sample=lambda s, rng: _deal(s, rng)),
])
MasksRules.commands = COMMANDS


def _deal(state, rng) -> dict:
    """A deal consistent with what the table has already seen (for random play and listing):
    whoever showed the Executioner holds it; if nobody did, no most-voted player holds it."""
    others = [c for c in IDENTITIES if c != "Executioner"]
    rng.shuffle(others)
    top = state.count.checkers if state.count is not None else ()
    if state.executioner is not None:
        holder = state.executioner
    else:
        spots = [p for p in state.players if not (state.checked and p in top)] + [CENTER]
        holder = rng.choice(spots)
    ids, rest = {}, iter(others)
    for p in state.players:
        ids[p] = "Executioner" if p == holder else next(rest)
    center = list(rest)
    if holder == CENTER:
        center.insert(rng.randrange(BYSTANDERS), "Executioner")
    return {"identities": ids, "center": center}
