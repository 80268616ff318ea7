"""A past game in full, from the journal: its votes (question, ballots, result), totals, winners
and duration — for the Past games screen and as a JSON or CSV file a person can keep.

The report folds the game's events through its rules and reads the table's view (never a
secret: only revealed votes), so the words are said in the language current when it is made.
``python -m companion export GAME_ID`` and the screen's Export button share ``export_game``.
"""
from __future__ import annotations

import csv
import errno
import io
import json
import os
from pathlib import Path
from typing import Any

from companion.core import i18n
from companion.core.events import BadInput
from companion.core.files import write_whole
from companion.core.journal import Journal
from companion.core.rules import TABLE, rules_version_of
from companion.core.session import rules_for

FORMATS = ("json", "csv")
FOLDER = "exports"


def option_text(option: str | None) -> str:
    """How a vote option reads: the catalogue's words for exile/remain/red/…, names as they are."""
    if option is None:
        return i18n.tr("vote.abstained")
    key = f"vote.option.{option}"
    return i18n.tr(key) if i18n.has(key) else option


def game_title(game: str) -> str:
    from companion.games import TITLES
    return i18n.tr(TITLES[game]) if game in TITLES else game


def game_report(journal: Journal, game_id: int) -> dict[str, Any]:
    """Everything the table may see of a game once it is over (and of one still going: what has
    been revealed so far)."""
    record = journal.game(game_id)
    events = journal.events(game_id)
    rules = rules_for(record.game)
    try:
        state = rules.fold(record.setup, events)
        view = rules.view(state, TABLE)
        outcome = rules.outcome(state)
    except Exception as exc:  # a game this version cannot replay (or show) is named, not a crash
        raise BadInput(i18n.keyed("export.no_replay", problem=str(exc) or type(exc).__name__)) from None
    ended = record.finished_at or (events[-1].at if events else record.started_at)
    votes = []
    for number, vote in enumerate(view.get("vote_history") or [], start=1):
        counts: dict[str, int] = dict(vote.get("counts") or {})
        top = max(counts.values(), default=0)
        leading = [o for o, n in counts.items() if n == top] if top else []
        votes.append({
            "number": number,
            "question": i18n.text_of(vote.get("question", "")),
            "options": list(vote.get("options", [])),
            "ballots": {v: (vote.get("ballots") or {}).get(v) for v in vote.get("voters", [])
                        if v in (vote.get("ballots") or {})},
            "missing": list(vote.get("missing") or []),
            "counts": counts,
            "leading": leading,
            "tie": len(leading) > 1,
        })
    return {
        "id": record.id,
        "game": record.game,
        "title": game_title(record.game),
        "status": record.status,
        # the rules the game was played under (None: recorded before versions were)
        "rules_version": rules_version_of(events),
        "players": list(record.setup.get("players", [])),
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "duration_seconds": round(max(0.0, ended - record.started_at)),
        "winners": list(outcome["winners"] if outcome else record.winners),
        "summary": i18n.text_of(outcome["summary"]) if outcome else record.summary,
        "totals": dict(view.get("totals") or {}),
        "votes": votes,
    }


def vote_result(vote: dict[str, Any]) -> str:
    """The vote's result in words: the leading choice, or the tie."""
    if not vote["leading"]:
        return i18n.tr("export.no_ballots")
    names = ", ".join(option_text(o) for o in vote["leading"])
    return i18n.tr("export.tie", choices=names) if vote["tie"] else i18n.tr("export.leading", choice=names)


def duration_text(seconds: float) -> str:
    if seconds < 60:
        return i18n.tr("export.under_a_minute")
    minutes = int(round(seconds / 60))
    if minutes < 60:
        return i18n.ntr("export.minutes", minutes)
    return i18n.tr("export.hours", hours=minutes // 60, minutes=f"{minutes % 60:02d}")


CSV_COLUMNS = ("game_id", "game", "vote", "question", "voter", "ballot", "result")


def to_csv(report: dict[str, Any]) -> str:
    """One row per ballot (a vote nobody answered still has its row), then the winners."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for vote in report["votes"]:
        result = vote_result(vote)
        rows = [(voter, option_text(choice)) for voter, choice in vote["ballots"].items()]
        rows += [(voter, i18n.tr("vote.missing")) for voter in vote["missing"]]
        for voter, ballot in rows or [("", "")]:
            w.writerow((report["id"], report["title"], vote["number"], vote["question"], voter, ballot, result))
    w.writerow((report["id"], report["title"], "", i18n.tr("export.winners"), "",
                ", ".join(report["winners"]), report["summary"]))
    return out.getvalue()


def export_game(journal: Journal, game_id: int, fmt: str, data_dir: str | os.PathLike) -> Path:
    """Writes the game to ``<data>/exports/<game>-<id>.<fmt>`` (a whole new file, then moved into
    place: a full disk leaves no half file) and returns its path. Failures are one line."""
    if fmt not in FORMATS:
        raise BadInput(i18n.keyed("export.bad_format", fmt=fmt))
    report = game_report(journal, game_id)
    text = json.dumps(report, indent=2, ensure_ascii=False) if fmt == "json" else to_csv(report)
    folder = Path(data_dir) / FOLDER
    path = folder / f"{report['game']}-{report['id']}.{fmt}"
    try:
        write_whole(path, text)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise BadInput(i18n.keyed("export.disk_full")) from None
        raise BadInput(i18n.keyed("export.unwritable", folder=str(folder),
                                  problem=exc.strerror or str(exc))) from None
    return path
