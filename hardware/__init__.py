"""Serial vote boxes: the wire protocol (docs/protocol.md), transports by URL, the box manager
(discovery, pairing, hot-plug), the vote engine's input source, and sim/ (virtual boxes)."""
