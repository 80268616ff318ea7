"""Shared narration scripts (data files, *.txt). A package only so that the scripts ship
with the app: setuptools includes package data from packages alone."""
