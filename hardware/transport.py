"""Transports chosen by name or URL, all opened through pyserial so one reader serves them all:

- a device path (``/dev/ttyUSB0``, ``/dev/pts/7``, a symlink the simulator keeps up to date),
- any pyserial URL (``loop://``, ``socket://host:port``, ``rfc2217://...``),
- ``vbox://NAME`` — an in-process virtual wire (see VirtualWire) for the virtual twin of a box.
"""
from __future__ import annotations

import threading
from typing import Protocol

import serial

if "hardware.urlhandler" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("hardware.urlhandler")

BAUDRATE = 115200


class SerialPort(Protocol):
    """What the box manager uses of an open pyserial port (pyserial ships no type information)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


def open_port(url: str, timeout: float = 0.05) -> SerialPort:
    """Opens url with the protocol's settings (8N1, 115200); raises serial.SerialException."""
    return serial.serial_for_url(url, baudrate=BAUDRATE, timeout=timeout, write_timeout=1.0,
                                 exclusive=True if "://" not in url else None)


class Unplugged(serial.SerialException):
    pass


class VirtualWire:
    """A byte pipe between the host (opens ``vbox://NAME``) and a virtual box (holds the wire).

    Unplugging makes the host's reads fail the way a real USB unplug does; replugging creates a
    fresh wire under the same name, so the host reopens the same URL, as it would a by-id path."""

    _registry: dict[str, "VirtualWire"] = {}
    _lock = threading.Lock()

    def __init__(self, name: str) -> None:
        self.name = name
        self._cond = threading.Condition()
        self._to_host = bytearray()
        self._to_box = bytearray()
        self.plugged = True
        with VirtualWire._lock:
            old = VirtualWire._registry.get(name)
            if old is not None and old.plugged:
                raise ValueError("virtual wire %r is already plugged in" % name)
            VirtualWire._registry[name] = self

    @classmethod
    def lookup(cls, name: str) -> "VirtualWire":
        with cls._lock:
            wire = cls._registry.get(name)
        if wire is None or not wire.plugged:
            raise serial.SerialException("could not open port vbox://%s: no such box" % name)
        return wire

    def unplug(self) -> None:
        with self._cond:
            self.plugged = False
            self._cond.notify_all()

    # box side
    def box_write(self, data: bytes) -> None:
        with self._cond:
            if self.plugged:
                self._to_host += data
                self._cond.notify_all()

    def box_read(self, timeout: float) -> bytes:
        return self._take(self._to_box, timeout, host=False)

    # host side
    def host_write(self, data: bytes) -> None:
        with self._cond:
            if not self.plugged:
                raise Unplugged("vbox://%s: device disconnected" % self.name)
            self._to_box += data
            self._cond.notify_all()

    def host_read(self, size: int, timeout: float | None) -> bytes:
        return self._take(self._to_host, timeout, host=True, size=size)

    def host_waiting(self) -> int:
        with self._cond:
            return len(self._to_host)

    def _take(self, buf: bytearray, timeout: float | None, host: bool,
              size: int = 1 << 16) -> bytes:
        with self._cond:
            if not buf and self.plugged:
                self._cond.wait(timeout)
            if host and not self.plugged and not buf:
                raise Unplugged("device reports readiness to read but returned no data "
                                "(vbox://%s unplugged)" % self.name)
            out = bytes(buf[:size])
            del buf[:size]
            return out
