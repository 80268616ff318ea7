"""Games the phone-view tests play with five seats: 23 Knives' scripted demo game
(companion/games/knives23/demo.py) stretched to five players, each of the extra player's turns a
plain one, and Cicero's scripted table (companion/games/cicero/demo.py) for five senators."""
from __future__ import annotations

from companion.core.events import Command
from companion.games.knives23 import demo

FIVE = ["Ann", "Bo", "Cy", "Di", "Ed"]
KNIVES_5 = {**demo.SETUP, "players": FIVE, "quid_pro_quo": True}   # a minute to bribe: a timer
_c, K, D = demo._c, demo.K, demo.D


def _steps(n):
    return [_c("next_step") for _ in range(n)]


def _votes(choices, source="tablet"):
    return [_c("cast_ballot", source, voter=v, choice=c) for v, c in choices.items()]


def knives_five() -> list[list[Command]]:
    """The whole game, setup to winners, as the table's moves in order; each inner list is one
    step the test checks the phones after (a turn, a vote, an Issue)."""
    setup = [[_c("confirm_board", spaces=4, black_spaces=2, dagger_start=2,
                 forum={"spaces": ["either"] * 5, "extra": "either"})],
             [_c("tick_setup", step=s) for s in ("II", "III", "IV", "V", "VI", "VII")] + [_c("begin_play")]]
    turns = [
        # round 1: Ann calls a Vote to Exile on Bo; Ed is the Tribune
        [_c("move", location="forum"), _c("play_fate", card=K(5)), _c("play_fate", facedown=True),
         _c("call_exile", target="Bo")],
        [_c("start_exile_vote")],   # Quid pro quo: a minute to bribe, then the vote
        "EXILE",
        _steps(3),
        [_c("move", location="gardens"), _c("sway", target="Cy")] + _steps(3),
        [_c("move", location="forum"), _c("play_fate", card=K(3)), _c("play_fate", facedown=True)] + _steps(3),
        [_c("move", location="forum"), _c("play_fate", card=K(2))] + _steps(3),
        [_c("move", location="baths")] + _steps(3),
        [_c("place_issues", red="Ides of March", grey="Vestal Virgins")],
        "ISSUE1",
        [_c("eyes_closed", group="revealed_liberators")],
        [_c("eyes_open"), _c("issue_resolved", kalends=False)],
        # round 2
        [_c("move", location="temple")] + _steps(3),
        [_c("move", location="forum"), _c("play_fate", card=D(2))] + _steps(3),
        [_c("move", location="baths")] + _steps(3),
        [_c("move", location="baths")] + _steps(3),
        [_c("place_issues", red="Triumph", grey="Pompey's Theatre")],
        "ISSUE2",
        [_c("issue_resolved", kalends=True)],
        [_c("move", location="tiber")] + _steps(3),
        # round 3: the Forum fills and the Dagger enters the Curia
        [_c("move", location="forum"), _c("play_fate", facedown=True), _c("play_fate", card=K(2))] + _steps(3),
        [_c("move", location="gardens")] + _steps(3),
        [_c("move", location="temple")] + _steps(3),
        [_c("place_issues", red="Lupercalia", grey="Clemency")],
        "ISSUE3",
        [_c("issue_resolved", kalends=False)],
        [_c("move", location="forum"), _c("play_fate", card=K(3)), _c("play_fate", card=K(1))] + _steps(3),
        [_c("abilities_done")],
        [_c("curia_card", card=card) for card in demo.CURIA],
        [_c("tableau", player=p, **t) for p, t in {**demo.TABLEAUX, "Ed": {
            "citizen": {"laurels": 2}, "sway": [{"laurels": 1}]}}.items()],
        [_c("opportunist_play", cards=[K(1)])],
    ]
    return setup + turns


# what the phones vote where the script says so (the tablet's taps in the demo)
PHONE_VOTES = {"EXILE": {"Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile", "Ed": "remain"},
               "ISSUE1": {"Ann": "red", "Bo": "grey", "Cy": "red", "Di": "grey", "Ed": "grey"},
               "ISSUE2": {"Ann": "red", "Bo": "red", "Cy": "grey", "Di": "red", "Ed": "red"},
               "ISSUE3": {"Ann": "grey", "Bo": "grey", "Cy": "grey", "Di": "red", "Ed": "grey"}}
