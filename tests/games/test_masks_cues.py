"""What the narrator says after each Masks event, decided by the game (companion/games/masks/cues.py),
not by its screens: the lines the app said before issue 30, now as messages the game gives."""
from __future__ import annotations

from companion.core.events import Event
from companion.core.i18n import text_of
from companion.games.masks import RULES, closing_cues, event_cues
from companion.games.masks.cues import minutes


def _event(kind, **data):
    return Event(seq=7, kind=kind, data=data, source="tablet", at=0.0)


def _said(cues):
    return [(c.line_id, text_of(c.message)) for c in cues if c.script is None]


def test_the_discussion_says_its_minutes_in_the_plural_the_table_chose():
    assert _said(event_cues(_event("discussion_started", seconds=420), {})) == [
        ("masks_discussion_start", "The Discussion begins. Masks are in effect. You have 7 minutes to talk.")]
    assert _said(event_cues(_event("discussion_started", seconds=60), {}))[0][1].endswith("1 minute to talk.")
    assert minutes(90) == 1.5


def test_a_corrected_pointing_is_said_with_what_the_table_must_do_now():
    view = {"phase": "identities", "prompt": "Everyone reveals."}
    assert _said(event_cues(_event("pointing_corrected", voter="Ann", choice="center"), view)) == [
        ("masks_pointing_corrected", "Correction: Ann pointed at the Bystanders in the center. Everyone reveals.")]


def test_the_end_of_the_discussion_starts_the_voting_script():
    cue, = event_cues(_event("discussion_ended"), {})
    assert cue.script is not None and "Time is up" in " ".join(
        getattr(step, "text", "") for step in cue.script.steps)


def test_the_result_is_said_once_the_batch_ends_the_game():
    over = {"phase": "over", "result_text": "The People win."}
    assert _said(closing_cues([_event("identities_revealed")], over)) == [("masks_result", "The People win.")]
    assert closing_cues([_event("ballot_cast")], over) == []
    assert closing_cues([_event("identities_revealed")], {"phase": "identities"}) == []


def test_the_discussion_timer_comes_from_the_view():
    """"Players have 7 minutes to talk" (here the 5 the table chose): the view names the
    countdown while the Discussion lasts, and no other phase runs one."""
    from companion.core.events import Command
    from companion.core.rules import fold_step
    state = RULES.initial_state({"players": ["Ann", "Bo", "Cy", "Di", "Ed"], "discussion_seconds": 300})
    seq = 0

    def run(kind, **data):
        nonlocal state, seq
        for k, d in RULES.decide(state, Command(kind, data)):
            seq += 1
            state = fold_step(RULES, state, Event(seq=seq, kind=k, data=d, source="tablet", at=0.0))

    assert "timer" not in RULES.view(state, "table")
    run("start_hidden_phase")
    assert "timer" not in RULES.view(state, "table")
    run("end_hidden_phase")
    timer = RULES.view(state, "table")["timer"]
    assert timer == {"name": "masks.discussion", "seconds": 300, "warnings": [120, 60, 30, 10],
                     "started_by": "discussion_started", "key": 0, "then": "end_discussion", "say_end": False}
    run("end_discussion")
    assert "timer" not in RULES.view(state, "table")
