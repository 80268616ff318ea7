"""OpenCV's own log lines kept out of a command line's stderr."""
from __future__ import annotations

import os


def quiet_opencv() -> None:
    """OpenCV's own log lines (a truncated PNG: "[ WARN:0@…] … PNG input buffer is incomplete")
    stay out of stderr: the tools say what is wrong with an image in their one line. FFmpeg's
    own lines too ("[mov,mp4,…] moov atom not found" for a file that is no video, "[mjpeg] overread"
    for one cut short): OpenCV reads their level once, when its FFmpeg backend first opens
    something, from OPENCV_FFMPEG_LOGLEVEL (-8: FFmpeg's quiet)."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    import cv2
    quiet = getattr(getattr(cv2, "utils", None), "logging", None)  # not in every build
    if quiet:
        quiet.setLogLevel(quiet.LOG_LEVEL_SILENT)
