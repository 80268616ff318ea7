"""23 Knives' fold: ``evolve(state, event) -> State``, one function per event kind (``FOLDS``).

It only applies what was recorded: every result (a vote's, a tie's, a turn's end and its flush,
the game's winner) is decided in rules.py and carried by its event. The one legacy path kept: a
turn's end recorded before its ``flush`` was is decided here, as then.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from companion.core import votes
from companion.core.events import Event

from . import scoring
from .state import STEPS, ForumCard, State, Turn, forum_cards, forum_full, next_clockwise
from .tables import Kalends, tables

Data = Mapping[str, Any]


def evolve(state: State, event: Event) -> State:
    after = _evolve(state, event)
    if len(after.told) > len(state.told):   # this action's physical steps are the ones to show
        after = replace(after, told_from=len(state.told))
    return after


def _evolve(state: State, event: Event) -> State:
    k, d = event.kind, event.data
    if k in votes.VOTE_EVENTS:
        book = votes.apply_vote_event(state.book, event)
        state = replace(state, book=book)
        if k == "vote_opened":
            return replace(state, phase="issue_vote" if d["vote_id"].startswith("issue-") else "exile_vote")
        if k == "vote_cancelled":
            return replace(state, phase="turn" if d["vote_id"].startswith("issue-") else "exile_called")
        return state
    fn = FOLDS.get(k)   # an unknown kind (a newer version's) is skipped
    return fn(state, d) if fn else state


def _turn(s: State) -> Turn:
    assert s.turn is not None, "a turn's event with no turn in play"
    return s.turn


def _on_setup_ticked(s: State, d: Data) -> State:
    return replace(s, setup_done=s.setup_done | {d["step"]})


def _on_play_began(s: State, d: Data) -> State:
    return replace(s, phase="turn", round=1, turn=Turn(d["player"]))


def _on_moved(s: State, d: Data) -> State:
    locations = dict(s.locations)
    locations[d["player"]] = d["to"]
    # a new move: the last action's physical steps have been made
    return replace(s, locations=locations, turn=replace(_turn(s), step="action"), told_from=len(s.told))


def _on_board_confirmed(s: State, d: Data) -> State:
    k = Kalends(d["spaces"], d["black_spaces"], d["dagger_start"])
    return replace(s, kalends=k, dagger=k.dagger_start, forum_kinds=tuple(d["forum"]["spaces"]),
                   forum_extra_kind=d["forum"]["extra"], board_confirmed=True,
                   setup_done=s.setup_done | {"I"})


def _on_fate_played(s: State, d: Data) -> State:
    card = ForumCard(d["faceup"], d["card"])
    if d["space"] <= 5:
        forum = list(s.forum)
        forum[d["space"] - 1] = card
        s = replace(s, forum=tuple(forum))
    else:
        s = replace(s, forum_extra=s.forum_extra + (card,))
    if not d["effect"]:
        turn = _turn(s)
        s = replace(s, turn=replace(turn, fate_played=turn.fate_played + 1))
    else:
        s = replace(s, notes=s.notes + ({"kind": "fate_played", **d},))
    return s


def _on_forum_card_discarded(s: State, d: Data) -> State:
    s = replace(s, notes=s.notes + ({"kind": "forum_card_discarded", **d},))
    if d["space"] == 5 and s.forum_extra:
        return replace(s, forum_extra=s.forum_extra[:-1])
    forum = list(s.forum)
    forum[d["space"] - 1] = None
    return replace(s, forum=tuple(forum))


def _on_forum_swapped(s: State, d: Data) -> State:
    forum = list(s.forum)
    for x in d["spaces"]:
        swapped = forum[x - 1]
        forum[x - 1] = ForumCard(False, None, swapped.doves if swapped else ())
    return replace(s, forum=tuple(forum), notes=s.notes + ({"kind": "forum_swapped", **d},),
                   turn=replace(_turn(s), fate_played=tables()["fate_per_forum_action"]))


def _on_dove_on_knife(s: State, d: Data) -> State:
    forum = list(s.forum)
    c = forum[d["space"] - 1]
    assert c is not None, "a Dove onto an empty space"
    forum[d["space"] - 1] = replace(c, doves=c.doves + (ForumCard(d["faceup"], d["card"]),))
    return replace(s, forum=tuple(forum), notes=s.notes + ({"kind": "dove_on_knife", **d},))


def _recorded_card(entry: Any) -> ForumCard:
    card = ForumCard.from_dict(entry)
    assert card is not None, "an empty card on top of the 5th space"
    return card


def _on_board_corrected(s: State, d: Data) -> State:
    # the note of the correction (the turn's end it makes is applied below, not noted)
    s = replace(s, notes=s.notes + ({"kind": "board_corrected", **{k: v for k, v in d.items() if k != "flush"}},))
    what, after = d["what"], d["after"]
    if what == "forum":
        return replace(s, forum=tuple(ForumCard.from_dict(c) for c in after["spaces"]),
                       forum_extra=tuple(_recorded_card(c) for c in after["extra"]))
    if what == "dagger":
        return replace(s, dagger=after)
    if what == "location":
        return replace(s, locations={**s.locations, d["player"]: after})
    if what == "turn":
        # The turn in play is over at the table: its end happens as any turn's end does (a
        # Forum of 5 or more into the Curia, the Dagger on, perhaps the game's end: "Once
        # there are 5 or more Fate cards in the Forum after the end of your turn ..."), and
        # then it is that player's turn, from its Move.
        return _end_turn(s, d, after)
    if what == "tribune":
        turn = s.turn
        if turn is not None and turn.step == "issue" and turn.player != after:
            turn = replace(turn, step="discard")   # no longer the Tribune: the turn's last step
        return replace(s, tribune=after, turn=turn)
    s = replace(s, curia_count=after)
    if s.phase in ("curia_reveal", "tableaux"):  # the real number of cards decides when the reveal ends
        s = replace(s, phase="curia_reveal" if len(s.curia_revealed) < after else "tableaux")
    return s


def _on_exile_called(s: State, d: Data) -> State:
    return replace(s, phase="exile_called", exile={"caller": d["caller"], "target": d["target"],
                                                  "bribe_seconds": d["bribe_seconds"]},
                   turn=replace(_turn(s), exile_called=True))


def _on_swayed(s: State, d: Data) -> State:
    # a public fact for the record; the Sway card itself stays secret
    turn = _turn(s)
    return replace(s, turn=replace(turn, swayed_in=turn.swayed_in + (d["step"],)))


def _on_ability_swayed(s: State, d: Data) -> State:
    # a public fact for the history (who Swayed whom, and why); the card stays secret
    return replace(s, notes=s.notes + ({"kind": "ability_swayed", **d},))


def _on_step_done(s: State, d: Data) -> State:
    turn = _turn(s)
    nxt = STEPS[STEPS.index(turn.step) + 1]
    return replace(s, turn=replace(turn, step=nxt))


def _on_turn_ended(s: State, d: Data) -> State:
    return _end_turn(s, d)


def _on_issues_placed(s: State, d: Data) -> State:
    return replace(s, issues={"red": d["red"], "grey": d["grey"], "vote": d["vote"], "held_over": False})


def _on_vote_result(s: State, d: Data) -> State:
    if d["vote"] == "issue":
        if d["tie"]:
            return replace(s, phase="issue_tie")
        return _issue_chosen(s, d["winner"])
    if d["tie"]:
        return replace(s, phase="exile_tie")
    return _exile_decided(s, d["winner"] == scoring.EXILE, False)


def _on_tie_broken(s: State, d: Data) -> State:
    if d["vote"] == "issue":
        return _issue_chosen(s, d["choice"])
    return _exile_decided(s, d["choice"] == scoring.EXILE, True)


def _issue_chosen(s: State, colour: str) -> State:
    assert s.issues is not None  # the vote was on them
    return replace(s, phase="issue_resolve", issues={**s.issues, "colour": colour})


def _exile_decided(s: State, exiled: bool, tie: bool) -> State:
    ex = s.exile
    # the vote was on it: a journal deciding one Exile twice (two copies of the app) does not fold
    assert ex is not None, "an Exile decided with no Exile called"
    record = {"caller": ex["caller"], "target": ex["target"], "exiled": exiled, "tie": tie}
    shamed = s.shamed if exiled or ex["caller"] in s.shamed else s.shamed + (ex["caller"],)
    told = ("exiled", {"player": ex["target"]}) if exiled else ("shamed", {"player": ex["caller"]})
    return replace(s, phase="turn", exile=None, exiles=s.exiles + (record,), shamed=shamed,
                   told=s.told + (told,))


def _on_eyes_closed(s: State, d: Data) -> State:
    return replace(s, phase="eyes_closed", eyes_closed=d["group"])


def _on_eyes_opened(s: State, d: Data) -> State:
    return replace(s, phase="issue_resolve", eyes_closed=None)


def _on_issue_resolved(s: State, d: Data) -> State:
    s = replace(s, issues=None, phase="turn")
    if d["kalends"]:  # iv. before v.: a game that ends here ends with the deck unpassed
        s = _advance_dagger(s, "kalends")
        if s.ended_by:
            return s
    s = replace(s, tribune=d["next_tribune"],
                told=s.told + (("pass_deck", {"from": d["tribune"], "to": d["next_tribune"]}),))
    return _end_turn(s, d)


def _on_abilities_done(s: State, d: Data) -> State:
    return replace(s, phase="curia_reveal" if s.curia_count else "tableaux")


def _on_curia_card_revealed(s: State, d: Data) -> State:
    revealed = s.curia_revealed + ({"card": dict(d["card"]), "serial": d["serial"]},)
    untapped = s.curia_untapped + ((len(revealed),) if d["serial"] is not None else ())
    return replace(s, curia_revealed=revealed, curia_untapped=untapped,
                   phase="tableaux" if len(revealed) >= s.curia_count else "curia_reveal")


def _on_curia_card_tapped(s: State, d: Data) -> State:
    # the tap named a card a scan had counted: that card is claimed by both, counted once
    return replace(s, curia_untapped=tuple(i for i in s.curia_untapped if i != d["index"]))


def _on_curia_card_claimed(s: State, d: Data) -> State:
    revealed = list(s.curia_revealed)
    revealed[d["index"] - 1] = {**revealed[d["index"] - 1], "serial": d["serial"]}
    return replace(s, curia_revealed=tuple(revealed))


def _on_tableau_revealed(s: State, d: Data) -> State:
    tableaux = dict(s.tableaux)
    tableaux[d["name"]] = {"citizen": dict(d["citizen"]), "sway": [dict(x) for x in d["sway"]]}
    if d.get("cicero"):
        tableaux[d["name"]]["cicero"] = d["cicero"]
    return replace(s, tableaux=tableaux,
                   phase="opportunists" if len(tableaux) == len(s.players) else "tableaux")


def _on_game_over(s: State, d: Data) -> State:
    return replace(s, phase="over", result=dict(d["result"], opportunist_play=list(d["opportunist_play"])))


# -- helpers of the fold ----------------------------------------------------------------------

def _end_turn(s: State, d: Data, nxt: str | None = None) -> State:
    """The end of a turn: a Forum of 5 or more goes into the Curia and the Dagger advances;
    then the next player clockwise (or ``nxt``, the player whose turn the table says it is:
    a new round begins if the turns pass the starting player on the way). In Tria Ludio a
    Tribune who only placed the Issues keeps the deck and votes on them next time."""
    player = _turn(s).player   # a turn is ending
    if s.issues is not None and not s.issues.get("vote"):
        s = replace(s, issues={**s.issues, "held_over": True})
    # Legacy: a turn's end recorded before its flush was is decided here, as then.
    if (d["flush"] if "flush" in d else forum_full(s)):
        s = _flush_forum(s, "flush")
        s = replace(s, flushes=s.flushes + 1)
        s = _advance_dagger(s, "forum")
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


def _flush_forum(s: State, why: str) -> State:
    cards = forum_cards(s)
    known = s.curia_known + tuple(dict(c.card) for c in cards if c.faceup and c.card)
    told = s.told + ((why, {"cards": len(cards), "curia": s.curia_count + len(cards)}),) if cards else s.told
    return replace(s, curia_count=s.curia_count + len(cards), curia_known=known,
                   forum=(None,) * 5, forum_extra=(), told=told)


def _advance_dagger(s: State, why: str) -> State:
    s = replace(s, dagger=s.dagger + 1)
    into_curia = s.dagger >= s.kalends.curia
    s = replace(s, told=s.told + (("dagger", {"why": why, "space": s.dagger, "curia": into_curia,
                                              "black": s.kalends.is_black(s.dagger)}),))
    if into_curia:
        # "the game immediately ends": I. the Forum goes into the Curia
        s = _flush_forum(s, "final_flush")
        s = replace(s, ended_by=why, turn=None, exile=None, issues=None,
                    phase="curia_reveal" if s.options.simplicitas else "end_abilities")
        if s.phase == "curia_reveal" and not s.curia_count:
            s = replace(s, phase="tableaux")
    return s


# One fold per event kind of ours (state.EventKind; tests/games/test_game_flow.py checks the two agree).
FOLDS: dict[str, Callable[[State, Data], State]] = {
    "setup_ticked": _on_setup_ticked, "play_began": _on_play_began, "board_confirmed": _on_board_confirmed,
    "moved": _on_moved, "fate_played": _on_fate_played, "forum_card_discarded": _on_forum_card_discarded,
    "forum_swapped": _on_forum_swapped, "dove_on_knife": _on_dove_on_knife,
    "board_corrected": _on_board_corrected, "exile_called": _on_exile_called, "swayed": _on_swayed,
    "ability_swayed": _on_ability_swayed, "step_done": _on_step_done, "turn_ended": _on_turn_ended,
    "issues_placed": _on_issues_placed, "vote_result": _on_vote_result, "tie_broken": _on_tie_broken,
    "eyes_closed": _on_eyes_closed, "eyes_opened": _on_eyes_opened, "issue_resolved": _on_issue_resolved,
    "abilities_done": _on_abilities_done, "curia_card_revealed": _on_curia_card_revealed,
    "curia_card_tapped": _on_curia_card_tapped, "curia_card_claimed": _on_curia_card_claimed,
    "tableau_revealed": _on_tableau_revealed, "game_over": _on_game_over,
}
