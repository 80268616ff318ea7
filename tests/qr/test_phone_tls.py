"""The table's own certificate: phones reach the tablet at an https address (a secure context,
so the page may use the camera), the certificate names the tablet's address and is remade when
the address changes, and a connection that dawdles in its TLS handshake ends at its deadline."""
from __future__ import annotations

import http.client
import json
import socket
import ssl
import time

from companion.phone import tls
from companion.phone.server import PhoneServer, RateLimiter
from vision.qr import payload
from vision.qr.payload import Card


def client_context(tmp_path) -> ssl.SSLContext:
    """A phone that accepted the table's certificate once: it trusts exactly that one."""
    ctx = ssl.create_default_context(cafile=str(tmp_path / tls.CERT_FILE))
    ctx.check_hostname = True
    return ctx


def test_phones_join_and_count_over_https_with_the_tables_certificate(tmp_path, curia, key):
    server = PhoneServer(curia.submit, key, status=curia.status, host="127.0.0.1",
                         rate=RateLimiter(burst=1000, per_second=100),
                         tls=tls.server_context(tmp_path, "127.0.0.1")).start()
    try:
        assert server.join_url.startswith("https://127.0.0.1:")
        conn = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=30,
                                           context=client_context(tmp_path))
        conn.request("GET", f"/join?k={server.secret}")
        res = conn.getresponse()
        res.read()
        cookie = res.headers["Set-Cookie"]
        assert res.status == 303 and "; Secure" in cookie and "HttpOnly" in cookie
        token = cookie.split(";", 1)[0]
        server.allow(server.devices()[0]["id"])
        conn = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=30,
                                           context=client_context(tmp_path))
        body = json.dumps({"text": payload.encode(Card("fate", "knives", 2, "020"), key)})
        conn.request("POST", "/scan", body, {"Content-Type": "application/json", "Cookie": token})
        res = conn.getresponse()
        assert res.status == 200 and json.loads(res.read())["answers"][0]["status"] == "counted"
        assert curia.total == 2
        # plain http to the https address: closed, and the server goes on
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                assert b"HTTP" not in s.recv(100)   # no page over plain http
            except ConnectionResetError:
                pass
        conn = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=30,
                                           context=client_context(tmp_path))
        conn.request("GET", "/state", headers={"Cookie": token})
        assert conn.getresponse().status == 200
    finally:
        server.stop()


def test_a_handshake_sent_a_byte_at_a_time_ends_at_the_deadline(tmp_path, curia, key):
    server = PhoneServer(curia.submit, key, host="127.0.0.1", head_seconds=1.0,
                         request_seconds=1.0, answer_seconds=1.0,
                         tls=tls.server_context(tmp_path, "127.0.0.1")).start()
    hello = bytes.fromhex("16030100c8010000c40303") + bytes(200)   # the start of a ClientHello
    start = time.monotonic()
    closed_after = None
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            for b in hello[:40]:          # at most 20 s of trickling
                try:
                    s.sendall(bytes([b]))
                except OSError:
                    closed_after = time.monotonic() - start
                    break
                time.sleep(0.5)
            else:
                s.settimeout(5)
                try:
                    closed = s.recv(10) == b""
                except OSError:
                    closed = True
                closed_after = time.monotonic() - start if closed else None
    finally:
        server.stop()
    assert closed_after is not None and closed_after < 15


def test_the_certificate_names_the_tablets_address_and_follows_it(tmp_path):
    cert, _ = tls.table_certificate(tmp_path, "192.168.1.20")
    first = tls.fingerprint(tmp_path)
    assert tls._names(cert) == {"192.168.1.20"}
    tls.table_certificate(tmp_path, "192.168.1.20")
    assert tls.fingerprint(tmp_path) == first          # kept: phones accepted it once
    tls.table_certificate(tmp_path, "10.0.0.7")
    assert tls._names(cert) == {"10.0.0.7"} and tls.fingerprint(tmp_path) != first
    assert (tmp_path / tls.KEY_FILE).stat().st_mode & 0o077 == 0
