"""QR stickers for 23 Knives cards: the payload and its check (:mod:`.payload`), the printable
sheets (:mod:`.stickers`), reading codes from phone photos (:mod:`.decode`), generated test
photos (:mod:`.synth`) and the CLI (``python -m vision.qr``). No Kivy here."""
