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
from collections.abc import Mapping, Sequence
from typing import Any

from companion.core import votes
from companion.core.events import BadInput, Command, Event, RuleError
from companion.core.i18n import joined, keyed
from companion.core.rules import GameRules, Outcome

from . import evolve as fold
from . import setup as game_setup
from .scoring import captain_data, game_winners, round_result, score_round
from .state import Arrow, Correction, Events, Phase, Question, Result, Round, SevenKnightsState, result_data
from .tables import CENTER, SET_ASIDE, WITCH, Mode


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

# Question templates: the rulebook's "Example Questions". Those marked "about the target" ask
# the target about their own number; "other" names a third tile the question is about.
TEMPLATES: tuple[str, ...] = ("odd", "at_least", "is_number", "larger_than", "other_is", "free")
NEEDS_N = frozenset({"at_least", "is_number", "other_is"})
NEEDS_OTHER = frozenset({"larger_than", "other_is"})
ABOUT_TARGET = frozenset({"odd", "at_least", "is_number", "larger_than"})
MAX_QUESTION_CHARS = 200
# An Arrow may be corrected (the Player Cards lie face up: correcting one reveals nothing) from
# the moment it is placed until the next round starts; once the round's result is entered, the
# correction carries the result the corrected Arrows give (or reopens the formation: see
# ``SevenKnightsRules._rescored``). The reason is the table's own words, one line on the history.
MAX_REASON = 80


# -- pure rule functions (the referee uses these same ones) -------------------------------------

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


def next_first_flag(players: Sequence[str], mode: Mode, captain: str, captain_tile: Any, witch_place: str | None,
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


def round_flags(players: Sequence[str], mode: Mode, rnd: Round) -> tuple[Flag, ...]:
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


def question_about(template: str, target: str, other: str | None) -> frozenset[str | None] | None:
    """The tiles a template question is about; None for a free question (the tablet cannot read
    it: the table is only reminded of the rule)."""
    about: dict[str, tuple[str | None, ...]] = {"odd": (target,), "at_least": (target,), "is_number": (target,),
                                                "larger_than": (target, other), "other_is": (other,)}
    if template not in about:
        return None
    return frozenset(about[template])


def is_forbidden(arrows: Sequence[Arrow], asker: str, template: str, target: str, other: str | None) -> bool:
    """"You cannot ask questions to spread information you already know.": every tile the
    question is about is one the asker already knows (their own, or one their Arrow points at)."""
    about = question_about(template, target, other)
    known = {a.at for a in arrows if a.looker == asker} | {asker}
    return about is not None and about <= known


def forbidden_questions(arrows: Sequence[Arrow], questions: Sequence[Question]) -> tuple[int, ...]:
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
    house_rules = game_setup.HOUSE_RULES   # chosen at the table's setup (the shell lists them)

    def initial_state(self, setup: Mapping[str, Any]) -> SevenKnightsState:
        return game_setup.initial_state(setup)

    # -- decide -------------------------------------------------------------------------------
    def decide(self, state: SevenKnightsState, command: Command) -> list[tuple[str, Mapping[str, Any]]]:
        return COMMANDS.dispatch(self, state, command)

    def _phase(self, state: SevenKnightsState, *phases: Phase, rule: str | None = None) -> None:
        if state.phase not in phases:
            raise RuleError(keyed("sevenknights.err.phase", phase=keyed(f"sevenknights.phase.{state.phase}")), rule)

    def _player(self, name: Any, what: dict | str) -> None:
        if not isinstance(name, str):
            raise BadInput(keyed("refusals.sk.name_needed", what=what))

    def _do_look(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "search", rule=R_SEARCH)
        looker = state.order[state.turn]
        if "looker" in data and data["looker"] != looker:
            raise RuleError(keyed("sevenknights.err.not_your_look", player=looker), R_SEARCH)
        at = data.get("at")
        self._player(at, "the tile looked at")
        targets = look_targets(state, looker)
        if at not in targets:
            rule = search_rule(state.rules_mode, state.search)
            if at == looker:
                raise RuleError(keyed("sevenknights.err.own_tile"), rule)
            raise RuleError(keyed("sevenknights.err.no_such_tile", at=at, choices=", ".join(targets)), rule)
        return [("tile_looked", {"round": state.round.number, "search": state.search, "looker": looker, "at": at})]

    def _do_correct_arrow(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        """The tablet's Arrow set to where the Player Card (Arrow) on the table points: "Place
        your Player Card (Arrow) pointing at the tile you've looked at so that everyone knows
        which tile you saw." The cards are public, so this reveals nothing; TORIKO and the points
        follow the corrected Arrows when the result is entered."""
        reason = data.get("reason")
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason or len(reason.strip()) > MAX_REASON:
            raise BadInput(keyed("sevenknights.err.correction_reason", most=MAX_REASON))
        looker = data.get("looker")
        self._player(looker, keyed("sevenknights.what.arrow_of"))
        if looker not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=looker))
        mode = state.rules_mode
        search = data.get("search", 1)
        if not isinstance(search, int) or isinstance(search, bool) or not 1 <= search <= len(mode.searches):
            raise BadInput(keyed("sevenknights.err.search_pass", search=search))
        arrow = placed_arrow(state.round, looker, search)
        if arrow is None:
            raise RuleError(keyed("sevenknights.err.no_arrow_yet", player=looker), search_rule(mode, search))
        at = data.get("at")
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
        event_data: dict[str, Any] = {"round": state.round.number, "looker": looker, "search": search,
                                "before": arrow.at, "after": at, "reason": reason.strip()}
        arrows = tuple(replace(a, at=at) if a is arrow else a for a in state.round.arrows)
        # The questions already asked, checked again with the corrected Arrow.
        forbidden = forbidden_questions(arrows, state.round.questions)
        if forbidden != state.round.forbidden:
            event_data["forbidden"] = list(forbidden)
        if state.round.result is not None:
            event_data.update(self._rescored(state, arrows))
        return [("arrow_corrected", event_data)]

    def _rescored(self, state: SevenKnightsState, arrows: Sequence[Arrow]) -> dict[str, Any]:
        """An Arrow corrected once the round's result is in: the result the corrected Arrows give
        (TORIKO and the points follow the Arrows; where the Witch was, the Captain's tile and the
        formation stay as entered), recorded with the correction. A Captain who revealed their
        TORIKO status (FAQ) but whose corrected Arrows never saw Witch Myrmamius was no TORIKO:
        that reveal is taken back and the formation is open again (``reopened``)."""
        old, rnd = state.round.result, state.round
        assert old is not None and rnd.captain is not None  # called once the round's result is in
        if old.why == "captain_toriko" and old.in_order is None and \
                not any(a.looker == rnd.captain and a.at == old.witch for a in arrows):
            return {"reopened": "formation"}
        result = score_round(state.players, state.rules_mode, rnd.number, rnd.captain, arrows, old.witch,
                             old.in_order, old.why == "captain_witch", state.points_reading)
        return self._scored_data(state, result, without=old)

    def _do_ask_question(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "questions", "order_question", rule=R_QUESTION)
        by_captain = state.phase == "order_question"
        asker = state.round.captain if by_captain else state.order[state.turn]
        rule = R_CAPTAIN_QUESTION if by_captain else R_QUESTION
        if "asker" in data and data["asker"] != asker:
            raise RuleError(keyed("sevenknights.err.not_your_question", player=asker), rule)
        target = data.get("target")
        self._player(target, keyed("refusals.sk.the_player_asked"))
        if target not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=target))
        if target == asker:
            raise RuleError(keyed("sevenknights.err.ask_yourself"), R_QUESTION)
        template = data.get("template", "free")
        if template not in TEMPLATES:
            raise BadInput(keyed("refusals.sk.template", template=template))
        out: dict[str, Any] = {"round": state.round.number, "asker": asker, "target": target,
                               "template": template, "by_captain": by_captain}
        if template in NEEDS_N:
            n = data.get("n")
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 7:
                raise BadInput(keyed("refusals.sk.question_number"))
            out["n"] = n
        if template in NEEDS_OTHER:
            other = data.get("other")
            self._player(other, keyed("refusals.sk.the_other_player"))
            if other not in state.players:
                raise BadInput(keyed("refusals.not_at_table", name=other))
            if other == target:
                raise BadInput(keyed("refusals.sk.named_twice", name=target))
            out["other"] = other
        if template == "free":
            text = data.get("text")
            if not isinstance(text, str) or not text.strip() or "\n" in text or len(text) > MAX_QUESTION_CHARS:
                raise BadInput(keyed("sevenknights.err.question_words", most=MAX_QUESTION_CHARS))
            out["text"] = text.strip()
        answer = data.get("answer")
        if answer not in ("yes", "no"):
            raise BadInput(keyed("refusals.sk.answer"))
        out["answer"] = answer
        # The forbidden questions we can recognise (a free question is only reminded of the rule).
        assert asker is not None  # the Order Phase has its Captain
        if is_forbidden(state.round.arrows, asker, template, target, out.get("other")):
            raise RuleError(keyed("sevenknights.err.forbidden", asker=asker), R_FORBIDDEN)
        return [("question_asked", out)]

    def _do_skip_captain_question(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        """The Captain's additional question is the Captain's to ask: skipped, the Captain
        reveals their own tile next."""
        self._phase(state, "order_question", rule=R_CAPTAIN_QUESTION)
        return [("captain_question_skipped", {"round": state.round.number, "captain": state.round.captain})]

    def _do_open_recommendation(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "recommendation", rule=R_RECOMMEND)
        spec = votes.VoteSpec(
            vote_id=f"recommendation-{state.round.number}", kind="pick", voters=state.players,
            options=state.players, allow_self=True, question=keyed("sevenknights.vote.question"))
        return votes.open_vote(state.book, spec)

    def _do_cast_ballot(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "recommendation", rule=R_RECOMMEND)
        if "choice" in data and data["choice"] is None or "option" in data and data["option"] is None:
            raise RuleError(keyed("sevenknights.err.must_recommend"), R_RECOMMEND)
        return self._with_captain(state, votes.cast(state.book, data, command.source))

    def _do_reveal_vote(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "recommendation", rule=R_RECOMMEND)
        current = state.book.current
        if current is not None and current.waiting:
            # The Captain rule counts every player's token: no reveal with one missing.
            raise RuleError(keyed("sevenknights.err.waiting", players=", ".join(current.waiting)), R_RECOMMEND)
        return self._with_captain(state, votes.reveal(state.book, False))

    def _with_captain(self, state: SevenKnightsState, events: Events) -> Events:
        """The reveal carries the Captain it makes (``result``): decided here, once."""
        return votes.on_reveal(state.book, events, "result",
                               lambda ballots: captain_data(state.players, state.round.first, ballots))

    def _do_reveal_captain_tile(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "captain_reveal", rule=R_CAPTAIN_REVEAL)
        mode, n = state.rules_mode, len(state.players)
        tile = data.get("tile")
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

    def _do_enter_result(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "formation")
        in_order = data.get("in_order")
        if not isinstance(in_order, bool):
            raise BadInput(keyed("refusals.sk.in_order"))
        places = witch_places(state)
        witch = data.get("witch")
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

    def _do_reveal_toriko(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        """FAQ: "What happens if the Captain is TORIKO? A: It's a victory for the Witch Team. The
        Captain can either arrange the beloved Myrmamius in the formation or reveal their TORIKO
        status and move on to the Cleanup Phase." The Captain's own tile is a Knight (revealed);
        Witch Myrmamius is where the Captain's Arrow points."""
        self._phase(state, "formation", rule=R_FAQ_TORIKO)
        if not witch_places(state):
            raise RuleError(keyed("sevenknights.err.no_witch_in_mode"), R_NO_WITCH)
        captain, seen = state.round.captain, toriko_places(state)
        witch = data.get("witch", seen[0] if len(seen) == 1 else None)
        self._player(witch, keyed("sevenknights.what.witch_seen"))
        if witch not in seen:
            raise RuleError(keyed("sevenknights.err.captain_did_not_see", captain=captain, at=place_text(witch),
                                  seen=joined([place_text(p) for p in seen], ", ")), R_TORIKO)
        result = round_result(state, witch, None)
        return [("toriko_revealed", {"round": state.round.number, "captain": captain, "witch": witch,
                                     **self._scored_data(state, result)})]

    def _scored_data(self, state: SevenKnightsState, result: Result, without: Result | None = None) -> dict[str, Any]:
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

    def _do_start_next_round(self, state: SevenKnightsState, data: Mapping[str, Any], command: Command) -> Events:
        if state.phase == "game_over":
            raise RuleError(keyed("sevenknights.err.game_over"),
                            R_TUTORIAL_END if state.rules_mode.rounds == 1 else R_END)
        self._phase(state, "cleanup", rule=R_NEXT_FIRST)
        first = data.get("first")
        self._player(first, keyed("refusals.sk.the_next_first"))
        if first not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=first))
        rnd = state.round
        assert rnd.result is not None  # the Cleanup Phase follows the round's result
        if rnd.result.witch == first:
            raise RuleError(keyed("sevenknights.err.witch_has_no_number", player=first), R_NEXT_FIRST)
        if rnd.captain_tile == 1 and first != rnd.captain:
            raise RuleError(keyed("sevenknights.err.captain_had_one", captain=rnd.captain), R_NEXT_FIRST)
        return [("round_started", {"round": rnd.number + 1, "first": first})]

    # -- evolve -------------------------------------------------------------------------------

    # -- evolve, view, outcome ----------------------------------------------------------------
    def evolve(self, state: SevenKnightsState, event: Event) -> SevenKnightsState:
        return fold.evolve(state, event)

    def view(self, state: SevenKnightsState, viewer: str) -> dict:
        return _view.view(state, viewer)

    def outcome(self, state: SevenKnightsState) -> Outcome | None:
        return _view.outcome(state)


# The command table names the handlers above, and the view asks the rule functions above: both are
# imported last, which breaks the import cycle.
from . import view as _view  # noqa: E402
from .commands import COMMANDS  # noqa: E402

SevenKnightsRules.commands = COMMANDS
RULES = SevenKnightsRules()
