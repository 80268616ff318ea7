"""The cameras this device has, by name, for the camera setting ("HD Pro Webcam C920", not "0").

- Linux: the kernel names every video device in /sys/class/video4linux/videoN/name; a webcam
  has a capture node (index 0) and often a metadata node (index 1), which cannot give frames.
- Android: the tablet's cameras by the side they face (the app opens them through Kivy).
- Elsewhere: the camera numbers OpenCV can open.
``where`` is what vision.capture.CameraCapture (or the tablet camera, by number) opens.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

SYSFS_ROOT = "/sys/class/video4linux"


@dataclass(frozen=True)
class CameraInfo:
    name: str
    where: str

    @property
    def label(self) -> str:
        return f"{self.name} ({self.where})"


def list_cameras(sysfs_root: str | None = None) -> list[CameraInfo]:
    if "ANDROID_ARGUMENT" in os.environ:
        return _android_cameras()
    if sys.platform.startswith("linux"):
        root = Path(sysfs_root or SYSFS_ROOT)
        return _linux_cameras(root) if root.is_dir() else []   # no video4linux: no camera
    return _probed_cameras()


def _linux_cameras(root: Path) -> list[CameraInfo]:
    found = []
    nodes = [p for p in root.iterdir() if re.fullmatch(r"video\d+", p.name)]
    for node in sorted(nodes, key=lambda p: int(p.name[5:])):
        index = _read(node / "index")
        if index not in ("", "0"):
            continue   # a second node of the same camera (metadata): no frames there
        name = _read(node / "name") or node.name
        found.append(CameraInfo(name, "/dev/" + node.name))
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def _android_cameras() -> list[CameraInfo]:
    from jnius import autoclass   # only on Android
    Camera = autoclass("android.hardware.Camera")
    info = autoclass("android.hardware.Camera$CameraInfo")()
    out = []
    for i in range(Camera.getNumberOfCameras()):
        Camera.getCameraInfo(i, info)
        side = "front" if info.facing == info.CAMERA_FACING_FRONT else "back"
        out.append(CameraInfo(f"{side} camera", str(i)))
    return out


def _probed_cameras(limit: int = 4) -> list[CameraInfo]:
    import cv2
    out = []
    for i in range(limit):
        cap = cv2.VideoCapture(i)
        try:
            if cap.isOpened():
                out.append(CameraInfo(f"camera {i + 1}", str(i)))
        finally:
            cap.release()
    return out
