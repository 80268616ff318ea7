"""docs/commands.md from the games' command tables, so the documentation cannot drift.

    python -m companion.core.commands_doc > docs/commands.md

The vocabulary is generated from the tables; each game's worked example is a real game,
played once by a seeded walk over ``legal_commands`` and kept in the document. The tests
check that the document equals this output and that every worked example, fed to
``python -m companion.referee GAME play``, ends with the outcome written under it.
"""
from __future__ import annotations

import importlib
import json
import random
import sys
from typing import TYPE_CHECKING, Any

from .commands import TABLE, legal_commands, play, vocabulary

if TYPE_CHECKING:
    from .events import Event

GAMES = {
    # game: (rules class, the worked example's setup, seed, commands left out of the walk)
    "masks": ("companion.games.masks.rules:MasksRules",
              {"players": ["Ada", "Bo", "Cy", "Dee", "Eli"]}, 3, ()),
    "knives23": ("companion.games.knives23.rules:Knives23Rules",
                 {"players": ["Ada", "Bo", "Cy", "Dee"]}, 1,
                 ("correct_forum", "correct_dagger", "correct_curia", "discard_forum", "sabinus_dove",
                  "servilia_swap", "confirm_board", "curia_claim", "eyes_closed", "play_fate:effect")),
    "sevenknights": ("companion.games.sevenknights.rules:SevenKnightsRules",
                     {"players": ["Ada", "Bo", "Cy", "Dee"], "mode": "basic"}, 1, ()),
    "cicero": ("companion.games.cicero.rules:CiceroRules",
               {"players": ["Ada", "Bo", "Cy"], "ages": {"Ada": 41, "Bo": 35, "Cy": 29}}, 1,
               ("economy", "adjust_prestige")),
}
TITLES = {"masks": "Royals and Martyr (masks)", "knives23": "23 Knives", "sevenknights": "Seven Knights Bewitched",
          "cicero": "Cicero"}


def rules_for(game: str) -> Any:   # the game's GameRules, imported by name
    path, cls = GAMES[game][0].split(":")
    return getattr(importlib.import_module(path), cls)()


def walk(game: str, limit: int = 3000) -> list[dict]:
    """A whole game by a seeded walk over what is legal (the worked example)."""
    from .events import Command
    from .rules import fold_step
    rules = rules_for(game)
    _, setup, seed, skip = GAMES[game]
    rng = random.Random(seed)
    state = rules.initial_state(setup)
    out: list[dict] = []
    while rules.outcome(state) is None and len(out) < limit:
        legal = [e for e in legal_commands(rules, state) if e.name not in skip]
        entry = rng.choice(legal)
        spec = rules.commands[entry.name]
        fresh = [c for c in rules.commands.candidates(spec, state, rng=rng)
                 if rules.commands.accepts(rules, state, spec.name, c)
                 and not (f"{spec.name}:effect" in skip and c.get("effect"))]
        data = rng.choice(fresh or list(entry.examples))
        for n, (kind, d) in enumerate(rules.decide(state, Command(entry.name, data))):
            state = fold_step(rules, state, _event(len(out) + n, kind, d))
        out.append({"command": entry.name, **data})
    return out


def _event(seq: int, kind: str, data: Any) -> Event:
    from .events import Event
    return Event(seq, kind, json.loads(json.dumps(data)))


def vocabulary_md(game: str) -> str:
    rules = rules_for(game)
    lines = [f"### Commands (`{game}`)", ""]
    for c in vocabulary(rules.commands):
        lines.append(f"- **`{c['name']}`** — {c['doc']}. Sent by: {', '.join(c['who'])}.")
        for a in c["args"]:
            opt = "" if a["required"] else ", optional"
            lines.append(f"  - `{a['name']}` ({a['type']}{opt}): {a['doc']}")
        lines.append(f"  - Rule: \u201c{c['rule']}\u201d")
    return "\n".join(lines) + "\n"


def example_input(game: str, commands: list[dict]) -> str:
    setup = GAMES[game][1]
    body = ",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in commands)
    return '{"setup": ' + json.dumps(setup, ensure_ascii=False) + ',\n "commands": [\n' + body + "\n]}"


def outcome_of(game: str, text: str) -> dict:
    answer = play(rules_for(game), json.loads(text))
    out = answer["outcome"]
    return {"winners": list(out["winners"])} if out else {}


HEAD = """# The games' commands

Every game declares its commands as data (`companion/core/commands.py`; the tables sit at the
end of each `companion/games/<game>/rules.py`): the name, who may send it (`table`: the tablet,
worked by the table or the narrator; `seat`: one player's own input, for themself; `device`: a
vote box, a phone or the camera), its arguments with their types, and the rulebook's words for
the rule it enforces. The table dispatches every command, checks each argument's type before the
rule runs (a wrong type is an error naming the argument), and answers `legal_commands(state,
seat)`: the commands the rules accept now, with the allowed values of each finite argument.

`python -m companion.referee GAME play < game.json` plays a whole game: the input is
`{"setup": {...}, "commands": [{"command": NAME, ARGUMENT: VALUE, ...}, ...]}` (`{"command":
"undo"}` takes back the last table action); the answer is the table's final view, the outcome,
the number of events recorded and what is legal next. The first command the rules refuse stops
the game: one line `error: commands[INDEX] (NAME): the reason (rule: "the rulebook's words")`,
exit 2.

This file is generated by `python -m companion.core.commands_doc` (the worked games were played
once by a seeded walk over the legal commands); `tests/test_commands_doc.py` checks it against
the tables and plays every worked game through `referee GAME play`.
"""


def document(examples: dict[str, list[dict]] | None = None) -> str:
    parts = [HEAD]
    for game in GAMES:
        commands = (examples or {}).get(game) or walk(game)
        text = example_input(game, commands)
        parts.append(f"## {TITLES[game]}\n\n" + vocabulary_md(game))
        parts.append(f"### A worked game ({len(commands)} commands)\n\n"
                     f"`python -m companion.referee {game} play` with:\n\n```json\n{text}\n```\n\n"
                     f"Outcome: `{json.dumps(outcome_of(game, text), ensure_ascii=False)}`\n")
    return "\n".join(parts)


def examples_in(markdown: str) -> dict[str, str]:
    """The worked games' inputs in the document, by game."""
    out = {}
    for game in GAMES:
        marker = f"`python -m companion.referee {game} play` with:\n\n```json\n"
        start = markdown.index(marker) + len(marker)
        out[game] = markdown[start:markdown.index("\n```", start)]
    return out


def main() -> int:
    sys.stdout.write(document())
    return 0


if __name__ == "__main__":
    sys.exit(main())
