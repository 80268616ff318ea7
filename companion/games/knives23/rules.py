"""23 Knives as GameRules: commands -> events (``decide``, here) -> state (evolve.py, a fold) ->
per-viewer views (view.py).

The app tracks what the table must agree on — whose turn and which step, the Forum's 5 spaces,
the Curia's count, the Dagger on the Kalends, the Tribune, the Issue and Exile votes — while the
real cards stay on the table. Card values are entered only when they are public (a faceup Fate
card, the Curia reveal, the tableaux at the end).

Every command records exactly one event of ours (plus the vote engine's own events), so an undo
never leaves half a command applied. Every handler is ``_do_<command>(self, state, data, command)``
and names its events; results (a vote's, a tie's, the winner) are decided here and recorded.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from companion.core import votes
from companion.core.events import BadInput, Command, Event, NeedsTieBreak, RuleError
from companion.core.i18n import joined, keyed
from companion.core.rules import GameRules, Outcome, require
from companion.core.votes import VoteSpec, VoteState

from . import scoring
from .evolve import evolve
from .setup import HOUSE_RULES, MAX_PLAYERS, MIN_PLAYERS, TIE_BREAK, forum_icons, initial_state
from .state import (ABILITY_SWAY_PHASES, BOARD_CORRECTION_PHASES, CURIA_CORRECTION_PHASES, EFFECT_PHASES,
                    GAME_ID, SETUP_STEPS, Events, ForumCard, State, Turn, exile_allowed, forum_full,
                    next_clockwise, next_space, running_total, untapped_scans)
from .tables import kalends_for, tables
from .view import issue_name, outcome, view

Data = Mapping[str, Any]

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
R_SERVILIA = ("Instead of playing Fate cards at the Forum, you may swap up to 2 faceup Fate cards in the "
              "Forum with 2 from your hand and place them facedown (you may still Call a Vote to Exile).")
R_SABINUS = "Sabinus allows you to play Doves onto Knife cards in the Forum."
R_SEMPRONIA = ("Sempronia's Sway ability is non-negotiable and must be resolved if a player gives a Fate card. "
               "When a player uses Sempronia's ability to Sway, they may Sway them however they choose.")
R_SWAY_OTHER = "Sway: Place a card facedown in another player's tableau."
R_SWAY_STEP = "you may Sway any one colocated player"
R_GARDENS = "Draw 3 Fate cards AND Sway ANY OTHER Citizen (in any Location)."
# ... and the ones the command table quotes (commands.py).
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
R_CORRECT: str = R_CURIA  # a correction sets the board to what the table sees
R_PAWN = ("I. MOVE: You MUST move to a new Location. When placing your pawn in a new Location, be sure to "
          "place it in the open area of the Locations so that you do not cover the icons.")
R_TURNS = ("The game plays out continuously as players take turns traveling to different Locations, "
           "performing actions, and Swaying Allegiances.")

# The eyes-closed script gives the group's words a fixed slot; longer words could overrun it.
MAX_GROUP_WORDS = 60
# The longest effect source or correction reason the table may type (one line on the history).
MAX_NOTE = 80
# The version of these rules a game is played under (recorded when it starts: core.rules).
RULES_VERSION = 1


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



class Knives23Rules(GameRules):
    game_id = GAME_ID
    rules_version = RULES_VERSION
    title = "knives23.title"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    irreversible = frozenset({"vote_revealed", "vote_result"})
    house_rules = HOUSE_RULES

    def initial_state(self, setup: Mapping[str, Any]) -> State:
        return initial_state(setup)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def view(self, state: State, viewer: str) -> dict[str, Any]:
        return view(state, viewer)

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state)

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
    def _do_tick_setup(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "setup")
        step = data.get("step")
        if step not in SETUP_STEPS:
            raise BadInput(keyed("refusals.k23.setup_step", step=step))
        return [("setup_ticked", {"step": step})]

    def _do_begin_play(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "setup")
        left = [s for s in SETUP_STEPS if s not in state.setup_done]
        require(not left, keyed("knives23.error.setup_left", steps=", ".join(left)))
        return [("play_began", {"player": state.start_player, "tribune": state.tribune})]

    # the five steps of a turn
    def _do_move(self, state: State, data: Data, command: Command) -> Events:
        turn = self._step(state, "move")
        to = data.get("location")
        if to not in tables()["locations"]:
            raise BadInput(keyed("refusals.k23.location", place=to, places=joined([keyed(f"knives23.location.{x}") for x in tables()["locations"]], ", ")))
        here = state.locations[turn.player]
        require(to != here, keyed("knives23.error.same_location", location=keyed(f"knives23.location.{to}")), R_MOVE)
        return [("moved", {"player": turn.player, "from": here, "to": to})]

    def _do_play_fate(self, state: State, data: Data, command: Command) -> Events:
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
        space = next_space(state)
        kind = state.forum_kinds[space - 1] if space <= 5 else state.forum_extra_kind
        require(faceup or kind == "either", keyed("knives23.error.faceup_space", space=space), R_FACEUP)
        player = data.get("player", state.turn.player if state.turn else state.tribune)
        if player not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=player))
        event = {"space": space, "faceup": faceup, "card": card, "effect": effect, "player": player}
        if effect:
            event["by"] = by
        return [("fate_played", event)]

    def _do_discard_forum(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, *EFFECT_PHASES)
        space = data.get("space")
        if not isinstance(space, int) or isinstance(space, bool) or not 1 <= space <= 5:
            raise BadInput(keyed("refusals.k23.forum_space"))
        require(state.forum[space - 1] is not None, keyed("knives23.error.empty_space", space=space))
        by = note_text(data.get("by"), keyed("refusals.k23.effect_source"))
        return [("forum_card_discarded", {"space": space, "by": by})]

    def _do_servilia_swap(self, state: State, data: Data, command: Command) -> Events:
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

    def _do_sabinus_dove(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, *EFFECT_PHASES)
        space = data.get("space")
        if not isinstance(space, int) or isinstance(space, bool) or not 1 <= space <= 5:
            raise BadInput(keyed("refusals.k23.forum_space"))
        target = state.forum[space - 1]
        require(target is not None and (not target.faceup or "knives" in (target.card or {})),
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
    def _correctable(self, state: State, what: str) -> None:
        if what == "curia":
            self._phase(state, *CURIA_CORRECTION_PHASES)
            require(not state.tableaux, keyed("knives23.error.correct_after_tableaux"))
        else:
            self._phase(state, *BOARD_CORRECTION_PHASES)

    def _do_correct_forum(self, state: State, data: Data, command: Command) -> Events:
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

    def _do_correct_dagger(self, state: State, data: Data, command: Command) -> Events:
        self._correctable(state, "dagger")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        space = data.get("space")
        k = state.kalends
        if not isinstance(space, int) or isinstance(space, bool) or not 1 <= space <= k.spaces:
            raise BadInput(keyed("refusals.k23.dagger_space", spaces=k.spaces))
        require(space != state.dagger, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "dagger", "before": state.dagger, "after": space, "reason": reason})]

    def _do_correct_curia(self, state: State, data: Data, command: Command) -> Events:
        self._correctable(state, "curia")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        count = data.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= tables()["fate_deck"]:
            raise BadInput(keyed("refusals.k23.curia_count", most=tables()["fate_deck"]))
        require(count >= len(state.curia_revealed),
                keyed("knives23.error.curia_below_revealed", n=len(state.curia_revealed)))
        require(count != state.curia_count, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "curia", "before": state.curia_count, "after": count, "reason": reason})]

    def _correct_who(self, state: State, data: Data) -> str:
        """The player a correction names: one at the table (its own refusal, listing them)."""
        player = data.get("player")
        if player not in state.players:
            raise BadInput(keyed("knives23.error.correct_who", name=player, players=", ".join(state.players)))
        return player

    def _do_correct_location(self, state: State, data: Data, command: Command) -> Events:
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

    def _seats_correctable(self, state: State, *phases: str) -> None:
        """Whose turn and who holds the Issue deck may be put right between actions, not while
        the Issues are on the Voting board for this turn."""
        self._phase(state, *phases)
        require(state.issues is None or state.issues.get("held_over", False),
                keyed("knives23.error.correct_issues_out"), R_TRIBUNE)

    def _do_correct_turn(self, state: State, data: Data, command: Command) -> Events:
        """The table played out of turn: whose turn it is now (that turn starts at its Move)."""
        self._seats_correctable(state, "turn")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        player = self._correct_who(state, data)
        assert state.turn is not None  # phase "turn" has one
        require(player != state.turn.player, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "turn", "before": state.turn.player, "after": player,
                                     "reason": reason, "flush": forum_full(state)})]

    def _do_correct_tribune(self, state: State, data: Data, command: Command) -> Events:
        """The Issue deck is in other hands than the tablet thinks: "If you have the Issue deck,
        you are the Tribune"."""
        self._seats_correctable(state, "turn", "exile_called")
        reason = note_text(data.get("reason"), keyed("refusals.k23.correction_reason"))
        player = self._correct_who(state, data)
        require(player != state.tribune, keyed("knives23.error.correct_same"))
        return [("board_corrected", {"what": "tribune", "before": state.tribune, "after": player,
                                     "reason": reason})]

    def _do_confirm_board(self, state: State, data: Data, command: Command) -> Events:
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

    def _do_call_exile(self, state: State, data: Data, command: Command) -> Events:
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
        called = evolve(state, Event(0, *events[0]))
        if not state.options.quid_pro_quo:
            events += self._open_exile_vote(called)
        return events

    def _do_start_exile_vote(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "exile_called")
        return self._open_exile_vote(state)

    def _open_exile_vote(self, state: State) -> Events:
        ex = state.exile
        assert ex is not None  # phase "exile_called"
        spec = VoteSpec(f"exile-{len(state.exiles) + 1}", "binary", state.players,
                        (scoring.EXILE, scoring.REMAIN),
                        question=keyed("knives23.vote.exile_question", caller=ex["caller"], target=ex["target"]))
        return votes.open_vote(state.book, spec)

    def _do_sway(self, state: State, data: Data, command: Command) -> Events:
        turn = self._step(state, "action", "sway")
        target = data.get("target")
        if target not in state.players:
            raise BadInput(keyed("refusals.not_at_table", name=target))
        require(target != turn.player, keyed("knives23.error.sway_self"))
        require(turn.step not in turn.swayed_in, keyed("knives23.error.sway_once"),
                R_SWAY_STEP if turn.step == "sway" else R_GARDENS)
        if turn.step == "action":  # only the Gardens' action Sways outside the Sway step
            require(state.locations[turn.player] == "gardens", keyed("knives23.error.sway_step"), R_GARDENS)
        else:
            require(state.locations[target] == state.locations[turn.player], keyed("knives23.error.not_colocated", target=target),
                    "you may Sway any one colocated player by placing a Sway card from your hand facedown into their tableau.")
        return [("swayed", {"player": turn.player, "target": target, "step": turn.step})]

    def _do_ability_sway(self, state: State, data: Data, command: Command) -> Events:
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

    def _do_next_step(self, state: State, data: Data, command: Command) -> Events:
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
    def _do_place_issues(self, state: State, data: Data, command: Command) -> Events:
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
            placed = evolve(state, Event(0, *events[0]))
            events += self._open_issue_vote(placed)
        return events

    def _do_hold_issue_vote(self, state: State, data: Data, command: Command) -> Events:
        self._step(state, "issue")
        require(state.issues is not None, keyed("knives23.error.no_issues"), R_TRIBUNE)
        issues = _issues(state)
        if state.tria_ludio and not issues.get("vote"):
            require(issues.get("held_over", False), keyed("knives23.error.tria_wait"), R_TRIA_TRIBUNE)
        require(state.book.current is None, keyed("knives23.error.vote_open"))
        return self._open_issue_vote(state)

    def _open_issue_vote(self, state: State) -> Events:
        assert state.issues is not None  # the Tribune placed them
        n = sum(1 for v in state.book.history if v.spec.vote_id.startswith("issue-")) + 1
        spec = VoteSpec(f"issue-{n}", "binary", state.players, (scoring.RED, scoring.GREY),
                        question=keyed("knives23.vote.issue_question" if state.issues["red"] or state.issues["grey"]
                                       else "knives23.vote.issue_question_unnamed", red=issue_name(state.issues, "red"),
                                       grey=issue_name(state.issues, "grey")))
        return votes.open_vote(state.book, spec)

    # ballots from any input; the reveal is simultaneous
    def _do_cast_ballot(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "issue_vote", "exile_vote")
        events = votes.cast(state.book, data, command.source)
        if events[-1][0] == "vote_revealed":
            vote = _current_vote(state)
            ballots = dict(vote.choices())
            voter, choice = votes.normalise_ballot(vote.spec, data)
            ballots[voter] = choice
            events.append(self._vote_result(state, ballots))
        return events

    def _do_reveal_vote(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "issue_vote", "exile_vote")
        # Everyone votes in 23 Knives: a reveal with missing ballots is never forced.
        vote = _current_vote(state)
        require(not vote.waiting, keyed("knives23.error.waiting", names=", ".join(vote.waiting)), R_REVEAL)
        events = votes.reveal(state.book, False)
        events.append(self._vote_result(state, vote.choices()))
        return events

    def _vote_result(self, state: State, ballots: Mapping[str, str | None]) -> tuple[str, dict[str, Any]]:
        what = "issue" if state.phase == "issue_vote" else "exile"
        assert what == "issue" or state.exile is not None  # phase "exile_vote" has one
        try:
            if what == "issue":
                out = scoring.issue_vote_outcome(state.players, cast(Mapping[str, str], ballots))
                winner = out["resolved"]
            else:
                assert state.exile is not None
                out = scoring.exile_outcome(state.players, state.exile["caller"], state.exile["target"],
                                            cast(Mapping[str, str], ballots))
                winner = scoring.EXILE if out["exiled"] else scoring.REMAIN
            tie = False
        except NeedsTieBreak:
            winner, tie = None, True
        counts = {c: sum(1 for b in ballots.values() if b == c) for c in
                  ((scoring.RED, scoring.GREY) if what == "issue" else (scoring.EXILE, scoring.REMAIN))}
        return ("vote_result", {"vote": what, "winner": winner, "tie": tie, "counts": counts})

    def _do_tie_break(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "issue_tie", "exile_tie")
        what = "issue" if state.phase == "issue_tie" else "exile"
        last = state.book.last()
        assert last is not None, "a tie with no vote"
        ballots = cast(Mapping[str, str], last.choices())
        choice = data.get("choice")
        if what == "issue":
            out = scoring.issue_vote_outcome(state.players, ballots, choice)
            winner = out["resolved"]
        else:
            assert state.exile is not None  # phase "exile_tie" has one
            out = scoring.exile_outcome(state.players, state.exile["caller"], state.exile["target"], ballots, choice)
            winner = scoring.EXILE if out["exiled"] else scoring.REMAIN
        return [("tie_broken", {"vote": what, "choice": winner, "by": state.tribune})]

    # resolving the chosen Issue
    def _do_eyes_closed(self, state: State, data: Data, command: Command) -> Events:
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

    def _do_eyes_open(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "eyes_closed")
        return [("eyes_opened", {})]

    def _do_issue_resolved(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "issue_resolve")
        kalends = data.get("kalends")
        if not isinstance(kalends, bool):
            raise BadInput(keyed("refusals.k23.kalends_icon"))
        issues = _issues(state)
        colour = issues["colour"]
        return [("issue_resolved", {"colour": colour, "issue": issues[colour], "kalends": kalends,
                                    "tribune": state.tribune,
                                    "next_tribune": next_clockwise(state.players, state.tribune, -1),
                                    "flush": forum_full(state)})]

    # the end of the game
    def _do_abilities_done(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "end_abilities")
        return [("abilities_done", {})]

    def _do_curia_card(self, state: State, data: Data, command: Command) -> Events:
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

    def _do_curia_claim(self, state: State, data: Data, command: Command) -> Events:
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

    def _do_tableau(self, state: State, data: Data, command: Command) -> Events:
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

    def _do_opportunist_play(self, state: State, data: Data, command: Command) -> Events:
        self._phase(state, "opportunists")
        cards = data.get("cards", [])
        if not isinstance(cards, list):
            raise BadInput(keyed("refusals.k23.opportunists_cards"))
        cards = [scoring.fate_card(c, keyed("refusals.k23.where_opportunists_card", n=i + 1)) for i, c in enumerate(cards)]
        result = final_result_of(state, cards)
        return [("game_over", {"opportunist_play": cards, "result": result})]


def _issues(state: State) -> Mapping[str, Any]:
    assert state.issues is not None, "the Issues are on the Voting board"
    return state.issues


def _current_vote(state: State) -> VoteState:
    vote = state.book.current
    assert vote is not None, "a vote is open in this phase"
    return vote


def final_result_of(state: State, opportunist_play: list[dict[str, int]]) -> dict[str, Any]:
    tableaux = [scoring.tableau({"name": p, **state.tableaux[p]}) for p in state.players]
    return scoring.final_result(tableaux, [r["card"] for r in state.curia_revealed], opportunist_play,
                                state.options.variant,
                                state.house_rules.get(TIE_BREAK.name, TIE_BREAK.default))


# The command table names this module's handlers (commands.py imports it as ``r``), so it is
# imported last, once the class exists: that order is what breaks the import cycle.
from .commands import COMMANDS  # noqa: E402

Knives23Rules.commands = COMMANDS
RULES = Knives23Rules()
