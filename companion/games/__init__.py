"""One package per game: rules as data plus pure functions. No Kivy."""
