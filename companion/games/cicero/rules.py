"""Cicero's rules: commands decided into events (``decide``), each handler one method
``_do_<command>(self, state, data, command)``; the rule functions themselves are in ``logic.py``
(pure, shared with the referee), the state in ``state.py``, the setup in ``setup.py``, the fold
in ``evolve.py``, the view in ``view.py`` and the command table in ``commands.py``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.core import votes
from companion.core.events import BadInput, Command, Event, NeedsTieBreak, RuleError
from companion.core.i18n import keyed
from companion.core.rules import GameRules, Outcome, require

from . import economy, evolve as fold, logic
from . import setup as game_setup
from .logic import check_caste, check_guild, known, numbers_for, signed, whole
from .state import ELECTION_PHASES, CiceroState, Events, card_points
from .tables import AUTOMATII, GENERALS, GUILD_USES, SPACES, TRIBUTE_PP, TRIBUTE_WAYS, ZONES, space_caste

R_PLACE_ORDER = ("Starting with the Princeps, each player in turn sends one of their Servants to a place of "
                 "power to work for the Prestige of their Family. The players take turns placing one Servant "
                 "each, until all players have placed all of their Servants.")
R_OCCUPIED = "A Servant cannot be placed on an occupied space."
R_DRAFT = ("They then choose one Senator card and pass the remaining cards to their left-hand neighbour. [...] "
           "Once the pack reaches the last player, that player immediately chooses two cards and passes the "
           "pack to their right-hand neighbour.")
R_ANNOUNCE = ("To vote, each player announces aloud the total number of votes they hold in the Senate (adding "
              "the votes of all the Senators in their cenacle, plus any votes provided by certain Action cards).")
R_TRIBUTE = ("Consult the Cicero card and: spend 2 influences from among the 4 shown on the card; or discard a "
             "Senator from your cenacle belonging to one of the 2 Castes indicated. If you cannot, or do not "
             "wish to, pay either of these tributes, you immediately lose 10 Prestige Points (-10 PP).")
R_VOTE: str = logic.R_VOTE
R_TRIUMVIRATE: str = logic.R_SECOND_TRIBUTE
R_MAJORITIES = "Use the aid sheet to call out the 6 Castes and the 6 Guilds."
R_GUILD_CHOICE = ("The winner reads their card and must immediately choose whether to use the power of the Guild "
                  "for the next round, or to score the Prestige Points of that card during the next phase.")
R_ROUND = "A round is played in 7 successive phases."
# A correction sets the tablet's record to what the table knows, with the reason on the record.
# The announced totals were said aloud ("each player announces aloud the total number of votes
# they hold in the Senate"): correcting one reveals nothing.
R_CORRECT_VOTES: str = R_ANNOUNCE
# The longest correction reason the table may type (one line).
MAX_REASON = 80
# "In the first round, the Princeps is the first player": the first Princeps (decided from the
# starting Senators) may be set right until the table has played in their order.
R_FIRST_PLAYER = "In the first round, the Princeps is the first player."
R_END = ("After the last Prestige phase of the last round, the most prestigious Family is declared the winner "
         "and takes control of Roman politics.")


# The version of these rules a game is played under (recorded when it starts: core.rules).
RULES_VERSION = 1


class CiceroRules(GameRules):
    game_id = "cicero"
    rules_version = RULES_VERSION
    title = "cicero.title"
    min_players, max_players = 2, 5
    house_rules = game_setup.HOUSE_RULES
    # The election's result is recorded with the reveal, in the same command: undoing it alone
    # would leave a revealed vote with no result. (A tie-break, "princeps_chosen", can be undone.)
    irreversible = frozenset({"vote_revealed", "princeps_elected", "princeps_tied"})

    # -- setup --------------------------------------------------------------------------------
    def initial_state(self, setup: Mapping[str, Any]) -> CiceroState:
        return game_setup.initial_state(setup)

    # -- commands -----------------------------------------------------------------------------
    def decide(self, state: CiceroState, command: Command) -> list[tuple[str, Mapping[str, Any]]]:
        COMMANDS.spec_for(command.kind)  # an unknown command is bad input, even after the end
        if state.phase == "game_over":
            raise RuleError(keyed("cicero.err.game_over"), R_END)
        return COMMANDS.dispatch(self, state, command)

    def _phase(self, state: CiceroState, *phases: str) -> None:
        require(state.phase in phases, keyed("cicero.err.wrong_phase", phase=keyed(f"cicero.phase.{state.phase}")),
                R_ROUND)

    def _do_draft_pick(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "draft")
        drafting = state.drafting()
        assert drafting is not None  # the draft phase lasts while a turn is left
        player, cards = drafting
        if "player" in data:
            known(data["player"], state.players, keyed("cicero.word.player"))
            require(data["player"] == player, keyed("cicero.err.not_draft_turn", player=data["player"], turn=player),
                    R_DRAFT)
        events = [("senators_drafted", {"player": player, "cards": cards})]
        return events

    def _do_first_princeps(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "first_princeps")
        senate, oratores, result = self._first_princeps(state, data)
        # One event per command, so one undo takes back one table action; it also starts round 1.
        return [("first_princeps_elected", {"princeps": result.princeps, "decided_by": result.decided_by,
                                            "votes": senate, "oratores": oratores})]

    def _first_princeps(self, state: CiceroState, data: Mapping[str, Any]
                        ) -> tuple[dict[str, int], dict[str, int], logic.FirstPrinceps]:
        """The starting Senators' votes and Oratores votes checked, and the first Princeps they make."""
        senate = numbers_for(state.players, data.get("votes"), keyed("cicero.word.senate_votes"))
        oratores = numbers_for(state.players, data.get("oratores"), keyed("cicero.word.oratores_votes"))
        oldest = data.get("oldest")
        if oldest is not None:
            known(oldest, state.players, keyed("cicero.word.oldest"))
        result = logic.first_princeps(state.players, senate, oratores, state.ages, oldest,
                                      state.house_rules["first_princeps_majority"])
        return senate, oratores, result

    def _do_correct_first_princeps(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        """{votes, oratores, oldest?, reason}: the starting Senators' counts as the table has them
        now; the first Princeps is decided again by the same rule."""
        check_first_princeps_correctable(state)
        senate, oratores, result = self._first_princeps(state, data)
        reason = reason_text(data.get("reason"))
        held = state.first_princeps
        assert held is not None  # checked above
        require((senate, oratores) != (dict(held["votes"]), dict(held["oratores"])),
                keyed("cicero.err.correct_first_same"), logic.R_FIRST_PRINCEPS)
        return [("first_princeps_corrected", {"princeps": result.princeps, "decided_by": result.decided_by,
                                              "votes": senate, "oratores": oratores, "reason": reason,
                                              "before": {"princeps": held["princeps"],
                                                         "votes": dict(held["votes"]),
                                                         "oratores": dict(held["oratores"])}})]

    def _do_automatii_reveal(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "automatii")
        placed = logic.automatii_placement(data.get("castes"))
        return [("automatii_placed", {"castes": list(placed.castes), "spaces": list(placed.spaces),
                                      "doubled": placed.doubled})]

    def _do_next_step(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "automatii_actions", "round_end")
        if state.phase == "automatii_actions":
            return [("automatii_actions_done", {})]
        return [("round_started", {"round": state.round + 1})]

    def _do_senate_votes(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "election", "debate")
        entered = numbers_for(state.players, data.get("votes"), keyed("cicero.word.senate_votes"), all_needed=False)
        require(bool(entered), keyed("cicero.err.no_numbers"), logic.R_ELECTION)
        return [("senate_votes_announced", {"round": state.round, "votes": entered})]

    def _do_start_debate(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "election", "debate")
        self._all_announced(state)
        seconds = whole(data.get("seconds"), keyed("cicero.word.debate_seconds"), 1)
        return [("debate_started", {"seconds": seconds})]

    def _all_announced(self, state: CiceroState) -> None:
        missing = [p for p in state.players if p not in state.votes_this_round()]
        require(not missing, keyed("cicero.err.votes_missing", names=", ".join(missing)), R_ANNOUNCE)

    def _do_open_ballot(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "election", "debate")
        self._all_announced(state)
        spec = votes.VoteSpec(f"princeps-{state.round}", "weighted", state.players, state.players,
                              allow_self=True, weights=dict(state.votes_this_round()),
                              question=keyed("cicero.vote.question", round=state.round))
        return votes.open_vote(state.book, spec)

    def _do_cast_ballot(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "ballot")
        return self._with_result(state, votes.cast(state.book, data, command.source))

    def _do_reveal_vote(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "ballot")
        # Every player gives their votes (R_VOTE): a reveal with ballots missing is never forced.
        assert state.book.current is not None  # the ballot phase has its vote open
        waiting = state.book.current.waiting
        require(not waiting, keyed("cicero.err.ballots_missing", names=logic.and_list(list(waiting))), R_VOTE)
        return self._with_result(state, votes.reveal(state.book, False))

    def _with_result(self, state: CiceroState, events: Events) -> Events:
        """When the ballots are revealed, the election's result follows as its own event."""
        if events[-1][0] != "vote_revealed":
            return events
        assert state.book.current is not None  # the vote just revealed
        ballots: dict[str, str | None] = dict(state.book.current.choices())
        for kind, data in events:
            if kind == "ballot_cast":
                ballots[data["voter"]] = data["choice"]
        try:
            result = self._elect(state, ballots)
        except NeedsTieBreak as tie:
            return events + [("princeps_tied", {"round": state.round, "tied": list(tie.among),
                                                "outgoing": state.princeps,
                                                "tally": logic.tally_counts(*self._given(state, ballots)),
                                                "automatii_to": self._automatii_to(state)})]
        return events + [self._elected(state, result, by_tie_break=False)]

    def _given(self, state: CiceroState, ballots: Mapping[str, str | None]
               ) -> tuple[dict[str, str], dict[str, int]]:
        weights = dict(state.votes_this_round())
        given = {v: c for v, c in ballots.items() if c is not None}
        to = self._automatii_to(state)
        if to is not None:
            weights[AUTOMATII], given[AUTOMATII] = logic.AUTOMATII_VOTES, to
        return given, weights

    def _automatii_to(self, state: CiceroState) -> str | None:
        return logic.automatii_beneficiary(state.prestige, state.outgoing()) if state.two_player else None

    def _elect(self, state: CiceroState, ballots: Mapping[str, str | None],
               choice: str | None = None) -> logic.Election:
        return logic.elect_princeps(state.players, state.votes_this_round(), ballots, state.outgoing(), choice,
                                    dict(state.prestige) if state.two_player else None)

    def _elect_again(self, state: CiceroState, senate: Mapping[str, int],
                     choice: str | None = None) -> logic.Election:
        """This round's election decided again by the same rule (``logic.elect_princeps``) from the
        revealed ballots, its outgoing Princeps and Automatii, with other announced totals."""
        held = state.elections[state.round]
        return logic.elect_princeps(state.players, senate, _revealed(state), held["outgoing"], choice,
                                    automatii_to=held["automatii_to"])

    def _elected(self, state: CiceroState, result: logic.Election, by_tie_break: bool) -> tuple[str, dict[str, Any]]:
        return ("princeps_elected", {"round": state.round, "princeps": result.princeps, "tally": dict(result.tally),
                                     "tie": result.tie, "tied": list(result.tied), "outgoing": state.princeps,
                                     "automatii_to": result.automatii_to, "by_tie_break": by_tie_break})

    def _do_tie_break(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "election_tie")
        choice = data.get("choice")
        known(choice, state.players, keyed("cicero.word.tie_choice"))
        result = self._elect(state, _revealed(state), choice)
        return [("princeps_chosen", self._elected(state, result, by_tie_break=True)[1])]

    # -- corrections: the tablet set right when the table knows better, the reason recorded ----
    def _do_correct_senate_votes(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        """{player, votes: the true total announced, reason, choice?}: the Princeps decided again."""
        check_election_correctable(state)
        player = known(data.get("player"), state.players, keyed("cicero.word.player"))
        after = whole(data.get("votes"), keyed("cicero.word.of_player", what=keyed("cicero.word.senate_votes"),
                                            player=player))
        reason = reason_text(data.get("reason"))
        before = state.votes_this_round()[player]
        require(after != before, keyed("cicero.err.correct_same", player=player, votes=before), R_CORRECT_VOTES)
        choice = data.get("choice")
        if choice is not None:
            known(choice, state.players, keyed("cicero.word.tie_choice"))
        senate = {**state.votes_this_round(), player: after}
        held = state.elections[state.round]
        try:
            result = self._elect_again(state, senate, choice)
        except NeedsTieBreak as tie:
            # The outgoing Princeps broke this very tie already (the same players tied): kept.
            if not (held["tie"] and tuple(tie.among) == tuple(held["tied"])):
                tie.field = "choice"
                raise
            result = self._elect_again(state, senate, held["princeps"])
        event_data = self._elected(state, result, by_tie_break=result.tie)[1]
        event_data.update({"player": player, "before": before, "after": after, "reason": reason,
                           "votes": senate, "outgoing": held["outgoing"], "princeps_before": state.princeps})
        return [("senate_votes_corrected", event_data)]

    def _do_correct_caste_cards(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        """{caste, primus, secundus, reason}: who holds a Caste's majority cards, as the table sees
        them. "The Primus and Secundus cards remain the property of the players who acquired them"
        and score each Prestige phase: a wrong holder would go on scoring. Allowed whenever the game
        is on; PP already scored stay as they are (a change of Prestige by hand mends them)."""
        require(state.round >= 1, keyed("cicero.err.not_started"), R_ROUND)
        caste = check_caste(data.get("caste"))
        after = tuple(None if data.get(k) is None
                      else known(data.get(k), state.players, keyed(f"cicero.word.{k}_holder"))
                      for k in ("primus", "secundus"))
        reason = reason_text(data.get("reason"))
        require(after[0] is None or after[0] != after[1], keyed("cicero.err.both_cards", player=after[0], caste=caste),
                logic.R_PRIMUS)
        require(after[1] is None or after[0] is not None, keyed("cicero.err.secundus_alone", caste=caste),
                logic.R_PRIMUS)
        before = tuple(state.caste_cards.get(caste, (None, None)))
        require(after != before, keyed("cicero.err.correct_cards_same"), logic.R_KEEP_CARDS)
        return [("majority_cards_corrected", {"what": "caste", "name": caste, "before": list(before),
                                              "after": list(after), "reason": reason})]

    def _do_correct_guild_card(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        """{guild, holder, reason}: who holds a Guild card, as the table sees it (the same reading)."""
        require(state.round >= 1, keyed("cicero.err.not_started"), R_ROUND)
        guild = check_guild(data.get("guild"))
        holder = data.get("holder")
        if holder is not None:
            known(holder, state.players, keyed("cicero.word.guild_holder"))
        reason = reason_text(data.get("reason"))
        # a holder still choosing (this Guild or another) chooses first: one choice at a time
        require(state.pending_guild is None,
                keyed("cicero.err.guild_choice_first", guild=state.pending_guild,
                      holder=state.guild_cards.get(state.pending_guild or "")), R_GUILD_CHOICE)
        before = state.guild_cards.get(guild)
        require(holder != before, keyed("cicero.err.correct_cards_same"), logic.R_KEEP_CARDS)
        return [("majority_cards_corrected", {"what": "guild", "name": guild, "before": before, "after": holder,
                                              "reason": reason})]

    def _do_cicero_card(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "accusation")
        influences = data.get("influences")
        if not isinstance(influences, (list, tuple)) or len(influences) != 4:
            raise BadInput(keyed("cicero.err.cicero_influences"))
        senators = data.get("senator_castes")
        if not isinstance(senators, (list, tuple)) or len(senators) != 2 or len(set(senators)) != 2:
            raise BadInput(keyed("cicero.err.cicero_senators"))
        return [("cicero_revealed", {"influences": [check_caste(c) for c in influences],
                                     "senator_castes": [check_caste(c) for c in senators]})]

    def _do_place_servant(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "servants")
        turn = state.next_to_place()
        player = data.get("player", turn)
        known(player, state.players, keyed("cicero.word.player"))
        require(player == turn, keyed("cicero.err.not_your_turn", player=player, turn=turn), R_PLACE_ORDER)
        space = data.get("space")
        if space not in SPACES:
            raise BadInput(keyed("cicero.err.unknown_space", space=repr(space), spaces=", ".join(SPACES)))
        holder = state.occupied().get(space)
        require(holder is None, keyed("cicero.err.occupied_by", space=space_name(space), holder=holder), R_OCCUPIED)
        return [("servant_placed", {"player": player, "space": space})]

    def _do_pay_tribute(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "tribute", "second_tribute")
        player = known(data.get("player"), state.players, keyed("cicero.word.player"))
        how = data.get("how")
        if how not in TRIBUTE_WAYS:
            raise BadInput(keyed("cicero.err.tribute_way", how=repr(how), ways=", ".join(TRIBUTE_WAYS)))
        second = state.phase == "second_tribute"
        paid = state.second_tribute if second else state.tribute
        require(player not in paid, keyed("cicero.err.already_paid", player=player),
                R_TRIUMVIRATE if second else R_TRIBUTE)
        if second:
            logic.check_second_tribute(player, state.tribute.get(player), how)
        event_data: dict[str, Any] = {"player": player, "how": how, "second": second}
        if how == "prestige":  # the PP it costs, recorded with it
            event_data["delta"] = TRIBUTE_PP
        return [("tribute_paid", event_data)]

    def _do_triumvirate(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "triumvirate")
        satisfied = data.get("satisfied")
        if not isinstance(satisfied, bool):
            raise BadInput(keyed("cicero.err.triumvirate_shape"))
        general = data.get("general")
        if general is not None and general not in GENERALS:
            raise BadInput(keyed("cicero.err.general", general=repr(general), generals=", ".join(GENERALS)))
        return [("triumvirate_revealed", {"general": general, "satisfied": satisfied})]

    def _do_count_caste(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "castes")
        caste = data.get("caste", state.count_next())
        check_caste(caste)
        require(caste == state.count_next(), keyed("cicero.err.count_order", name=caste, next=state.count_next()),
                R_MAJORITIES)
        counted = numbers_for(state.players, data.get("votes"), keyed("cicero.word.caste_votes", caste=caste))
        for key in ("primus", "secundus"):
            if data.get(key) is not None:
                known(data[key], state.players, keyed(f"cicero.word.{key}_choice"))
        primus_held, secundus_held = state.caste_cards.get(caste, (None, None))
        held = (primus_held, secundus_held)
        result = logic.caste_majority(state.players, counted, state.outgoing(), held, data.get("primus"),
                                      data.get("secundus"), caste, state.house_rules["no_votes"])
        return [("caste_counted", {"caste": caste, "votes": counted, "primus": result.primus,
                                   "secundus": result.secundus, "taken": list(result.taken),
                                   "before": list(held)})]

    def _do_count_guild(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "guilds")
        require(state.pending_guild is None,
                keyed("cicero.err.guild_choice_first", guild=state.pending_guild,
                      holder=state.guild_cards.get(state.pending_guild or "")), R_GUILD_CHOICE)
        guild = data.get("guild", state.count_next())
        check_guild(guild)
        require(guild == state.count_next(), keyed("cicero.err.count_order", name=guild, next=state.count_next()),
                R_MAJORITIES)
        counted = numbers_for(state.players, data.get("symbols"), keyed("cicero.word.guild_symbols", guild=guild))
        if data.get("choice") is not None:
            known(data["choice"], state.players, keyed("cicero.word.tie_choice"))
        held = state.guild_cards.get(guild)
        holder, taken = logic.guild_majority(state.players, counted, state.outgoing(), held, data.get("choice"), guild,
                                             state.house_rules["no_votes"])
        return [("guild_counted", {"guild": guild, "symbols": counted, "holder": holder, "taken": taken,
                                   "before": held})]

    def _do_guild_use(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "guilds")
        pending = state.pending_guild
        require(pending is not None, keyed("cicero.err.no_guild_choice"), R_GUILD_CHOICE)
        assert pending is not None  # required just above
        use = data.get("use")
        if use not in GUILD_USES:
            raise BadInput(keyed("cicero.err.guild_use", use=repr(use), uses=", ".join(GUILD_USES)))
        return [("guild_used", {"guild": pending, "holder": state.guild_cards[pending], "use": use})]

    def _do_score_prestige(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        self._phase(state, "prestige")
        senators = numbers_for(state.players, data.get("senators", {}), keyed("cicero.word.senator_pp"),
                               all_needed=False)
        cards = card_points(state)
        scored = {p: senators.get(p, 0) for p in state.players}
        event_data: dict[str, Any] = {"round": state.round, "cards": cards, "senators": scored,
                                      "last": state.round == state.rounds}
        if event_data["last"]:  # "the most prestigious Family is declared the winner"
            final = {p: state.prestige[p] + cards[p]["total"] + scored[p] for p in state.players}
            event_data["final"] = final
            event_data["winners"] = logic.most_prestigious(final)
        return [("prestige_scored", event_data)]

    def _do_adjust_prestige(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        require(state.round >= 1, keyed("cicero.err.not_started"), R_ROUND)
        player = known(data.get("player"), state.players, keyed("cicero.word.player"))
        delta = signed(data.get("delta"), keyed("cicero.word.prestige_change"))
        require(delta != 0, keyed("cicero.err.zero_change"))
        note = data.get("note", "")
        if not isinstance(note, str):
            raise BadInput(keyed("cicero.err.note_shape"))
        return [("prestige_changed", {"player": player, "delta": delta, "reason": "table", "note": note.strip()})]

    def _do_economy(self, state: CiceroState, data: Mapping[str, Any], command: Command) -> Events:
        """One change to the tracked economy: {player, item, caste (influence), delta}."""
        tracked = state.economy
        require(tracked is not None, keyed("cicero.err.economy_off"))
        assert tracked is not None  # required just above
        return [("economy_changed", economy.change(tracked, state.players, data))]

    # -- the fold and the view -------------------------------------------------------------------
    def evolve(self, state: CiceroState, event: Event) -> CiceroState:
        return fold.evolve(state, event)

    def outcome(self, state: CiceroState) -> Outcome | None:
        return _view.outcome(state)

    def view(self, state: CiceroState, viewer: str) -> dict:
        return _view.view(state, viewer)


def check_election_correctable(state: CiceroState) -> None:
    """The announced totals of this round's election may be corrected from its reveal until
    the first Servant is placed. Cicero's pleading (II) and collecting the origin influences
    do not depend on who is Princeps; placing the Servants does ("Starting with the Princeps,
    each player in turn sends one of their Servants"): once one is placed, the table has
    played in the recorded Princeps' order, and a new Princeps would contradict it (the
    placements are undone first). The Caste and Guild tie-breaks come later still."""
    held = state.elections.get(state.round)
    vote = state.book.last()
    require(held is not None and vote is not None and vote.spec.vote_id == f"princeps-{state.round}"
            and state.phase not in ELECTION_PHASES,
            keyed("cicero.err.correct_no_election", round=state.round), logic.R_ELECTION)
    require(_before_first_servant(state), keyed("cicero.err.correct_after_servants", princeps=state.princeps),
            R_PLACE_ORDER)


def check_first_princeps_correctable(state: CiceroState) -> None:
    """The first Princeps may be corrected from their election until the first Servant of round 1
    is placed, by the same reading as the elections' (check_election_correctable): "In the first
    round, the Princeps is the first player"; once a Servant is placed the table has played in
    that order (the placements are undone first)."""
    require(state.first_princeps is not None, keyed("cicero.err.correct_first_none"), logic.R_FIRST_PRINCEPS)
    require(state.round == 1, keyed("cicero.err.correct_first_round", round=state.round), R_FIRST_PLAYER)
    require(_before_first_servant(state),
            keyed("cicero.err.correct_after_servants_first", princeps=state.princeps), R_FIRST_PLAYER)


def _revealed(state: CiceroState) -> dict[str, str | None]:
    """The ballots of the vote last revealed (this round's election)."""
    last = state.book.last()
    assert last is not None  # called once the election's vote is revealed
    return dict(last.choices())


def _allowed(check: Callable[[CiceroState], None], state: CiceroState) -> bool:
    try:
        check(state)
    except RuleError:
        return False
    return True


def first_princeps_correctable(state: CiceroState) -> bool:
    """Whether the first Princeps' starting votes may be corrected now."""
    return _allowed(check_first_princeps_correctable, state)


def election_correctable(state: CiceroState) -> bool:
    """Whether this round's announced Senate votes may be corrected now."""
    return _allowed(check_election_correctable, state)


def _before_first_servant(state: CiceroState) -> bool:
    """The round's Princeps has not yet started placing Servants (Cicero's pleading, the 2-player
    game's Automatii and collecting the origin influences do not depend on who is Princeps)."""
    return state.phase in ("automatii", "automatii_actions", "accusation") or (
        state.phase == "servants" and not state.placements)


def reason_text(value: Any) -> str:
    """A correction's reason: one line the table types, never empty."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_REASON or "\n" in value:
        raise BadInput(keyed("cicero.err.reason", most=MAX_REASON))
    return value.strip()


def space_name(space: str) -> dict:
    caste = space_caste(space)
    if caste is None:
        return keyed("cicero.space.senate", n=space.rpartition("_")[2])
    return keyed(f"cicero.space.zone_{space.rpartition('_')[2]}", zone=ZONES[caste], caste=caste)


# The command table names the handlers above, and the view asks the checks above whether a
# correction is open: both are imported last, which breaks the import cycle.
from . import view as _view  # noqa: E402
from .commands import COMMANDS  # noqa: E402

CiceroRules.commands = COMMANDS
RULES = CiceroRules()
