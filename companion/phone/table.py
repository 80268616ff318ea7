"""The table on a seated phone: what one seat's phone shows of the game, and the feed that
hands it to the phone's long poll.

:func:`seat_payload` is pure (no Kivy, no server): from the game's per-seat view
(``GameRules.view(state, seat)``, its public API) it keeps the public board the tablet shows,
whose turn it is and what the rulebook asks of this seat now, the running timers, the public
history (revealed votes, the table's notes) and the result, all said in the phone's language.
It is built from a list of fields per game (a whitelist): nothing the view holds for this
seat alone reaches a phone (Seven Knights' own recommendation token before the reveal, for
one), and never a ballot before the reveal (a vote's ballots are in a view only once revealed;
the phone's vote area shows its question, see :meth:`.server.PhoneServer._vote_for`).

During an eyes-closed phase (23 Knives' eyes-closed Issues, Masks' Hidden Phase) the payload
is the same for every seat and does not change until the eyes open: the game's name and "eyes
closed", nothing that follows the hidden setup or the game's progress; a phone lighting up
would be a tell.

:class:`TableFeed` keeps the latest payload of each (seat, language) with a version number that
moves only when the payload changes; a phone's long poll waits on it (see :mod:`.endpoints`).
The tablet's main thread publishes (``PhoneSource.poll``); server threads only read.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Iterable, Mapping

from companion.core import i18n
from companion.core.rules import GameRules

from .words import say

# The phases in which players have their eyes closed, by game.
EYES_CLOSED = {"knives23": frozenset({"eyes_closed"}), "masks": frozenset({"hidden"})}
HISTORY_LINES = 12
# The phases in which the tablet shows each game's timer (the app's game screens): a countdown
# left running past its phase (a bribe cut short by the vote) is not the table's timer any more.
TIMER_PHASES = {"knives23.bribe": frozenset({"exile_called"}),
                "cicero.debate": frozenset({"debate"}),
                "masks.discussion": frozenset({"discussion"})}


def _t(value: Any, lang: str) -> str:
    return " ".join(i18n.text_of(value, lang).split()) if value not in (None, "") else ""


def _row(lang: str, key: str, value: Any) -> list[str]:
    return [say(lang, f"phone.table.{key}"), str(value)]


def _names(names: Iterable[str]) -> str:
    return ", ".join(names) or "–"


def _knives23(v: Mapping, seat: str, lang: str) -> tuple[list, str | None]:
    k, forum = v["kalends"], v["forum"]
    rows = [_row(lang, "round", v["round"]), _row(lang, "tribune", v["tribune"] or "–"),
            _row(lang, "kalends", say(lang, "phone.table.dagger_curia") if k["dagger"] >= k["curia_space"]
                 else say(lang, "phone.table.dagger_on", space=k["dagger"], spaces=k["spaces"],
                          curia=k["curia_space"])),
            [say(lang, "knives23.ui.forum"), say(lang, "phone.table.forum_count", count=forum["count"],
                                    cards=forum["cards"])],
            _row(lang, "curia", v["curia"]["count"])]
    turn, asks = v.get("turn"), None
    if turn:
        rows.append(_row(lang, "turn", turn["player"]))
        if turn["player"] == seat:
            asks = say(lang, "phone.table.asks_step", step=_t(turn["step_names"][
                turn["steps"].index(turn["step"])] if turn["step"] in turn["steps"] else turn["step"],
                lang), action=_t(turn["action"], lang))
    return rows, asks


def _cicero(v: Mapping, seat: str, lang: str) -> tuple[list, str | None]:
    rows = [_row(lang, "round", f"{v['round']}/{v['rounds']}"),
            _row(lang, "princeps", v.get("princeps") or "–"),
            [say(lang, "cicero.ui.prestige_track"), ", ".join(f"{p} {n}" for p, n in v["prestige"].items())]]
    for c in v.get("castes", []):
        if c.get("primus") or c.get("secundus"):
            rows.append([say(lang, "phone.table.caste", caste=c["caste"]),
                         _names(x for x in (c.get("primus"), c.get("secundus")) if x)])
    for g in v.get("guilds", []):
        if g.get("holder"):
            rows.append([say(lang, "phone.table.guild", guild=g["guild"]), g["holder"]])
    # a player to act: the draft's picker, or who sends a Servant next
    return rows, _turn(rows, v, (v.get("draft") or {}).get("player") or v.get("next_to_place"),
                       seat, lang)


def _turn(rows: list, v: Mapping, player: str | None, seat: str, lang: str) -> str | None:
    """Adds whose turn it is to ``rows``; what the rulebook asks of ``seat`` (the table's
    prompt) when it is theirs."""
    if not player:
        return None
    rows.append(_row(lang, "turn", player))
    return _t(v.get("prompt"), lang) if player == seat else None


def _sevenknights(v: Mapping, seat: str, lang: str) -> tuple[list, str | None]:
    rows = [_row(lang, "round", f"{v['round']}/{v['rounds']}"),
            _row(lang, "captain", v.get("captain") or "–"),
            _row(lang, "scores", ", ".join(f"{p} {n}" for p, n in v["totals"].items()))]
    return rows, _turn(rows, v, v.get("turn"), seat, lang)


def _masks(v: Mapping, seat: str, lang: str) -> tuple[list, str | None]:
    minutes = round(v["discussion_seconds"] / 60, 1)
    rows = [_row(lang, "discussion", say(lang, "phone.table.minutes",
                                         n=int(minutes) if minutes == int(minutes) else minutes))]
    if v.get("most_voted"):
        rows.append(_row(lang, "most_voted", _names(v["most_voted"])))
    asks = None
    if v.get("phase") == "executioner" and v.get("executioner") == seat:
        asks = _t(v.get("prompt"), lang)
    return rows, asks


BOARDS: dict[str, Callable[[Mapping, str, str], tuple[list, str | None]]] = {
    "knives23": _knives23, "cicero": _cicero, "sevenknights": _sevenknights, "masks": _masks}


def _history(v: Mapping, lang: str) -> list[str]:
    lines = []
    for vote in v.get("vote_history") or []:   # revealed votes: public at the table
        counts = ", ".join(f"{_option(o, lang)} {n}" for o, n in (vote.get("counts") or {}).items())
        lines.append(say(lang, "phone.table.vote_line", question=_t(vote.get("question"), lang),
                         counts=counts or "–"))
    lines += [_t(n, lang) for n in v.get("history_notes") or []]
    return lines[-HISTORY_LINES:][::-1]


def _option(option: Any, lang: str) -> str:
    from .server import option_words
    return option_words(str(option), lang) if option is not None else say(lang, "phone.page.abstain")


def seat_payload(rules: GameRules, state: Any, seat: str, lang: str,
                 timers: Iterable[Mapping] = ()) -> dict:
    """What ``seat``'s phone shows of the game, in ``lang``. ``timers``: the tablet's running
    countdowns, ``{"id", "name", "ends_at" (epoch seconds), "remaining", "running"}``; those
    of another phase than this one (:data:`TIMER_PHASES`) are left out."""
    game = rules.game_id
    phase = getattr(state, "phase", None)
    title = say(lang, rules.title) if rules.title and i18n.has(rules.title) else game
    if phase in EYES_CLOSED.get(game, ()):
        # the same for every seat and every hidden setup, until the eyes open
        return {"game": title, "eyes_closed": True, "prompt": say(lang, "phone.table.eyes_closed"),
                "detail": say(lang, "phone.table.eyes_closed_detail")}
    v = rules.view(state, seat)
    board, asks = BOARDS[game](v, seat, lang) if game in BOARDS else ([], None)
    outcome = rules.outcome(state)
    result = None
    if outcome is not None:
        result = {"summary": _t(outcome.get("summary"), lang),
                  "winners": list(outcome.get("winners") or []),
                  "won": seat in (outcome.get("winners") or [])}
    vote = v.get("vote")
    phase_key = f"{game}.phase.{phase}"
    phase_words = _t(v.get("phase_title") or v.get("phase_name"), lang) or (
        say(lang, phase_key) if i18n.has(phase_key) else "")
    return {"game": title, "eyes_closed": False, "seat": seat, "phase": phase_words,
            "prompt": _t(v.get("prompt"), lang), "your_turn": asks is not None, "asks": asks,
            "board": board,
            "voting": bool(vote and not vote.get("revealed") and seat in vote.get("voters", ())),
            # a running timer by when it ends (the page counts down), a paused one by what is
            # left: the payload stays the same while a timer runs
            "timers": [{"name": _t(t["name"], lang), "running": bool(t["running"]),
                        "ends_at": t["ends_at"] if t["running"] else None,
                        "remaining": None if t["running"] else round(t["remaining"])}
                       for t in timers if phase in TIMER_PHASES.get(str(t.get("id")), (phase,))],
            "history": _history(v, lang), "result": result}


class TableFeed:
    """The latest payload per (seat, language) and its version; long polls wait here."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._payloads: dict[tuple[str, str], dict] = {}
        self._versions: dict[tuple[str, str], int] = {}
        self._wanted: set[tuple[str, str]] = set()
        self._serial = 0

    def wanted(self) -> set[tuple[str, str]]:
        """The (seat, language) pairs some phone has asked for: what the tablet builds."""
        with self._cond:
            return set(self._wanted)

    def want(self, seat: str, lang: str) -> None:
        with self._cond:
            self._wanted.add((seat, lang))

    def publish(self, payloads: Mapping[tuple[str, str], dict]) -> None:
        """New payloads (main thread); a version moves only where its payload changed."""
        with self._cond:
            changed = False
            for key, payload in payloads.items():
                if self._payloads.get(key) != payload:
                    self._serial += 1
                    self._payloads[key] = payload
                    self._versions[key] = self._serial
                    changed = True
            if changed:
                self._cond.notify_all()

    def clear(self) -> None:
        with self._cond:
            self._payloads.clear()
            self._versions.clear()
            self._cond.notify_all()

    def current(self, seat: str, lang: str) -> tuple[int, dict | None]:
        with self._cond:
            key = (seat, lang)
            return self._versions.get(key, 0), self._payloads.get(key)

    def wait(self, seat: str, lang: str, seen: int, seconds: float,
             give_up: Callable[[], bool] = lambda: False) -> tuple[int, dict | None]:
        """The payload once its version is not ``seen`` (at once if it is already), or after
        ``seconds``; sooner when ``give_up()`` turns true (checked every half second)."""
        self.want(seat, lang)
        end = time.monotonic() + seconds
        with self._cond:
            key = (seat, lang)
            while self._versions.get(key, 0) == seen and not give_up():
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(min(left, 0.5))
            return self._versions.get(key, 0), self._payloads.get(key)
