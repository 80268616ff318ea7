"""Game-independent engines: journal, events, votes and tallies, timers, narration. No Kivy here."""
