"""pyserial URL handlers of this project (serial.protocol_handler_packages looks here)."""
