"""Colours and sizes, in one place. Readable across a table: large type, strong contrast."""
BG = (0.08, 0.09, 0.12, 1)
PANEL = (0.14, 0.15, 0.20, 1)
TEXT = (0.96, 0.95, 0.90, 1)
MUTED = (0.70, 0.70, 0.72, 1)
ACCENT = (0.86, 0.69, 0.26, 1)     # Roman gold
DANGER = (0.78, 0.22, 0.20, 1)
GOOD = (0.30, 0.62, 0.36, 1)
PRIVACY = (0.02, 0.02, 0.03, 1)    # the opaque pass-and-play screen

# Seat colours offered on the setup screen: (catalogue key suffix, RGBA)
SEAT_COLOURS = [
    ("red", (0.80, 0.20, 0.20, 1)), ("blue", (0.22, 0.42, 0.85, 1)),
    ("green", (0.25, 0.62, 0.30, 1)), ("yellow", (0.92, 0.80, 0.20, 1)),
    ("purple", (0.55, 0.30, 0.70, 1)), ("orange", (0.92, 0.52, 0.15, 1)),
    ("white", (0.92, 0.92, 0.92, 1)), ("black", (0.25, 0.25, 0.25, 1)),
]
COLOUR_RGBA = dict(SEAT_COLOURS)

MIN_TOUCH_DP = 48   # smallest touch target
BUTTON_DP = 64      # ordinary buttons
