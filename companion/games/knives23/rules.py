"""23 Knives as GameRules: commands -> events -> state (a fold) -> per-viewer views.

The app tracks what the table must agree on — whose turn and which step, the Forum's 5 spaces,
the Curia's count, the Dagger on the Kalends, the Tribune, the Issue and Exile votes — while the
real cards stay on the table. Card values are entered only when they are public (a faceup Fate
card, the Curia reveal, the tableaux at the end).

Every command records exactly one event of ours (plus the vote engine's own events), so an undo
never leaves half a command applied.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from collections.abc import Mapping
from typing import Any, get_args

from companion.core import houserules, votes
from companion.core.commands import (DEVICE, SEAT, TABLE, Arg, ballot_args, command, CommandTable,
                                     force_arg, players_of)
from companion.core.events import BadInput, Command, Event, NeedsTieBreak, RuleError
from companion.core.i18n import joined, keyed
from companion.core.rules import NARRATOR, TABLE, GameRules, Outcome, known_setup, require
from companion.core.schema import Bool, Int, List, Null, Raw, Text
from companion.core.timers import timer_view
from companion.core.votes import VoteBook, VoteSpec

from . import scoring
from .phases import Exile, Phase, Step
from .tables import SPACE_KINDS, Kalends, kalends_for, tables

# The rulebook's words, quoted when a command is refused.
R_MOVE = "MOVE: You MUST move to a new Location."
R_FORUM = "Play up to 2 Fate cards into the Forum AND/OR Call a Vote to Exile another Citizen"
R_FACEUP = "Spaces with a faceup icon indicate a Fate card must be played faceup."
R_BLACK = "You may never Call a Vote to Exile while the Dagger is on either of the final 2 black spaces of the Kalends track."
R_SELF = "You may never Call a Vote to Exile yourself"
R_TRIBUNE = "If you have the Issue deck, you are the Tribune and must resolve an Issue Vote."
R_TRIA_TRIBUNE = ("When you become the Tribune, at the end of your turn when you would normally resolve an "
                  "Issue Vote, read and place 2 Issues on the Voting board, and then continue the round as "
                  "normal without a Vote. The next time it is your turn as the Tribune, you hold the Vote on "
                  "the previously revealed Issues.")
R_REVEAL = "Once all players are ready, call for all players to reveal their votes simultaneously."
R_CURIA = "One at a time, reveal the Fate cards from the Curia"
R_DISCARD = "Discard down to 6 cards (in your hand)."

STEPS: tuple[Step, ...] = get_args(Step)
SETUP_STEPS = ("I", "II", "III", "IV", "V", "VI", "VII")
# When the table may put the board right (the Curia also after the game's end is called, until
# the first tableau), and when a card's effect (an Issue, a Citizen) may play or discard Fate:
# ``decide`` refuses outside them and the view tells the screens (``can_correct``, ``can_apply_effects``).
BOARD_CORRECTION_PHASES: tuple[Phase, ...] = ("turn", "exile_called", "issue_resolve")
CURIA_CORRECTION_PHASES: tuple[Phase, ...] = BOARD_CORRECTION_PHASES + ("end_abilities", "curia_reveal", "tableaux")
EFFECT_PHASES: tuple[Phase, ...] = ("turn", "issue_resolve")
# A Sway a Citizen's ability calls for may come whenever its trigger does: during a turn, an
# Issue's resolution, or a Vote to Exile's call (Quid Pro Quo's bribes offer cards).
ABILITY_SWAY_PHASES: tuple[Phase, ...] = ("turn", "exile_called", "issue_resolve")
# The eyes-closed script gives the group's words a fixed slot; longer words could overrun it.
MAX_GROUP_WORDS = 60
VARIANTS = ("standard", "all-or-nothing")
SETUP_KEYS = {"players", "start_player", "advanced_citizens", "simplicitas", "quid_pro_quo",
              "bribe_seconds", "variant", "curia_knowledge", "kalends", "forum", houserules.SETUP_KEY}
# The readings the rulebook leaves open, chosen by the group at setup (issue 33): End of Game VI's
# tie-break, "the fewest Laurels/Blood ... on their Citizen card" — the icons of the winning kind
# (the app's reading so far) or that kind less the other ("net").
TIE_BREAK = houserules.HouseRule("knives23", "tie_break", scoring.TIE_BREAKS)
HOUSE_RULES: tuple[houserules.HouseRule, ...] = (TIE_BREAK,)
R_SERVILIA = ("Instead of playing Fate cards at the Forum, you may swap up to 2 faceup Fate cards in the "
              "Forum with 2 from your hand and place them facedown (you may still Call a Vote to Exile).")
R_SABINUS = "Sabinus allows you to play Doves onto Knife cards in the Forum."
R_SEMPRONIA = ("Sempronia's Sway ability is non-negotiable and must be resolved if a player gives a Fate card. "
               "When a player uses Sempronia's ability to Sway, they may Sway them however they choose.")
R_SWAY_OTHER = "Sway: Place a card facedown in another player's tableau."
# The longest effect source or correction reason the table may type (one line on the history).
MAX_NOTE = 80


@dataclass(frozen=True)
class Options:
    advanced_citizens: bool = True
    simplicitas: bool = False       # ignore Citizen abilities: no ability reminders
    quid_pro_quo: bool = False      # a bribe timer before each Vote to Exile
    bribe_seconds: int = 60
    variant: str = "standard"       # or "all-or-nothing" (Aut Omnia Aut Nihil)
    curia_knowledge: bool = False   # show what is public about the Curia's cards

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ForumCard:
    faceup: bool
    card: Mapping[str, int] | None = None  # known only when faceup
    doves: tuple = ()   # Sabinus' Doves played onto this (Knife) card: ForumCards of their own

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"faceup": self.faceup, "card": dict(self.card) if self.card else None}
        if self.doves:
            d["doves"] = [x.to_dict() for x in self.doves]
        return d

    def all_cards(self) -> list["ForumCard"]:
        """This card and the Doves on it: what goes into the Curia."""
        return [self, *self.doves]


def forum_card(entry: Any, where: Any) -> ForumCard | None:
    """A Forum card as entered by the table: None (empty), {"faceup": false} or
    {"faceup": true, "card": {...}}, optionally with "doves": [such cards]."""
    if entry is None:
        return None
    if not isinstance(entry, Mapping) or not isinstance(entry.get("faceup"), bool) \
            or not set(entry) <= {"faceup", "card", "doves"}:
        raise BadInput(keyed("refusals.k23.forum_card_shape", where=where))
    card = scoring.fate_card(entry.get("card"), where) if entry["faceup"] else None
    doves = entry.get("doves", [])
    if not isinstance(doves, list):
        raise BadInput(keyed("refusals.k23.doves_list", where=where))
    doves = tuple(forum_card(d, keyed("refusals.k23.where_dove", n=i + 1, where=where)) for i, d in enumerate(doves))
    if any(d is None or (d.card and "doves" not in d.card) for d in doves):
        raise BadInput(keyed("knives23.error.doves_only_on_knife", where=where), R_SABINUS)
    return ForumCard(entry["faceup"], card, doves)


def note_text(value: Any, what: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NOTE or "\n" in value:
        raise BadInput(keyed("refusals.k23.note", what=what, most=MAX_NOTE))
    return value.strip()


@dataclass(frozen=True)
class Turn:
    player: str
    step: Step = "move"
    fate_played: int = 0          # by the Forum's action (effects do not count)
    exile_called: bool = False
    swayed_in: tuple = ()         # the steps in which this player has Swayed (once each)


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    options: Options
    kalends: Kalends
    dagger: int
    start_player: str
    tribune: str
    tria_ludio: bool
    phase: Phase = "setup"
    setup_done: frozenset = frozenset()
    turn: Turn | None = None
    round: int = 0
    locations: Mapping[str, str] = field(default_factory=dict)
    forum: tuple = (None, None, None, None, None)
    forum_extra: tuple = ()               # cards played onto the 5th space of a full Forum
    curia_count: int = 0
    curia_known: tuple = ()               # faceup cards seen going into the Curia (public)
    flushes: int = 0
    book: VoteBook = VoteBook()
    issues: Mapping[str, Any] | None = None   # {"red", "grey"} placed; then "colour" chosen
    exile: Exile | None = None
    exiles: tuple = ()                    # past Votes to Exile: {"caller","target","exiled","tie"}
    shamed: tuple = ()
    eyes_closed: str | None = None
    ended_by: str | None = None
    curia_revealed: tuple = ()            # ({"card","serial"}, ...)
    curia_untapped: tuple = ()            # cards (1-based) a scan counted that no tap has named yet
    tableaux: Mapping[str, Any] = field(default_factory=dict)
    result: Mapping[str, Any] | None = None
    forum_kinds: tuple = ("either",) * 5   # the icons of the 5 Forum spaces, in the arrows' order
    forum_extra_kind: str = "either"       # the icon near the 5th space
    board_confirmed: bool = False          # the table checked the Kalends and Forum against its board
    # Physical steps the table must make, in order (keys and values; views translate):
    # ("flush", {...}), ("dagger", {...}), ("refill", {...}), ("pass_deck", {...}), ("exiled", {...}) …
    told: tuple = ()
    told_from: int = 0                     # where the steps of the latest table action begin
    notes: tuple = ()                      # card effects and corrections, for the history
    house_rules: Mapping[str, str] = field(default_factory=dict)   # {name: reading} chosen at setup


def _flag(setup: Mapping, key: str, default: bool) -> bool:
    v = setup.get(key, default)
    if not isinstance(v, bool):
        raise BadInput(keyed("refusals.k23.setup_flag", option=key))
    return v


def group_words(group: str) -> dict | str:
    """The eyes-closed group as said and shown: a listed group's id as a key (said in the
    language of whoever shows it), a group typed from the Issue card as typed."""
    return keyed(f"knives23.group.{group}") if group in tables()["eyes_closed_groups"] else group


def issue_name(issues: Mapping[str, Any], colour: str) -> Any:
    """An Issue as the table names it: as typed, or "the red Issue" when the Tribune typed none."""
    return issues[colour] or keyed(f"knives23.issue_default.{colour}")


def next_clockwise(players, name: str, by: int = 1) -> str:
    return players[(players.index(name) + by) % len(players)]


def forum_count(state: State) -> int:
    """The Fate cards that fill the Forum (Sabinus' Doves lie on Knife cards, filling no space)."""
    return sum(1 for c in state.forum if c is not None) + len(state.forum_extra)


def forum_full(state: State) -> bool:
    """"Once there are 5 or more Fate cards in the Forum after the end of your turn": the Forum
    goes into the Curia and the Dagger advances. Decided when a turn's end is recorded (its
    ``flush``), so a finished game keeps its turns' ends whatever a later version's tables say."""
    return forum_count(state) >= tables()["forum"]["flush_at"]


def forum_cards(state: State) -> list[ForumCard]:
    """Every card that goes into the Curia when the Forum resolves, Doves on Knives included."""
    return [x for c in state.forum if c is not None for x in c.all_cards()] + \
        [x for c in state.forum_extra for x in c.all_cards()]


def running_total(state: State) -> int:
    return scoring.fate_total(r["card"] for r in state.curia_revealed)


def untapped_scans(state: State, card: Mapping[str, int]) -> list[int]:
    """The Curia cards (1-based) of this value that a scan counted and no tap has named yet:
    the ones a tap of that value may name instead of counting a card again (issue 32, hole 4)."""
    return [i for i in state.curia_untapped if state.curia_revealed[i - 1]["card"] == card]


def exile_allowed(state: State) -> bool:
    return not state.kalends.is_black(state.dagger)


def seat_view_order(state: State, first: str) -> list[str]:
    i = state.players.index(first)
    return list(state.players[i:] + state.players[:i])


def forum_icons(value: Any) -> tuple[tuple, str]:
    """The Forum's icons from a setup or a confirmation: {"spaces": [5 of either/faceup],
    "extra": either/faceup}; None: the table data's."""
    data = tables()["forum"]
    if value is None:
        return tuple(data["spaces"]), data["extra"]
    if not isinstance(value, Mapping) or not set(value) <= {"spaces", "extra"}:
        raise BadInput(keyed("refusals.k23.forum_icons"))
    spaces = value.get("spaces", data["spaces"])
    extra = value.get("extra", data["extra"])
    if not isinstance(spaces, (list, tuple)) or len(spaces) != 5 or any(k not in SPACE_KINDS for k in spaces) \
            or extra not in SPACE_KINDS:
        raise BadInput(keyed("refusals.k23.forum_icons"))
    return tuple(spaces), extra


# The version of these rules a game is played under (recorded when it starts: core.rules).
RULES_VERSION = 1


class Knives23Rules(GameRules):
    game_id = "knives23"
    rules_version = RULES_VERSION
    title = "knives23.title"
    min_players = 3
    max_players = 8
    irreversible = frozenset({"vote_revealed", "vote_result"})
    house_rules = HOUSE_RULES

    # -- setup ---------------------------------------------------------------------------
    def initial_state(self, setup: Mapping[str, Any]) -> State:
        if not isinstance(setup, Mapping):
            raise BadInput(keyed("refusals.setup_not_object"))
        known_setup(setup, SETUP_KEYS)
        players = setup.get("players")
        if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) and p.strip() for p in players):
            raise BadInput(keyed("refusals.players_not_names"))
        if len(set(players)) != len(players):
            raise BadInput(keyed("refusals.players_twice"))
        if not self.min_players <= len(players) <= self.max_players:
            raise BadInput(keyed("refusals.k23.player_count", n=len(players)))
        players = tuple(players)
        start = setup.get("start_player", players[0])
        if start not in players:
            raise BadInput(keyed("refusals.k23.start_player", name=start))
        variant = setup.get("variant", "standard")
        if variant not in VARIANTS:
            raise BadInput(keyed("refusals.k23.variant"))
        bribe = setup.get("bribe_seconds", tables()["bribe_seconds"])
        if not isinstance(bribe, int) or isinstance(bribe, bool) or not 5 <= bribe <= 600:
            raise BadInput(keyed("refusals.k23.bribe_seconds"))
        options = Options(_flag(setup, "advanced_citizens", True), _flag(setup, "simplicitas", False),
                          _flag(setup, "quid_pro_quo", False), bribe, variant,
                          _flag(setup, "curia_knowledge", False))
        override = setup.get("kalends")
        if override is not None and not isinstance(override, Mapping):
            raise BadInput(keyed("refusals.k23.kalends_setup"))
        kalends = kalends_for(len(players), override)
        kinds, extra_kind = forum_icons(setup.get("forum"))
        house = houserules.chosen(setup, HOUSE_RULES)
        tria = len(players) == 3
        forum = (None, None, None, None, ForumCard(False)) if tria else (None,) * 5
        return State(players=players, options=options, kalends=kalends, dagger=kalends.dagger_start,
                     start_player=start, forum_kinds=kinds, forum_extra_kind=extra_kind,
                     # "give the deck ... to the player sitting to the right of the starting player"
                     tribune=next_clockwise(players, start, -1),
                     tria_ludio=tria, forum=forum, house_rules=house,
                     locations={p: tables()["start_location"] for p in players})

    # -- commands ------------------------------------------------------------------------
    def decide(self, state: State, command: Command) -> list[tuple[str, Mapping[str, Any]]]:
        return COMMANDS.dispatch(self, state, command)

    def _phase(self, state: State, *phases: str) -> None:
        if state.phase not in phases:
            raise RuleError(keyed("knives23.error.not_now", phase=keyed(f"knives23.phase.{state.phase}")))

    def _step(self, state: State, *steps: str) -> Turn:
        self._phase(state, "turn")
        turn = state.turn
        assert turn is not None  # phase "turn" has one
        if turn.step not in steps:
            raise RuleError(keyed("knives23.error.wrong_step", step=keyed(f"knives23.step.{turn.step}")))
        return turn

    # setup checklist
    def _do_tick_setup(self, state, data, source):
        self._phase(state, "setup")
        step = data.get("step")
        if step not in SETUP_STEPS:
            raise BadInput(keyed("refusals.k23.setup_step", step=step))
        return [("setup_ticked", {"step": step})]

    def _do_begin_play(self, state, data, source):
        self._phase(state, "setup")
        left = [s for s in SETUP_STEPS if s not in state.setup_done]
        require(not left, keyed("knives23.error.setup_left", steps=", ".join(left)))
        return [("play_began", {"player": state.start_player, "tribune": state.tribune})]

    # the five steps of a turn
    def _do_move(self, state, data, source):
        turn = self._step(state, "move")
        to = data.get("location")
        if to not in tables()["locations"]:
            raise BadInput(keyed("refusals.k23.location", place=to, places=joined([keyed(f"knives23.location.{x}") for x in tables()["locations"]], ", ")))
        here = state.locations[turn.player]
        require(to != here, keyed("knives23.error.same_location", location=keyed(f"knives23.location.{to}")), R_MOVE)
        return [("moved", {"player": turn.player, "from": here, "to": to})]

    def _do_play_fate(self, state, data, source):
        effect = data.get("effect", False)
        if not isinstance(effect, bool):
            raise BadInput(keyed("refusals.k23.effect"))
        if effect:  # an Issue or a Citizen ability makes someone play Fate: no Forum limit
            self._phase(state, *EFFECT_PHASES)
            by = note_text(data.get("by"), keyed("refusals.k23.effect_source"))
        else:
            turn = self._step(state, "action")
            require(state.locations[turn.player] == "forum", keyed("knives23.error.not_at_forum"), R_FORUM)
            require(turn.fate_played < tables()["fate_per_forum_action"], keyed("knives23.error.two_fate"), R_FORUM)
        if data.get("facedown") is True:
            card, faceup = None, False
        else:
            card, faceup = scoring.fate_card(data.get("card"), keyed("refusals.k23.where_fate_card")), True
        space = self._next_space(state)
        kind = state.forum_kinds[space - 1] if space <= 5 else state.forum_extra_kind
        require(faceup or kind == "either", keyed("knives23.error.faceup_space", space=space), R_FACEUP)
        player = data.get("player", state.turn.player if state.turn else state.tribune)
        if player not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=player))
        event = {"space": space, "faceup": faceup, "card": card, "effect": effect, "player": player}
        if effect:
            event["by"] = by
        return [("fate_played", event)]

    @staticmethod
    def _next_space(state: State) -> int:
        """The first empty space in the arrows' order ("filling in any possible empty spaces
        first"); 6 means on top of the 5th space of a full Forum."""
        for i, c in enumerate(state.forum):
            if c is None:
                return i + 1
        return 6

    def _do_discard_forum(self, state, data, source):
        self._phase(state, *EFFECT_PHASES)
        space = data.get("space")
        if not isinstance(space, int) or isinstance(space, bool) or not 1 <= space <= 5:
            raise BadInput(keyed("refusals.k23.forum_space"))
        require(state.forum[space - 1] is not None, keyed("knives23.error.empty_space", space=space))
        by = note_text(data.get("by"), keyed("refusals.k23.effect_source"))
        return [("forum_card_discarded", {"space": space, "by": by})]

    def _do_servilia_swap(self, state, data, source):
        """Servilia: up to 2 faceup Forum cards swapped for cards from hand, placed facedown,
        instead of playing Fate cards (a Vote to Exile may still be called)."""
        turn = self._step(state, "action")
        require(state.locations[turn.player] == "forum", keyed("knives23.error.not_at_forum"), R_SERVILIA)
        require(turn.fate_played == 0, keyed("knives23.error.servilia_instead"), R_SERVILIA)
        spaces = data.get("spaces")
        if not isinstance(spaces, list) or not 1 <= len(spaces) <= 2 or len(set(spaces)) != len(spaces) or \
                any(not isinstance(x, int) or isinstance(x, bool) or not 1 <= x <= 5 for x in spaces):
            raise BadInput(keyed("refusals.k23.servilia_spaces"))
        for x in spaces:
            c = state.forum[x - 1]
            require(c is not None and c.faceup, keyed("knives23.error.servilia_faceup", space=x), R_SERVILIA)
        return [("forum_swapped", {"player": turn.player, "spaces": sorted(spaces), "by": "Servilia"})]

    def _do_sabinus_dove(self, state, data, source):
        self._phase(state, *EFFECT_PHASES)
        space = data.get("space")
        if not isinstance(space, int) or isinstance(space, bool) or not 1 <= space <= 5:
            raise BadInput(keyed("refusals.k23.forum_space"))
        target = state.forum[space - 1]
        require(target is not None and (not target.faceup or "knives" in target.card),
                keyed("knives23.error.sabinus_knife", space=space), R_SABINUS)
        if data.get("facedown") is True:
            card, faceup = None, False
        else:
            card, faceup = scoring.fate_card(data.get("card"), keyed("refusals.k23.where_sabinus_dove")), True
            require("doves" in card, keyed("knives23.error.sabinus_dove"), R_SABINUS)
        player = data.get("player", state.turn.player if state.turn else state.tribune)
        if player not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=player))
        return [("dove_on_knife", {"space": space, "faceup": faceup, "card": card, "player": player,
                                   "by": "Sabinus"})]

    # corrections: the board is what the table says it is, with the reason on the record
    def _correctable(self, state, what: str):
        if what == "curia":
            self._phase(state, *CURIA_CORRECTION_PHASES)
            require(not state.tableaux, keyed("knives23.error.correct_after_tableaux"))
        else:
            self._phase(state, *BOARD_CORRECTION_PHASES)

    def _do_correct_forum(self, state, data, source):
        self._correctable(state, "forum")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        spaces = data.get("spaces")
        if not isinstance(spaces, list) or len(spaces) != 5:
            raise BadInput(keyed("refusals.k23.forum_correction"))
        cards = [forum_card(c, keyed("refusals.k23.where_forum_space", n=i + 1)) for i, c in enumerate(spaces)]
        extra = data.get("extra", [])
        if not isinstance(extra, list):
            raise BadInput(keyed("refusals.k23.extra_list"))
        extra = [forum_card(c, keyed("refusals.k23.where_extra", n=i + 1)) for i, c in enumerate(extra)]
        require(not extra or cards[4] is not None, keyed("knives23.error.extra_needs_fifth"))
        if any(c is None for c in extra):
            raise BadInput(keyed("refusals.k23.extra_empty"))
        after = {"spaces": [c.to_dict() if c else None for c in cards], "extra": [c.to_dict() for c in extra]}
        before = {"spaces": [c.to_dict() if c else None for c in state.forum],
                  "extra": [c.to_dict() for c in state.forum_extra]}
        require(after != before, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "forum", "before": before, "after": after, "reason": reason})]

    def _do_correct_dagger(self, state, data, source):
        self._correctable(state, "dagger")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        space = data.get("space")
        k = state.kalends
        if not isinstance(space, int) or isinstance(space, bool) or not 1 <= space <= k.spaces:
            raise BadInput(keyed("refusals.k23.dagger_space", spaces=k.spaces))
        require(space != state.dagger, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "dagger", "before": state.dagger, "after": space, "reason": reason})]

    def _do_correct_curia(self, state, data, source):
        self._correctable(state, "curia")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        count = data.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= tables()["fate_deck"]:
            raise BadInput(keyed("refusals.k23.curia_count", most=tables()["fate_deck"]))
        require(count >= len(state.curia_revealed),
                keyed("knives23.error.curia_below_revealed", n=len(state.curia_revealed)))
        require(count != state.curia_count, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "curia", "before": state.curia_count, "after": count, "reason": reason})]

    def _correct_who(self, state, data) -> str:
        """The player a correction names: one at the table (its own refusal, listing them)."""
        player = data.get("player")
        if player not in state.players:
            raise BadInput(keyed("knives23.error.correct_who", name=player, players=", ".join(state.players)))
        return player

    def _do_correct_location(self, state, data, source):
        """A pawn's Location as the table sees it (a Location tapped wrong): the Move, the Forum's
        action and the Sway step check the Location from then on."""
        self._correctable(state, "location")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        player = self._correct_who(state, data)
        to = data.get("location")
        places = tables()["locations"]
        if to not in places:
            raise BadInput(keyed("knives23.error.correct_where", place=to,
                                 places=joined([keyed(f"knives23.location.{x}") for x in places], ", ")))
        here = state.locations[player]
        require(to != here, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "location", "player": player, "before": here, "after": to,
                                     "reason": reason})]

    def _seats_correctable(self, state, *phases: str) -> None:
        """Whose turn and who holds the Issue deck may be put right between actions, not while
        the Issues are on the Voting board for this turn."""
        self._phase(state, *phases)
        require(state.issues is None or state.issues.get("held_over", False),
                keyed("knives23.error.correct_issues_out"), R_TRIBUNE)

    def _do_correct_turn(self, state, data, source):
        """The table played out of turn: whose turn it is now (that turn starts at its Move)."""
        self._seats_correctable(state, "turn")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        player = self._correct_who(state, data)
        assert state.turn is not None  # phase "turn" has one
        require(player != state.turn.player, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "turn", "before": state.turn.player, "after": player,
                                     "reason": reason, "flush": forum_full(state)})]

    def _do_correct_tribune(self, state, data, source):
        """The Issue deck is in other hands than the tablet thinks: "If you have the Issue deck,
        you are the Tribune"."""
        self._seats_correctable(state, "turn", "exile_called")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        player = self._correct_who(state, data)
        require(player != state.tribune, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "tribune", "before": state.tribune, "after": player,
                                     "reason": reason})]

    def _do_confirm_board(self, state, data, source):
        """Setup I against the table's own board: the Kalends track's length, its black spaces,
        the Dagger's start and the Forum's icons (the rulebook prints none of them)."""
        self._phase(state, "setup")
        k = kalends_for(len(state.players), {key: data[key] for key in ("spaces", "black_spaces", "dagger_start")
                                             if key in data})
        kinds, extra = forum_icons(data.get("forum"))
        unknown = set(data) - {"spaces", "black_spaces", "dagger_start", "forum"}
        if unknown:
            raise BadInput(keyed("refusals.k23.board_unknown", names=", ".join(sorted(unknown))))
        return [("board_confirmed", {**k.to_dict(), "forum": {"spaces": list(kinds), "extra": extra}})]

    def _do_call_exile(self, state, data, source):
        turn = self._step(state, "action")
        caller = data.get("caller", turn.player)
        target = data.get("target")
        require(caller == turn.player, keyed("knives23.error.caller_not_current", player=turn.player), R_FORUM)
        if target not in state.players:
            raise BadInput(keyed("refusals.k23.target", name=target, players=", ".join(state.players)))
        require(target != caller, keyed("knives23.error.exile_self"), R_SELF)
        require(state.locations[caller] == "forum", keyed("knives23.error.not_at_forum"), R_FORUM)
        require(exile_allowed(state), keyed("knives23.error.black_space"), R_BLACK)
        require(not turn.exile_called, keyed("knives23.error.one_exile"), R_FORUM)
        events = [("exile_called", {"caller": caller, "target": target,
                                    "bribe_seconds": state.options.bribe_seconds if state.options.quid_pro_quo else 0})]
        called = self.evolve(state, Event(0, *events[0]))
        if not state.options.quid_pro_quo:
            events += self._open_exile_vote(called)
        return events

    def _do_start_exile_vote(self, state, data, source):
        self._phase(state, "exile_called")
        return self._open_exile_vote(state)

    def _open_exile_vote(self, state: State):
        ex = state.exile
        assert ex is not None  # phase "exile_called"
        spec = VoteSpec(f"exile-{len(state.exiles) + 1}", "binary", state.players,
                        (scoring.EXILE, scoring.REMAIN),
                        question=keyed("knives23.vote.exile_question", caller=ex["caller"], target=ex["target"]))
        return votes.open_vote(state.book, spec)

    def _do_sway(self, state, data, source):
        turn = self._step(state, "action", "sway")
        target = data.get("target")
        if target not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=target))
        require(target != turn.player, keyed("knives23.error.sway_self"))
        require(turn.step not in turn.swayed_in, keyed("knives23.error.sway_once"),
                "you may Sway any one colocated player" if turn.step == "sway" else
                "Draw 3 Fate cards AND Sway ANY OTHER Citizen (in any Location).")
        if turn.step == "action":  # only the Gardens' action Sways outside the Sway step
            require(state.locations[turn.player] == "gardens", keyed("knives23.error.sway_step"),
                    "Draw 3 Fate cards AND Sway ANY OTHER Citizen (in any Location).")
        else:
            require(state.locations[target] == state.locations[turn.player], keyed("knives23.error.not_colocated", target=target),
                    "you may Sway any one colocated player by placing a Sway card from your hand facedown into their tableau.")
        return [("swayed", {"player": turn.player, "target": target, "step": turn.step})]

    def _do_ability_sway(self, state, data, source):
        """A Sway a Citizen's ability calls for outside the Gardens' action and the Sway step
        (Sempronia's "must be resolved if a player gives a Fate card"): recorded with its source;
        it is neither the turn's Sway nor the Gardens', so both stay as they were."""
        self._phase(state, *ABILITY_SWAY_PHASES)
        by = note_text(data.get("by"), keyed("refusals.k23.effect_source"))
        player = data.get("player", state.turn.player if state.turn else state.tribune)
        if player not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=player))
        target = data.get("target")
        if target not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=target))
        require(target != player, keyed("knives23.error.sway_self"), R_SWAY_OTHER)
        return [("ability_swayed", {"player": player, "target": target, "by": by})]

    def _do_next_step(self, state, data, source):
        turn = self._step(state, "action", "sway", "discard", "issue")
        if turn.step == "issue":
            # only a Tria Ludio Tribune's first turn ends with the Issues placed and no Vote
            require(state.tria_ludio and state.issues is not None and not state.issues.get("vote")
                    and not state.issues.get("held_over"), keyed("knives23.error.issue_first"),
                    R_TRIA_TRIBUNE if state.tria_ludio else R_TRIBUNE)
            return [("turn_ended", {"player": turn.player, "flush": forum_full(state)})]
        if turn.step == "discard" and turn.player != state.tribune:
            return [("turn_ended", {"player": turn.player, "flush": forum_full(state)})]
        return [("step_done", {"player": turn.player, "step": turn.step})]

    # the Issue Vote
    def _do_place_issues(self, state, data, source):
        self._step(state, "issue")
        require(state.issues is None, keyed("knives23.error.issues_placed"))
        red, grey = data.get("red", ""), data.get("grey", "")   # unnamed: "the red Issue"
        for colour, name in (("red", red), ("grey", grey)):
            if not isinstance(name, str) or len(name) > 80 or "\n" in name:
                raise BadInput(keyed("knives23.error.issue_name", colour=keyed(f"knives23.colour.{colour}"), most=80))
        # Tria Ludio: the first turn as Tribune places the Issues without a Vote
        vote_now = not state.tria_ludio
        events = [("issues_placed", {"tribune": state.tribune, "red": red.strip(), "grey": grey.strip(), "vote": vote_now})]
        if vote_now:
            placed = self.evolve(state, Event(0, *events[0]))
            events += self._open_issue_vote(placed)
        return events

    def _do_hold_issue_vote(self, state, data, source):
        self._step(state, "issue")
        require(state.issues is not None, keyed("knives23.error.no_issues"), R_TRIBUNE)
        if state.tria_ludio and not state.issues.get("vote"):
            require(state.issues.get("held_over", False), keyed("knives23.error.tria_wait"), R_TRIA_TRIBUNE)
        require(state.book.current is None, keyed("knives23.error.vote_open"))
        return self._open_issue_vote(state)

    def _open_issue_vote(self, state: State):
        assert state.issues is not None  # the Tribune placed them
        n = sum(1 for v in state.book.history if v.spec.vote_id.startswith("issue-")) + 1
        spec = VoteSpec(f"issue-{n}", "binary", state.players, (scoring.RED, scoring.GREY),
                        question=keyed("knives23.vote.issue_question" if state.issues["red"] or state.issues["grey"]
                                       else "knives23.vote.issue_question_unnamed", red=issue_name(state.issues, "red"),
                                       grey=issue_name(state.issues, "grey")))
        return votes.open_vote(state.book, spec)

    # ballots from any input; the reveal is simultaneous
    def _do_cast_ballot(self, state, data, source):
        self._phase(state, "issue_vote", "exile_vote")
        events = votes.cast(state.book, data, source)
        if events[-1][0] == "vote_revealed":
            vote = state.book.current
            ballots = dict(vote.choices())
            voter, choice = votes.normalise_ballot(vote.spec, data)
            ballots[voter] = choice
            events.append(self._vote_result(state, ballots))
        return events

    def _do_reveal_vote(self, state, data, source):
        self._phase(state, "issue_vote", "exile_vote")
        # Everyone votes in 23 Knives: a reveal with missing ballots is never forced.
        require(not state.book.current.waiting, keyed("knives23.error.waiting", names=", ".join(state.book.current.waiting)), R_REVEAL)
        events = votes.reveal(state.book, False)
        events.append(self._vote_result(state, state.book.current.choices()))
        return events

    def _vote_result(self, state: State, ballots: Mapping[str, str]):
        what = "issue" if state.phase == "issue_vote" else "exile"
        assert what == "issue" or state.exile is not None  # phase "exile_vote" has one
        try:
            if what == "issue":
                out = scoring.issue_vote_outcome(state.players, ballots)
                winner = out["resolved"]
            else:
                assert state.exile is not None
                out = scoring.exile_outcome(state.players, state.exile["caller"], state.exile["target"], ballots)
                winner = scoring.EXILE if out["exiled"] else scoring.REMAIN
            tie = False
        except NeedsTieBreak:
            winner, tie = None, True
        counts = {c: sum(1 for b in ballots.values() if b == c) for c in
                  ((scoring.RED, scoring.GREY) if what == "issue" else (scoring.EXILE, scoring.REMAIN))}
        return ("vote_result", {"vote": what, "winner": winner, "tie": tie, "counts": counts})

    def _do_tie_break(self, state, data, source):
        self._phase(state, "issue_tie", "exile_tie")
        what = "issue" if state.phase == "issue_tie" else "exile"
        last = state.book.last()
        choice = data.get("choice")
        if what == "issue":
            out = scoring.issue_vote_outcome(state.players, last.choices(), choice)
            winner = out["resolved"]
        else:
            out = scoring.exile_outcome(state.players, state.exile["caller"], state.exile["target"], last.choices(), choice)
            winner = scoring.EXILE if out["exiled"] else scoring.REMAIN
        return [("tie_broken", {"vote": what, "choice": winner, "by": state.tribune})]

    # resolving the chosen Issue
    def _do_eyes_closed(self, state, data, source):
        self._phase(state, "issue_resolve")
        group = data.get("group")
        if isinstance(group, str) and group in tables()["eyes_closed_groups"]:
            words = group  # the group's id: said in the table's language when narrated and shown
        elif isinstance(group, str) and group.strip() and len(group) <= MAX_GROUP_WORDS and "\n" not in group:
            words = group.strip()  # typed by the group from the Issue card
            from .cues import check_spoken_group  # its lines must fit their fixed slots
            check_spoken_group(words)
        else:
            raise BadInput(keyed("knives23.error.group_words", most=MAX_GROUP_WORDS))
        return [("eyes_closed", {"group": words})]

    def _do_eyes_open(self, state, data, source):
        self._phase(state, "eyes_closed")
        return [("eyes_opened", {})]

    def _do_issue_resolved(self, state, data, source):
        self._phase(state, "issue_resolve")
        kalends = data.get("kalends")
        if not isinstance(kalends, bool):
            raise BadInput(keyed("refusals.k23.kalends_icon"))
        colour = state.issues["colour"]
        return [("issue_resolved", {"colour": colour, "issue": state.issues[colour], "kalends": kalends,
                                    "tribune": state.tribune,
                                    "next_tribune": next_clockwise(state.players, state.tribune, -1),
                                    "flush": forum_full(state)})]

    # the end of the game
    def _do_abilities_done(self, state, data, source):
        self._phase(state, "end_abilities")
        return [("abilities_done", {})]

    def _do_curia_card(self, state, data, source):
        """One Curia card: a scan (with its serial) or a tap. One claim per card, whichever
        comes first: a tap of the value of a card a scan counted and no tap has named names that
        card (``curia_card_tapped``, nothing added) — unless ``another`` says it is a second card
        of that value (the tablet asks which). A scan of a tapped card is ``curia_claim``."""
        another = data.get("another", False)
        if not isinstance(another, bool):
            raise BadInput(keyed("knives23.error.another_flag"))
        if data.get("serial") is None and not another and state.phase in ("curia_reveal", "tableaux") \
                and not state.tableaux:
            card = scoring.fate_card(data.get("card"), keyed("refusals.k23.where_curia_card"))
            scanned = untapped_scans(state, card)
            if scanned:
                return [("curia_card_tapped", {"index": scanned[-1], "card": card})]
        self._phase(state, "curia_reveal")
        require(len(state.curia_revealed) < state.curia_count,
                keyed("knives23.error.curia_all", count=state.curia_count), R_CURIA)
        card = scoring.fate_card(data.get("card"), keyed("refusals.k23.where_curia_card"))
        serial = data.get("serial")
        if serial is not None and another:
            raise BadInput(keyed("knives23.error.another_flag"))
        if serial is not None:
            if not isinstance(serial, str) or not serial.strip() or len(serial) > 64:
                raise BadInput(keyed("refusals.k23.serial"))
            require(all(r["serial"] != serial for r in state.curia_revealed),
                    keyed("knives23.error.duplicate_card", serial=serial))
        index = len(state.curia_revealed) + 1
        total = running_total(state) + scoring.fate_value(card)
        return [("curia_card_revealed", {"card": card, "serial": serial, "index": index,
                                         "of": state.curia_count, "total": total})]

    def _do_curia_claim(self, state, data, source):
        """A scan of a card already tapped in on the tablet: it names that card's serial and
        never adds the card twice (the latest tapped card of that value without a serial)."""
        card = scoring.fate_card(data.get("card"), keyed("refusals.k23.where_curia_card"))
        serial = data.get("serial")
        if not isinstance(serial, str) or not serial.strip() or len(serial) > 64:
            raise BadInput(keyed("refusals.k23.serial"))
        require(all(r["serial"] != serial for r in state.curia_revealed),
                keyed("knives23.error.duplicate_card", serial=serial))
        tapped = [i for i, r in enumerate(state.curia_revealed)
                  if r["serial"] is None and r["card"] == card]
        require(bool(tapped), keyed("knives23.error.no_tapped_card"))
        return [("curia_card_claimed", {"index": tapped[-1] + 1, "serial": serial, "card": card})]

    def _do_tableau(self, state, data, source):
        self._phase(state, "tableaux")
        player = data.get("player")
        if player not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=player))
        require(player not in state.tableaux, keyed("knives23.error.tableau_twice", player=player))
        entry = {"name": player, "citizen": data.get("citizen")}
        if "sway" in data or data.get("cicero") is None:
            entry["sway"] = data.get("sway", [])
        if data.get("cicero") is not None:  # the Cicero Citizen's 2 Sway sets and the claimed one
            entry["cicero"] = data["cicero"]
        t = scoring.tableau(entry)
        return [("tableau_revealed", t.to_dict())]

    def _do_opportunist_play(self, state, data, source):
        self._phase(state, "opportunists")
        cards = data.get("cards", [])
        if not isinstance(cards, list):
            raise BadInput(keyed("refusals.k23.opportunists_cards"))
        cards = [scoring.fate_card(c, keyed("refusals.k23.where_opportunists_card", n=i + 1)) for i, c in enumerate(cards)]
        result = final_result_of(state, cards)
        return [("game_over", {"opportunist_play": cards, "result": result})]

    # -- the fold ------------------------------------------------------------------------
    def evolve(self, state: State, event: Event) -> State:
        after = self._evolve(state, event)
        if len(after.told) > len(state.told):   # this action's physical steps are the ones to show
            after = replace(after, told_from=len(state.told))
        return after

    def _evolve(self, state: State, event: Event) -> State:
        k, d = event.kind, event.data
        if k in votes.VOTE_EVENTS:
            book = votes.apply_vote_event(state.book, event)
            state = replace(state, book=book)
            if k == "vote_opened":
                return replace(state, phase="issue_vote" if d["vote_id"].startswith("issue-") else "exile_vote")
            if k == "vote_cancelled":
                return replace(state, phase="turn" if d["vote_id"].startswith("issue-") else "exile_called")
            return state
        fn = getattr(self, f"_on_{k}", None)
        return fn(state, d) if fn else state

    def _on_setup_ticked(self, s, d):
        return replace(s, setup_done=s.setup_done | {d["step"]})

    def _on_play_began(self, s, d):
        return replace(s, phase="turn", round=1, turn=Turn(d["player"]))

    def _on_moved(self, s, d):
        locations = dict(s.locations)
        locations[d["player"]] = d["to"]
        # a new move: the last action's physical steps have been made
        return replace(s, locations=locations, turn=replace(s.turn, step="action"), told_from=len(s.told))

    def _on_board_confirmed(self, s, d):
        k = Kalends(d["spaces"], d["black_spaces"], d["dagger_start"])
        return replace(s, kalends=k, dagger=k.dagger_start, forum_kinds=tuple(d["forum"]["spaces"]),
                       forum_extra_kind=d["forum"]["extra"], board_confirmed=True,
                       setup_done=s.setup_done | {"I"})

    def _on_fate_played(self, s, d):
        card = ForumCard(d["faceup"], d["card"])
        if d["space"] <= 5:
            forum = list(s.forum)
            forum[d["space"] - 1] = card
            s = replace(s, forum=tuple(forum))
        else:
            s = replace(s, forum_extra=s.forum_extra + (card,))
        if not d["effect"]:
            s = replace(s, turn=replace(s.turn, fate_played=s.turn.fate_played + 1))
        else:
            s = replace(s, notes=s.notes + ({"kind": "fate_played", **d},))
        return s

    def _on_forum_card_discarded(self, s, d):
        s = replace(s, notes=s.notes + ({"kind": "forum_card_discarded", **d},))
        if d["space"] == 5 and s.forum_extra:
            return replace(s, forum_extra=s.forum_extra[:-1])
        forum = list(s.forum)
        forum[d["space"] - 1] = None
        return replace(s, forum=tuple(forum))

    def _on_forum_swapped(self, s, d):
        forum = list(s.forum)
        for x in d["spaces"]:
            forum[x - 1] = ForumCard(False, None, forum[x - 1].doves)
        return replace(s, forum=tuple(forum), notes=s.notes + ({"kind": "forum_swapped", **d},),
                       turn=replace(s.turn, fate_played=tables()["fate_per_forum_action"]))

    def _on_dove_on_knife(self, s, d):
        forum = list(s.forum)
        c = forum[d["space"] - 1]
        forum[d["space"] - 1] = replace(c, doves=c.doves + (ForumCard(d["faceup"], d["card"]),))
        return replace(s, forum=tuple(forum), notes=s.notes + ({"kind": "dove_on_knife", **d},))

    def _on_board_corrected(self, s, d):
        # the note of the correction (the turn's end it makes is applied below, not noted)
        s = replace(s, notes=s.notes + ({"kind": "board_corrected", **{k: v for k, v in d.items() if k != "flush"}},))
        what, after = d["what"], d["after"]
        if what == "forum":
            return replace(s, forum=tuple(forum_card(c, "Forum") for c in after["spaces"]),
                           forum_extra=tuple(forum_card(c, "Forum") for c in after["extra"]))
        if what == "dagger":
            return replace(s, dagger=after)
        if what == "location":
            return replace(s, locations={**s.locations, d["player"]: after})
        if what == "turn":
            # The turn in play is over at the table: its end happens as any turn's end does (a
            # Forum of 5 or more into the Curia, the Dagger on, perhaps the game's end: "Once
            # there are 5 or more Fate cards in the Forum after the end of your turn ..."), and
            # then it is that player's turn, from its Move.
            return self._end_turn(s, d, after)
        if what == "tribune":
            turn = s.turn
            if turn is not None and turn.step == "issue" and turn.player != after:
                turn = replace(turn, step="discard")   # no longer the Tribune: the turn's last step
            return replace(s, tribune=after, turn=turn)
        s = replace(s, curia_count=after)
        if s.phase in ("curia_reveal", "tableaux"):  # the real number of cards decides when the reveal ends
            s = replace(s, phase="curia_reveal" if len(s.curia_revealed) < after else "tableaux")
        return s

    def _on_exile_called(self, s, d):
        return replace(s, phase="exile_called", exile={"caller": d["caller"], "target": d["target"],
                                                      "bribe_seconds": d["bribe_seconds"]},
                       turn=replace(s.turn, exile_called=True))

    def _on_swayed(self, s, d):
        # a public fact for the record; the Sway card itself stays secret
        return replace(s, turn=replace(s.turn, swayed_in=s.turn.swayed_in + (d["step"],)))

    def _on_ability_swayed(self, s, d):
        # a public fact for the history (who Swayed whom, and why); the card stays secret
        return replace(s, notes=s.notes + ({"kind": "ability_swayed", **d},))

    def _on_step_done(self, s, d):
        nxt = STEPS[STEPS.index(s.turn.step) + 1]
        return replace(s, turn=replace(s.turn, step=nxt))

    def _on_turn_ended(self, s, d):
        return self._end_turn(s, d)

    def _on_issues_placed(self, s, d):
        return replace(s, issues={"red": d["red"], "grey": d["grey"], "vote": d["vote"], "held_over": False})

    def _on_vote_result(self, s, d):
        if d["vote"] == "issue":
            if d["tie"]:
                return replace(s, phase="issue_tie")
            return self._issue_chosen(s, d["winner"])
        if d["tie"]:
            return replace(s, phase="exile_tie")
        return self._exile_decided(s, d["winner"] == scoring.EXILE, False)

    def _on_tie_broken(self, s, d):
        if d["vote"] == "issue":
            return self._issue_chosen(s, d["choice"])
        return self._exile_decided(s, d["choice"] == scoring.EXILE, True)

    def _issue_chosen(self, s: State, colour: str) -> State:
        assert s.issues is not None  # the vote was on them
        return replace(s, phase="issue_resolve", issues={**s.issues, "colour": colour})

    def _exile_decided(self, s: State, exiled: bool, tie: bool) -> State:
        ex = s.exile
        # the vote was on it: a journal deciding one Exile twice (two copies of the app) does not fold
        assert ex is not None, "an Exile decided with no Exile called"
        record = {"caller": ex["caller"], "target": ex["target"], "exiled": exiled, "tie": tie}
        shamed = s.shamed if exiled or ex["caller"] in s.shamed else s.shamed + (ex["caller"],)
        told = ("exiled", {"player": ex["target"]}) if exiled else ("shamed", {"player": ex["caller"]})
        return replace(s, phase="turn", exile=None, exiles=s.exiles + (record,), shamed=shamed,
                       told=s.told + (told,))

    def _on_eyes_closed(self, s, d):
        return replace(s, phase="eyes_closed", eyes_closed=d["group"])

    def _on_eyes_opened(self, s, d):
        return replace(s, phase="issue_resolve", eyes_closed=None)

    def _on_issue_resolved(self, s, d):
        s = replace(s, issues=None, phase="turn")
        if d["kalends"]:  # iv. before v.: a game that ends here ends with the deck unpassed
            s = self._advance_dagger(s, "kalends")
            if s.ended_by:
                return s
        s = replace(s, tribune=d["next_tribune"],
                    told=s.told + (("pass_deck", {"from": d["tribune"], "to": d["next_tribune"]}),))
        return self._end_turn(s, d)

    def _on_abilities_done(self, s, d):
        return replace(s, phase="curia_reveal" if s.curia_count else "tableaux")

    def _on_curia_card_revealed(self, s, d):
        revealed = s.curia_revealed + ({"card": dict(d["card"]), "serial": d["serial"]},)
        untapped = s.curia_untapped + ((len(revealed),) if d["serial"] is not None else ())
        return replace(s, curia_revealed=revealed, curia_untapped=untapped,
                       phase="tableaux" if len(revealed) >= s.curia_count else "curia_reveal")

    def _on_curia_card_tapped(self, s, d):
        # the tap named a card a scan had counted: that card is claimed by both, counted once
        return replace(s, curia_untapped=tuple(i for i in s.curia_untapped if i != d["index"]))

    def _on_curia_card_claimed(self, s, d):
        revealed = list(s.curia_revealed)
        revealed[d["index"] - 1] = {**revealed[d["index"] - 1], "serial": d["serial"]}
        return replace(s, curia_revealed=tuple(revealed))

    def _on_tableau_revealed(self, s, d):
        tableaux = dict(s.tableaux)
        tableaux[d["name"]] = {"citizen": dict(d["citizen"]), "sway": [dict(x) for x in d["sway"]]}
        if d.get("cicero"):
            tableaux[d["name"]]["cicero"] = d["cicero"]
        return replace(s, tableaux=tableaux,
                       phase="opportunists" if len(tableaux) == len(s.players) else "tableaux")

    def _on_game_over(self, s, d):
        return replace(s, phase="over", result=dict(d["result"], opportunist_play=list(d["opportunist_play"])))

    # helpers of the fold
    def _end_turn(self, s: State, d: Mapping[str, Any], nxt: str | None = None) -> State:
        """The end of a turn: a Forum of 5 or more goes into the Curia and the Dagger advances;
        then the next player clockwise (or ``nxt``, the player whose turn the table says it is:
        a new round begins if the turns pass the starting player on the way). In Tria Ludio a
        Tribune who only placed the Issues keeps the deck and votes on them next time."""
        assert s.turn is not None  # a turn is ending
        player = s.turn.player
        if s.issues is not None and not s.issues.get("vote"):
            s = replace(s, issues={**s.issues, "held_over": True})
        # Legacy: a turn's end recorded before its flush was is decided here, as then.
        if (d["flush"] if "flush" in d else forum_full(s)):
            s = self._flush_forum(s, "flush")
            s = replace(s, flushes=s.flushes + 1)
            s = self._advance_dagger(s, "forum")
            if s.ended_by:
                return s
            if s.tria_ludio:  # "place the top card from the Fate deck facedown into the last space"
                s = replace(s, forum=s.forum[:4] + (ForumCard(False),),
                            told=s.told + (("refill", {"space": 5}),))
        nxt = nxt or next_clockwise(s.players, player)
        passed, seat = 0, player
        while True:   # the seats from the one after ``player`` to ``nxt``, clockwise
            seat = next_clockwise(s.players, seat)
            passed += seat == s.start_player
            if seat == nxt:
                break
        return replace(s, phase="turn", turn=Turn(nxt), round=s.round + passed)

    def _flush_forum(self, s: State, why: str) -> State:
        cards = forum_cards(s)
        known = s.curia_known + tuple(dict(c.card) for c in cards if c.faceup and c.card)
        told = s.told + ((why, {"cards": len(cards), "curia": s.curia_count + len(cards)}),) if cards else s.told
        return replace(s, curia_count=s.curia_count + len(cards), curia_known=known,
                       forum=(None,) * 5, forum_extra=(), told=told)

    def _advance_dagger(self, s: State, why: str) -> State:
        s = replace(s, dagger=s.dagger + 1)
        into_curia = s.dagger >= s.kalends.curia
        s = replace(s, told=s.told + (("dagger", {"why": why, "space": s.dagger, "curia": into_curia,
                                                  "black": s.kalends.is_black(s.dagger)}),))
        if into_curia:
            # "the game immediately ends": I. the Forum goes into the Curia
            s = self._flush_forum(s, "final_flush")
            s = replace(s, ended_by=why, turn=None, exile=None, issues=None,
                        phase="curia_reveal" if s.options.simplicitas else "end_abilities")
            if s.phase == "curia_reveal" and not s.curia_count:
                s = replace(s, phase="tableaux")
        return s

    # -- views ---------------------------------------------------------------------------
    def outcome(self, state: State) -> Outcome | None:
        if state.result is None:
            return None
        r = state.result
        if r["opportunists_win"]:
            return {"winners": list(r["winners"]), "summary": keyed(
                "knives23.say.opportunists_win", total=r["final_total"], winners=", ".join(r["winners"]))}
        summary = keyed("knives23.summary", total=r["final_total"],
                     fate=keyed("knives23.caesar_dead" if r["caesar_dead"] else "knives23.caesar_lives"),
                     winners=", ".join(r["winners"]) or keyed("knives23.no_one"))
        return {"winners": list(r["winners"]), "summary": summary}

    def view(self, state: State, viewer: str) -> dict:
        k = state.kalends
        v: dict[str, Any] = {
            "game": self.game_id, "phase": state.phase, "prompt": self.prompt(state),
            "players": list(state.players), "tribune": state.tribune, "round": state.round,
            "tria_ludio": state.tria_ludio, "options": state.options.to_dict(),
            "locations": dict(state.locations), "shamed": list(state.shamed),
            "exiles": [dict(e) for e in state.exiles],
            "kalends": {"spaces": k.spaces, "dagger": state.dagger, "curia_space": k.curia,
                        "black": [i for i in range(1, k.spaces + 1) if k.is_black(i)],
                        "on_black": k.is_black(state.dagger), "exile_allowed": exile_allowed(state),
                        "advances_left": max(0, k.curia - state.dagger)},
            "forum": {"spaces": [{"space": i + 1, "kind": state.forum_kinds[i],
                                  "card": c.to_dict() if c else None} for i, c in enumerate(state.forum)],
                      "extra": [c.to_dict() for c in state.forum_extra], "count": forum_count(state),
                      "extra_kind": state.forum_extra_kind, "cards": len(forum_cards(state)),
                      "next_space": self._next_space(state),
                      "full": forum_full(state)},
            "curia": {"count": state.curia_count},
            "turn": None, "issues": dict(state.issues) if state.issues else None,
            "exile": dict(state.exile) if state.exile else None, "eyes_closed": state.eyes_closed,
            "vote": votes.table_view(state.book.current),
            "vote_history": [votes.table_view(x) for x in state.book.history],
            # the panels a screen may open now: corrections (any of them) and card effects
            "can_correct": state.phase in CURIA_CORRECTION_PHASES,
            "can_apply_effects": state.phase in EFFECT_PHASES,
            "can_sway_by_ability": state.phase in ABILITY_SWAY_PHASES,
            "house_rules": dict(state.house_rules),
        }
        if state.options.curia_knowledge:
            v["curia"].update(known=[dict(c) for c in state.curia_known],
                              known_total=scoring.fate_total(state.curia_known),
                              unknown=state.curia_count - len(state.curia_known))
        if state.turn:
            t = state.turn
            steps = [s for s in STEPS if s != "issue" or t.player == state.tribune]
            loc = state.locations[t.player]
            v["turn"] = {"player": t.player, "step": t.step, "steps": steps,
                         "step_names": [keyed(f"knives23.step.{s}") for s in steps],
                         "location": loc, "location_name": keyed(f"knives23.location.{loc}"),
                         "action": keyed(f"knives23.action.{loc}"),
                         "fate_played": t.fate_played, "exile_called": t.exile_called,
                         "is_tribune": t.player == state.tribune}
        v["locations_help"] = {loc: {"name": keyed(f"knives23.location.{loc}"), "action": keyed(f"knives23.action.{loc}")}
                               for loc in tables()["locations"]}
        if state.phase == "setup":
            v["setup"] = [{"step": s, "text": self.setup_text(state, s), "done": s in state.setup_done}
                          for s in SETUP_STEPS]
        if state.ended_by:
            v["end"] = {"ended_by": state.ended_by,
                        "abilities_order": [] if state.options.simplicitas else seat_view_order(state, state.tribune),
                        "revealed": [dict(r) for r in state.curia_revealed],
                        "revealed_count": len(state.curia_revealed),
                        # scanned cards no tap has named: a tap of one's value asks "that card or another?"
                        "untapped_scans": [{"index": i, "card": dict(state.curia_revealed[i - 1]["card"])}
                                           for i in state.curia_untapped],
                        "running_total": running_total(state),
                        "remaining": state.curia_count - len(state.curia_revealed),
                        "tableaux": {p: dict(t) for p, t in state.tableaux.items()},
                        "waiting_tableaux": [p for p in state.players if p not in state.tableaux],
                        "opportunists": self.opportunists(state) if state.phase in ("opportunists", "over") else None,
                        "result": dict(state.result) if state.result else None}
            # worked out by the rules, shown by the tableaux screen
            v["end"].update(caesar_dead=scoring.caesar_dead(v["end"]["running_total"]),
                            allegiances=scoring.allegiances(state.tableaux))
            if state.result and state.result.get("tie_break"):
                # the deciding screen names the tie-break's reading with the rulebook's words
                v["end"]["tie_break"] = houserules.applies(TIE_BREAK, state.result["tie_break"])
        v["board"] = {"confirmed": state.board_confirmed, "kalends": k.to_dict(),
                      "forum": {"spaces": list(state.forum_kinds), "extra": state.forum_extra_kind}}
        v["told"] = [line for key, d in state.told[state.told_from:] for line in told_lines(key, d)]
        v["history_notes"] = [note_line(n) for n in state.notes]
        if state.exile is not None or state.exiles:
            v["exile_steps"] = [keyed(f"knives23.exiled.step{i}") for i in range(1, 5)]
        if state.phase == "exile_called" and state.exile and state.exile.get("bribe_seconds"):
            # Quid Pro Quo: the bribe's time, spoken 10 seconds before its end
            v["timer"] = timer_view("knives23.bribe", state.exile["bribe_seconds"], (10,), "exile_called",
                                    key=len(state.exiles))
        if viewer not in (TABLE, NARRATOR) and viewer in state.players and state.book.current:
            mine = state.book.current.ballots.get(viewer)
            v["my_ballot"] = mine.choice if mine else None
        return v

    def opportunists(self, state: State) -> list[str]:
        return [p for p in state.players if p in state.tableaux and
                scoring.tableau({"name": p, **state.tableaux[p]}).allegiance == scoring.OPPORTUNIST]

    def setup_text(self, state: State, step: str) -> dict:
        n = len(state.players)
        extra = []
        if step == "I":
            extra.append(keyed("knives23.setup.I.dagger", space=state.kalends.dagger_start, players=n,
                            spaces=state.kalends.spaces))
            if state.tria_ludio:
                extra.append(keyed("knives23.setup.I.tria"))
        if step == "V" and not state.options.advanced_citizens:
            extra.append(keyed("knives23.setup.V.no_advanced"))
        if step == "VI":
            extra.append(keyed("knives23.setup.VI.who", start=state.start_player, tribune=state.tribune))
            if n < tables()["five_plus_issues_from"]:
                extra.append(keyed("knives23.setup.VI.remove_5plus"))
        return joined([keyed(f"knives23.setup.{step}")] + extra)

    def prompt(self, state: State) -> dict:
        p = state.phase
        if p == "turn":
            t = state.turn
            assert t is not None
            if t.step == "issue" and state.issues is not None:
                if state.tria_ludio and not state.issues.get("vote") and not state.issues.get("held_over"):
                    return keyed("knives23.prompt.tria_placed", player=t.player)
                return keyed("knives23.prompt.issues_ready", player=t.player)
            if t.step == "action":
                loc = state.locations[t.player]
                return keyed("knives23.prompt.action", player=t.player, location=keyed(f"knives23.location.{loc}"),
                          action=keyed(f"knives23.action.{loc}"))
            return keyed(f"knives23.prompt.{t.step}", player=t.player)
        if p == "exile_called":
            assert state.exile is not None
            return keyed("knives23.prompt.exile_called", caller=state.exile["caller"], target=state.exile["target"],
                      seconds=state.exile["bribe_seconds"])
        if p in ("issue_vote", "exile_vote"):
            assert state.book.current is not None  # the vote in progress
            return keyed(f"knives23.prompt.{p}", waiting=len(state.book.current.waiting))
        if p == "issue_resolve":
            assert state.issues is not None
            colour = state.issues["colour"]
            return keyed("knives23.prompt.issue_resolve" if state.issues[colour] else "knives23.prompt.issue_resolve_unnamed",
                         issue=issue_name(state.issues, colour), colour=keyed(f"knives23.colour.{colour}"))
        if p == "eyes_closed":
            assert state.eyes_closed is not None, "the eyes_closed event names the group"
            return keyed("knives23.prompt.eyes_closed", group=group_words(state.eyes_closed))
        if p == "curia_reveal":
            return keyed("knives23.prompt.curia_reveal", n=len(state.curia_revealed) + 1, count=state.curia_count,
                      total=running_total(state))
        if p == "over":
            outcome = self.outcome(state)
            assert outcome is not None  # phase "over" has a result
            return outcome["summary"]
        return keyed(f"knives23.prompt.{p}", tribune=state.tribune, count=state.curia_count)


def told_lines(key: str, d: Mapping[str, Any]) -> list[dict]:
    """A physical step (rules ``told``) in the table's words: what to do with the real pieces."""
    if key == "dagger":
        where = keyed("knives23.told.dagger_curia") if d["curia"] else keyed("knives23.told.dagger_space", space=d["space"])
        line = keyed(f"knives23.told.dagger_{d['why']}", where=where)
        return [joined([line, keyed("knives23.say.dagger_black") if d["black"] and not d["curia"] else None])]
    if key == "pass_deck":
        return [keyed("knives23.told.pass_deck", giver=d["from"], taker=d["to"])]
    if key == "exiled":
        return [keyed("knives23.told.exiled", player=d["player"])] + \
            [keyed(f"knives23.exiled.step{i}") for i in range(1, 5)]
    if key == "shamed":
        return [keyed("knives23.shamed", caller=d["player"])]
    return [keyed(f"knives23.told.{key}", **d)]


def card_words(entry: Mapping[str, Any] | None) -> dict:
    """A Forum card as the history says it: its value when faceup, else 'facedown'."""
    if not entry:
        return keyed("knives23.note.empty")
    if not entry.get("faceup"):
        words = keyed("knives23.card.facedown")
    else:
        (kind, value), = entry["card"].items()
        words = keyed(f"knives23.card.{kind}_one") if value == 1 else keyed(f"knives23.card.{kind}", value=value)
    doves = entry.get("doves") or []
    return joined([words] + [card_words(x) for x in doves], " + ")


def note_line(n: Mapping[str, Any]) -> dict:
    """A card effect or a correction, for the history: its source or reason named."""
    k = n["kind"]
    if k == "fate_played":
        return keyed("knives23.note.fate_played", source=n["by"], player=n["player"], space=n["space"],
                  card=card_words(n))
    if k == "forum_card_discarded":
        return keyed("knives23.note.discarded", source=n["by"], space=n["space"])
    if k == "forum_swapped":
        return keyed("knives23.note.swapped", player=n["player"], spaces=", ".join(map(str, n["spaces"])))
    if k == "dove_on_knife":
        return keyed("knives23.note.dove", player=n["player"], space=n["space"], card=card_words(n))
    if k == "ability_swayed":
        return keyed("knives23.note.ability_sway", source=n["by"], player=n["player"], target=n["target"])
    what, before, after = n["what"], n["before"], n["after"]
    if what == "location":
        return keyed("knives23.note.corrected_location", player=n["player"], reason=n["reason"],
                     before=keyed(f"knives23.location.{before}"), after=keyed(f"knives23.location.{after}"))
    if what == "forum":
        def words(f):
            return joined([joined([card_words(c) for c in f["spaces"]], "; ")]
                          + [card_words(c) for c in f["extra"]], " + ")
        before, after = words(before), words(after)
    return keyed(f"knives23.note.corrected_{what}", before=before, after=after, reason=n["reason"])


def final_result_of(state: State, opportunist_play) -> dict:
    tableaux = [scoring.tableau({"name": p, **state.tableaux[p]}) for p in state.players]
    return scoring.final_result(tableaux, [r["card"] for r in state.curia_revealed], opportunist_play,
                                state.options.variant,
                                state.house_rules.get(TIE_BREAK.name, TIE_BREAK.default))


RULES = Knives23Rules()


# -- the command table (companion.core.commands) ------------------------------------------------
# Types only: which names, spaces and cards are allowed the rule functions say in the rules'
# words; the ``values`` list them for legal_commands.

R_SETUP = ("I. Place the board in the center of the play area and the Kalends stairs on the Kalends track "
           "coming out from the Forum in the center of the board.")
R_TURN = "II. ACTIONS: You must resolve the Location's action (to the best of your ability)."
R_ISSUE_RESOLVE = ("iii. Resolve the instructions on the chosen Issue. Issue effects take precedence over the "
                   "basic rules in this rulebook.")
R_EYES = ("The Tribune then calls for all players to close their eyes. After a few seconds, they call for "
          "the players indicated on the Issue to open their eyes and look around")
R_ABILITIES = ("II. If Citizens have special abilities that resolve at the End of Game, check their timing "
               "and resolve appropriately, starting with the Tribune and proceeding clockwise.")
R_TABLEAU = "IV. All players reveal their Citizens and the Sway in their tableaus."
R_OPPORTUNISTS = ("V. Now is the time for Opportunists to act: Opportunists may all play any number of Fate "
                  "cards from their hands. If they can change the Fate of Caesar, they win as a team.")
R_CORRECT = R_CURIA  # a correction sets the board to what the table sees
R_PAWN = ("I. MOVE: You MUST move to a new Location. When placing your pawn in a new Location, be sure to "
          "place it in the open area of the Locations so that you do not cover the icons.")
R_TURNS = ("The game plays out continuously as players take turns traveling to different Locations, "
           "performing actions, and Swaying Allegiances.")


_cmd = partial(command, passes="source")


_players = players_of


def _fate(rng, kinds=("knives", "doves")):
    kind = rng.choice(kinds)
    return {kind: rng.choice(tables()["fate"][kind])}


def _forum_sample(state, rng):
    return [None if rng.random() < 0.4 else ({"faceup": False} if rng.random() < 0.3 else
                                             {"faceup": True, "card": _fate(rng)}) for _ in range(5)]


def _ballot_choices(state):
    vote = state.book.current
    return vote.spec.options if vote is not None else (scoring.EXILE, scoring.REMAIN, scoring.RED, scoring.GREY)


def _tableau_sample(state, rng) -> dict:
    laurels, blood = rng.choice([(1, 0), (0, 1), (1, 1), (2, 0), (0, 2)])
    sway = [{rng.choice(("laurels", "blood")): rng.choice(tables()["sway"])} for _ in range(rng.randint(0, 3))]
    waiting = [p for p in state.players if p not in state.tableaux] or list(state.players)
    return {"player": rng.choice(waiting), "citizen": {"laurels": laurels, "blood": blood}, "sway": sway}


def _tapped_card(state, rng):
    """A card tapped in without a serial, the one a scan may claim (else any card)."""
    tapped = [r["card"] for r in state.curia_revealed if r["serial"] is None]
    return dict(rng.choice(tapped)) if tapped else _fate(rng)


def _fresh_serial(state, rng):
    """A sticker serial no Curia card has shown yet (a used one is refused as a duplicate)."""
    used = {r["serial"] for r in state.curia_revealed}
    return rng.choice([f"s{i}" for i in range(1, tables()["fate_deck"] + 2) if f"s{i}" not in used])


SPACES = tuple(range(1, 6))
NOTE = Text()
BY = Arg("by", NOTE, False, "what made it happen (the Issue or Citizen)",
         sample=lambda s, rng: rng.choice(["Issue", "Brutus"]))
REASON = Arg("reason", NOTE, doc="why the board is corrected", sample=lambda s, rng: "miscounted")
PLAYER = Arg("player", Text(), False, "who plays it (the current player)", values=_players)

COMMANDS = CommandTable("knives23", [
    _cmd("tick_setup", Knives23Rules._do_tick_setup, R_SETUP,
         Arg("step", Text(), doc="the setup step done (I to VII)", values=lambda s: SETUP_STEPS),
         doc="one step of the setup checklist is done"),
    _cmd("confirm_board", Knives23Rules._do_confirm_board, R_BLACK,
         Arg("spaces", Int(None, None), False, "the Kalends track's spaces"),
         Arg("black_spaces", Raw(), False, "its black spaces"),
         Arg("dagger_start", Int(None, None), False, "where the Dagger starts"),
         Arg("forum", Raw(), False, "the Forum's icons {spaces, extra}"),
         doc="the table checks the Kalends and the Forum against its own board"),
    _cmd("begin_play", Knives23Rules._do_begin_play, R_TURN, doc="the setup is done: the first turn starts"),
    _cmd("move", Knives23Rules._do_move, R_MOVE,
         Arg("location", Text(), doc="the new Location", values=lambda s: tuple(tables()["locations"])),
         doc="the current player moves"),
    _cmd("play_fate", Knives23Rules._do_play_fate, R_FORUM,
         Arg("card", Raw(), False, "the faceup Fate card {\"knives\": n} or {\"doves\": n}",
             sample=lambda s, rng: _fate(rng)),
         Arg("facedown", Bool(), False, "played facedown", values=lambda s: (True,)),
         Arg("effect", Bool(), False, "played by an Issue or a Citizen's ability", values=lambda s: (False, True)),
         BY, PLAYER,
         doc="a Fate card goes into the Forum"),
    _cmd("discard_forum", Knives23Rules._do_discard_forum, R_FORUM,
         Arg("space", Int(None, None), doc="the Forum space (1 to 5)", values=lambda s: SPACES),
         BY, doc="an effect discards a Forum card"),
    _cmd("servilia_swap", Knives23Rules._do_servilia_swap, R_SERVILIA,
         Arg("spaces", List(Int(None, None)), doc="1 or 2 faceup Forum spaces",
             sample=lambda s, rng: rng.sample(SPACES, rng.randint(1, 2))),
         doc="Servilia swaps faceup Forum cards for facedown ones"),
    _cmd("sabinus_dove", Knives23Rules._do_sabinus_dove, R_SABINUS,
         Arg("space", Int(None, None), doc="the Forum space of the Knife card", values=lambda s: SPACES),
         Arg("card", Raw(), False, "the faceup Dove card", sample=lambda s, rng: _fate(rng, ("doves",))),
         Arg("facedown", Bool(), False, "played facedown", values=lambda s: (True,)),
         PLAYER, doc="Sabinus plays a Dove onto a Knife card"),
    _cmd("correct_forum", Knives23Rules._do_correct_forum, R_CORRECT,
         Arg("spaces", Raw(), doc="all 5 spaces (null for an empty one)", sample=_forum_sample),
         Arg("extra", Raw(), False, "the cards on top of the 5th space"),
         REASON, doc="the Forum is set to what the table sees"),
    _cmd("correct_dagger", Knives23Rules._do_correct_dagger, R_CORRECT,
         Arg("space", Int(None, None), doc="the Dagger's space", values=lambda s: tuple(range(1, s.kalends.spaces + 1))),
         REASON, doc="the Dagger is set to where the table sees it"),
    _cmd("correct_curia", Knives23Rules._do_correct_curia, R_CORRECT,
         Arg("count", Int(None, None), doc="the Curia's count", sample=lambda s, rng: rng.randint(0, 20)),
         REASON, doc="the Curia's count is set to what the table counted"),
    _cmd("correct_location", Knives23Rules._do_correct_location, R_PAWN,
         Arg("player", Text(), doc="whose pawn", values=_players),
         Arg("location", Text(), doc="the Location where the pawn really is",
             values=lambda s: tuple(tables()["locations"])),
         REASON, doc="a pawn's Location is set to where the table sees it"),
    _cmd("correct_turn", Knives23Rules._do_correct_turn, R_TURNS,
         Arg("player", Text(), doc="whose turn it really is (from its Move)", values=_players),
         REASON, doc="the turn is set to the player whose turn it really is"),
    _cmd("correct_tribune", Knives23Rules._do_correct_tribune, R_TRIBUNE,
         Arg("player", Text(), doc="who really holds the Issue deck", values=_players),
         REASON, doc="the Tribune is set to who holds the Issue deck"),
    _cmd("call_exile", Knives23Rules._do_call_exile, R_FORUM,
         Arg("target", Text(), doc="the Citizen to exile", values=_players),
         Arg("caller", Text(), False, "who calls it (the current player)"),
         doc="the current player calls a Vote to Exile"),
    _cmd("start_exile_vote", Knives23Rules._do_start_exile_vote, R_FORUM,
         doc="the bribe timer is over: the Vote to Exile opens"),
    _cmd("sway", Knives23Rules._do_sway, "you may Sway any one colocated player",
         Arg("target", Text(), doc="the Swayed Citizen", values=_players),
         doc="the current player Sways someone"),
    _cmd("ability_sway", Knives23Rules._do_ability_sway, R_SEMPRONIA,
         Arg("target", Text(), doc="the Swayed Citizen", values=_players),
         Arg("by", NOTE, doc="the Citizen whose ability calls for it",
             sample=lambda s, rng: rng.choice(["Sempronia", "Issue"])),
         Arg("player", Text(), False, "who Sways (the current player)", values=_players),
         doc="a Citizen's ability makes someone Sway outside the Gardens and the Sway step"),
    _cmd("next_step", Knives23Rules._do_next_step, R_DISCARD, doc="the current step is done"),
    _cmd("place_issues", Knives23Rules._do_place_issues, R_TRIBUNE,
         Arg("red", NOTE, False, doc="the red Issue's name (none: \"the red Issue\")", sample=lambda s, rng: rng.choice(["Bread", "Games"])),
         Arg("grey", NOTE, False, doc="the grey Issue's name (none: \"the grey Issue\")", sample=lambda s, rng: rng.choice(["Roads", "Walls"])),
         doc="the Tribune places 2 Issues on the Voting board"),
    _cmd("hold_issue_vote", Knives23Rules._do_hold_issue_vote, R_TRIA_TRIBUNE,
         doc="the Tribune holds the Vote on the Issues placed last time (Tria Ludio)"),
    _cmd("cast_ballot", Knives23Rules._do_cast_ballot, R_REVEAL, *ballot_args(_ballot_choices),
         who=(SEAT, DEVICE, TABLE), seat_arg="voter", doc="one secret vote"),
    _cmd("reveal_vote", Knives23Rules._do_reveal_vote, R_REVEAL, force_arg(),
         doc="every vote is in: all reveal at once"),
    _cmd("tie_break", Knives23Rules._do_tie_break, scoring.RULE_EXILE_TIE,
         Arg("choice", Text(), doc="the Tribune's choice",
             values=lambda s: (scoring.RED, scoring.GREY, scoring.EXILE, scoring.REMAIN)),
         doc="the Tribune breaks a tied vote"),
    _cmd("eyes_closed", Knives23Rules._do_eyes_closed, R_EYES,
         Arg("group", Text(), doc="who opens their eyes (a listed group, or the Issue's words)",
             values=lambda s: tuple(tables()["eyes_closed_groups"])),
         doc="the Issue asks a group to open their eyes while the others close them"),
    _cmd("eyes_open", Knives23Rules._do_eyes_open, R_EYES, doc="everyone opens their eyes"),
    _cmd("issue_resolved", Knives23Rules._do_issue_resolved, R_ISSUE_RESOLVE,
         Arg("kalends", Bool(), doc="the resolved Issue shows the Kalends icon", values=lambda s: (True, False)),
         doc="the chosen Issue is resolved"),
    _cmd("abilities_done", Knives23Rules._do_abilities_done, R_ABILITIES, doc="the end-of-game abilities are done"),
    _cmd("curia_card", Knives23Rules._do_curia_card, R_CURIA,
         Arg("card", Raw(), doc="the revealed Fate card", sample=lambda s, rng: _fate(rng)),
         Arg("serial", Null(Text()), False, "the card's sticker serial (a phone or the camera)"),
         Arg("another", Bool(), False, "a tap: a second card of the value of a scanned card no tap "
             "named yet (else the tap names that card)", values=lambda s: (True,)),
         who=(TABLE, DEVICE), doc="one Curia card is revealed (a tap names a scanned card of its value)"),
    _cmd("curia_claim", Knives23Rules._do_curia_claim, R_CURIA,
         Arg("card", Raw(), doc="the scanned Fate card", sample=_tapped_card),
         Arg("serial", Text(), doc="its sticker serial", sample=_fresh_serial),
         who=(DEVICE,), doc="a scan names the serial of a card already tapped in"),
    _cmd("tableau", Knives23Rules._do_tableau, R_TABLEAU,
         Arg("player", Text(), doc="whose tableau", values=_players),
         Arg("citizen", Raw(), doc="the Citizen card {laurels, blood}"),
         Arg("sway", Raw(), False, "the Sway cards"),
         Arg("cicero", Raw(), False, "the Cicero Citizen's 2 Sway sets and the claimed one"),
         doc="one player's tableau is revealed", sample=_tableau_sample),
    _cmd("opportunist_play", Knives23Rules._do_opportunist_play, R_OPPORTUNISTS,
         Arg("cards", Raw(), False, "the Fate cards the Opportunists play",
             sample=lambda s, rng: [_fate(rng) for _ in range(rng.randint(0, 2))]),
         doc="the Opportunists' play: the game's result"),
])
Knives23Rules.commands = COMMANDS
