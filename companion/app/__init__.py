"""The Kivy app: it shows state and turns touches into commands. Rules live in companion.games."""
