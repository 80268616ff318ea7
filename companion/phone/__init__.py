"""Phones at the table: the small web server and page that scan Fate cards for the Curia reveal
(:mod:`.server`), the join code the tablet shows (:mod:`.join`), the bridge that runs scans
through the rules on the main thread (:mod:`.bridge`) and the app's input source that owns both
(:mod:`.source`). No Kivy here."""
