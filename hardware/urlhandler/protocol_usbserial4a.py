"""pyserial handler for ``usbserial4a://<device name>``: a USB serial box on Android.

Android gives an app no /dev/tty* for a USB device; usbserial4a talks to the USB-serial chip
(CDC-ACM, CH34x, FTDI, CP210x) through Android's USB host API. This wraps its port in pyserial's
interface so the box manager reads and writes it like any other port (hardware/transport.py).
Only runs on Android: it cannot be exercised on the build machine.
"""
from __future__ import annotations

import urllib.parse

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

_asked: set[str] = set()   # permission is asked once per device; Android shows a dialog each time


class Serial(SerialBase):
    is_open: bool   # SerialBase's (pyserial ships no type information)

    def open(self):
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
        self._port = serial4a.get_serial_port(name, self._baudrate, self._bytesize,
                                              self._parity, self._stopbits, timeout=self._timeout)
        if self._port is None or not self._port.is_open:
            raise SerialException("could not open port %s: usbserial4a has no driver for it"
                                  % self.port)
        self.is_open = True

    def close(self):
        if getattr(self, "_port", None) is not None:
            self._port.close()
            self._port = None
        self.is_open = False

    def _reconfigure_port(self, *args):
        pass   # the line settings are fixed (docs/protocol.md) and given to usbserial4a on open

    def _inner(self):
        if not self.is_open:
            raise PortNotOpenError()
        return self._port

    @property
    def in_waiting(self):
        return self._inner().in_waiting

    def read(self, size=1):
        return bytes(self._inner().read(size))

    def write(self, data):
        return self._inner().write(bytes(data))
