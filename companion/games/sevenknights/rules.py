"""Seven Knights Bewitched: the rules as pure functions (no Kivy).

The tiles stay face down on the real table, so the tablet never knows who holds what. It keeps
what the table makes public: the Search arrows, the shared Question log, the secret
Recommendation vote and its reveal, the Captain's revealed tile, the formation's result, where
Witch Myrmamius turned out to be (from which the arrows name every TORIKO) and the scores.

"Witch Myrmamius cannot recommend TORIKO. TORIKO cannot recommend Witch Myrmamius." The tablet
cannot know who is TORIKO or the Witch while the vote is secret, so it cannot refuse such a
recommendation: it shows and speaks the rule as a reminder before the vote, and once the result
says where the Witch was (and so who was TORIKO) it flags a broken one (``round_flags``), as it
flags a next First player the revealed tiles rule out.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from collections.abc import Mapping
from typing import Any, get_args

from companion.core import votes
from companion.core.commands import (DEVICE, SEAT, TABLE, Arg, ballot_args, command, CommandTable,
                                     force_arg, players_of)
from companion.core.events import BadInput, Command, Event, RuleError
from companion.core.houserules import applies, chosen
from companion.core.i18n import joined, keyed
from companion.core.rules import GameRules, Outcome, known_setup
from companion.core.schema import Bool, Either, Int, Null, Player, Text
from companion.core.tally import CaptainRule

from .phases import Phase
from .setup import (CENTER, HOUSE_RULES, MODES, POINTS_READING_DECIDES, ROUND_POINTS, SET_ASIDE, WITCH, Mode,
                    round_points)

# The rulebook's sentences that the refusals quote.
R_SEARCH = ("Starting with the First player and moving clockwise, each player looks at one "
            "face-down tile of another player. (In a 4- or 5-player game, looking at the tile in "
            "the center is also allowed.)")
R_SEARCH_CENTER = "In the second round, look at one face-down tile in the center of the table."
R_GROPING_SEARCH = ("Two rounds are conducted. In the first round, starting with the First player and moving "
                    "clockwise, each player looks at one face-down tile of another player.")
R_QUESTION = ("Starting with the First player and moving clockwise, each player asks any other "
              "player one question about the numbers, which can be answered either \"Yes\" or \"No.\"")
R_FORBIDDEN = "You cannot ask questions to spread information you already know."
R_RECOMMEND = ("all players simultaneously place their second Player Token in front of the player "
               "they think should be the Captain")
R_CAPTAIN_QUESTION = "The Captain asks one more question, following the same rules as in the Question Phase."
R_CAPTAIN_REVEAL = ("The Captain reveals their own tile. If it's Witch Myrmamius, Witch Myrmamius and "
                    "TORIKO win immediately!")
R_GROPING_DEAL = "Shuffle only the Knight Tiles (excluding the Witch Tile) and deal one tile face-down to each player"
R_NO_WITCH = "Do not use the Witch Tile."
R_TILES = "Refer to the table above and prepare the corresponding Knight Tiles and Witch Tile."
R_NEXT_FIRST = ("the player who had the \"1 Eins\" tile (or, if none, the player having the tile with "
                "the smallest number) takes the Start Player Marker")
R_END = "The game ends after 3 rounds."
R_TUTORIAL_END = "When playing as a tutorial, it ends after one round, and there are no points."
R_TORIKO = "If you see Witch Myrmamius, you immediately become TORIKO (join the Witch Team)."
R_ARROW = ("Place your Player Card (Arrow) pointing at the tile you've looked at so that everyone knows "
           "which tile you saw.")
R_FAQ_TORIKO = ("The Captain can either arrange the beloved Myrmamius in the formation or reveal their TORIKO "
                "status and move on to the Cleanup Phase.")
R_WITCH_NO_TORIKO = "Witch Myrmamius cannot recommend TORIKO."
R_TORIKO_NO_WITCH = "TORIKO cannot recommend Witch Myrmamius."

# The version of these rules a game is played under (recorded when it starts: core.rules).
RULES_VERSION = 1

# CaptainRule.decided_by -> the catalogue key that explains it to the table.
TIE_HOW = {"did not recommend themself": "how_humble", "farthest clockwise from the First player": "how_farthest"}
# ... and as the journal records it (a key, never the sentence): vote_revealed's "result".
TIE_RECORDED = {"did not recommend themself": "humble", "farthest clockwise from the First player": "farthest"}
TIE_FROM_RECORD = {v: k for k, v in TIE_RECORDED.items()}

PHASES: tuple[Phase, ...] = get_args(Phase)

# Question templates: the rulebook's "Example Questions". Those marked "about the target" ask
# the target about their own number; "other" names a third tile the question is about.
TEMPLATES = ("odd", "at_least", "is_number", "larger_than", "other_is", "free")
NEEDS_N = frozenset({"at_least", "is_number", "other_is"})
NEEDS_OTHER = frozenset({"larger_than", "other_is"})
ABOUT_TARGET = frozenset({"odd", "at_least", "is_number", "larger_than"})
MAX_QUESTION_CHARS = 200
# An Arrow may be corrected (the Player Cards lie face up: correcting one reveals nothing) from
# the moment it is placed until the next round starts; once the round's result is entered, the
# correction carries the result the corrected Arrows give (or reopens the formation: see
# ``SevenKnightsRules._rescored``). The reason is the table's own words, one line on the history.
MAX_REASON = 80
RESERVED_NAMES = frozenset({"center", "center 1", "center 2", "center 3", SET_ASIDE, WITCH, "table", "narrator"})


# -- state ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Arrow:
    looker: str
    at: str          # a player's name, "center", "center 1".. 3
    search: int      # which Search pass (1, or 2 for the center pass in Groping in the Dark)


@dataclass(frozen=True)
class Correction:
    """An Arrow the tablet had wrong, set to where the card on the table points."""
    looker: str
    search: int
    before: str
    after: str
    reason: str


@dataclass(frozen=True)
class Question:
    asker: str
    target: str
    template: str
    answer: str      # "yes" | "no"
    n: int | None = None
    other: str | None = None
    text: str = ""   # the free question's own words
    by_captain: bool = False


@dataclass(frozen=True)
class Result:
    winner: str                   # "knights" | "witch" | "none"
    why: str                      # "captain_witch" | "captain_toriko" | "in_order" | "out_of_order"
    witch: str | None             # where Witch Myrmamius was: a player, a center tile, set_aside, None
    toriko: tuple[str, ...]
    points: tuple[tuple[str, int], ...]
    in_order: bool | None = None


@dataclass(frozen=True)
class Round:
    number: int
    first: str
    arrows: tuple[Arrow, ...] = ()
    questions: tuple[Question, ...] = ()
    captain: str | None = None
    counts: tuple[tuple[str, int], ...] = ()
    tie: bool = False
    decided_by: str | None = None
    captain_tile: Any = None      # a Knight number, or "witch"
    result: Result | None = None
    next_first: str | None = None
    recommended: tuple[tuple[str, str], ...] = ()  # who recommended whom, once revealed
    corrections: tuple[Correction, ...] = ()       # Arrows corrected this round, with the reasons
    # Questions (1-based, this round) that a corrected Arrow shows were about tiles the asker had
    # seen: "You cannot ask questions to spread information you already know." (as recorded)
    forbidden: tuple[int, ...] = ()


@dataclass(frozen=True)
class SevenKnightsState:
    players: tuple[str, ...]
    mode: str
    round: Round
    phase: Phase = "search"
    search: int = 1               # the Search pass in progress (1-based)
    turn: int = 0                 # index into the clockwise order from the First player
    totals: tuple[int, ...] = ()
    past: tuple[Round, ...] = ()
    book: votes.VoteBook = votes.VoteBook()
    winners: tuple[str, ...] = ()  # the game's winners, as recorded by the last round's result
    house_rules: tuple[tuple[str, str], ...] = ()  # the readings chosen at setup (core.houserules)

    @property
    def rules_mode(self) -> Mode:
        return MODES[self.mode]

    @property
    def points_reading(self) -> str:
        """The house rule's reading of the scoring cards' "front 0/2 points, back 0/3 points"."""
        return dict(self.house_rules).get(ROUND_POINTS.name, ROUND_POINTS.default)

    @property
    def order(self) -> tuple[str, ...]:
        return clockwise_from(self.players, self.round.first)


def clockwise_from(players, first) -> tuple[str, ...]:
    i = players.index(first)
    return tuple(players[i:]) + tuple(players[:i])


# -- pure rule functions (the referee uses these same ones) -------------------------------------

def choose_captain(players, first, recommendations):
    """The Recommendation Phase's rule, through the shared CaptainRule tally."""
    return CaptainRule().decide(tuple(players), first, recommendations)


def captain_data(players, first, recommendations) -> dict:
    """The Captain as the journal records it with the recommendations' reveal (decided once, in
    ``decide``): who, the count per player, whether there was a tie and how it was broken."""
    tally = choose_captain(players, first, recommendations)
    return {"captain": tally.winner, "counts": dict(sorted(tally.counts.items())), "tie": tally.tie,
            "decided_by": TIE_RECORDED.get(tally.decided_by or "")}


def check_setup(setup: Mapping[str, Any]) -> tuple[tuple[str, ...], str, Mode]:
    if not isinstance(setup, Mapping):
        raise BadInput(keyed("refusals.setup_not_object"))
    mode_key = setup.get("mode", "basic")
    if not isinstance(mode_key, str) or mode_key not in MODES:
        raise BadInput(keyed("refusals.sk.mode", mode=mode_key, modes=joined([keyed(f"sevenknights.mode.{m}") for m in MODES], ", ")))
    mode = MODES[mode_key]
    players = setup.get("players")
    if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in players):
        raise BadInput(keyed("refusals.sk.players_clockwise"))
    players = tuple(players)
    if len(set(players)) != len(players):
        raise BadInput(keyed("refusals.players_twice"))
    bad = [p for p in players if p.lower() in RESERVED_NAMES]
    if bad:
        raise BadInput(keyed("refusals.sk.reserved_name", name=bad[0]))
    if not mode.min_players <= len(players) <= mode.max_players:
        raise BadInput(keyed("sevenknights.err.player_count", mode=keyed(f"sevenknights.mode.{mode_key}"),
                             low=mode.min_players, high=mode.max_players, n=len(players)))
    first = setup.get("first", players[0])
    if first not in players:
        raise BadInput(keyed("refusals.sk.first_player", name=first))
    return players, first, mode


def look_targets(state: SevenKnightsState, looker: str) -> tuple[str, ...]:
    return search_targets(state.rules_mode, state.players, looker, state.search)


def search_targets(mode: Mode, players: tuple[str, ...], looker: str, search: int) -> tuple[str, ...]:
    """The tiles ``looker`` may look at in Search pass ``search`` (1 or 2)."""
    n = len(players)
    if mode.searches[search - 1] == "center":
        return mode.centers(n)
    others = tuple(p for p in players if p != looker)
    return others + (mode.centers(n) if mode.center_in_player_search else ())


def search_rule(mode: Mode, search: int) -> str:
    """The rulebook's sentence for Search pass ``search`` of ``mode``."""
    if mode.searches[search - 1] == "center":
        return R_SEARCH_CENTER
    return R_GROPING_SEARCH if "center" in mode.searches else R_SEARCH


def witch_places(state: SevenKnightsState) -> tuple[str, ...]:
    """Where Witch Myrmamius may have been, once the Captain's own tile is a Knight."""
    mode, n = state.rules_mode, len(state.players)
    if not mode.witch:
        return ()
    places = tuple(p for p in state.players if p != state.round.captain) if mode.witch_dealt else ()
    places += mode.centers(n)
    if mode.set_aside(n) > 0:
        places += (SET_ASIDE,)
    return places


def placed_arrow(rnd: "Round", looker: str, search: int) -> Arrow | None:
    """``looker``'s Arrow of Search pass ``search`` this round, once placed."""
    return next((a for a in rnd.arrows if a.looker == looker and a.search == search), None)


def place_text(place: str) -> dict | str:
    """A tile place as a message: a player's name, or the center / set-aside key."""
    if place == CENTER:
        return keyed("sevenknights.place.center")
    if place.startswith(CENTER + " "):
        return keyed("sevenknights.place.center_n", n=place.split()[1])
    if place == SET_ASIDE:
        return keyed("sevenknights.place.set_aside")
    return place


def correction_text(c: Correction, searches: int) -> dict:
    """One correction for the history: whose Arrow, from where to where, and why."""
    key = "sevenknights.note.arrow_corrected" if searches == 1 else "sevenknights.note.arrow_corrected_nth"
    return keyed(key, player=c.looker, search=c.search, before=place_text(c.before), after=place_text(c.after),
                 reason=c.reason)


def correctable_arrows(state: "SevenKnightsState") -> list[dict]:
    """Each Arrow placed this round and the tiles it may be set to (the Search rules, as for a
    look): open until the next round starts."""
    mode = state.rules_mode
    return [{"looker": a.looker, "search": a.search, "at": a.at,
             "options": list(search_targets(mode, state.players, a.looker, a.search))}
            for a in state.round.arrows]


def toriko_places(state: SevenKnightsState) -> tuple[str, ...]:
    """Where the Captain's Arrows point among the places Witch Myrmamius may have been: where a
    TORIKO Captain saw her (FAQ: "reveal their TORIKO status and move on to the Cleanup Phase")."""
    places = witch_places(state)
    return tuple(dict.fromkeys(a.at for a in state.round.arrows
                               if a.looker == state.round.captain and a.at in places))


def toriko_of(arrows, witch_place: str | None, players) -> tuple[str, ...]:
    """Everyone whose arrow points at the Witch's tile saw her and became TORIKO."""
    seen = {a.looker for a in arrows if a.at == witch_place}
    return tuple(p for p in players if p in seen)


def round_result(state: SevenKnightsState, witch_place: str | None, in_order: bool | None,
                 captain_witch: bool = False) -> Result:
    """Who won the round and what each player scores (see setup.POINTS for the reading)."""
    assert state.round.captain is not None  # scored after the Order Phase
    return score_round(state.players, state.rules_mode, state.round.number, state.round.captain,
                       state.round.arrows, witch_place, in_order, captain_witch, state.points_reading)


def score_round(players, mode: Mode, number: int, captain: str, arrows, witch_place: str | None,
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


@dataclass(frozen=True)
class Flag:
    """A rule the table broke, seen only once the result is known: keys, not sentences."""
    key: str                      # catalogue key under sevenknights.flag.
    params: Mapping[str, Any]
    rule: str

    def text(self) -> dict:
        return keyed("rule.quoted", text=keyed(f"sevenknights.flag.{self.key}", **self.params), rule=self.rule)

    def data(self) -> dict:
        return {"flag": self.key, **self.params, "rule": self.rule}


def recommendation_flags(recommendations: Mapping[str, str], witch_place: str | None,
                         toriko: tuple[str, ...]) -> tuple[Flag, ...]:
    """The rule "Witch Myrmamius cannot recommend TORIKO. TORIKO cannot recommend Witch Myrmamius."""
    out = []
    for who, whom in recommendations.items():
        if who == witch_place and whom in toriko:
            out.append(Flag("witch_recommended_toriko", {"witch": who, "toriko": whom}, R_WITCH_NO_TORIKO))
        if who in toriko and whom == witch_place and whom != who:
            out.append(Flag("toriko_recommended_witch", {"toriko": who, "witch": whom}, R_TORIKO_NO_WITCH))
    return tuple(out)


def next_first_flag(players, mode: Mode, captain: str, captain_tile: Any, witch_place: str | None,
                    first: str) -> Flag | None:
    """A next First player the revealed tiles rule out: "the player who had the "1 Eins" tile
    (or, if none, the player having the tile with the smallest number)". The Witch has no
    number; a Captain whose tile was k cannot be the smallest when more of 1..k-1 were prepared
    than the center and the set-aside tiles can hold (so some player held a smaller one)."""
    if first == witch_place:
        return Flag("first_is_witch", {"player": first}, R_NEXT_FIRST)
    if captain_tile == 1 and first != captain:
        return Flag("captain_had_one", {"player": first, "captain": captain}, R_NEXT_FIRST)
    if isinstance(captain_tile, int) and not isinstance(captain_tile, bool) and first == captain:
        n = len(players)
        smaller = sum(1 for t in mode.tiles(n) if t != WITCH and t < captain_tile)
        off_table = mode.center.get(n, 0) + mode.set_aside(n)
        if not mode.witch_dealt and mode.witch:
            off_table -= 1  # Groping: the Witch lies among the center or set-aside tiles
        if smaller > off_table:
            return Flag("smaller_tile_at_table", {"player": first, "tile": captain_tile}, R_NEXT_FIRST)
    return None


def question_flags(rnd: "Round") -> tuple[Flag, ...]:
    """The questions a corrected Arrow shows were about tiles the asker had seen (as recorded):
    "You cannot ask questions to spread information you already know." The answers stand; the
    table is told which questions the rule forbade."""
    out = []
    for i in rnd.forbidden:
        q = rnd.questions[i - 1]
        out.append(Flag("question_forbidden", {"i": i, "asker": q.asker, "target": q.target,
                                               "question": question_text(q)}, R_FORBIDDEN))
    return tuple(out)


def header_flags(state: "SevenKnightsState") -> list[dict]:
    """What the table is told on every screen: this round's flags (questions a corrected Arrow
    shows were forbidden; once its result is in, the broken rules it reveals), or, during the
    next round's Search, the last round's (its next First player included)."""
    own = round_flags(state.players, state.rules_mode, state.round)
    if own:
        return [f.text() for f in own]
    if state.phase == "search" and state.past:
        last = state.past[-1]
        return [keyed("sevenknights.flag.in_round", round=last.number, text=f.text())
                for f in round_flags(state.players, state.rules_mode, last)]
    return []


def round_flags(players, mode: Mode, rnd: "Round") -> tuple[Flag, ...]:
    """Every flag for a round: the questions found forbidden, then, once it is finished, the
    broken recommendations (and its next First player, once chosen)."""
    flags = list(question_flags(rnd))
    if rnd.result is None:
        return tuple(flags)
    flags += recommendation_flags(dict(rnd.recommended), rnd.result.witch, rnd.result.toriko)
    if rnd.next_first is not None and rnd.captain is not None:
        f = next_first_flag(players, mode, rnd.captain, rnd.captain_tile, rnd.result.witch, rnd.next_first)
        if f:
            flags.append(f)
    return tuple(flags)


def standings(state: SevenKnightsState) -> list[dict]:
    rows = [{"player": p, "total": t} for p, t in zip(state.players, state.totals)]
    return sorted(rows, key=lambda r: -r["total"])


def game_winners(players, mode: Mode, totals, last_winner: str | None) -> list[str]:
    """"The player(s) with the highest total score after 3 rounds are the winners."; in Unity
    (cooperative) everyone shares a Knights' victory in the last round."""
    if mode.scored:
        best = max(totals)
        return [p for p, t in zip(players, totals) if t == best]
    return list(players) if last_winner == "knights" else []


def winners(state: SevenKnightsState) -> list[str]:
    """The game's winners as recorded when its last round was scored."""
    return list(state.winners)


def question_about(template: str, target: str, other: str | None) -> frozenset[str | None] | None:
    """The tiles a template question is about; None for a free question (the tablet cannot read
    it: the table is only reminded of the rule)."""
    about: dict[str, tuple[str | None, ...]] = {"odd": (target,), "at_least": (target,), "is_number": (target,),
                                                "larger_than": (target, other), "other_is": (other,)}
    if template not in about:
        return None
    return frozenset(about[template])


def is_forbidden(arrows, asker: str, template: str, target: str, other: str | None) -> bool:
    """"You cannot ask questions to spread information you already know.": every tile the
    question is about is one the asker already knows (their own, or one their Arrow points at)."""
    about = question_about(template, target, other)
    known = {a.at for a in arrows if a.looker == asker} | {asker}
    return about is not None and about <= known


def forbidden_questions(arrows, questions) -> tuple[int, ...]:
    """The questions (1-based) that ``arrows`` make forbidden: rechecked when an Arrow is corrected."""
    return tuple(i for i, q in enumerate(questions, start=1)
                 if is_forbidden(arrows, q.asker, q.template, q.target, q.other))


def question_text(q: Question | Mapping[str, Any]) -> dict | str:
    d = q if isinstance(q, Mapping) else q.__dict__
    if d["template"] == "free":
        return d["text"]
    return keyed(f"sevenknights.q.{d['template']}", n=d.get("n"), other=d.get("other"))


# -- the game ---------------------------------------------------------------------------------

class SevenKnightsRules(GameRules):
    game_id = "sevenknights"
    rules_version = RULES_VERSION
    title = "sevenknights.title"
    min_players, max_players = 3, 8

    def initial_state(self, setup):
        if isinstance(setup, Mapping):  # "colours": the app's seat colours, kept with the game
            known_setup(setup, ("players", "first", "mode", "colours", "house_rules"))
        players, first, mode = check_setup(setup)
        readings = chosen(setup, HOUSE_RULES)
        return SevenKnightsState(players, mode.key, Round(1, first), totals=(0,) * len(players),
                                 house_rules=tuple(readings.items()))

    # -- decide -------------------------------------------------------------------------------
    def decide(self, state: SevenKnightsState, command: Command):
        return COMMANDS.dispatch(self, state, command)

    def _phase(self, state, *phases, rule=None):
        if state.phase not in phases:
            raise RuleError(keyed("sevenknights.err.phase", phase=keyed(f"sevenknights.phase.{state.phase}")), rule)

    def _player(self, name, what):
        if not isinstance(name, str):
            raise BadInput(keyed("refusals.sk.name_needed", what=what))

    def _look(self, state, d, source):
        self._phase(state, "search", rule=R_SEARCH)
        looker = state.order[state.turn]
        if "looker" in d and d["looker"] != looker:
            raise RuleError(keyed("sevenknights.err.not_your_look", player=looker), R_SEARCH)
        at = d.get("at")
        self._player(at, "the tile looked at")
        targets = look_targets(state, looker)
        if at not in targets:
            rule = search_rule(state.rules_mode, state.search)
            if at == looker:
                raise RuleError(keyed("sevenknights.err.own_tile"), rule)
            raise RuleError(keyed("sevenknights.err.no_such_tile", at=at, choices=", ".join(targets)), rule)
        return [("tile_looked", {"round": state.round.number, "search": state.search, "looker": looker, "at": at})]

    def _correct_arrow(self, state, d, source):
        """The tablet's Arrow set to where the Player Card (Arrow) on the table points: "Place
        your Player Card (Arrow) pointing at the tile you've looked at so that everyone knows
        which tile you saw." The cards are public, so this reveals nothing; TORIKO and the points
        follow the corrected Arrows when the result is entered."""
        reason = d.get("reason")
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason or len(reason.strip()) > MAX_REASON:
            raise BadInput(keyed("sevenknights.err.correction_reason", most=MAX_REASON))
        looker = d.get("looker")
        self._player(looker, keyed("sevenknights.what.arrow_of"))
        if looker not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=looker))
        mode = state.rules_mode
        search = d.get("search", 1)
        if not isinstance(search, int) or isinstance(search, bool) or not 1 <= search <= len(mode.searches):
            raise BadInput(keyed("sevenknights.err.search_pass", search=search))
        arrow = placed_arrow(state.round, looker, search)
        if arrow is None:
            raise RuleError(keyed("sevenknights.err.no_arrow_yet", player=looker), search_rule(mode, search))
        at = d.get("at")
        self._player(at, keyed("sevenknights.what.tile_looked_at"))
        targets = search_targets(mode, state.players, looker, search)
        if at not in targets:
            rule = search_rule(mode, search)
            if at == looker:
                raise RuleError(keyed("sevenknights.err.arrow_own_tile", player=looker), rule)
            raise RuleError(keyed("sevenknights.err.arrow_not_there", player=looker, at=at,
                                  choices=", ".join(targets)), rule)
        if at == arrow.at:
            raise RuleError(keyed("sevenknights.err.arrow_same", player=looker, at=place_text(at)), R_ARROW)
        data: dict[str, Any] = {"round": state.round.number, "looker": looker, "search": search,
                                "before": arrow.at, "after": at, "reason": reason.strip()}
        arrows = tuple(replace(a, at=at) if a is arrow else a for a in state.round.arrows)
        # The questions already asked, checked again with the corrected Arrow.
        forbidden = forbidden_questions(arrows, state.round.questions)
        if forbidden != state.round.forbidden:
            data["forbidden"] = list(forbidden)
        if state.round.result is not None:
            data.update(self._rescored(state, arrows))
        return [("arrow_corrected", data)]

    def _rescored(self, state, arrows) -> dict:
        """An Arrow corrected once the round's result is in: the result the corrected Arrows give
        (TORIKO and the points follow the Arrows; where the Witch was, the Captain's tile and the
        formation stay as entered), recorded with the correction. A Captain who revealed their
        TORIKO status (FAQ) but whose corrected Arrows never saw Witch Myrmamius was no TORIKO:
        that reveal is taken back and the formation is open again (``reopened``)."""
        old, rnd = state.round.result, state.round
        if old.why == "captain_toriko" and old.in_order is None and \
                not any(a.looker == rnd.captain and a.at == old.witch for a in arrows):
            return {"reopened": "formation"}
        result = score_round(state.players, state.rules_mode, rnd.number, rnd.captain, arrows, old.witch,
                             old.in_order, old.why == "captain_witch", state.points_reading)
        return self._scored_data(state, result, without=old)

    def _ask(self, state, d, source):
        self._phase(state, "questions", "order_question", rule=R_QUESTION)
        by_captain = state.phase == "order_question"
        asker = state.round.captain if by_captain else state.order[state.turn]
        rule = R_CAPTAIN_QUESTION if by_captain else R_QUESTION
        if "asker" in d and d["asker"] != asker:
            raise RuleError(keyed("sevenknights.err.not_your_question", player=asker), rule)
        target = d.get("target")
        self._player(target, keyed("refusals.sk.the_player_asked"))
        if target not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=target))
        if target == asker:
            raise RuleError(keyed("sevenknights.err.ask_yourself"), R_QUESTION)
        template = d.get("template", "free")
        if template not in TEMPLATES:
            raise BadInput(keyed("refusals.sk.template", template=template))
        out: dict[str, Any] = {"round": state.round.number, "asker": asker, "target": target,
                               "template": template, "by_captain": by_captain}
        if template in NEEDS_N:
            n = d.get("n")
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 7:
                raise BadInput(keyed("refusals.sk.question_number"))
            out["n"] = n
        if template in NEEDS_OTHER:
            other = d.get("other")
            self._player(other, keyed("refusals.sk.the_other_player"))
            if other not in state.players:
                raise BadInput(keyed("refusals.not_at_table", name=other))
            if other == target:
                raise BadInput(keyed("refusals.sk.named_twice", name=target))
            out["other"] = other
        if template == "free":
            text = d.get("text")
            if not isinstance(text, str) or not text.strip() or "\n" in text or len(text) > MAX_QUESTION_CHARS:
                raise BadInput(keyed("sevenknights.err.question_words", most=MAX_QUESTION_CHARS))
            out["text"] = text.strip()
        answer = d.get("answer")
        if answer not in ("yes", "no"):
            raise BadInput(keyed("refusals.sk.answer"))
        out["answer"] = answer
        # The forbidden questions we can recognise (a free question is only reminded of the rule).
        if is_forbidden(state.round.arrows, asker, template, target, out.get("other")):
            raise RuleError(keyed("sevenknights.err.forbidden", asker=asker), R_FORBIDDEN)
        return [("question_asked", out)]

    def _skip_captain_question(self, state, d, source):
        """The Captain's additional question is the Captain's to ask: skipped, the Captain
        reveals their own tile next."""
        self._phase(state, "order_question", rule=R_CAPTAIN_QUESTION)
        return [("captain_question_skipped", {"round": state.round.number, "captain": state.round.captain})]

    def _open_recommendation(self, state, d, source):
        self._phase(state, "recommendation", rule=R_RECOMMEND)
        spec = votes.VoteSpec(
            vote_id=f"recommendation-{state.round.number}", kind="pick", voters=state.players,
            options=state.players, allow_self=True, question=keyed("sevenknights.vote.question"))
        return votes.open_vote(state.book, spec)

    def _cast(self, state, d, source):
        self._phase(state, "recommendation", rule=R_RECOMMEND)
        if "choice" in d and d["choice"] is None or "option" in d and d["option"] is None:
            raise RuleError(keyed("sevenknights.err.must_recommend"), R_RECOMMEND)
        return self._with_captain(state, votes.cast(state.book, d, source))

    def _reveal_vote(self, state, d, source):
        self._phase(state, "recommendation", rule=R_RECOMMEND)
        current = state.book.current
        if current is not None and current.waiting:
            # The Captain rule counts every player's token: no reveal with one missing.
            raise RuleError(keyed("sevenknights.err.waiting", players=", ".join(current.waiting)), R_RECOMMEND)
        return self._with_captain(state, votes.reveal(state.book, False))

    def _with_captain(self, state, events):
        """The reveal carries the Captain it makes (``result``): decided here, once."""
        return votes.on_reveal(state.book, events, "result",
                               lambda ballots: captain_data(state.players, state.round.first, ballots))

    def _reveal_captain_tile(self, state, d, source):
        self._phase(state, "captain_reveal", rule=R_CAPTAIN_REVEAL)
        mode, n = state.rules_mode, len(state.players)
        tile = d.get("tile")
        if tile == WITCH:
            if not mode.witch:
                raise RuleError(keyed("sevenknights.err.no_witch_in_mode"), R_NO_WITCH)
            if not mode.witch_dealt:
                raise RuleError(keyed("sevenknights.err.witch_not_dealt"), R_GROPING_DEAL)
            result = round_result(state, state.round.captain, None, captain_witch=True)
            return [("captain_tile_revealed", {"round": state.round.number, "captain": state.round.captain,
                                               "tile": WITCH, **self._scored_data(state, result)})]
        if not isinstance(tile, int) or isinstance(tile, bool) or not 1 <= tile <= 7:
            raise BadInput(keyed("refusals.sk.tile"))
        if tile not in mode.tiles(n):
            raise RuleError(keyed("sevenknights.err.tile_not_prepared", tile=tile, count=n), R_TILES)
        return [("captain_tile_revealed", {"round": state.round.number, "captain": state.round.captain, "tile": tile})]

    def _enter_result(self, state, d, source):
        self._phase(state, "formation")
        in_order = d.get("in_order")
        if not isinstance(in_order, bool):
            raise BadInput(keyed("refusals.sk.in_order"))
        places = witch_places(state)
        witch = d.get("witch")
        if not places:
            if witch is not None:
                raise RuleError(keyed("sevenknights.err.no_witch_in_mode"), R_NO_WITCH)
        elif witch not in places:
            if witch == state.round.captain:
                raise RuleError(keyed("sevenknights.err.captain_was_knight", captain=witch), R_CAPTAIN_REVEAL)
            if witch in state.players:
                raise RuleError(keyed("sevenknights.err.witch_not_dealt"), R_GROPING_DEAL)
            raise BadInput(keyed("refusals.sk.witch_place", place=witch))
        result = round_result(state, witch, in_order)
        return [("formation_revealed", {"round": state.round.number, "in_order": in_order, "witch": witch,
                                        **self._scored_data(state, result)})]

    def _reveal_toriko(self, state, d, source):
        """FAQ: "What happens if the Captain is TORIKO? A: It's a victory for the Witch Team. The
        Captain can either arrange the beloved Myrmamius in the formation or reveal their TORIKO
        status and move on to the Cleanup Phase." The Captain's own tile is a Knight (revealed);
        Witch Myrmamius is where the Captain's Arrow points."""
        self._phase(state, "formation", rule=R_FAQ_TORIKO)
        if not witch_places(state):
            raise RuleError(keyed("sevenknights.err.no_witch_in_mode"), R_NO_WITCH)
        captain, seen = state.round.captain, toriko_places(state)
        witch = d.get("witch", seen[0] if len(seen) == 1 else None)
        self._player(witch, keyed("sevenknights.what.witch_seen"))
        if witch not in seen:
            raise RuleError(keyed("sevenknights.err.captain_did_not_see", captain=captain, at=place_text(witch),
                                  seen=joined([place_text(p) for p in seen], ", ")), R_TORIKO)
        result = round_result(state, witch, None)
        return [("toriko_revealed", {"round": state.round.number, "captain": captain, "witch": witch,
                                     **self._scored_data(state, result)})]

    def _scored_data(self, state, result: Result, without: Result | None = None) -> dict:
        """A round's result as recorded, whether it ends the game ("The game ends after 3
        rounds."), and then the game's winners (``without``: a result it replaces)."""
        mode = state.rules_mode
        last = state.round.number >= mode.rounds
        data: dict[str, Any] = {"result": result_data(result), "last": last}
        if last:
            pts, old = dict(result.points), dict(without.points if without else ())
            totals = [t - old.get(p, 0) + pts.get(p, 0) for p, t in zip(state.players, state.totals)]
            data["winners"] = game_winners(state.players, mode, totals, result.winner)
        return data

    def _next_round(self, state, d, source):
        if state.phase == "game_over":
            raise RuleError(keyed("sevenknights.err.game_over"),
                            R_TUTORIAL_END if state.rules_mode.rounds == 1 else R_END)
        self._phase(state, "cleanup", rule=R_NEXT_FIRST)
        first = d.get("first")
        self._player(first, keyed("refusals.sk.the_next_first"))
        if first not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=first))
        rnd = state.round
        if rnd.result.witch == first:
            raise RuleError(keyed("sevenknights.err.witch_has_no_number", player=first), R_NEXT_FIRST)
        if rnd.captain_tile == 1 and first != rnd.captain:
            raise RuleError(keyed("sevenknights.err.captain_had_one", captain=rnd.captain), R_NEXT_FIRST)
        return [("round_started", {"round": rnd.number + 1, "first": first})]

    # -- evolve -------------------------------------------------------------------------------
    def evolve(self, state: SevenKnightsState, event: Event) -> SevenKnightsState:
        k, d = event.kind, event.data
        rnd = state.round
        if k in votes.VOTE_EVENTS:
            book = votes.apply_vote_event(state.book, event)
            state = replace(state, book=book)
            if k == "vote_revealed":
                last = book.last()
                assert last is not None  # the vote just revealed
                # Legacy: a reveal recorded before the Captain was (an older version's journal)
                # has the Captain worked out here, as that version did. New reveals carry it.
                r = d["result"] if "result" in d else captain_data(state.players, rnd.first, last.choices())
                rnd = replace(rnd, captain=r["captain"], counts=tuple(sorted(r["counts"].items())),
                              tie=bool(r["tie"]), decided_by=TIE_FROM_RECORD.get(r["decided_by"] or ""),
                              recommended=tuple((p, c) for p, c in last.choices().items()
                                                if c is not None))
                state = replace(state, round=rnd, phase="order_question")
            return state
        if k == "tile_looked":
            rnd = replace(rnd, arrows=rnd.arrows + (Arrow(d["looker"], d["at"], d["search"]),))
            turn, search, phase = state.turn + 1, state.search, state.phase
            if turn == len(state.players):
                turn = 0
                if search < len(state.rules_mode.searches):
                    search += 1
                else:
                    phase = "questions"
            return replace(state, round=rnd, turn=turn, search=search, phase=phase)
        if k == "arrow_corrected":
            arrows = tuple(replace(a, at=d["after"]) if (a.looker, a.search) == (d["looker"], d["search"]) else a
                           for a in rnd.arrows)
            fix = Correction(d["looker"], d["search"], d["before"], d["after"], d["reason"])
            rnd = replace(rnd, arrows=arrows, corrections=rnd.corrections + (fix,),
                          forbidden=tuple(d["forbidden"]) if "forbidden" in d else rnd.forbidden)
            if rnd.result is None or not ("result" in d or d.get("reopened")):
                return replace(state, round=rnd)
            # the round's result is in: the recorded one replaces it (or the formation reopens)
            old = dict(rnd.result.points)
            state = replace(state, totals=tuple(t - old.get(p, 0) for p, t in zip(state.players, state.totals)),
                            winners=())
            if "result" in d:
                return self._scored(state, replace(rnd, result=result_from(d["result"])), d)
            return replace(state, round=replace(rnd, result=None), phase="formation")
        if k == "captain_question_skipped":
            return replace(state, phase="captain_reveal")
        if k == "toriko_revealed":
            return self._scored(state, replace(rnd, result=result_from(d["result"])), d)
        if k == "question_asked":
            q = Question(d["asker"], d["target"], d["template"], d["answer"], d.get("n"), d.get("other"),
                         d.get("text", ""), bool(d.get("by_captain")))
            rnd = replace(rnd, questions=rnd.questions + (q,))
            if q.by_captain:
                return replace(state, round=rnd, phase="captain_reveal")
            turn = state.turn + 1
            if turn == len(state.players):
                return replace(state, round=rnd, turn=0, phase="recommendation")
            return replace(state, round=rnd, turn=turn)
        if k == "captain_tile_revealed":
            rnd = replace(rnd, captain_tile=d["tile"])
            if "result" in d:
                return self._scored(state, replace(rnd, result=result_from(d["result"])), d)
            return replace(state, round=rnd, phase="formation")
        if k == "formation_revealed":
            return self._scored(state, replace(rnd, result=result_from(d["result"])), d)
        if k == "round_started":
            done = replace(rnd, next_first=d["first"])
            return replace(state, round=Round(d["round"], d["first"]), past=state.past + (done,),
                           phase="search", search=1, turn=0)
        return state

    def _scored(self, state, rnd, d):
        pts = dict(rnd.result.points)
        totals = tuple(t + pts.get(p, 0) for p, t in zip(state.players, state.totals))
        # Legacy: a round scored before these were recorded is decided here, as then.
        last = d["last"] if "last" in d else rnd.number >= state.rules_mode.rounds
        if not last:
            return replace(state, round=rnd, totals=totals, phase="cleanup")
        won = d["winners"] if "winners" in d else game_winners(state.players, state.rules_mode, totals,
                                                               rnd.result.winner)
        return replace(state, round=rnd, totals=totals, phase="game_over", winners=tuple(won))

    # -- views --------------------------------------------------------------------------------
    def view(self, state: SevenKnightsState, viewer: str) -> dict:
        mode, n, rnd = state.rules_mode, len(state.players), state.round
        turn_player = None
        if state.phase in ("search", "questions"):
            turn_player = state.order[state.turn]
        elif state.phase in ("order_question", "captain_reveal", "formation"):
            turn_player = rnd.captain
        v: dict[str, Any] = {
            "game": self.game_id, "mode": mode.key, "mode_title": keyed(f"sevenknights.mode.{mode.key}"),
            "phase": state.phase, "phase_title": keyed(f"sevenknights.phase.{state.phase}"),
            "prompt": self.prompt(state),
            "round": rnd.number, "rounds": mode.rounds, "players": list(state.players),
            "first": rnd.first, "order": list(state.order), "turn": turn_player,
            "search": state.search, "searches": len(mode.searches),
            "setup": setup_view(mode, n),
            "arrows": [{"looker": a.looker, "at": a.at, "search": a.search} for a in rnd.arrows],
            "questions": [question_view(q) for q in rnd.questions],
            "captain": rnd.captain, "tie": rnd.tie, "decided_by": rnd.decided_by,
            "captain_how": keyed("sevenknights.say." + TIE_HOW.get(rnd.decided_by or "", "how_most")) if rnd.captain else None,
            "recommendations": dict(rnd.counts),
            "captain_tile": rnd.captain_tile,
            "result": result_view(rnd.result),
            "totals": dict(zip(state.players, state.totals)),
            "standings": standings(state),
            "past_rounds": [{"round": r.number, "first": r.first, "captain": r.captain,
                             "captain_tile": r.captain_tile, "result": result_view(r.result),
                             "flags": [f.text() for f in round_flags(state.players, mode, r)]}
                            for r in state.past],
            "flags": [f.text() for f in round_flags(state.players, mode, rnd)],
            "header_flags": header_flags(state),
            "corrections": [correction_text(c, len(mode.searches)) for c in rnd.corrections],
            "correctable_arrows": correctable_arrows(state),
            # an Arrow of this round may be corrected (until the next round starts)
            "can_correct": bool(rnd.arrows),
            "house_rules": dict(state.house_rules),
            # the reading of the scoring cards, where it decides a round's points
            "points_rule": applies(ROUND_POINTS, state.points_reading)
            if mode.scored and rnd.number in POINTS_READING_DECIDES else None,
            "history_notes": [keyed("sevenknights.note.in_round", round=r.number,
                                    text=correction_text(c, len(mode.searches)))
                              for r in state.past + (rnd,) for c in r.corrections],
            "reminders": [keyed("sevenknights.reminder.forbidden"), keyed("sevenknights.reminder.recommend")],
            "vote": votes.table_view(state.book.current),
            "vote_history": [votes.table_view(x) for x in state.book.history],
        }
        if state.phase == "search":
            assert turn_player is not None  # the Search Phase has a player to move
            v["look_options"] = list(look_targets(state, turn_player))
        if state.phase in ("questions", "order_question"):
            v["ask_options"] = [p for p in state.players if p != turn_player]
        if state.phase == "formation":
            v["witch_places"] = list(witch_places(state))
            v["toriko_places"] = list(toriko_places(state))  # a TORIKO Captain may reveal it (FAQ)
        if state.phase == "captain_reveal":
            v["tile_options"] = [t for t in mode.tiles(n) if t != WITCH or mode.witch_dealt]
        if state.phase == "game_over":
            v["winners"] = winners(state)
        cur = state.book.current
        if viewer in state.players and cur is not None and viewer in cur.ballots:
            v["my_recommendation"] = cur.ballots[viewer].choice  # only the viewer's own token
        return v

    def prompt(self, state: SevenKnightsState) -> dict:
        rnd, ph = state.round, state.phase
        if ph == "search":
            key = "search_center" if state.rules_mode.searches[state.search - 1] == "center" else "search"
            return keyed(f"sevenknights.prompt.{key}", player=state.order[state.turn])
        if ph == "questions":
            return keyed("sevenknights.prompt.questions", player=state.order[state.turn])
        if ph == "recommendation":
            cur = state.book.current
            if cur is None:
                return keyed("sevenknights.prompt.recommendation_open")
            return keyed("sevenknights.prompt.recommendation", players=", ".join(cur.waiting))
        if ph in ("order_question", "captain_reveal", "formation"):
            return keyed(f"sevenknights.prompt.{ph}", captain=rnd.captain)
        if ph == "cleanup":
            return keyed("sevenknights.prompt.cleanup")
        return keyed("sevenknights.prompt.game_over", winners=", ".join(winners(state)) or keyed("sevenknights.nobody"))

    def outcome(self, state: SevenKnightsState) -> Outcome | None:
        if state.phase != "game_over":
            return None
        w = winners(state)
        totals = ", ".join(f"{p} {t}" for p, t in zip(state.players, state.totals))
        return {"winners": w, "summary": keyed("sevenknights.summary", winners=", ".join(w), totals=totals)
                if state.rules_mode.scored else keyed(
            "sevenknights.result.knights" if w else "sevenknights.result.none")}


# -- helpers: event data <-> state, views -----------------------------------------------------

def result_data(r: Result) -> dict:
    return {"winner": r.winner, "why": r.why, "witch": r.witch, "toriko": list(r.toriko),
            "points": dict(r.points), "in_order": r.in_order}


def result_from(d: Mapping[str, Any]) -> Result:
    return Result(d["winner"], d["why"], d.get("witch"), tuple(d.get("toriko", ())),
                  tuple(d.get("points", {}).items()), d.get("in_order"))


def result_view(r: Result | None) -> dict | None:
    if r is None:
        return None
    out = result_data(r)
    out["text"] = keyed(f"sevenknights.result.{r.winner}")
    out["why_text"] = keyed(f"sevenknights.why.{r.why}")
    return out


def question_view(q: Question) -> dict:
    return {"asker": q.asker, "target": q.target, "template": q.template, "n": q.n, "other": q.other,
            "text": question_text(q), "answer": q.answer, "answer_text": keyed(f"sevenknights.answer.{q.answer}"),
            "by_captain": q.by_captain}


def setup_view(mode: Mode, n: int) -> dict:
    tiles = mode.tiles(n)
    unused = [k for k in range(1, 8) if k not in tiles]
    return {
        "tiles": [str(t) for t in tiles],
        "tiles_text": tiles_text(tiles),
        "center": list(mode.centers(n)),
        "set_aside": mode.set_aside(n),
        "unused_knights": unused if mode.show_unused_knights else [],
        "player_cards": mode.player_cards(),
        "arrow_cards": len(mode.searches),
        "only_knights_dealt": mode.witch and not mode.witch_dealt,
        "steps": setup_steps(mode, n),
    }


def tiles_text(tiles) -> dict:
    knights = [t for t in tiles if t != WITCH]
    return joined([f"{knights[0]}-{knights[-1]}", keyed("sevenknights.tile.witch") if WITCH in tiles else None], " + ")


def setup_steps(mode: Mode, n: int) -> list[dict]:
    """What the table does before each round, in order (messages, said when shown)."""
    tiles = mode.tiles(n)
    steps = [keyed("sevenknights.setup.cards", cards=mode.player_cards(), arrows=len(mode.searches))]
    steps.append(keyed("sevenknights.setup.tiles", tiles=tiles_text(tiles)))
    unused = [str(k) for k in range(1, 8) if k not in tiles]
    if mode.show_unused_knights and unused:
        steps.append(keyed("sevenknights.setup.unused", tiles=", ".join(unused)))
    if mode.witch and not mode.witch_dealt:
        steps.append(keyed("sevenknights.setup.deal_knights"))
        steps.append(keyed("sevenknights.setup.center_groping", aside=mode.set_aside(n)))
    else:
        steps.append(keyed("sevenknights.setup.deal"))
        if mode.center.get(n):
            steps.append(keyed("sevenknights.setup.center_one"))
        if mode.set_aside(n):
            steps.append(keyed("sevenknights.setup.set_aside", aside=mode.set_aside(n)))
    steps.append(keyed("sevenknights.setup.check"))
    return steps


# -- the command table (companion.core.commands) ------------------------------------------------

_cmd = partial(command, passes="source")


_players = players_of


def _look_at(state):
    if state.phase != "search":
        return state.players
    return look_targets(state, state.order[state.turn])


def _lookers(state):
    return tuple(dict.fromkeys(a.looker for a in state.round.arrows)) or state.players


def _places(state):
    mode, n = state.rules_mode, len(state.players)
    return state.players + mode.centers(n)


KNIGHTS = tuple(range(1, 8))

COMMANDS = CommandTable("sevenknights", [
    _cmd("look", SevenKnightsRules._look, R_SEARCH,
         Arg("at", Text(), doc="the player (or center tile) whose tile is looked at", values=_look_at),
         Arg("looker", Text(), False, "who looks (the player whose turn it is)"),
         doc="the player whose turn it is looks at one tile"),
    _cmd("correct_arrow", SevenKnightsRules._correct_arrow, R_ARROW,
         Arg("looker", Player(), doc="whose Arrow the tablet has wrong", values=_lookers),
         Arg("at", Text(), doc="the player (or center tile) the Arrow on the table points at", values=_places),
         Arg("search", Int(1, 2), False, "which Arrow: the Search pass (default 1; 2 is the center pass of "
             "Groping in the Dark)", values=lambda s: tuple(range(1, len(s.rules_mode.searches) + 1))),
         Arg("reason", Text(), doc="why the Arrow is corrected", sample=lambda s, rng: "tapped the wrong tile"),
         doc="an Arrow of this round is set to where the card on the table points (until the result is entered)"),
    _cmd("ask_question", SevenKnightsRules._ask, R_QUESTION,
         Arg("target", Player(), doc="the player asked", values=_players),
         Arg("template", Text(choices=TEMPLATES), False, "the kind of question (default free)", values=lambda s: TEMPLATES),
         Arg("n", Int(1, 7), False, "the Knight number the question names", values=lambda s: KNIGHTS),
         Arg("other", Player(), False, "the other player the question names", values=_players),
         Arg("text", Text(), False, "a free question's words",
             sample=lambda s, rng: rng.choice(["Is your number larger than mine?", "Did you see the Witch?"])),
         Arg("answer", Text(choices=("yes", "no")), doc="the answer given", values=lambda s: ("yes", "no")),
         Arg("asker", Text(), False, "who asks (the player whose turn it is, or the Captain)"),
         doc="a yes/no question and its answer"),
    _cmd("skip_captain_question", SevenKnightsRules._skip_captain_question, R_CAPTAIN_QUESTION,
         doc="the Captain does not ask the additional question"),
    _cmd("open_recommendation", SevenKnightsRules._open_recommendation, R_RECOMMEND,
         doc="the secret recommendation of the Captain opens"),
    _cmd("cast_ballot", SevenKnightsRules._cast, R_RECOMMEND, *ballot_args(_players),
         who=(SEAT, DEVICE, TABLE), seat_arg="voter", doc="one player's secret recommendation"),
    _cmd("reveal_vote", SevenKnightsRules._reveal_vote, R_RECOMMEND, force_arg(),
         doc="every token is placed: reveal them at once"),
    _cmd("reveal_captain_tile", SevenKnightsRules._reveal_captain_tile, R_CAPTAIN_REVEAL,
         Arg("tile", Either((Int(1, 7), Text(choices=(WITCH,))), f"a Knight number 1 to 7 or {WITCH!r}"),
             doc="the Captain's own tile", values=lambda s: KNIGHTS + (WITCH,)),
         doc="the Captain turns over their own tile"),
    _cmd("enter_result", SevenKnightsRules._enter_result, R_CAPTAIN_REVEAL,
         Arg("in_order", Bool(), doc="the Knights lined up in order", values=lambda s: (True, False)),
         Arg("witch", Null(Text()), False, "where Witch Myrmamius was (null: not in play)",
             values=lambda s: (None,) + witch_places(s)),
         doc="the formation is revealed: the round's result"),
    _cmd("reveal_toriko", SevenKnightsRules._reveal_toriko, R_FAQ_TORIKO,
         Arg("witch", Text(), False, "where the Captain saw Witch Myrmamius (default: where the Captain's "
             "Arrow points)", values=toriko_places),
         doc="the Captain, TORIKO, reveals it instead of arranging the formation: the Witch Team wins"),
    _cmd("start_next_round", SevenKnightsRules._next_round, R_NEXT_FIRST,
         Arg("first", Player(), doc="the next First player", values=_players),
         doc="the next round starts with its First player"),
])
SevenKnightsRules.commands = COMMANDS
