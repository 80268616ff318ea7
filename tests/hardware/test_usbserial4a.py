"""The Android USB transport (hardware/urlhandler/protocol_usbserial4a.py) against stand-ins for
usb4a and usbserial4a, which exist only on Android: the handler keeps the port's URL as pyserial
keeps it (it used to overwrite pyserial's own ``_port``, the URL, with usbserial4a's port), so
the port reopens and its refusals name the URL."""
from __future__ import annotations

import sys
import types

import pytest
import serial

import hardware.transport  # noqa: F401  (registers the project's URL handlers)

URL = "usbserial4a:///dev/bus/usb/001/002"


class FakeUsbPort:
    def __init__(self, is_open: bool = True) -> None:
        self.is_open = is_open
        self.written = bytearray()
        self.incoming = bytearray(b"\x01\x02\x00")
        self.closed = False

    @property
    def in_waiting(self) -> int:
        return len(self.incoming)

    def read(self, size: int) -> bytearray:
        out, self.incoming = self.incoming[:size], self.incoming[size:]
        return out

    def write(self, data: bytes) -> int:
        self.written += data
        return len(data)

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def android(monkeypatch):
    """usb4a.usb and usbserial4a.serial4a as python-for-android provides them (the calls the
    handler makes); ``opened`` lists the usbserial4a ports handed out."""
    opened: list[FakeUsbPort] = []
    state = {"driver": True}
    usb = types.SimpleNamespace(get_usb_device=lambda name: object(),
                                has_usb_permission=lambda device: True,
                                request_usb_permission=lambda device: None)

    def get_serial_port(name, *settings, timeout=None):
        opened.append(FakeUsbPort(is_open=state["driver"]))
        return opened[-1]

    serial4a = types.SimpleNamespace(get_serial_port=get_serial_port)
    monkeypatch.setitem(sys.modules, "usb4a", types.SimpleNamespace(usb=usb))
    monkeypatch.setitem(sys.modules, "usb4a.usb", usb)
    monkeypatch.setitem(sys.modules, "usbserial4a", types.SimpleNamespace(serial4a=serial4a))
    monkeypatch.setitem(sys.modules, "usbserial4a.serial4a", serial4a)
    return opened, state


def test_an_open_port_keeps_its_url_reads_writes_and_reopens(android):
    opened, _ = android
    port = serial.serial_for_url(URL, baudrate=115200, timeout=0.05)
    assert port.is_open and port.port == URL       # was usbserial4a's port object
    assert port.in_waiting == 3
    assert port.read(2) == b"\x01\x02" and port.write(b"\x05\x06") == 2
    assert opened[0].written == b"\x05\x06"
    port.close()
    assert opened[0].closed and not port.is_open and port.port == URL   # was None
    with pytest.raises(serial.PortNotOpenError):
        port.read(1)
    port.open()                                    # the same object opens the same device again
    assert port.is_open and len(opened) == 2 and port.port == URL
    port.close()


def test_a_device_without_a_driver_is_refused_naming_its_url(android):
    opened, state = android
    state["driver"] = False
    port = serial.serial_for_url(URL, do_not_open=True)
    with pytest.raises(serial.SerialException) as e:
        port.open()
    assert str(e.value) == "could not open port %s: usbserial4a has no driver for it" % URL
    assert not port.is_open and port.port == URL
