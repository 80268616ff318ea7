"""The referee: the games' rule functions as a JSON command line.

    python -m companion.referee GAME QUESTION < question.json
    python -m companion.referee --help          (games and questions)

reads one JSON object on stdin and prints one JSON object on stdout (exit 0). Anything wrong —
malformed JSON, a key the question does not know, a count the game's box cannot hold, a player
count outside the rulebook's range, nesting too deep — exits 2 with one line ``error: …`` on
stderr and nothing on stdout. A failure inside the rules once the input was read and checked
(a KeyError, a TypeError…) is a bug, not bad input: exit 3, one line ``internal error: …`` on
stderr naming the log file that holds the traceback. The app's screens call the same rule functions.

Each game package ``companion.games.<game>`` has a module ``referee`` with a dict ``QUESTIONS``
mapping a question name to ``function(dict) -> dict``. A function may carry a schema
(``companion.core.schema.question``); ``ask`` checks it first, the one strictness mechanism.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import traceback
from typing import Any, Callable, Iterable, Mapping, NoReturn, TextIO

from .core import i18n
from .core.events import BadInput, RuleError
from .core.i18n import keyed
from .core.schema import check
from .games import GAMES

MAX_INPUT = 1_000_000  # characters: a question is a table's worth of data, not a file dump


def questions(game: str) -> Mapping[str, Callable[[dict], dict]]:
    if game not in GAMES:
        raise BadInput(keyed("refusals.referee.unknown_game", game=game, games=", ".join(GAMES)))
    try:
        module = importlib.import_module(f"companion.games.{game}.referee")
    except ModuleNotFoundError:
        raise BadInput(keyed("refusals.referee.no_referee", game=game)) from None
    return module.QUESTIONS


def ask(game: str, question: str, data: Any) -> dict:
    table = questions(game)
    if question not in table:
        raise BadInput(keyed("refusals.referee.unknown_question", question=question, game=game,
                             questions=", ".join(sorted(table))))
    if not isinstance(data, dict):
        raise BadInput(keyed("refusals.referee.one_object"))
    fn = table[question]
    schema = getattr(fn, "schema", None)
    if schema is not None:
        data = check(schema, data)
    return fn(data)


def _no_duplicates(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise BadInput(keyed("refusals.referee.key_twice", entry=key))
        seen[key] = value
    return seen


def _no_constant(name: str) -> NoReturn:
    raise BadInput(keyed("refusals.referee.not_a_number", name=name))


def parse(text: str) -> Any:
    """Strict JSON: no NaN/Infinity, no key twice in an object, no nesting deep enough to
    exhaust the parser (one line, never a RecursionError)."""
    if len(text) > MAX_INPUT:
        raise BadInput(keyed("refusals.referee.too_long", size=len(text), most=MAX_INPUT))
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
        # JSON may spell half of a UTF-16 pair alone ("\\ud800"): Python keeps it, and the answer,
        # which repeats names, could then not be written as UTF-8.
        json.dumps(data, ensure_ascii=False).encode("utf-8")
        return data
    except UnicodeEncodeError as exc:
        raise BadInput(keyed("refusals.referee.lone_surrogate", code=f"\\u{ord(exc.object[exc.start]):04x}")) from None
    except RecursionError:
        raise BadInput(keyed("refusals.referee.too_deep")) from None
    except BadInput:
        raise
    except ValueError as exc:  # JSONDecodeError, a number too long to read
        raise BadInput(keyed("refusals.referee.bad_json", line=exc.lineno, column=exc.colno)
                       if isinstance(exc, json.JSONDecodeError) else keyed("refusals.referee.bad_number")) from None


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one ``error:`` line and exit 2, like bad input."""

    def __init__(self, *args: Any, stderr: TextIO | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._stderr = stderr

    def error(self, message: str) -> NoReturn:
        print(f"error: {message} (see --help)", file=self._stderr or sys.stderr)
        raise SystemExit(2)


def _epilog() -> str:
    lines = ["questions:"]
    for game in GAMES:
        try:
            names = ", ".join(sorted(questions(game)))
        except Exception as exc:  # help still helps when one game's module is broken
            names = f"(unavailable: {type(exc).__name__})"
        lines.append(f"  {game}: {names}")
    lines.append("Input: one JSON object on stdin; answer: one JSON object on stdout.")
    lines.append("Bad input: one line 'error: ...' on stderr, exit 2. A bug in the rules: one line")
    lines.append("'internal error: ...' naming the log with the traceback, exit 3. See docs/referee.md.")
    return "\n".join(lines)


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    parser = _Parser(prog="python -m companion.referee", stderr=stderr,
                     description="Ask the games' rules a question: JSON in, JSON out.",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=GAMES, help="the game")
    parser.add_argument("question", help="the question (listed below per game)")
    parser.add_argument("--lang", default="en", help="the language of the error messages and "
                        "of the answers' words (en, fr, de; default en)")
    try:
        if any(a in ("-h", "--help") for a in argv):
            parser.epilog = _epilog()
            parser.print_help(stdout)
            return 0
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        i18n.set_language(args.lang)  # first, so every refusal below is said in --lang
        raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BadInput(keyed("refusals.referee.not_utf8", byte=exc.start)) from None
        answer = i18n.texts(ask(args.game, args.question, parse(raw)))  # messages said in --lang
        text = json.dumps(answer, ensure_ascii=False)
    except (BadInput, RuleError) as exc:
        print(f"error: {_one_line(i18n.error_text(exc))}", file=stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 — anything else is a bug in the rules, not bad input
        print(internal_error(exc, args.game, args.question), file=stderr)
        return 3
    stdout.write(text + "\n")
    return 0


def internal_error(exc: BaseException, game: str, question: str) -> str:
    """The one line said for a bug (exit 3): the input was read and checked, then the rules
    failed. The traceback goes to a new log file in the temporary folder, named in the line."""
    trace = "".join(traceback.format_exception(exc))
    try:
        fd, path = tempfile.mkstemp(prefix="companion-referee-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as log:
            log.write(f"python -m companion.referee {game} {question}\n{trace}")
        where = f"traceback in {path}"
    except OSError as why:
        where = f"no log written ({_one_line(str(why))}); {_one_line(trace)}"
    return (f"internal error: the referee failed on {game} {question} ({type(exc).__name__}: "
            f"{_one_line(str(exc))}), a bug, not your input; {where}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":
    sys.exit(main())
