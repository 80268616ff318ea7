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


# --- the Executioner line and the result line are reports (issue 33) ------------------------

def _play(commands, state=None):
    """Decide and fold ``commands`` ((kind, data) pairs); the recorded events and the state."""
    from companion.core.events import Command
    from companion.core.rules import fold_step
    state = state or RULES.initial_state({"players": ["Ann", "Ben", "Cat", "Dan", "Eve"]})
    events = []
    for kind, data in commands:
        for k, d in RULES.decide(state, Command(kind, data)):
            ev = Event(seq=100 + len(events), kind=k, data=d, source="tablet", at=0.0)
            state = fold_step(RULES, state, ev)
            events.append(ev)
    return events, state


def _narrator():
    from companion.core.audio import RecordingAudioOut
    from companion.core.clock import FakeClock
    from companion.core.narration import Narrator
    from companion.core.speakers import CaptionSpeaker
    clock = FakeClock()
    return Narrator(CaptionSpeaker(), RecordingAudioOut("/dev/null", clock), clock), clock


def _run(narrator, clock):
    while narrator.busy:
        clock.advance(0.05)
        narrator.tick()


TO_THE_VOTE = [("start_hidden_phase", {}), ("end_hidden_phase", {}), ("end_discussion", {})]
TIE = [("cast_ballot", {"voter": v, "choice": c}) for v, c in
       zip(["Ann", "Ben", "Cat", "Dan", "Eve"], ["Ben", "Cat", "Ben", "Cat", "Dan"])]


def test_a_newer_executioner_fact_overtakes_the_line_still_waiting():
    """The vote's script is still being said when the table answers on the screen: the check's
    line (Ben and Cat look) and the correction's are past facts by their turn; only the newest
    (Cat holds the Executioner and chooses) is said, never the old ones late."""
    from companion.games.masks import queue_cue
    from companion.games.masks.cues import voting_script
    narrator, clock = _narrator()
    _, state = _play(TO_THE_VOTE)
    narrator.enqueue_script(voting_script(), {})   # "Time is up ... 3, 2, 1"
    now = {"view": RULES.view(state, "table")}
    for commands in (TIE, [("correct_pointing", {"voter": "Ann", "choice": "Cat", "reason": "mistap"})],
                     [("executioner_check", {"player": "Cat"})]):
        events, state = _play(commands, state)
        now["view"] = view = RULES.view(state, "table")
        for ev in events:
            for cue in event_cues(ev, view):
                queue_cue(narrator, cue, lambda: now["view"])
    _run(narrator, clock)
    said = [h.text for h in narrator.history]
    assert not any("Most votes: Ben, Cat" in t or t.startswith("Correction") for t in said), said
    assert said[-1].startswith("Cat holds the Executioner"), said
    assert [(d.line_id, d.why) for d in narrator.dropped] == [
        ("masks_executioner_check", "overtaken"), ("masks_pointing_corrected", "overtaken")]


def test_the_result_is_dropped_once_the_table_undid_the_entry():
    """The result waits behind a line being said; the table undoes the Identities it entered:
    by its turn the result is no longer so, and the voice does not say it."""
    from companion.games.masks import queue_cue
    narrator, clock = _narrator()
    votes = [("cast_ballot", {"voter": v, "choice": c}) for v, c in
             zip(["Ann", "Ben", "Cat", "Dan", "Eve"], ["Ben", "Ann", "Ann", "Ann", "Ann"])]
    _, state = _play(TO_THE_VOTE + votes + [("executioner_check", {"player": None})])
    before = RULES.view(state, "table")
    events, after = _play([("enter_identities", {
        "identities": {"Ann": "Queen", "Ben": "King", "Cat": "Spy", "Dan": "Pamphleteer", "Eve": "Martyr"},
        "center": ["Fugitive", "Harlot", "Executioner"]})], state)
    now = {"view": RULES.view(after, "table")}
    narrator.say("busy", "A line that is still being said when the table enters the cards.")
    cue, = closing_cues(events, now["view"])
    assert cue.report == "masks_result"
    queue_cue(narrator, cue, lambda: now["view"])
    narrator.tick()
    now["view"] = before   # undone: the Identities phase again
    _run(narrator, clock)
    assert [h.line_id for h in narrator.history] == ["busy"]
    assert [(d.line_id, d.why) for d in narrator.dropped] == [("masks_result", "no longer true")]
    # not undone: the same result is said
    narrator2, clock2 = _narrator()
    queue_cue(narrator2, cue, lambda: RULES.view(after, "table"))
    _run(narrator2, clock2)
    assert [h.line_id for h in narrator2.history] == ["masks_result"]
