"""OpenCV's own log lines kept out of a command line's stderr."""
from __future__ import annotations


def quiet_opencv() -> None:
    """OpenCV's own log lines (a truncated PNG: "[ WARN:0@…] … PNG input buffer is incomplete")
    stay out of stderr: the tools say what is wrong with an image in their one line."""
    import cv2
    quiet = getattr(getattr(cv2, "utils", None), "logging", None)  # not in every build
    if quiet:
        quiet.setLogLevel(quiet.LOG_LEVEL_SILENT)
