"""23 Knives' rule functions for cards, Allegiances, votes and the end of the game.

Pure and Kivy-free. The rules (rules.py), the referee (referee.py) and the screens all call these,
so there is one implementation of each rule. Bad input raises a one-line BadInput; a vote tie
with no Tribune's choice raises NeedsTieBreak (a RuleError).
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from companion.core.events import BadInput
from companion.core.i18n import keyed
from companion.core.tally import BinaryMajority, TallyResult

from .tables import tables

RULE_FATE = ("The Knives range from 1 to 5 Knives on each card (no 4s). "
             "The Doves range from 1 to 3 Doves on each card.")
RULE_SWAY = "These range from 1 to 2 Laurels or Blood value on each card."
RULE_CAESAR = "If the total is 23 or greater, Caesar is dead. If the total is fewer than 23, Caesar lives."
RULE_ISSUE_TIE = ("If there is a tie, you—the Tribune—make the final decision (you may choose either "
                  "red or grey, regardless of your original Vote).")
RULE_EXILE_TIE = "Ties are determined by the current Tribune."
RULE_EXILE_SELF = "You may never Call a Vote to Exile yourself"
RULE_EVERY_VOTE = "Each player must secretly Vote"

LIBERATOR, LOYALIST, OPPORTUNIST = "liberator", "loyalist", "opportunist"
NONE = "none"   # a Cicero whose both Sway sets make an Opportunist: "it is simply ignored"
RULE_CICERO = ("split their Sway cards however they want into 2 sets as equally as possible and choose one "
               "set to claim as their Allegiance ... Cicero cannot be an Opportunist; if one set of Sway "
               "indicates the player as an Opportunist, it is simply ignored.")
EXILE, REMAIN = "exile", "remain"
RED, GREY = "red", "grey"
ISSUE_TALLY = BinaryMajority((RED, GREY), "the Tribune", RULE_ISSUE_TIE)
EXILE_TALLY = BinaryMajority((EXILE, REMAIN), "the Tribune", RULE_EXILE_TIE)


def _is_whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# -- cards ---------------------------------------------------------------------------------

def fate_card(card: Any, where: Any = None) -> dict:
    """A Fate card as ``{"knives": n}`` or ``{"doves": n}``, checked against the real deck."""
    fate = tables()["fate"]
    return _card(card, fate, where or keyed("refusals.k23.where_card"), "refusals.k23.fate_card_shape", RULE_FATE)


def _card(card: Any, deck: Mapping[str, Any], where: Any, shape_key: str, rule: str) -> dict:
    """One card as ``{kind: value}``, its kind one of the deck's and its value one the deck holds."""
    if not isinstance(card, Mapping) or len(card) != 1 or next(iter(card)) not in deck:
        raise BadInput(keyed(shape_key, where=where))
    (kind, value), = card.items()
    if not _is_whole(value) or value not in deck[kind]:
        raise BadInput(keyed(f"knives23.error.no_such_{kind}", where=where, value=repr(value),
                             values=", ".join(map(str, deck[kind]))), rule)
    return {kind: value}


def fate_value(card: Mapping[str, int]) -> int:
    """A Knife is +1 per Knife, a Dove -1 per Dove."""
    return card["knives"] if "knives" in card else -card["doves"]


def fate_total(cards: Iterable[Mapping[str, int]]) -> int:
    return sum(fate_value(c) for c in cards)


def caesar_dead(total: int) -> bool:
    return total >= tables()["caesar_dies_at"]


def sway_card(card: Any, where: Any = None) -> dict:
    allowed = tables()["sway"]
    return _card(card, {"laurels": allowed, "blood": allowed}, where or keyed("refusals.k23.where_sway_card"),
                 "refusals.k23.sway_card_shape", RULE_SWAY)


def citizen_card(card: Any, where: Any = None) -> dict:
    """A Citizen's starting Allegiance: Laurels, Blood, or both (an Opportunist)."""
    where = where or keyed("refusals.k23.where_citizen")
    if not isinstance(card, Mapping) or not set(card) <= {"laurels", "blood"}:
        raise BadInput(keyed("refusals.k23.citizen_shape", where=where))
    laurels, blood = card.get("laurels", 0), card.get("blood", 0)
    for kind, value in (("laurels", laurels), ("blood", blood)):
        if not _is_whole(value) or not 0 <= value <= 9:
            raise BadInput(keyed("refusals.k23.citizen_value", where=where))
    if laurels == 0 and blood == 0:
        raise BadInput(keyed("refusals.k23.citizen_empty", where=where))
    return {"laurels": laurels, "blood": blood}


# -- Allegiance ----------------------------------------------------------------------------

def blood_of(citizen: Mapping[str, int], sway: Iterable[Mapping[str, int]]) -> int:
    sway = list(sway)
    blood = citizen.get("blood", 0) + sum(s.get("blood", 0) for s in sway)
    laurels = citizen.get("laurels", 0) + sum(s.get("laurels", 0) for s in sway)
    return blood - laurels


def side_of(value: int) -> str:
    return LIBERATOR if value > 0 else LOYALIST if value < 0 else OPPORTUNIST


@dataclass(frozen=True)
class Tableau:
    name: str
    citizen: Mapping[str, int]
    sway: tuple[Mapping[str, int], ...]
    # The Cicero Citizen: the Sway split into 2 sets and the set claimed (0 or 1); None otherwise.
    cicero_sets: tuple | None = None
    claim: int = 0

    def set_values(self) -> list[int]:
        """Cicero: the Blood value of the Citizen with each Sway set."""
        return [blood_of(self.citizen, s) for s in self.cicero_sets or ()]

    def counted_set(self) -> int | None:
        """Cicero: the set that gives the Allegiance — the claimed one, unless it makes an
        Opportunist ("simply ignored"), then the other; None when both do."""
        if self.cicero_sets is None:
            return None
        values = self.set_values()
        for i in (self.claim, 1 - self.claim):
            if values[i] != 0:
                return i
        return None

    @property
    def blood_value(self) -> int:
        """Blood minus Laurels over the Citizen and every Sway: "Laurels and Blood counteract
        each other equally." Positive: Liberator; negative: Loyalist; zero: Opportunist.
        Cicero counts the Citizen with the set that gives the Allegiance."""
        if self.cicero_sets is not None:
            i = self.counted_set()
            return 0 if i is None else self.set_values()[i]
        return blood_of(self.citizen, self.sway)

    @property
    def allegiance(self) -> str:
        if self.cicero_sets is not None and self.counted_set() is None:
            return NONE   # "Cicero cannot be an Opportunist"
        return side_of(self.blood_value)

    def to_dict(self) -> dict:
        d = {"name": self.name, "citizen": dict(self.citizen), "sway": [dict(s) for s in self.sway]}
        if self.cicero_sets is not None:
            d["cicero"] = {"sets": [[dict(c) for c in x] for x in self.cicero_sets], "claim": self.claim + 1}
        return d


def _key(card: Mapping[str, int]) -> tuple:
    (kind, value), = card.items()
    return kind, value


def cicero_split(entry: Any, name: str, sway: Sequence[Mapping[str, int]] | None) -> tuple[tuple, int]:
    """Cicero's 2 Sway sets, checked: every Sway card in exactly one set, the sets' sizes at most
    1 apart ("as equally as possible"), ``claim`` 1 or 2."""
    if not isinstance(entry, Mapping) or set(entry) != {"sets", "claim"}:
        raise BadInput(keyed("refusals.k23.cicero_shape", name=name))
    sets = entry["sets"]
    if not isinstance(sets, list) or len(sets) != 2 or not all(isinstance(x, list) for x in sets):
        raise BadInput(keyed("refusals.k23.cicero_shape", name=name))
    sets = tuple(tuple(sway_card(c, keyed("refusals.k23.where_set_card", name=name, set=i + 1, card=j + 1)) for j, c in enumerate(x))
                 for i, x in enumerate(sets))
    if abs(len(sets[0]) - len(sets[1])) > 1:
        raise BadInput(keyed("knives23.error.cicero_sets_unequal", player=name, first=len(sets[0]),
                             second=len(sets[1])), RULE_CICERO)
    if sway is not None and sorted(map(_key, sway)) != sorted(map(_key, sets[0] + sets[1])):
        raise BadInput(keyed("refusals.k23.cicero_sets_cards", name=name))
    claim = entry["claim"]
    if claim not in (1, 2) or isinstance(claim, bool):
        raise BadInput(keyed("refusals.k23.cicero_claim", name=name))
    return sets, claim - 1


def tableau(entry: Any, where: Any = None) -> Tableau:
    where = where or keyed("refusals.k23.where_player")
    if not isinstance(entry, Mapping):
        raise BadInput(keyed("refusals.k23.tableau_shape", where=where))
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadInput(keyed("refusals.k23.tableau_no_name", where=where))
    unknown = sorted(set(entry) - {"name", "citizen", "sway", "cicero"})
    if unknown:
        raise BadInput(keyed("refusals.k23.tableau_unknown", name=name, names=", ".join(unknown)))
    sway = entry.get("sway", [])
    if not isinstance(sway, list):
        raise BadInput(keyed("refusals.k23.sway_list", name=name))
    citizen = citizen_card(entry.get("citizen"), keyed("refusals.k23.where_citizen_of", name=name))
    sway = tuple(sway_card(s, keyed("refusals.k23.where_sway_of", name=name, n=i + 1)) for i, s in enumerate(sway))
    if entry.get("cicero") is not None:
        sets, claim = cicero_split(entry["cicero"], name, sway if "sway" in entry else None)
        return Tableau(name, citizen, sets[0] + sets[1], sets, claim)
    return Tableau(name, citizen, sway)


# -- votes ---------------------------------------------------------------------------------

def check_names(players: Any, what: str = "players") -> tuple[str, ...]:
    if not isinstance(players, list) or not players:
        raise BadInput(keyed("refusals.no_players"))
    if not all(isinstance(p, str) and p.strip() for p in players):
        raise BadInput(keyed("refusals.players_not_names"))
    if len(set(players)) != len(players):
        raise BadInput(keyed("refusals.players_twice"))
    if len(players) > 8:
        raise BadInput(keyed("refusals.k23.most_players", n=len(players)))
    return tuple(players)


def check_votes(players: Sequence[str], votes: Any, choices: tuple[str, str]) -> dict[str, str]:
    if not isinstance(votes, Mapping):
        raise BadInput(keyed("refusals.votes_shape"))
    for voter, choice in votes.items():
        if voter not in players:
            raise BadInput(keyed("refusals.vote_from_stranger", name=voter, players=", ".join(players)))
        if choice not in choices:
            raise BadInput(keyed("refusals.vote_choice", voter=voter, choice=choice, first=keyed(f"knives23.vote.{choices[0]}"),
                                 second=keyed(f"knives23.vote.{choices[1]}")))
    missing = [p for p in players if p not in votes]
    if missing:
        raise BadInput(keyed("refusals.vote_missing", names=", ".join(missing)), RULE_EVERY_VOTE)
    return dict(votes)


def _tally(tally: BinaryMajority, votes: Mapping[str, str], tribune_choice: Any) -> TallyResult:
    if tribune_choice is not None and tribune_choice not in tally.choices:
        raise BadInput(keyed("refusals.tribune_choice", first=keyed(f"knives23.vote.{tally.choices[0]}"),
                                   second=keyed(f"knives23.vote.{tally.choices[1]}")))
    return tally.decide(votes, tribune_choice)


def issue_vote_outcome(players: Sequence[str], votes: Mapping[str, str], tribune_choice: str | None = None) -> dict:
    """Which Issue is resolved: the majority's colour, or on a tie the Tribune's choice
    (whatever the Tribune voted). Raises NeedsTieBreak on a tie without a choice."""
    check_votes(players, votes, (RED, GREY))
    result = _tally(ISSUE_TALLY, votes, tribune_choice)
    return {"resolved": result.winner, "tie": result.tie}


def check_exile_call(players: Sequence[str], caller: Any, target: Any) -> None:
    for who, away in ((caller, "refusals.k23.caller_away"), (target, "refusals.k23.target_away")):
        if who not in players:
            raise BadInput(keyed(away, name=who))
    if caller == target:
        raise BadInput(keyed("refusals.k23.exile_self", name=caller), RULE_EXILE_SELF)


def exile_outcome(players: Sequence[str], caller: str, target: str, votes: Mapping[str, str],
                  tribune_choice: str | None = None) -> dict:
    """A majority to Exile exiles the target; a majority to Remain shames the caller; the
    Tribune decides a tie. The target votes too ("you may Vote against yourself")."""
    check_exile_call(players, caller, target)
    check_votes(players, votes, (EXILE, REMAIN))
    result = _tally(EXILE_TALLY, votes, tribune_choice)
    exiled = result.winner == EXILE
    return {"exiled": exiled, "shamed": None if exiled else caller, "tie": result.tie}


# -- the end of the game -------------------------------------------------------------------

RULE_TIE_BREAK = ("If tied, the player with the fewest Laurels/Blood, in relation to the outcome, on their "
                  "Citizen card wins.")
# The readings of that tie-break (issue 33's house rule ``tie_break``): the icons of the winning
# kind on the Citizen card (the app's reading so far), or that kind less the other (a Citizen
# with both, an Opportunist's card, counts 0).
TIE_BREAKS = ("icons", "net")


def citizen_tie_value(citizen: Mapping[str, int], dead: bool, tie_break: str = "icons") -> int:
    """What the tie-break compares on a Citizen card, seen from the outcome: its Blood if Caesar
    was killed, its Laurels if he lived; under ``net``, less the other kind."""
    kind, other = ("blood", "laurels") if dead else ("laurels", "blood")
    return citizen[kind] - (citizen[other] if tie_break == "net" else 0)


def final_result(tableaux: Sequence[Tableau], curia: Sequence[Mapping[str, int]],
                 opportunist_play: Sequence[Mapping[str, int]] = (), variant: str = "standard",
                 tie_break: str = "icons") -> dict:
    """End of Game III, V and VI. ``curia`` and ``opportunist_play`` are checked Fate cards.

    Winners, by the rules: if the Opportunists change Caesar's fate with their play, they win as
    a team. Otherwise, if Caesar lived, the Loyalist with the most total Laurels value wins; if he
    was killed, the Liberator with the most total Blood value (Laurels and Blood cancel out). A tie
    goes to the fewest Laurels/Blood (as the outcome needs) on the Citizen card (``tie_break``:
    the icons of that kind, or that kind less the other; the result names the reading when it
    decided), then is shared.
    With no Loyalist (or Liberator) on the winning side, no one wins that way.

    The rulebook's Lucius and Francesca example contradicts this arithmetic: Lucius (3 Blood on his
    Citizen, 4 Laurels and 6 Blood on Sway) has 3 + 6 - 4 = 5 Blood, not 1; Francesca (1 Blood, 2
    Laurels and 1 Blood on Sway) has 1 + 1 - 2 = 0: an Opportunist, not a Liberator with 2. We
    follow the rules, so Lucius wins that example.
    """
    if variant not in ("standard", "all-or-nothing"):
        raise BadInput(keyed("refusals.k23.variant"))
    if tie_break not in TIE_BREAKS:
        raise BadInput(keyed("refusals.house_rule_reading", name="tie_break", reading=str(tie_break),
                             readings=", ".join(TIE_BREAKS)))
    tie_broken: str | None = None
    names = [t.name for t in tableaux]
    if len(set(names)) != len(names):
        raise BadInput(keyed("refusals.players_twice"))
    total = fate_total(curia)
    final_total = total + fate_total(opportunist_play)
    dead_at_reveal, dead = caesar_dead(total), caesar_dead(final_total)
    opportunists = [t.name for t in tableaux if t.allegiance == OPPORTUNIST]
    if opportunist_play and not opportunists:
        raise BadInput(keyed("refusals.k23.no_opportunist"))
    opportunists_win = bool(opportunists) and dead != dead_at_reveal
    if opportunists_win:
        winners = opportunists
    else:
        side = LIBERATOR if dead else LOYALIST
        sign = 1 if dead else -1           # the Blood value, seen from the winning side
        contenders = [t for t in tableaux if t.allegiance == side]
        if variant == "all-or-nothing":
            winners = [t.name for t in contenders]
        elif not contenders:
            winners = []
        else:
            best = max(sign * t.blood_value for t in contenders)
            top = [t for t in contenders if sign * t.blood_value == best]
            on_card = {t.name: citizen_tie_value(t.citizen, dead, tie_break) for t in top}
            fewest = min(on_card.values())
            winners = [t.name for t in top if on_card[t.name] == fewest]
            if len(top) > 1:   # the tie-break decided: the result says under which reading
                tie_broken = tie_break
    out = {"total": total, "final_total": final_total, "caesar_dead": dead,
           "opportunists_win": opportunists_win, "winners": winners}
    if tie_broken is not None:
        out["tie_break"] = tie_broken
    return out


def allegiances(tableaux: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each entered tableau's Allegiance and the size of its Blood value, for the table's view
    (the tableaux screen shows them; it does not work them out itself)."""
    out = {}
    for name, entry in tableaux.items():
        tab = tableau({"name": name, **entry})
        out[name] = {"allegiance": tab.allegiance, "value": abs(tab.blood_value)}
    return out
