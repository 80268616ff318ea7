"""pyserial handler for ``vbox://NAME``: the host end of a hardware.transport.VirtualWire."""
from __future__ import annotations

import urllib.parse
from typing import TYPE_CHECKING

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

if TYPE_CHECKING:
    from hardware.transport import VirtualWire


class Serial(SerialBase):
    is_open: bool   # SerialBase's (pyserial ships no type information)
    _wire: VirtualWire

    def open(self) -> None:
        from hardware.transport import VirtualWire
        if self.is_open:
            raise SerialException("Port is already open.")
        parts = urllib.parse.urlsplit(self.port)
        if parts.scheme != "vbox" or not parts.netloc:
            raise SerialException("expected vbox://NAME, got %r" % self.port)
        self._wire = VirtualWire.lookup(parts.netloc)
        self.is_open = True

    def close(self) -> None:
        self.is_open = False

    def _reconfigure_port(self, *args: object) -> None:
        pass

    def _update_dtr_state(self) -> None:
        pass

    def _update_rts_state(self) -> None:
        pass

    def _update_break_state(self) -> None:
        pass

    @property
    def in_waiting(self) -> int:
        if not self.is_open:
            raise PortNotOpenError()
        return self._wire.host_waiting()

    def read(self, size: int = 1) -> bytes:
        if not self.is_open:
            raise PortNotOpenError()
        return self._wire.host_read(size, self._timeout)

    def write(self, data: bytes | bytearray | memoryview) -> int:
        if not self.is_open:
            raise PortNotOpenError()
        self._wire.host_write(bytes(data))
        return len(data)

    def reset_input_buffer(self) -> None:
        pass

    def reset_output_buffer(self) -> None:
        pass

    def flush(self) -> None:
        pass

    cts = dsr = ri = cd = property(lambda self: True)
