"""The Royals-and-Martyr mask game: its rules as data and pure functions (no Kivy).

This module decides: the handlers of the commands (``decide``), the input checks and the
rulebook's words they quote. The package's other modules hold the rest of the common game shape
(state, setup, scoring, evolve, view, commands, cues: see __init__).

The tablet is the narrator. It never learns who holds which Identity until the table turns the
cards over after the vote, so nothing it says or shows before then can depend on the Bystanders.

Round: deal checklist -> Hidden Phase (narrated) -> Discussion (timer; the Vanguard's use is
recorded because that player abstains) -> Voting (one secret pick vote, revealed at once) ->
the Executioner's check (the most-voted players look at their own card; the one holding the
Executioner shows that card alone and names a player) -> every Identity is turned over and
entered -> the result.

Readings where the rulebook is silent (each is shown to the table when it applies; scoring.py
decides with them). The first three are house rules (``setup.HOUSE_RULES``): the group may choose the other reading at setup, and the
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

from dataclasses import replace
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from companion.core import votes
from companion.core.commands import CommandTable
from companion.core.events import BadInput, Command, Event, RuleError
from companion.core.i18n import keyed
from companion.core.rules import GameRules, Outcome, require

from . import evolve as evolve_module
from . import setup as setup_module
from . import view as view_module
from .scoring import RULE_EXECUTIONER, count_of, executioner_to_choose, judge
from .setup import HOUSE_RULES
from .state import (BYSTANDERS, CENTER, DEAL, DISCUSSION, EXECUTIONER, EXECUTIONER_CHECK, HIDDEN, IDENTITIES,
                    IDENTITIES_PHASE, MAX_REASON, PLAYERS, VOTE_ID, VOTING, Events, MasksState)
from .view import choice_words

# The version of these rules a game is played under (recorded when it starts: core.rules).
RULES_VERSION = 1

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
RULE_ROYALIST = ("If there is only 1 Royal in play, that Royal will tap the shoulder of an "
                 "adjacent player to their left or right. That person is now a Royalist")
RULE_REVEAL = "Once all votes are cast, players reveal their Identity Cards to determine who won."
RULE_DISCUSSION = "Players have 7 minutes to talk."

RULE_HIDDEN = ("Everyone closes their eyes. The narrator will call on specific Identities to open "
               "their eyes and perform the action detailed on their card.")
RULE_DISCUSSION_END = "Once the 7 minutes are up, proceed immediately to the Voting Phase."


# --- checking input (shared by the app's commands and the referee) ------------------------

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


# --- the game as a journalled state machine -----------------------------------------------

class MasksRules(GameRules):
    game_id = "masks"
    rules_version = RULES_VERSION
    title = "masks.title"
    min_players = PLAYERS
    max_players = PLAYERS
    house_rules = HOUSE_RULES
    commands: ClassVar[CommandTable]   # commands.py, set at the bottom of this module

    def initial_state(self, setup: Mapping[str, Any]) -> MasksState:
        return setup_module.initial_state(setup)

    # commands -------------------------------------------------------------------------
    def decide(self, state: MasksState, command: Command) -> list[tuple[str, Mapping[str, Any]]]:
        return self.commands.dispatch(self, state, command)

    def _phase(self, state: MasksState, *phases: str, what: str) -> None:
        """Refuse ``what`` (the key of its words: ``masks.doing.*``) outside ``phases``."""
        require(state.phase in phases, keyed("masks.refusal.not_now", what=keyed(what),
                                             phase=keyed(f"masks.phase_name.{state.phase}")))

    def _do_start_hidden_phase(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
        # The deal checklist is done: the narrator takes over.
        self._phase(state, DEAL, what="masks.doing.start_hidden")
        return [("hidden_phase_started", {})]

    def _do_end_hidden_phase(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, HIDDEN, what="masks.doing.end_hidden")
        return [("discussion_started", {"seconds": state.discussion_seconds})]

    def _do_use_vanguard(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, DISCUSSION, what="masks.doing.use_vanguard")
        player = data.get("player")
        if player not in state.players:
            raise BadInput(keyed("masks.error.not_a_player", name=player))
        require(state.vanguard is None, keyed("masks.refusal.vanguard_used", player=state.vanguard), RULE_USED)
        return [("vanguard_used", {"player": player})]

    def _do_end_discussion(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
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

    def _do_cast_ballot(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, VOTING, what="masks.doing.cast_ballot")
        vote = state.book.current
        # (An undo of the vote's opening alone leaves the Voting phase with no vote open.)
        require(vote is not None, keyed("masks.refusal.no_vote_undo"))
        assert vote is not None  # (required just above)
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

    def _do_reveal_vote(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, VOTING, what="masks.doing.reveal")
        current = state.book.current
        require(current is not None, keyed("masks.refusal.no_vote"))
        assert current is not None  # (required just above)
        waiting = current.waiting
        require(not waiting, keyed("masks.refusal.waiting", players=", ".join(waiting)), RULE_NO_ABSTAIN)
        return self._with_count(state, votes.reveal(state.book, False))

    def _with_count(self, state: MasksState, events: Events) -> Events:
        """The reveal carries the count it makes (``count``): decided here, once."""
        return votes.on_reveal(state.book, events, "count",
                               lambda ballots: count_of(state.players, ballots, state.house_rules).record())

    def _do_correct_pointing(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
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
        count = count_of(state.players, {**state.ballots, voter: choice},  # decided again, as at the reveal
                         state.house_rules)
        return [("pointing_corrected", {"vote_id": VOTE_ID, "voter": voter, "before": before,
                                        "choice": choice, "reason": reason.strip(), "count": count.record()})]

    def _do_executioner_check(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
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

    def _do_enter_identities(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, IDENTITIES_PHASE, what="masks.doing.enter_identities")
        assert state.ballots is not None  # the Identities are entered after the reveal
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

    def _do_executioner_chooses(self, state: MasksState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, EXECUTIONER, what="masks.doing.executioner_choice")
        target = data.get("target")
        if target not in state.players:
            raise BadInput(keyed("masks.error.not_a_player", name=target))
        executioner = state.executioner
        if executioner is None:  # a game from before the check: found from the Identities
            assert state.identities is not None and state.ballots is not None  # entered after the reveal
            executioner = executioner_to_choose(state.players, state.identities, state.ballots, state.house_rules)
        require(target != executioner, keyed("masks.refusal.choose_other", executioner=executioner),
                RULE_EXECUTIONER)
        chose: dict[str, Any] = {"executioner": executioner, "target": target}
        if state.identities is not None:  # a game from before the check: the choice decides it
            assert state.ballots is not None  # the Identities are entered after the reveal
            chose["verdict"] = judge(state.players, state.identities, state.center, state.royalist,
                                     state.ballots, target, state.house_rules).record()
        return [("executioner_chose", chose)]

    # the fold and the views (evolve.py, view.py) --------------------------------------------
    def evolve(self, state: MasksState, event: Event) -> MasksState:
        return evolve_module.evolve(state, event)

    def view(self, state: MasksState, viewer: str) -> dict[str, Any]:
        return view_module.view(state, viewer)

    def prompt(self, state: MasksState) -> dict[str, Any]:
        return view_module.prompt(state)

    def outcome(self, state: MasksState) -> Outcome | None:
        return view_module.outcome(state)


# The command table names this module's handlers (commands.py imports this module): imported
# last, once MasksRules exists, which is what breaks the import cycle.
from .commands import COMMANDS  # noqa: E402

MasksRules.commands = COMMANDS
RULES = MasksRules()
