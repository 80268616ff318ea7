"""Phones at the table: the small web server and page that scan Fate cards for the Curia reveal
(:mod:`.server`), and the join code the tablet shows (:mod:`.join`). No Kivy here."""
