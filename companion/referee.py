"""The referee: the games' rule functions as a JSON command line.

    python -m companion.referee GAME QUESTION < question.json

reads one JSON object on stdin and prints one JSON object on stdout (exit 0). Malformed or
impossible input exits 2 with one line ``error: …`` on stderr and nothing on stdout. The app's
screens call the same functions.

Each game package ``companion.games.<game>`` has a module ``referee`` with a dict ``QUESTIONS``
mapping a question name to ``function(dict) -> dict``.
"""
from __future__ import annotations

import importlib
import json
import sys
from typing import Callable, Mapping

from .core.events import BadInput, RuleError

GAMES = ("knives23", "masks", "sevenknights", "cicero")


def questions(game: str) -> Mapping[str, Callable[[dict], dict]]:
    if game not in GAMES:
        raise BadInput(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    try:
        module = importlib.import_module(f"companion.games.{game}.referee")
    except ModuleNotFoundError:
        raise BadInput(f"game {game!r} has no referee yet") from None
    return module.QUESTIONS


def ask(game: str, question: str, data) -> dict:
    table = questions(game)
    if question not in table:
        raise BadInput(f"unknown question {question!r} for {game}; questions: {', '.join(sorted(table))}")
    if not isinstance(data, dict):
        raise BadInput("input must be one JSON object")
    return table[question](data)


def main(argv: list[str] | None = None, stdin=None, stdout=None, stderr=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    if len(argv) != 2:
        print("error: usage: python -m companion.referee GAME QUESTION < input.json "
              f"(games: {', '.join(GAMES)})", file=stderr)
        return 2
    game, question = argv
    try:
        text = stdin.read()
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise BadInput(f"input is not valid JSON: {exc}") from None
        answer = ask(game, question, data)
    except (BadInput, RuleError) as exc:
        print(f"error: {exc}", file=stderr)
        return 2
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        # A shape the question's own checks did not foresee: still one line, still exit 2.
        print(f"error: malformed input ({type(exc).__name__}: {exc})", file=stderr)
        return 2
    stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
