"""Cicero as a fold of events: the round guide beside the real board and cards.

The tablet does not simulate the board: influences, Action cards and cenacles stay on the table.
It keeps what the table must agree on and remember: the draft order, the Princeps (with the secret
weighted election), the Automatii of the 2-player game, whose turn it is to place a Servant and
which spaces are taken, Cicero's demand and who paid how, the Triumvirate, the majority cards and
their holders, and the Prestige track. The rules are in ``logic.py``; this module only routes
commands to them and folds the events.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from collections.abc import Callable, Mapping
from typing import Any

from companion.core import votes
from companion.core.commands import (DEVICE, SEAT, TABLE, Arg, ballot_args, command, CommandTable,
                                     force_arg, Numbers, players_of)
from companion.core.events import BadInput, Command, Event, NeedsTieBreak, RuleError
from companion.core import houserules
from companion.core.houserules import HouseRule
from companion.core.i18n import keyed
from companion.core.rules import GameRules, Outcome, known_setup, require
from companion.core.schema import Bool, Int, List, Null, Text

from . import economy, logic
from .phases import Phase
from .logic import check_caste, check_guild, check_players, known, numbers_for, signed, whole
from .tables import (AUTOMATII, CASTES, GENERALS, GUILD_USES, GUILDS, PRESTIGE_START, SPACES, TRIBUTE_PP,
                     TRIBUTE_WAYS, ZONES, space_caste)

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
R_VOTE = logic.R_VOTE
R_TRIUMVIRATE = logic.R_SECOND_TRIBUTE
R_MAJORITIES = "Use the aid sheet to call out the 6 Castes and the 6 Guilds."
R_GUILD_CHOICE = ("The winner reads their card and must immediately choose whether to use the power of the Guild "
                  "for the next round, or to score the Prestige Points of that card during the next phase.")
R_ROUND = "A round is played in 7 successive phases."
# A correction sets the tablet's record to what the table knows, with the reason on the record.
# The announced totals were said aloud ("each player announces aloud the total number of votes
# they hold in the Senate"): correcting one reveals nothing.
R_CORRECT_VOTES = R_ANNOUNCE
# The longest correction reason the table may type (one line).
MAX_REASON = 80
# "In the first round, the Princeps is the first player": the first Princeps (decided from the
# starting Senators) may be set right until the table has played in their order.
R_FIRST_PLAYER = "In the first round, the Princeps is the first player."
R_END = ("After the last Prestige phase of the last round, the most prestigious Family is declared the winner "
         "and takes control of Roman politics.")

# The readings the rulebook leaves open, chosen by the table at setup (companion.core.houserules);
# the first reading of each is the one the app always applied.
HOUSE_RULES = (
    # "If one player has a strict majority, they become Princeps": the most votes, or more than half
    HouseRule("cicero", "first_princeps_majority", ("most_votes", "more_than_half")),
    # a Caste or Guild in which nobody has a vote at all: its cards stay, or go back to the supply
    HouseRule("cicero", "no_votes", ("kept", "supply")),
)
HOUSE_RULE = {h.name: h for h in HOUSE_RULES}

# Phases, in the order a round goes through them.
ELECTION_PHASES = ("election", "debate", "ballot", "election_tie")
# The round summary's checklist; a phase points at the item the table is on.
CHECKLIST = ("elect", "cicero", "influences", "servants", "tribute", "triumvirate", "castes", "guilds",
             "cards_pp", "senators_pp", "recover")
PHASE_ITEM = {"automatii": -1, "automatii_actions": -1, "election": 0, "debate": 0, "ballot": 0,
              "election_tie": 0, "accusation": 1, "servants": 3, "tribute": 4, "triumvirate": 5,
              "second_tribute": 5, "castes": 6, "guilds": 7, "prestige": 8, "round_end": 10,
              "game_over": 11}


@dataclass(frozen=True)
class CiceroState:
    players: tuple[str, ...]
    ages: Mapping[str, int]
    youngest: str
    servants: int
    rounds: int
    phase: Phase = "draft"
    round: int = 0
    draft: tuple[tuple[str, int], ...] = ()
    draft_step: int = 0
    princeps: str | None = None
    first_princeps: Mapping[str, Any] | None = None
    prestige: Mapping[str, int] = field(default_factory=dict)
    prestige_log: tuple[Mapping[str, Any], ...] = ()
    senate_votes: Mapping[int, Mapping[str, int]] = field(default_factory=dict)  # per round
    debate_seconds: int | None = None
    book: votes.VoteBook = votes.VoteBook()
    elections: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)      # per round
    tied: tuple[str, ...] = ()
    automatii: Mapping[str, Any] | None = None   # this round's placement (2-player game)
    cicero: Mapping[str, Any] | None = None      # this round's Cicero card
    placements: tuple[tuple[str, str], ...] = ()  # (player, space) this round, in order
    tribute: Mapping[str, str] = field(default_factory=dict)
    second_tribute: Mapping[str, str] = field(default_factory=dict)
    triumvirate: Mapping[str, Any] | None = None
    caste_cards: Mapping[str, tuple[str | None, str | None]] = field(default_factory=dict)
    guild_cards: Mapping[str, str | None] = field(default_factory=dict)
    guild_use: Mapping[str, str] = field(default_factory=dict)
    caste_counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # this round
    guild_counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # this round
    pending_guild: str | None = None             # a Guild card whose holder must choose
    last_score: Mapping[str, Any] | None = None
    winners: tuple[str, ...] = ()
    # The counts last entered (per Caste, per Guild, and "senators"), kept across rounds: the
    # screens start from them so a round needs a tap per change, not per count.
    carried: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    # The table option "economy" (off by default): influence, cenacle, Action cards, Legions.
    economy: Mapping[str, Any] | None = None
    # Majority cards set right by hand (each with its reason), for the screens' record.
    card_corrections: tuple[Mapping[str, Any], ...] = ()
    # The house rules' readings chosen at setup (every one named; companion.core.houserules).
    house_rules: Mapping[str, str] = field(default_factory=lambda: {h.name: h.default for h in HOUSE_RULES})

    @property
    def two_player(self) -> bool:
        return len(self.players) == 2

    # -- derived facts the rules and views share -------------------------------------------
    def placing_order(self) -> tuple[str, ...]:
        """From the Princeps, in seat order."""
        if self.princeps is None:
            return self.players
        i = self.players.index(self.princeps)
        return self.players[i:] + self.players[:i]

    def next_to_place(self) -> str | None:
        total = len(self.players) * self.servants
        if self.phase != "servants" or len(self.placements) >= total:
            return None
        order = self.placing_order()
        return order[len(self.placements) % len(order)]

    def occupied(self) -> dict[str, str]:
        """Space -> who holds it (the Automatii too)."""
        out = {space: AUTOMATII for space in (self.automatii or {}).get("spaces", ())}
        out.update({space: player for player, space in self.placements})
        return out

    def servants_left(self) -> dict[str, int]:
        used = {p: 0 for p in self.players}
        for player, _space in self.placements:
            used[player] += 1
        return {p: self.servants - used[p] for p in self.players}

    def drafting(self) -> tuple[str, int] | None:
        return self.draft[self.draft_step] if self.draft_step < len(self.draft) else None

    def count_next(self) -> str | None:
        if self.phase == "castes":
            return next((c for c in CASTES if c not in self.caste_counts), None)
        if self.phase == "guilds" and self.pending_guild is None:
            return next((g for g in GUILDS if g not in self.guild_counts), None)
        return None

    def votes_this_round(self) -> Mapping[str, int]:
        return self.senate_votes.get(self.round, {})

    def outgoing(self) -> str:
        assert self.princeps is not None  # chosen before the first election
        return self.princeps  # until the election ends, the Princeps is the outgoing one


# The version of these rules a game is played under (recorded when it starts: core.rules).
RULES_VERSION = 1


class CiceroRules(GameRules):
    game_id = "cicero"
    rules_version = RULES_VERSION
    title = "cicero.title"
    min_players, max_players = 2, 5
    house_rules = HOUSE_RULES
    # The election's result is recorded with the reveal, in the same command: undoing it alone
    # would leave a revealed vote with no result. (A tie-break, "princeps_chosen", can be undone.)
    irreversible = frozenset({"vote_revealed", "princeps_elected", "princeps_tied"})

    # -- setup --------------------------------------------------------------------------------
    def initial_state(self, setup: Mapping[str, Any]) -> CiceroState:
        """``{"players": [names in seat order, the pack passing left], "ages": {name: years},
        "youngest": name (only when the youngest share an age)}``."""
        if not isinstance(setup, Mapping):
            raise BadInput(keyed("cicero.err.setup_shape"))
        # "colours": the app's seat colours, kept with the game
        known_setup(setup, ("players", "ages", "youngest", "options", "colours", "house_rules"))
        players = check_players(setup.get("players"))
        ages = numbers_for(players, setup.get("ages"), keyed("cicero.word.age"))
        young = min(ages.values())
        youngest = [p for p in players if ages[p] == young]
        if len(youngest) > 1:
            chosen = setup.get("youngest")
            if chosen not in youngest:
                raise BadInput(keyed("cicero.err.youngest_tie", names=logic.and_list(youngest), age=young))
            youngest = [chosen]
        n = len(players)
        options = setup.get("options") or {}
        if not isinstance(options, Mapping) or not isinstance(options.get("economy", False), bool):
            raise BadInput(keyed("cicero.err.options_shape"))
        known_setup(options, ("economy",))
        tracked = economy.start(players) if options.get("economy") else None
        return CiceroState(players=players, ages=ages, youngest=youngest[0], servants=logic.servants_for(n),
                           rounds=logic.rounds_for(n), draft=logic.draft_turns(players, youngest[0]),
                           prestige={p: PRESTIGE_START for p in players}, economy=tracked,
                           house_rules=houserules.chosen(setup, HOUSE_RULES))

    # -- commands -----------------------------------------------------------------------------
    def decide(self, state: CiceroState, command: Command) -> list[tuple[str, Mapping[str, Any]]]:
        COMMANDS.spec_for(command.kind)  # an unknown command is bad input, even after the end
        if state.phase == "game_over":
            raise RuleError(keyed("cicero.err.game_over"), R_END)
        return COMMANDS.dispatch(self, state, command)

    def _phase(self, state: CiceroState, *phases: str) -> None:
        require(state.phase in phases, keyed("cicero.err.wrong_phase", phase=keyed(f"cicero.phase.{state.phase}")),
                R_ROUND)

    def _cmd_draft_pick(self, state, d, command):
        self._phase(state, "draft")
        player, cards = state.drafting()
        if "player" in d:
            known(d["player"], state.players, keyed("cicero.word.player"))
            require(d["player"] == player, keyed("cicero.err.not_draft_turn", player=d["player"], turn=player), R_DRAFT)
        events = [("senators_drafted", {"player": player, "cards": cards})]
        return events

    def _cmd_first_princeps(self, state, d, command):
        self._phase(state, "first_princeps")
        senate, oratores, result = self._first_princeps(state, d)
        # One event per command, so one undo takes back one table action; it also starts round 1.
        return [("first_princeps_elected", {"princeps": result.princeps, "decided_by": result.decided_by,
                                            "votes": senate, "oratores": oratores})]

    def _first_princeps(self, state, d):
        """The starting Senators' votes and Oratores votes checked, and the first Princeps they make."""
        senate = numbers_for(state.players, d.get("votes"), keyed("cicero.word.senate_votes"))
        oratores = numbers_for(state.players, d.get("oratores"), keyed("cicero.word.oratores_votes"))
        oldest = d.get("oldest")
        if oldest is not None:
            known(oldest, state.players, keyed("cicero.word.oldest"))
        result = logic.first_princeps(state.players, senate, oratores, state.ages, oldest,
                                      state.house_rules["first_princeps_majority"])
        return senate, oratores, result

    def _cmd_correct_first_princeps(self, state, d, command):
        """{votes, oratores, oldest?, reason}: the starting Senators' counts as the table has them
        now; the first Princeps is decided again by the same rule."""
        check_first_princeps_correctable(state)
        senate, oratores, result = self._first_princeps(state, d)
        reason = reason_text(d.get("reason"))
        held = state.first_princeps
        assert held is not None  # checked above
        require((senate, oratores) != (dict(held["votes"]), dict(held["oratores"])),
                keyed("cicero.err.correct_first_same"), logic.R_FIRST_PRINCEPS)
        return [("first_princeps_corrected", {"princeps": result.princeps, "decided_by": result.decided_by,
                                              "votes": senate, "oratores": oratores, "reason": reason,
                                              "before": {"princeps": held["princeps"],
                                                         "votes": dict(held["votes"]),
                                                         "oratores": dict(held["oratores"])}})]

    def _cmd_automatii_reveal(self, state, d, command):
        self._phase(state, "automatii")
        placed = logic.automatii_placement(d.get("castes"))
        return [("automatii_placed", {"castes": list(placed.castes), "spaces": list(placed.spaces),
                                      "doubled": placed.doubled})]

    def _cmd_next_step(self, state, d, command):
        self._phase(state, "automatii_actions", "round_end")
        if state.phase == "automatii_actions":
            return [("automatii_actions_done", {})]
        return [("round_started", {"round": state.round + 1})]

    def _cmd_senate_votes(self, state, d, command):
        self._phase(state, "election", "debate")
        entered = numbers_for(state.players, d.get("votes"), keyed("cicero.word.senate_votes"), all_needed=False)
        require(bool(entered), keyed("cicero.err.no_numbers"), logic.R_ELECTION)
        return [("senate_votes_announced", {"round": state.round, "votes": entered})]

    def _cmd_start_debate(self, state, d, command):
        self._phase(state, "election", "debate")
        self._all_announced(state)
        seconds = whole(d.get("seconds"), keyed("cicero.word.debate_seconds"), 1)
        return [("debate_started", {"seconds": seconds})]

    def _all_announced(self, state):
        missing = [p for p in state.players if p not in state.votes_this_round()]
        require(not missing, keyed("cicero.err.votes_missing", names=", ".join(missing)), R_ANNOUNCE)

    def _cmd_open_ballot(self, state, d, command):
        self._phase(state, "election", "debate")
        self._all_announced(state)
        spec = votes.VoteSpec(f"princeps-{state.round}", "weighted", state.players, state.players,
                              allow_self=True, weights=dict(state.votes_this_round()),
                              question=keyed("cicero.vote.question", round=state.round))
        return votes.open_vote(state.book, spec)

    def _cmd_cast_ballot(self, state, d, command):
        self._phase(state, "ballot")
        return self._with_result(state, votes.cast(state.book, d, command.source))

    def _cmd_reveal_vote(self, state, d, command):
        self._phase(state, "ballot")
        # Every player gives their votes (R_VOTE): a reveal with ballots missing is never forced.
        waiting = state.book.current.waiting
        require(not waiting, keyed("cicero.err.ballots_missing", names=logic.and_list(list(waiting))), R_VOTE)
        return self._with_result(state, votes.reveal(state.book, False))

    def _with_result(self, state, events):
        """When the ballots are revealed, the election's result follows as its own event."""
        if events[-1][0] != "vote_revealed":
            return events
        ballots = dict(state.book.current.choices())
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

    def _given(self, state, ballots):
        weights = dict(state.votes_this_round())
        given = {v: c for v, c in ballots.items() if c is not None}
        to = self._automatii_to(state)
        if to is not None:
            weights[AUTOMATII], given[AUTOMATII] = logic.AUTOMATII_VOTES, to
        return given, weights

    def _automatii_to(self, state):
        return logic.automatii_beneficiary(state.prestige, state.princeps) if state.two_player else None

    def _elect(self, state, ballots, choice=None):
        return logic.elect_princeps(state.players, state.votes_this_round(), ballots, state.princeps, choice,
                                    dict(state.prestige) if state.two_player else None)

    def _elect_again(self, state, senate, choice=None):
        """This round's election decided again by the same rule (``logic.elect_princeps``) from the
        revealed ballots, its outgoing Princeps and Automatii, with other announced totals."""
        held = state.elections[state.round]
        return logic.elect_princeps(state.players, senate, state.book.last().choices(), held["outgoing"], choice,
                                    automatii_to=held["automatii_to"])

    def _elected(self, state, result, by_tie_break):
        return ("princeps_elected", {"round": state.round, "princeps": result.princeps, "tally": dict(result.tally),
                                     "tie": result.tie, "tied": list(result.tied), "outgoing": state.princeps,
                                     "automatii_to": result.automatii_to, "by_tie_break": by_tie_break})

    def _cmd_tie_break(self, state, d, command):
        self._phase(state, "election_tie")
        choice = d.get("choice")
        known(choice, state.players, keyed("cicero.word.tie_choice"))
        result = self._elect(state, state.book.last().choices(), choice)
        return [("princeps_chosen", self._elected(state, result, by_tie_break=True)[1])]

    # -- corrections: the tablet set right when the table knows better, the reason recorded ----
    def _cmd_correct_senate_votes(self, state, d, command):
        """{player, votes: the true total announced, reason, choice?}: the Princeps decided again."""
        check_election_correctable(state)
        player = known(d.get("player"), state.players, keyed("cicero.word.player"))
        after = whole(d.get("votes"), keyed("cicero.word.of_player", what=keyed("cicero.word.senate_votes"),
                                            player=player))
        reason = reason_text(d.get("reason"))
        before = state.votes_this_round()[player]
        require(after != before, keyed("cicero.err.correct_same", player=player, votes=before), R_CORRECT_VOTES)
        choice = d.get("choice")
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
        data = self._elected(state, result, by_tie_break=result.tie)[1]
        data.update({"player": player, "before": before, "after": after, "reason": reason,
                     "votes": senate, "outgoing": held["outgoing"], "princeps_before": state.princeps})
        return [("senate_votes_corrected", data)]

    def _cmd_correct_caste_cards(self, state, d, command):
        """{caste, primus, secundus, reason}: who holds a Caste's majority cards, as the table sees
        them. "The Primus and Secundus cards remain the property of the players who acquired them"
        and score each Prestige phase: a wrong holder would go on scoring. Allowed whenever the game
        is on; PP already scored stay as they are (a change of Prestige by hand mends them)."""
        require(state.round >= 1, keyed("cicero.err.not_started"), R_ROUND)
        caste = check_caste(d.get("caste"))
        after = tuple(None if d.get(k) is None else known(d.get(k), state.players, keyed(f"cicero.word.{k}_holder"))
                      for k in ("primus", "secundus"))
        reason = reason_text(d.get("reason"))
        require(after[0] is None or after[0] != after[1], keyed("cicero.err.both_cards", player=after[0], caste=caste),
                logic.R_PRIMUS)
        require(after[1] is None or after[0] is not None, keyed("cicero.err.secundus_alone", caste=caste),
                logic.R_PRIMUS)
        before = tuple(state.caste_cards.get(caste, (None, None)))
        require(after != before, keyed("cicero.err.correct_cards_same"), logic.R_KEEP_CARDS)
        return [("majority_cards_corrected", {"what": "caste", "name": caste, "before": list(before),
                                              "after": list(after), "reason": reason})]

    def _cmd_correct_guild_card(self, state, d, command):
        """{guild, holder, reason}: who holds a Guild card, as the table sees it (the same reading)."""
        require(state.round >= 1, keyed("cicero.err.not_started"), R_ROUND)
        guild = check_guild(d.get("guild"))
        holder = d.get("holder")
        if holder is not None:
            known(holder, state.players, keyed("cicero.word.guild_holder"))
        reason = reason_text(d.get("reason"))
        # a holder still choosing (this Guild or another) chooses first: one choice at a time
        require(state.pending_guild is None,
                keyed("cicero.err.guild_choice_first", guild=state.pending_guild,
                      holder=state.guild_cards.get(state.pending_guild or "")), R_GUILD_CHOICE)
        before = state.guild_cards.get(guild)
        require(holder != before, keyed("cicero.err.correct_cards_same"), logic.R_KEEP_CARDS)
        return [("majority_cards_corrected", {"what": "guild", "name": guild, "before": before, "after": holder,
                                              "reason": reason})]

    def _cmd_cicero_card(self, state, d, command):
        self._phase(state, "accusation")
        influences = d.get("influences")
        if not isinstance(influences, (list, tuple)) or len(influences) != 4:
            raise BadInput(keyed("cicero.err.cicero_influences"))
        senators = d.get("senator_castes")
        if not isinstance(senators, (list, tuple)) or len(senators) != 2 or len(set(senators)) != 2:
            raise BadInput(keyed("cicero.err.cicero_senators"))
        return [("cicero_revealed", {"influences": [check_caste(c) for c in influences],
                                     "senator_castes": [check_caste(c) for c in senators]})]

    def _cmd_place_servant(self, state, d, command):
        self._phase(state, "servants")
        turn = state.next_to_place()
        player = d.get("player", turn)
        known(player, state.players, keyed("cicero.word.player"))
        require(player == turn, keyed("cicero.err.not_your_turn", player=player, turn=turn), R_PLACE_ORDER)
        space = d.get("space")
        if space not in SPACES:
            raise BadInput(keyed("cicero.err.unknown_space", space=repr(space), spaces=", ".join(SPACES)))
        holder = state.occupied().get(space)
        require(holder is None, keyed("cicero.err.occupied_by", space=space_name(space), holder=holder), R_OCCUPIED)
        return [("servant_placed", {"player": player, "space": space})]

    def _cmd_pay_tribute(self, state, d, command):
        self._phase(state, "tribute", "second_tribute")
        player = known(d.get("player"), state.players, keyed("cicero.word.player"))
        how = d.get("how")
        if how not in TRIBUTE_WAYS:
            raise BadInput(keyed("cicero.err.tribute_way", how=repr(how), ways=", ".join(TRIBUTE_WAYS)))
        second = state.phase == "second_tribute"
        paid = state.second_tribute if second else state.tribute
        require(player not in paid, keyed("cicero.err.already_paid", player=player),
                R_TRIUMVIRATE if second else R_TRIBUTE)
        if second:
            logic.check_second_tribute(player, state.tribute.get(player), how)
        data: dict[str, Any] = {"player": player, "how": how, "second": second}
        if how == "prestige":  # the PP it costs, recorded with it
            data["delta"] = TRIBUTE_PP
        return [("tribute_paid", data)]

    def _cmd_triumvirate(self, state, d, command):
        self._phase(state, "triumvirate")
        satisfied = d.get("satisfied")
        if not isinstance(satisfied, bool):
            raise BadInput(keyed("cicero.err.triumvirate_shape"))
        general = d.get("general")
        if general is not None and general not in GENERALS:
            raise BadInput(keyed("cicero.err.general", general=repr(general), generals=", ".join(GENERALS)))
        return [("triumvirate_revealed", {"general": general, "satisfied": satisfied})]

    def _cmd_count_caste(self, state, d, command):
        self._phase(state, "castes")
        caste = d.get("caste", state.count_next())
        check_caste(caste)
        require(caste == state.count_next(), keyed("cicero.err.count_order", name=caste, next=state.count_next()),
                R_MAJORITIES)
        counted = numbers_for(state.players, d.get("votes"), keyed("cicero.word.caste_votes", caste=caste))
        for key in ("primus", "secundus"):
            if d.get(key) is not None:
                known(d[key], state.players, keyed(f"cicero.word.{key}_choice"))
        held = tuple(state.caste_cards.get(caste, (None, None)))
        result = logic.caste_majority(state.players, counted, state.princeps, held, d.get("primus"),
                                      d.get("secundus"), caste, state.house_rules["no_votes"])
        return [("caste_counted", {"caste": caste, "votes": counted, "primus": result.primus,
                                   "secundus": result.secundus, "taken": list(result.taken),
                                   "before": list(held)})]

    def _cmd_count_guild(self, state, d, command):
        self._phase(state, "guilds")
        require(state.pending_guild is None,
                keyed("cicero.err.guild_choice_first", guild=state.pending_guild,
                   holder=state.guild_cards.get(state.pending_guild)), R_GUILD_CHOICE)
        guild = d.get("guild", state.count_next())
        check_guild(guild)
        require(guild == state.count_next(), keyed("cicero.err.count_order", name=guild, next=state.count_next()),
                R_MAJORITIES)
        counted = numbers_for(state.players, d.get("symbols"), keyed("cicero.word.guild_symbols", guild=guild))
        if d.get("choice") is not None:
            known(d["choice"], state.players, keyed("cicero.word.tie_choice"))
        held = state.guild_cards.get(guild)
        holder, taken = logic.guild_majority(state.players, counted, state.princeps, held, d.get("choice"), guild,
                                             state.house_rules["no_votes"])
        return [("guild_counted", {"guild": guild, "symbols": counted, "holder": holder, "taken": taken,
                                   "before": held})]

    def _cmd_guild_use(self, state, d, command):
        self._phase(state, "guilds")
        require(state.pending_guild is not None, keyed("cicero.err.no_guild_choice"), R_GUILD_CHOICE)
        use = d.get("use")
        if use not in GUILD_USES:
            raise BadInput(keyed("cicero.err.guild_use", use=repr(use), uses=", ".join(GUILD_USES)))
        return [("guild_used", {"guild": state.pending_guild, "holder": state.guild_cards[state.pending_guild],
                                "use": use})]

    def _cmd_score_prestige(self, state, d, command):
        self._phase(state, "prestige")
        senators = numbers_for(state.players, d.get("senators", {}), keyed("cicero.word.senator_pp"), all_needed=False)
        cards = card_points(state)
        data = {"round": state.round, "cards": cards, "senators": {p: senators.get(p, 0) for p in state.players},
                "last": state.round == state.rounds}
        if data["last"]:  # "the most prestigious Family is declared the winner"
            final = {p: state.prestige[p] + cards[p]["total"] + data["senators"][p] for p in state.players}
            data["final"] = final
            data["winners"] = logic.most_prestigious(final)
        return [("prestige_scored", data)]

    def _cmd_adjust_prestige(self, state, d, command):
        require(state.round >= 1, keyed("cicero.err.not_started"), R_ROUND)
        player = known(d.get("player"), state.players, keyed("cicero.word.player"))
        delta = signed(d.get("delta"), keyed("cicero.word.prestige_change"))
        require(delta != 0, keyed("cicero.err.zero_change"))
        note = d.get("note", "")
        if not isinstance(note, str):
            raise BadInput(keyed("cicero.err.note_shape"))
        return [("prestige_changed", {"player": player, "delta": delta, "reason": "table", "note": note.strip()})]

    def _cmd_economy(self, state, d, command):
        """One change to the tracked economy: {player, item, caste (influence), delta}."""
        require(state.economy is not None, keyed("cicero.err.economy_off"))
        return [("economy_changed", economy.change(state.economy, state.players, d))]

    # -- the fold -----------------------------------------------------------------------------
    def evolve(self, state: CiceroState, event: Event) -> CiceroState:
        if event.kind in votes.VOTE_EVENTS:
            state = replace(state, book=votes.apply_vote_event(state.book, event))
            if event.kind == "vote_opened":
                state = replace(state, phase="ballot")
            elif event.kind == "vote_cancelled":
                state = replace(state, phase="election")
            return state
        fold = getattr(self, f"_on_{event.kind}", None)
        return fold(state, event.data) if fold else state

    def _on_economy_changed(self, s, d):
        return replace(s, economy=economy.apply(s.economy, d)) if s.economy is not None else s

    def _on_senators_drafted(self, s, d):
        if s.economy is not None:  # the drafted Senators join the cenacle
            fam = s.economy["families"][d["player"]]
            s = replace(s, economy=economy.apply(s.economy, {"player": d["player"], "item": "cenacle",
                                                             "after": fam["cenacle"] + int(d["cards"])}))
        step = s.draft_step + 1
        return replace(s, draft_step=step, phase="draft" if step < len(s.draft) else "first_princeps")

    def _on_first_princeps_elected(self, s, d):
        s = replace(s, princeps=d["princeps"], first_princeps=dict(d))
        return self._on_round_started(s, {"round": 1})

    def _on_first_princeps_corrected(self, s, d):
        held = s.first_princeps or {}
        corrections = tuple(held.get("corrections", ())) + ({"before": d["before"], "reason": d["reason"]},)
        first = {k: d[k] for k in ("princeps", "decided_by", "votes", "oratores")}
        return replace(s, princeps=d["princeps"], first_princeps={**first, "corrections": corrections})

    def _on_round_started(self, s, d):
        r = int(d["round"])
        phase = "automatii" if s.two_player else ("election" if r > 1 else "accusation")
        return replace(s, round=r, phase=phase, automatii=None, cicero=None, placements=(), tribute={},
                       second_tribute={}, triumvirate=None, caste_counts={}, guild_counts={}, guild_use={},
                       pending_guild=None, debate_seconds=None, tied=(), last_score=None)

    def _on_automatii_placed(self, s, d):
        return replace(s, phase="automatii_actions",
                       automatii={"castes": tuple(d["castes"]), "spaces": tuple(d["spaces"]), "doubled": d["doubled"]})

    def _on_automatii_actions_done(self, s, d):
        return replace(s, phase="election" if s.round > 1 else "accusation")

    def _on_senate_votes_announced(self, s, d):
        r = int(d["round"])
        merged = dict(s.senate_votes.get(r, {}))
        merged.update({p: int(n) for p, n in d["votes"].items()})
        table = dict(s.senate_votes)
        table[r] = {p: merged[p] for p in s.players if p in merged}
        return replace(s, senate_votes=table)

    def _on_debate_started(self, s, d):
        return replace(s, phase="debate", debate_seconds=int(d["seconds"]))

    def _on_princeps_tied(self, s, d):
        return replace(s, phase="election_tie", tied=tuple(d["tied"]))

    def _on_princeps_elected(self, s, d):
        elections = dict(s.elections)
        elections[int(d["round"])] = {"princeps": d["princeps"], "tally": dict(d["tally"]), "tie": d["tie"],
                                      "tied": tuple(d["tied"]), "outgoing": d["outgoing"],
                                      "automatii_to": d["automatii_to"]}
        return replace(s, princeps=d["princeps"], elections=elections, phase="accusation", tied=())

    _on_princeps_chosen = _on_princeps_elected

    def _on_senate_votes_corrected(self, s, d):
        r = int(d["round"])
        table = dict(s.senate_votes)
        table[r] = {p: int(d["votes"][p]) for p in s.players}
        corrections = tuple(s.elections[r].get("corrections", ())) + (
            {"player": d["player"], "before": d["before"], "after": d["after"], "reason": d["reason"]},)
        elections = dict(s.elections)
        elections[r] = {"princeps": d["princeps"], "tally": dict(d["tally"]), "tie": d["tie"], "tied": tuple(d["tied"]),
                        "outgoing": d["outgoing"], "automatii_to": d["automatii_to"], "corrections": corrections}
        # The revealed vote's weights follow, so the vote history counts what the table announced.
        book = s.book
        last = book.last()
        if last is not None and last.spec.vote_id == f"princeps-{r}":
            fixed = replace(last, spec=replace(last.spec, weights=dict(table[r])))
            book = replace(book, history=book.history[:-1] + (fixed,))
        return replace(s, senate_votes=table, elections=elections, princeps=d["princeps"], book=book)

    def _on_majority_cards_corrected(self, s, d):
        note = {"round": s.round, **{k: d[k] for k in ("what", "name", "before", "after", "reason")}}
        s = replace(s, card_corrections=s.card_corrections + (note,))
        if d["what"] == "caste":
            cards = dict(s.caste_cards)
            cards[d["name"]] = (d["after"][0], d["after"][1])
            return replace(s, caste_cards=cards)
        guilds = dict(s.guild_cards)
        guilds[d["name"]] = d["after"]
        s = replace(s, guild_cards=guilds)
        if d["name"] in s.guild_use and s.phase in ("guilds", "prestige"):
            # "The winner reads their card and must immediately choose whether to use the power
            # of the Guild for the next round, or to score the Prestige Points": the choice was
            # the wrong holder's. Before the Prestige is scored, the real winner chooses now.
            use = {g: u for g, u in s.guild_use.items() if g != d["name"]}
            pending = d["name"] if d["after"] is not None else None
            s = _after_guild(replace(s, guild_use=use, pending_guild=pending, phase="guilds"))
        return s

    def _on_cicero_revealed(self, s, d):
        return replace(s, cicero={"influences": tuple(d["influences"]), "senator_castes": tuple(d["senator_castes"])},
                       phase="servants")

    def _on_servant_placed(self, s, d):
        placements = s.placements + ((d["player"], d["space"]),)
        done = len(placements) >= len(s.players) * s.servants
        return replace(s, placements=placements, phase="tribute" if done else "servants")

    def _on_tribute_paid(self, s, d):
        key = "second_tribute" if d["second"] else "tribute"
        paid = dict(getattr(s, key))
        paid[d["player"]] = d["how"]
        s = replace(s, **{key: paid})
        if d["how"] == "prestige":  # (legacy: a journal from before the cost was recorded)
            s = self._on_prestige_changed(s, {"player": d["player"], "delta": d.get("delta", TRIBUTE_PP),
                                              "reason": key})
        if len(paid) == len(s.players):
            s = replace(s, phase="castes" if d["second"] else "triumvirate")
        return s

    def _on_prestige_changed(self, s, d):
        prestige = dict(s.prestige)
        prestige[d["player"]] += int(d["delta"])
        entry = {"round": s.round, "player": d["player"], "delta": int(d["delta"]), "reason": d["reason"],
                 "note": d.get("note", "")}
        return replace(s, prestige=prestige, prestige_log=s.prestige_log + (entry,))

    def _on_triumvirate_revealed(self, s, d):
        return replace(s, triumvirate={"general": d["general"], "satisfied": d["satisfied"]},
                       phase="castes" if d["satisfied"] else "second_tribute")

    def _on_caste_counted(self, s, d):
        cards = dict(s.caste_cards)
        cards[d["caste"]] = (d["primus"], d["secundus"])
        counts = dict(s.caste_counts)
        counts[d["caste"]] = dict(d["votes"])
        s = replace(s, carried={**s.carried, d["caste"]: dict(d["votes"])})
        return replace(s, caste_cards=cards, caste_counts=counts,
                       phase="guilds" if len(counts) == len(CASTES) else "castes")

    def _on_guild_counted(self, s, d):
        cards = dict(s.guild_cards)
        cards[d["guild"]] = d["holder"]
        counts = dict(s.guild_counts)
        counts[d["guild"]] = dict(d["symbols"])
        s = replace(s, carried={**s.carried, d["guild"]: dict(d["symbols"])})
        s = replace(s, guild_cards=cards, guild_counts=counts, pending_guild=d["guild"] if d["holder"] else None)
        return _after_guild(s)

    def _on_guild_used(self, s, d):
        use = dict(s.guild_use)
        use[d["guild"]] = d["use"]
        return _after_guild(replace(s, guild_use=use, pending_guild=None))

    def _on_prestige_scored(self, s, d):
        prestige = dict(s.prestige)
        log = s.prestige_log
        for p in s.players:
            for reason, points in (("cards", int(d["cards"][p]["total"])), ("senators", int(d["senators"][p]))):
                if points:
                    prestige[p] += points
                    log += ({"round": s.round, "player": p, "delta": points, "reason": reason, "note": ""},)
        s = replace(s, carried={**s.carried, "senators": dict(d["senators"])})
        s = replace(s, prestige=prestige, prestige_log=log, phase="round_end",
                    last_score={"cards": d["cards"], "senators": dict(d["senators"])})
        if d.get("last"):
            s = replace(s, phase="game_over", winners=tuple(d["winners"]))
        return s

    def outcome(self, state: CiceroState) -> Outcome | None:
        if state.phase != "game_over":
            return None
        final = ", ".join(f"{p} {state.prestige[p]}" for p in state.players)
        return {"winners": list(state.winners),
                "summary": keyed("cicero.summary", winners=" & ".join(state.winners), final=final)}

    # -- views --------------------------------------------------------------------------------
    def view(self, state: CiceroState, viewer: str) -> dict:
        from .view import table_view  # the view is long; it lives beside the rules
        return table_view(state, viewer)


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


def _after_guild(s: CiceroState) -> CiceroState:
    if s.pending_guild is None and len(s.guild_counts) == len(GUILDS):
        return replace(s, phase="prestige")
    return s


def card_points(state: CiceroState) -> dict[str, dict[str, int]]:
    """PP each player's majority cards bring this Prestige phase (logic.card_points)."""
    return logic.card_points(state.players, state.caste_cards, state.guild_cards, state.guild_use)


def space_name(space: str) -> dict:
    caste = space_caste(space)
    if caste is None:
        return keyed("cicero.space.senate", n=space.rpartition("_")[2])
    return keyed(f"cicero.space.zone_{space.rpartition('_')[2]}", zone=ZONES[caste], caste=caste)


# -- the command table (companion.core.commands) ------------------------------------------------

_cmd = partial(command, passes="command")


_players = players_of


def _or_nobody(state):
    return (None,) + state.players


def _numbers(lo, hi):
    """A sample of numbers, one per player (for random play and listing)."""
    return lambda state, rng: {p: rng.randint(lo, hi) for p in state.players}


def _castes(k, distinct=False):
    return lambda state, rng: (rng.sample(CASTES, k) if distinct else [rng.choice(CASTES) for _ in range(k)])


# Types only: which names, Castes, spaces and ranges are allowed the rule functions say in
# the game's words (translated); the tables' ``values`` list them for legal_commands.
NUMBERS = Numbers()
CASTE = Text()
REASON = Arg("reason", Text(), doc="why the record is corrected", sample=lambda s, rng: "misheard")

COMMANDS = CommandTable("cicero", [
    _cmd("draft_pick", CiceroRules._cmd_draft_pick, R_DRAFT,
         Arg("player", Text(), False, "who picks (the player whose turn it is)", values=_players),
         doc="the drafting player keeps a Senator card"),
    _cmd("first_princeps", CiceroRules._cmd_first_princeps, logic.R_FIRST_PRINCEPS,
         Arg("votes", NUMBERS, doc="each player's votes in the Senate", sample=_numbers(1, 12)),
         Arg("oratores", NUMBERS, doc="each player's Oratores votes", sample=_numbers(0, 6)),
         Arg("oldest", Text(), False, "the oldest player, when the count ties", values=_players),
         doc="the first Princeps, from the Senators' votes"),
    _cmd("correct_first_princeps", CiceroRules._cmd_correct_first_princeps, R_FIRST_PLAYER,
         Arg("votes", NUMBERS, doc="each player's votes in the Senate, as the table counts them now",
             sample=_numbers(1, 12)),
         Arg("oratores", NUMBERS, doc="each player's Oratores votes, as the table counts them now",
             sample=_numbers(0, 6)),
         Arg("oldest", Text(), False, "the oldest player, when the count ties", values=_players),
         REASON,
         doc="in round 1, until the first Servant: the starting Senators' votes set right; "
             "the first Princeps is decided again"),
    _cmd("automatii_reveal", CiceroRules._cmd_automatii_reveal, logic.R_AUTOMATII_SAME_TWO,
         Arg("castes", List(CASTE), doc="the Castes of the 3 revealed Senators", sample=_castes(3)),
         doc="the Automatii's Senators are revealed (2 players)"),
    _cmd("next_step", CiceroRules._cmd_next_step, R_ROUND, doc="the Automatii acted, or the next round starts"),
    _cmd("senate_votes", CiceroRules._cmd_senate_votes, R_ANNOUNCE,
         Arg("votes", NUMBERS, doc="the votes each player announced", sample=_numbers(1, 12)),
         doc="players announce their votes in the Senate"),
    _cmd("start_debate", CiceroRules._cmd_start_debate, R_ANNOUNCE,
         Arg("seconds", Int(None, None), doc="the debate's length", sample=lambda s, rng: rng.choice([60, 120])),
         doc="the debate's timer starts"),
    _cmd("open_ballot", CiceroRules._cmd_open_ballot, R_VOTE, doc="the secret election opens"),
    _cmd("cast_ballot", CiceroRules._cmd_cast_ballot, R_VOTE, *ballot_args(_players),
         who=(SEAT, DEVICE, TABLE), seat_arg="voter", doc="one Family's secret vote for Princeps"),
    _cmd("reveal_vote", CiceroRules._cmd_reveal_vote, R_VOTE, force_arg(), doc="the votes are shown at once"),
    _cmd("tie_break", CiceroRules._cmd_tie_break, logic.R_ELECTION_TIE,
         Arg("choice", Text(), doc="whom the outgoing Princeps chooses", values=_players),
         doc="the outgoing Princeps breaks a tie"),
    _cmd("correct_senate_votes", CiceroRules._cmd_correct_senate_votes, R_CORRECT_VOTES,
         Arg("player", Text(), doc="whose announced total was entered wrong", values=_players),
         Arg("votes", Int(None, None), doc="the total they announced", sample=lambda s, rng: rng.randint(0, 15)),
         REASON,
         Arg("choice", Null(Text()), False, "the outgoing Princeps' choice when the corrected totals tie",
             values=_or_nobody),
         doc="after the election's reveal, until the first Servant: an announced total set right; "
             "the Princeps is decided again"),
    _cmd("correct_caste_cards", CiceroRules._cmd_correct_caste_cards, logic.R_KEEP_CARDS,
         Arg("caste", CASTE, doc="the Caste", values=lambda s: CASTES),
         Arg("primus", Null(Text()), False, "who holds its Primus card (none: in the supply)", values=_or_nobody),
         Arg("secundus", Null(Text()), False, "who holds its Secundus card (none: in the supply)", values=_or_nobody),
         REASON, doc="a Caste's Primus and Secundus holders set to what the table sees"),
    _cmd("correct_guild_card", CiceroRules._cmd_correct_guild_card, logic.R_KEEP_CARDS,
         Arg("guild", Text(), doc="the Guild", values=lambda s: GUILDS),
         Arg("holder", Null(Text()), False, "who holds its card (none: in the supply)", values=_or_nobody),
         REASON, doc="a Guild card's holder set to what the table sees"),
    _cmd("cicero_card", CiceroRules._cmd_cicero_card, R_TRIBUTE,
         Arg("influences", List(CASTE), doc="the 4 influences on the Cicero card", sample=_castes(4)),
         Arg("senator_castes", List(CASTE), doc="the 2 Senator Castes on it", sample=_castes(2, True)),
         doc="the Cicero card is revealed"),
    _cmd("place_servant", CiceroRules._cmd_place_servant, R_PLACE_ORDER,
         Arg("player", Text(), False, "who places (the player whose turn it is)", values=_players),
         Arg("space", Text(), doc="the space", values=lambda s: SPACES),
         doc="a Servant goes to a space"),
    _cmd("pay_tribute", CiceroRules._cmd_pay_tribute, R_TRIBUTE,
         Arg("player", Text(), doc="who pays", values=_players),
         Arg("how", Text(), doc="the way of paying", values=lambda s: TRIBUTE_WAYS),
         doc="a Family pays its tribute to Cicero"),
    _cmd("triumvirate", CiceroRules._cmd_triumvirate, R_TRIUMVIRATE,
         Arg("satisfied", Bool(), doc="the Triumvirate is satisfied", values=lambda s: (True, False)),
         Arg("general", Null(Text()), False, "the General revealed",
             values=lambda s: (None,) + GENERALS),
         doc="the Triumvirate card is revealed"),
    _cmd("count_caste", CiceroRules._cmd_count_caste, R_MAJORITIES,
         Arg("caste", CASTE, False, "the Caste counted (the next one)", values=lambda s: CASTES),
         Arg("votes", NUMBERS, doc="each player's influence in it", sample=_numbers(0, 5)),
         Arg("primus", Null(Text()), False, "the Princeps' choice in a tie for first", values=_or_nobody),
         Arg("secundus", Null(Text()), False, "the Princeps' choice in a tie for second", values=_or_nobody),
         doc="one Caste's majority"),
    _cmd("count_guild", CiceroRules._cmd_count_guild, R_MAJORITIES,
         Arg("guild", Text(), False, "the Guild counted (the next one)", values=lambda s: GUILDS),
         Arg("symbols", NUMBERS, doc="each player's symbols of it", sample=_numbers(0, 4)),
         Arg("choice", Null(Text()), False, "the Princeps' choice in a tie", values=_or_nobody),
         doc="one Guild's majority"),
    _cmd("guild_use", CiceroRules._cmd_guild_use, R_GUILD_CHOICE,
         Arg("use", Text(), doc="the Guild's power or its Prestige", values=lambda s: GUILD_USES),
         doc="the Guild's winner chooses"),
    _cmd("score_prestige", CiceroRules._cmd_score_prestige, R_END,
         Arg("senators", NUMBERS, False, "Prestige from each player's Senators", sample=_numbers(0, 3)),
         doc="the Prestige phase"),
    _cmd("adjust_prestige", CiceroRules._cmd_adjust_prestige, R_ROUND,
         Arg("player", Text(), doc="whose Prestige changes", values=_players),
         Arg("delta", Int(None, None), doc="the change (not 0)", sample=lambda s, rng: rng.choice([-2, -1, 1, 3])),
         Arg("note", Text(), False, "why"),
         doc="a change of Prestige by hand"),
    _cmd("economy", CiceroRules._cmd_economy, economy.R_INFLUENCE,
         Arg("item", Text(), doc="what changes", values=lambda s: economy.ITEMS),
         Arg("player", Null(Text()), False, "whose (none for the Legions)", values=_or_nobody),
         Arg("caste", Null(CASTE), False, "the Caste (for influence)", values=lambda s: CASTES),
         Arg("delta", Int(None, None), doc="the change (not 0)", sample=lambda s, rng: rng.choice([-1, 1, 2])),
         doc="one change to the tracked economy (optional)"),
])
CiceroRules.commands = COMMANDS
