"""Game flow that used to live in the app's screens, run headless: the end of 23 Knives'
eyes-closed Issue (a real Narrator on a fake clock), Cicero's youngest tie-break, and the
Allegiances and Caesar's fate the 23 Knives view now carries."""
from __future__ import annotations

from companion.core.audio import RecordingAudioOut
from companion.core.clock import FakeClock
from companion.core.events import Command
from companion.core.narration import Narrator
from companion.core.speakers import CaptionSpeaker
from companion.games.cicero import CiceroRules
from companion.games.cicero import youngest_tie_break
from companion.games.knives23 import scoring
from companion.games.knives23.flow import EyesClosedIssue

from .test_knives23_rules import FOUR, _resolving


def _narrator(tmp_path, clock):
    return Narrator(CaptionSpeaker(), RecordingAudioOut(str(tmp_path / "n.wav"), clock), clock, rng_seed=1)


def _run(narrator, clock, seconds):
    for _ in range(int(seconds * 10)):
        clock.advance(0.1)
        narrator.tick()


def test_the_eyes_closed_issue_ends_when_its_whole_script_is_said(tmp_path):
    t = _resolving(tmp_path)
    clock = FakeClock()
    narrator = _narrator(tmp_path, clock)
    flow = EyesClosedIssue()
    t("eyes_closed", group="revealed_liberators")
    # the live game: the app queued the cue and told the flow which event it belongs to
    flow.started(t.s.game_id, t.s.events[-1].seq)
    from companion.games.knives23 import cues
    narrator.enqueue_script(cues.load("eyes_closed"), {"group": "Revealed Liberators", "group_key": "revealed_liberators"})
    narrator.tick()
    assert flow.tick(t.s.game_id, t.state.phase, t.s.events, narrator) is None  # still reading
    _run(narrator, clock, 5)
    assert narrator.busy and flow.tick(t.s.game_id, t.state.phase, t.s.events, narrator) is None
    _run(narrator, clock, 600)
    assert not narrator.busy
    command = flow.tick(t.s.game_id, t.state.phase, t.s.events, narrator)
    assert command == Command("eyes_open", {}, "tablet")
    t.s.execute(command)
    assert t.state.phase == "issue_resolve"
    # no eyes-closed phase: nothing to do
    assert flow.tick(t.s.game_id, t.state.phase, t.s.events, narrator) is None


def test_a_game_resumed_with_eyes_closed_reads_the_script_again_first(tmp_path):
    t = _resolving(tmp_path)
    t("eyes_closed", group="Liberators with 2 or more Blood")
    clock = FakeClock()
    narrator = _narrator(tmp_path, clock)
    said: list[str] = []
    narrator.on_caption = lambda text: text and said.append(text)
    flow = EyesClosedIssue()   # a new app: it never queued this Issue's script
    assert flow.tick(t.s.game_id, t.state.phase, t.s.events, narrator) is None
    assert narrator.busy       # the script is queued again rather than the eyes reopened at once
    _run(narrator, clock, 600)
    assert any("Liberators with 2 or more Blood" in line for line in said)
    assert flow.tick(t.s.game_id, t.state.phase, t.s.events, narrator) == Command("eyes_open", {}, "tablet")


def test_cicero_youngest_tie_break_prefers_the_first_player_then_seat_order():
    players = ["Ann", "Bo", "Cy"]
    assert youngest_tie_break(players, {"Ann": 30, "Bo": 20, "Cy": 40}, "Ann") is None   # no tie
    assert youngest_tie_break(players, {"Ann": 30, "Bo": 20, "Cy": 20}, "Cy") == "Cy"
    assert youngest_tie_break(players, {"Ann": 30, "Bo": 20, "Cy": 20}, "Ann") == "Bo"
    assert youngest_tie_break(players, {"Ann": None, "Bo": 20, "Cy": 20}, None) == "Bo"
    assert youngest_tie_break(players, {"Ann": None, "Bo": None, "Cy": None}, "Ann") is None
    # what it picks is what the rules accept: the draft starts with that player
    setup = {"players": players, "ages": {"Ann": 30, "Bo": 20, "Cy": 20}, "youngest":
             youngest_tie_break(players, {"Ann": 30, "Bo": 20, "Cy": 20}, "Cy")}
    assert CiceroRules().initial_state(setup).youngest == "Cy"


def test_the_23_knives_view_gives_each_tableau_its_allegiance_and_caesars_fate():
    from companion.games.knives23 import demo
    from companion.core.journal import Journal
    from companion.core.session import GameSession
    from companion.games.knives23 import RULES
    s = GameSession.start(Journal(":memory:"), RULES, demo.SETUP)
    for cmd in demo.commands():
        if cmd.kind == "opportunist_play":
            break
        s.execute(cmd)
    end = s.view("table")["end"]
    assert end["caesar_dead"] == scoring.caesar_dead(end["running_total"])
    for name, entry in end["tableaux"].items():
        tab = scoring.tableau({"name": name, **{k: v for k, v in entry.items() if k in ("citizen", "sway", "cicero")}})
        assert end["allegiances"][name] == {"allegiance": tab.allegiance, "value": abs(tab.blood_value)}
    assert {a["allegiance"] for a in end["allegiances"].values()} == {"liberator", "loyalist", "opportunist"}


def test_every_23_knives_phase_has_a_screen_and_the_steps_are_the_turns_order():
    from typing import get_args
    from companion.games.knives23.state import STEPS, Phase
    ui = __import__("companion.app.games.knives23", fromlist=["PHASE_SCREEN"])
    assert set(ui.PHASE_SCREEN) == set(get_args(Phase))
    assert STEPS == ("move", "action", "sway", "discard", "issue")


def test_every_cicero_and_seven_knights_phase_has_a_screen():
    from typing import get_args
    from companion.games.cicero import Phase as CiceroPhase
    from companion.games.sevenknights.state import Phase as KnightsPhase
    from companion.games.sevenknights.state import PHASES
    cicero = __import__("companion.app.games.cicero", fromlist=["SCREENS"])
    knights = __import__("companion.app.games.sevenknights", fromlist=["SCREENS"])
    assert set(cicero.SCREENS) == set(get_args(CiceroPhase))
    assert set(knights.SCREENS) == set(get_args(KnightsPhase)) == set(PHASES)


def test_23_knives_event_kinds_are_the_folds_and_a_whole_game_uses_only_them():
    from typing import get_args
    from companion.core.journal import Journal
    from companion.core.session import GameSession
    from companion.core.votes import VOTE_EVENTS, VoteEventKind
    from companion.games.knives23 import RULES, demo
    from companion.games.knives23.evolve import FOLDS
    from companion.games.knives23.state import EventKind
    folds = set(FOLDS)
    assert set(get_args(EventKind)) == folds
    assert VOTE_EVENTS == set(get_args(VoteEventKind))
    s = GameSession.start(Journal(":memory:"), RULES, demo.SETUP)
    for cmd in demo.commands():
        s.execute(cmd)
    assert {e.kind for e in s.events} - {"game_started"} <= set(get_args(EventKind)) | VOTE_EVENTS


def test_a_game_resumed_with_eyes_closed_goes_on_from_the_step_the_journal_kept(tmp_path):
    from companion.core.session import NARRATION_STEP
    from companion.games.knives23.flow import script_name
    t = _resolving(tmp_path)
    t("eyes_closed", group="Liberators with 2 or more Blood")
    seq = t.s.events[-1].seq
    clock = FakeClock()
    narrator = _narrator(tmp_path, clock)
    said: list[str] = []
    narrator.on_caption = lambda text: text and said.append(text)
    live = EyesClosedIssue()
    live.started(t.s.game_id, seq)
    # the live app keeps each mark the narrator reaches in the journal; another game's marks are not kept
    assert live.step_reached(t.s.game_id, "eyes_step_3") == (script_name(seq), 3)
    assert live.step_reached(t.s.game_id + 1, "eyes_step_3") is None
    assert live.step_reached(t.s.game_id, "curia_total_said") is None
    t.s.note(NARRATION_STEP, {"script": script_name(seq), "step": 3})

    class JournalProgress:   # what the app's NarrationProgress reads: the last note for the script
        def step(self, game_id: int, script: str) -> int | None:
            notes = [e.data["step"] for e in t.s.events if e.kind == NARRATION_STEP and e.data["script"] == script]
            return notes[-1] if notes and game_id == t.s.game_id else None

    flow = EyesClosedIssue()   # a new app after the old one was killed at step 3
    assert flow.tick(t.s.game_id, t.state.phase, t.s.events, narrator, JournalProgress()) is None
    _run(narrator, clock, 600)
    assert said[0] == "Liberators with 2 or more Blood, open your eyes and look around."
    assert not any("Everyone, close your eyes" in line for line in said)
    assert flow.tick(t.s.game_id, t.state.phase, t.s.events, narrator) == Command("eyes_open", {}, "tablet")
