"""Narration scripts as data, and the narrator that plays them one step at a time.

A script is a plain-text file, one step per line (see companion/narration/README.txt):

    slot 5                      # from here on, each line takes at least 5 seconds
    say check_allegiance: Everyone, check your allegiance. Then close your eyes.
    say@6 {group}_open: {group_spoken}, open your eyes and look around.
    report curia_total: The total is {total}.   # a report of state, keyed "curia_total"
    pause 4                     # fixed
    pause 6 to 9                # random, drawn once each time the step is queued
    wait for ballots_in         # until narrator.notify("ballots_in")
    mark discussion_starts      # tells the app (on_mark) that the script got here

Identical timing: a ``say`` step occupies max(slot, speech length), and pauses are drawn from
the narrator's own RNG, never from the game, so the time between steps depends only on the
script text and the pace, never on which roles are in play. ``script_timeline`` computes the
schedule so tests can prove it for every context a game uses.

Pace scales everything: speech is spoken ``pace`` times faster, and slots and pauses last
``1 / pace`` as long, so "slower" also gives the table more time to act with eyes closed.

Two kinds of line. A ``say`` is part of a script that must be spoken whole (an eyes-closed
sequence, a count-in). A ``report`` tells the table a fact of the current state (a running
total, whose turn it is, a timer warning) and is keyed by its line id: a newer report with the
same key replaces one still waiting, and a report whose ``still_true`` check fails when its
turn comes is dropped, so the voice never says what is no longer so.

The package: ``script`` (steps, parser, loading, timeline), ``narrator`` (the scheduler),
``prepare`` (speech and sound made ahead on a worker thread), ``record`` (a script rendered to a
WAV, and the command line ``python -m companion.core.narration``).
"""
from __future__ import annotations

from .narrator import POLL_WHILE_PREPARING, Dropped, Narrator, Spoken
from .record import main, record_narration
from .script import (MAX_SECONDS, SHARED_SCRIPTS, Mark, Pause, Say, Script, Step, WaitFor, load_script,
                     parse_script, say_length, script_path, script_timeline, shared_script, slug)

__all__ = ["MAX_SECONDS", "POLL_WHILE_PREPARING", "SHARED_SCRIPTS", "Dropped", "Mark", "Narrator", "Pause",
           "Say", "Script", "Spoken", "Step", "WaitFor", "load_script", "main", "parse_script",
           "record_narration", "say_length", "script_path", "script_timeline", "shared_script", "slug"]
