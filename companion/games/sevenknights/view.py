"""Seven Knights Bewitched: what each viewer sees (``view``), the prompt, and the outcome. The
tablet keeps only what the table makes public; a player's own secret recommendation reaches
only that player's view."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.core import votes
from companion.core.houserules import applies
from companion.core.i18n import joined, keyed
from companion.core.rules import Outcome

from .rules import (correctable_arrows, correction_text, header_flags, look_targets, question_text, round_flags,
                    toriko_places, witch_places)
from .scoring import TIE_HOW
from .state import Question, Result, SevenKnightsState, result_data, winners
from .tables import POINTS_READING_DECIDES, ROUND_POINTS, WITCH, Mode

GAME_ID = "sevenknights"


def view(state: SevenKnightsState, viewer: str) -> dict:
    mode, n, rnd = state.rules_mode, len(state.players), state.round
    turn_player = None
    if state.phase in ("search", "questions"):
        turn_player = state.order[state.turn]
    elif state.phase in ("order_question", "captain_reveal", "formation"):
        turn_player = rnd.captain
    v: dict[str, Any] = {
        "game": GAME_ID, "mode": mode.key, "mode_title": keyed(f"sevenknights.mode.{mode.key}"),
        "phase": state.phase, "phase_title": keyed(f"sevenknights.phase.{state.phase}"),
        "prompt": prompt(state),
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


def prompt(state: SevenKnightsState) -> dict:
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


def outcome(state: SevenKnightsState) -> Outcome | None:
    if state.phase != "game_over":
        return None
    w = winners(state)
    totals = ", ".join(f"{p} {t}" for p, t in zip(state.players, state.totals))
    return {"winners": w, "summary": keyed("sevenknights.summary", winners=", ".join(w), totals=totals)
            if state.rules_mode.scored else keyed(
        "sevenknights.result.knights" if w else "sevenknights.result.none")}



def standings(state: SevenKnightsState) -> list[dict]:
    rows = [{"player": p, "total": t} for p, t in zip(state.players, state.totals)]
    return sorted(rows, key=lambda r: -r["total"])



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


def tiles_text(tiles: Sequence[int | str]) -> dict:
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

