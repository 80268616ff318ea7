"""pyserial handler for ``usbserial4a://<device name>``: a USB serial box on Android.

Android gives an app no /dev/tty* for a USB device; usbserial4a talks to the USB-serial chip
(CDC-ACM, CH34x, FTDI, CP210x) through Android's USB host API. This wraps its port in pyserial's
interface so the box manager reads and writes it like any other port (hardware/transport.py).
Only runs on Android: it cannot be exercised on the build machine.
"""
from __future__ import annotations

import urllib.parse
from typing import Protocol

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

_asked: set[str] = set()   # permission is asked once per device; Android shows a dialog each time


class _UsbPort(Protocol):
    """What this handler uses of a usbserial4a port (usbserial4a ships no type information)."""
    is_open: bool
    in_waiting: int

    def read(self, size: int) -> bytes | bytearray: ...

    def write(self, data: bytes) -> int: ...

    def close(self) -> None: ...


class Serial(SerialBase):
    is_open: bool   # SerialBase's (pyserial ships no type information)
    # the usbserial4a port while open (SerialBase keeps the URL in its own ``_port``)
    _usb: _UsbPort | None = None

    def open(self) -> None:
        if self.is_open:
            raise SerialException("Port is already open.")
        parts = urllib.parse.urlsplit(self.port)
        name = parts.netloc + parts.path
        if parts.scheme != "usbserial4a" or not name:
            raise SerialException("expected usbserial4a://DEVICE, got %r" % self.port)
        from usb4a import usb
        from usbserial4a import serial4a
        device = usb.get_usb_device(name)
        if device is None:
            raise SerialException("could not open port %s: USB device gone" % self.port)
        if not usb.has_usb_permission(device):
            if name not in _asked:
                _asked.add(name)
                usb.request_usb_permission(device)
            raise SerialException("could not open port %s: waiting for the USB permission"
                                  % self.port)
        port: _UsbPort | None = serial4a.get_serial_port(
            name, self._baudrate, self._bytesize, self._parity, self._stopbits,
            timeout=self._timeout)
        if port is None or not port.is_open:
            raise SerialException("could not open port %s: usbserial4a has no driver for it"
                                  % self.port)
        self._usb = port
        self.is_open = True

    def close(self) -> None:
        if self._usb is not None:
            self._usb.close()
            self._usb = None
        self.is_open = False

    def _reconfigure_port(self, *args: object) -> None:
        pass   # the line settings are fixed (docs/protocol.md) and given to usbserial4a on open

    def _inner(self) -> _UsbPort:
        if not self.is_open or self._usb is None:
            raise PortNotOpenError()
        return self._usb

    @property
    def in_waiting(self) -> int:
        return self._inner().in_waiting

    def read(self, size: int = 1) -> bytes:
        return bytes(self._inner().read(size))

    def write(self, data: bytes | bytearray | memoryview) -> int:
        return self._inner().write(bytes(data))
