"""23 Knives' views: ``view(state, viewer)`` (per-viewer: a player sees their own ballot, nobody
another's) and ``outcome(state)``; the words a view carries are keys and values (screens
translate), including the physical steps the table is told and the history's notes."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.core import houserules, votes
from companion.core.i18n import joined, keyed
from companion.core.rules import NARRATOR, TABLE, Outcome
from companion.core.timers import timer_view

from . import scoring
from .setup import TIE_BREAK
from .state import (ABILITY_SWAY_PHASES, CURIA_CORRECTION_PHASES, EFFECT_PHASES, GAME_ID, SETUP_STEPS, STEPS,
                    State, exile_allowed, forum_cards, forum_count, forum_full, next_space, running_total,
                    seat_view_order)
from .tables import tables


def group_words(group: str) -> dict[str, Any] | str:
    """The eyes-closed group as said and shown: a listed group's id as a key (said in the
    language of whoever shows it), a group typed from the Issue card as typed."""
    return keyed(f"knives23.group.{group}") if group in tables()["eyes_closed_groups"] else group


def issue_name(issues: Mapping[str, Any], colour: str) -> Any:
    """An Issue as the table names it: as typed, or "the red Issue" when the Tribune typed none."""
    return issues[colour] or keyed(f"knives23.issue_default.{colour}")


def outcome(state: State) -> Outcome | None:
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


def view(state: State, viewer: str) -> dict[str, Any]:
    k = state.kalends
    v: dict[str, Any] = {
        "game": GAME_ID, "phase": state.phase, "prompt": prompt(state),
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
                  "next_space": next_space(state),
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
        v["setup"] = [{"step": s, "text": setup_text(state, s), "done": s in state.setup_done}
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
                    "opportunists": opportunists(state) if state.phase in ("opportunists", "over") else None,
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


def opportunists(state: State) -> list[str]:
    return [p for p in state.players if p in state.tableaux and
            scoring.tableau({"name": p, **state.tableaux[p]}).allegiance == scoring.OPPORTUNIST]


def setup_text(state: State, step: str) -> dict[str, Any]:
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


def prompt(state: State) -> dict[str, Any]:
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
        out = outcome(state)
        assert out is not None  # phase "over" has a result
        return out["summary"]
    return keyed(f"knives23.prompt.{p}", tribune=state.tribune, count=state.curia_count)


def told_lines(key: str, d: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A physical step (state ``told``) in the table's words: what to do with the real pieces."""
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


def card_words(entry: Mapping[str, Any] | None) -> dict[str, Any]:
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


def _forum_words(f: Mapping[str, Any]) -> dict[str, Any]:
    return joined([joined([card_words(c) for c in f["spaces"]], "; ")] + [card_words(c) for c in f["extra"]], " + ")


def note_line(n: Mapping[str, Any]) -> dict[str, Any]:
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
        before, after = _forum_words(before), _forum_words(after)
    return keyed(f"knives23.note.corrected_{what}", before=before, after=after, reason=n["reason"])
