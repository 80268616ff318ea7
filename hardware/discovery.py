"""Finding vote boxes that are plugged in, and noticing when one is plugged in later.

A port *looks like* a box by its USB ids (the chips of the boards the firmware is documented for,
firmware_stubs/README.md) or by a product string naming a vote box. That only chooses which
ports to open: the ids belong to common USB-serial chips, so the HELLO handshake
(docs/protocol.md) decides what really is a box — a port nobody on it answers WELCOME with
HELLO never shows up as a box. Ports without USB ids (``/dev/ttyS0``) are never opened by
``auto``; name them in ``--boxes`` to use them.

One small interface, ``PortLister.ports()``, with three implementations:
- ``SerialPortLister`` — pyserial's ``list_ports`` (Linux, macOS, Windows);
- ``AndroidPortLister`` — USB host devices through usb4a; each is opened as
  ``usbserial4a://<device name>`` (hardware/urlhandler/protocol_usbserial4a.py);
- ``FakePortLister`` — the virtual twin: a test plugs and unplugs ports by hand.
``PortWatcher`` polls a lister and reports the box-like ports that come and go (hot-plug).
"""
from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol

log = logging.getLogger("hardware.discovery")

# USB (VID, PID) of the boards a vote box is built on (an Arduino Uno/Nano-class ATmega328P
# board, firmware_stubs/README.md) and of the USB-serial chips such boards carry.
BOX_USB_IDS: dict[tuple[int, int], str] = {
    (0x2341, 0x0043): "Arduino Uno R3 (ATmega16U2)",
    (0x2341, 0x0001): "Arduino Uno (ATmega8U2)",
    (0x2341, 0x0243): "Arduino Genuino Uno",
    (0x2A03, 0x0043): "Arduino.org Uno",
    (0x1A86, 0x7523): "CH340 (Nano clones)",
    (0x0403, 0x6001): "FTDI FT232R (Nano v3)",
    (0x10C4, 0xEA60): "Silicon Labs CP210x",
}
# A box with its own USB firmware may name itself; the words are matched case-insensitively.
BOX_DESCRIPTION_WORDS = ("vote box", "votebox", "table companion")


@dataclass(frozen=True)
class PortInfo:
    device: str                    # what the manager opens: a path or a pyserial URL
    vid: int | None = None
    pid: int | None = None
    description: str = ""
    serial_number: str | None = None


class PortLister(Protocol):
    def ports(self) -> list[PortInfo]: ...


def looks_like_box(port: PortInfo) -> bool:
    """Worth opening and greeting: a documented board/chip id or a product string naming a box.
    Only the HELLO handshake makes it a box."""
    if port.vid is None:
        return False
    if (port.vid, port.pid) in BOX_USB_IDS:
        return True
    text = (port.description or "").lower()
    return any(w in text for w in BOX_DESCRIPTION_WORDS)


def box_ports(lister: PortLister) -> list[str]:
    return sorted({p.device for p in lister.ports() if looks_like_box(p)})


class SerialPortLister:
    """pyserial's view of the serial ports of a desktop (or a Linux tablet)."""

    def ports(self) -> list[PortInfo]:
        from serial.tools import list_ports
        out = []
        for p in list_ports.comports():
            desc = " ".join(x for x in (p.description, p.product, p.manufacturer)
                            if x and x != "n/a")
            out.append(PortInfo(p.device, p.vid, p.pid, desc, p.serial_number))
        return out


class AndroidPortLister:
    """USB host devices on Android (usb4a). The app has no /dev/tty* there: each device is opened
    through usbserial4a as ``usbserial4a://<device name>``, which asks the user for permission
    the first time. Cannot run on this machine (no Android); kept small on purpose."""

    def ports(self) -> list[PortInfo]:
        from usb4a import usb   # only on Android (python-for-android recipe "usb4a")
        out = []
        for d in usb.get_usb_device_list():
            desc = " ".join(str(x) for x in (d.getProductName(), d.getManufacturerName()) if x)
            out.append(PortInfo("usbserial4a://" + d.getDeviceName(), d.getVendorId(),
                                d.getProductId(), desc))
        return out


class FakePortLister:
    """The virtual twin of the USB bus: ports appear and vanish when a test says so."""

    def __init__(self, ports: Iterable[PortInfo] = ()) -> None:
        self._lock = threading.Lock()
        self._ports = {p.device: p for p in ports}

    def plug(self, port: PortInfo) -> None:
        with self._lock:
            self._ports[port.device] = port

    def unplug(self, device: str) -> None:
        with self._lock:
            self._ports.pop(device, None)

    def ports(self) -> list[PortInfo]:
        with self._lock:
            return list(self._ports.values())


def on_android() -> bool:
    # python-for-android sets ANDROID_ARGUMENT (Kivy's own test); hardware/ stays Kivy-free.
    return "ANDROID_ARGUMENT" in os.environ


def default_lister() -> PortLister:
    return AndroidPortLister() if on_android() else SerialPortLister()


class PortWatcher:
    """Polls ``lister`` every ``interval`` seconds and calls ``on_added(device)`` for each
    box-like port that appears (the first scan reports those already plugged in) and
    ``on_removed(device)`` for each that goes. Callbacks run on the watcher's thread."""

    def __init__(self, lister: PortLister, on_added: Callable[[str], None],
                 on_removed: Callable[[str], None] | None = None, interval: float = 1.0) -> None:
        self.lister = lister
        self.on_added = on_added
        self.on_removed = on_removed
        self.interval = interval
        self.present: set[str] = set()
        self.problem = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def scan_once(self) -> tuple[list[str], list[str]]:
        try:
            now = set(box_ports(self.lister))
        except Exception as exc:   # a lister that fails (no USB service) must not kill the app
            msg = " ".join(str(exc).split()) or type(exc).__name__
            if msg != self.problem:
                log.warning("cannot list serial ports: %s", msg)
            self.problem = msg
            return [], []
        self.problem = ""
        added, removed = sorted(now - self.present), sorted(self.present - now)
        self.present = now
        for device in added:
            log.info("box-like port plugged in: %s", device)
            self.on_added(device)
        for device in removed:
            log.info("box-like port gone: %s", device)
            if self.on_removed is not None:
                self.on_removed(device)
        return added, removed

    def start(self) -> None:
        self._stop.clear()
        self.scan_once()
        self._thread = threading.Thread(target=self._loop, name="box-discovery", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.scan_once()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None


def parse_boxes(text: str | None) -> list[str] | None:
    """``--boxes`` / the Devices setting: ``off`` (or empty) -> None, ``auto`` -> ["auto"],
    ``PORT[,PORT…]`` -> the ports (``auto`` may be one of them)."""
    text = (text or "").strip()
    if not text or text.lower() == "off":
        return None
    ports = [p.strip() for p in text.split(",") if p.strip()]
    return ["auto" if p.lower() == "auto" else p for p in ports] or None
