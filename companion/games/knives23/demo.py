"""A scripted 4-player game of 23 Knives, setup to winner: the golden transcript, the journal
test, the app test and the benchmark all play it. A short Kalends (4 spaces, Dagger on 2) keeps
it to three rounds."""
from __future__ import annotations

from typing import Any

from companion.core.events import Command

SETUP: dict[str, Any] = {"players": ["Ann", "Bo", "Cy", "Di"], "start_player": "Ann", "curia_knowledge": True,
         "kalends": {"spaces": 4, "dagger_start": 2}}


def _c(kind: str, source: str = "tablet", **data: Any) -> Command:
    return Command(kind, data, source)


def _votes(choices: dict[str, str], source: str = "tablet") -> list[Command]:
    return [_c("cast_ballot", source, voter=v, choice=c) for v, c in choices.items()]


def _steps(n: int) -> list[Command]:
    return [_c("next_step") for _ in range(n)]


K = lambda n: {"knives": n}  # noqa: E731
D = lambda n: {"doves": n}   # noqa: E731

# the Curia's 10 cards in reveal order: a total of 22, one short
CURIA = [K(5), K(3), K(2), K(3), K(5), D(2), K(3), K(2), K(2), D(1)]
TABLEAUX: dict[str, dict[str, Any]] = {
    "Ann": {"citizen": {"blood": 2}, "sway": [{"laurels": 1}]},                  # Liberator, 1
    "Bo": {"citizen": {"laurels": 1, "blood": 1}, "sway": []},                    # Opportunist
    "Cy": {"citizen": {"laurels": 2}, "sway": [{"blood": 1}, {"laurels": 2}]},    # Loyalist, 3
    "Di": {"citizen": {"blood": 1}, "sway": [{"laurels": 1}]},                    # Opportunist
}


def commands() -> list[Command]:
    # I: the table checks the drawing of the Kalends and the Forum against its board
    cmds = [_c("confirm_board", spaces=4, black_spaces=2, dagger_start=2,
               forum={"spaces": ["either"] * 5, "extra": "either"})]
    cmds += [_c("tick_setup", step=s) for s in ("II", "III", "IV", "V", "VI", "VII")]
    cmds.append(_c("begin_play"))
    # round 1 -------------------------------------------------------------------------------
    cmds += [_c("move", location="forum"), _c("play_fate", card=K(5)), _c("play_fate", facedown=True),
             _c("call_exile", target="Bo")]
    cmds += _votes({"Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile"})
    cmds += _steps(3)
    cmds += [_c("move", location="gardens"), _c("sway", target="Cy")] + _steps(3)
    cmds += [_c("move", location="forum"), _c("play_fate", card=K(3)), _c("play_fate", facedown=True)] + _steps(3)
    cmds += [_c("move", location="forum"), _c("play_fate", card=K(2))] + _steps(3)
    cmds += [_c("place_issues", red="Ides of March", grey="Vestal Virgins")]
    cmds += _votes({"Ann": "red", "Bo": "grey", "Cy": "red", "Di": "grey"}, "box:1")
    cmds += [_c("tie_break", choice="grey"), _c("eyes_closed", group="revealed_liberators"),
             _c("eyes_open"), _c("issue_resolved", kalends=False)]
    # round 2: the Dagger is on a black space -----------------------------------------------
    cmds += [_c("move", location="temple")] + _steps(3)
    cmds += [_c("move", location="forum"), _c("play_fate", card=D(2))] + _steps(3)
    cmds += [_c("move", location="baths")] + _steps(3)
    cmds += [_c("place_issues", red="Triumph", grey="Pompey's Theatre")]
    cmds += _votes({"Ann": "red", "Bo": "red", "Cy": "grey", "Di": "red"})
    cmds += [_c("issue_resolved", kalends=True)]
    cmds += [_c("move", location="tiber")] + _steps(3)
    # round 3: the Forum fills and the Dagger enters the Curia -----------------------------
    cmds += [_c("move", location="forum"), _c("play_fate", facedown=True), _c("play_fate", card=K(2))] + _steps(3)
    cmds += [_c("move", location="gardens")] + _steps(3)
    cmds += [_c("place_issues", red="Lupercalia", grey="Clemency")]
    cmds += _votes({"Ann": "grey", "Bo": "grey", "Cy": "grey", "Di": "red"}, "phone:p7")
    cmds += [_c("issue_resolved", kalends=False)]
    cmds += [_c("move", location="forum"), _c("play_fate", card=K(3)), _c("play_fate", card=K(1))] + _steps(3)
    # the end of the game ------------------------------------------------------------------
    cmds.append(_c("abilities_done"))
    scanned: list[dict] = []   # values a phone scanned that no tap named
    for i, card in enumerate(CURIA):
        if i % 3 == 1:  # some cards scanned by a phone, the rest tapped on the tablet
            cmds.append(_c("curia_card", f"phone:p{i}", card=card, serial=f"F-{i:03d}"))
            scanned.append(card)
        elif card in scanned:
            # a second card of a value a phone scanned: the tablet asks, the table says "another"
            # (a tap alone would name the scanned card: one claim per card)
            cmds.append(_c("curia_card", card=card, another=True))
        else:
            cmds.append(_c("curia_card", card=card))
    cmds += [_c("tableau", player=p, **t) for p, t in TABLEAUX.items()]
    cmds.append(_c("opportunist_play", cards=[K(1)]))
    return cmds
