"""Phone server under issue 32's connection attacks: is a real phone still answered?

Attackers run in a child process (their own interpreter, as other devices would be) on addresses
127.0.0.2-127.0.0.12; a joined phone (127.0.0.20) and a seated phone (127.0.0.21) ask for their
state. Printed per attack: how many of N requests were answered within 5 s (the joined phone)
and within 2 s (the seated phone), and the median and slowest answer. Meanwhile eight seated
phones (127.0.0.30-37) each hold their table long poll (``GET /table?v=N``, issue 32's view on
every phone); the tablet publishes a new view for every seat once per try, and the line
"8 seats' views" counts the views that reached their phone within 2 s of the publish.

    .venv/bin/python benchmarks/phone_attacks.py [--quick] [--tries 10]

Attacks: 64 slow-header clients from 11 addresses (a header byte every 2 s); 36 slow-body
connections from 6 addresses with a waiting phone's cookie (POST /scan, Content-Length 1000, a
body byte every 2 s), and the same with a seat phone's cookie (POST /ballot). Every attacker
reconnects when closed. Timings are wall-clock on whatever else the machine is doing.
"""
from __future__ import annotations

import argparse
import http.client
import json
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.phone.server import PhoneServer  # noqa: E402

from _args import parse_quick  # noqa: E402


def _attack(port: int, head: bytes, addresses: list[str], per_address: int, seconds: float):
    """The child process: connections that send ``head`` and then one byte every 2 s."""
    stop = threading.Event()

    def run(address):
        while not stop.is_set():
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5,
                                             source_address=(address, 0))
            except OSError:
                stop.wait(0.2)
                continue
            try:
                s.sendall(head)
                while not stop.wait(2.0):
                    s.sendall(b"X" if head.endswith(b"\r\n") and not head.endswith(b"\r\n\r\n")
                              else b"{")
            except OSError:
                pass
            finally:
                s.close()
            stop.wait(0.2)

    threads = [threading.Thread(target=run, args=(a,), daemon=True)
               for a in addresses for _ in range(per_address)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()


def _request(port: int, address: str, cookie: str, timeout: float) -> float | None:
    start = time.monotonic()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                          source_address=(address, 0))
        conn.request("GET", "/state", headers={"Cookie": cookie})
        ok = conn.getresponse().status == 200
        conn.close()
    except (OSError, http.client.HTTPException):
        return None
    return time.monotonic() - start if ok else None


class Poller(threading.Thread):
    """A seated phone following its table view: one long poll after another."""

    def __init__(self, port: int, address: str, cookie: str):
        super().__init__(daemon=True)
        self.port, self.address, self.cookie = port, address, cookie
        self.version, self.seen = 0, threading.Condition()
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30,
                                                  source_address=(self.address, 0))
                conn.request("GET", f"/table?v={self.version}",
                             headers={"Cookie": self.cookie, "Host": f"127.0.0.1:{self.port}"})
                res = conn.getresponse()
                body = res.read()
                conn.close()
                if res.status == 200:
                    with self.seen:
                        self.version = json.loads(body)["version"]
                        self.seen.notify_all()
                else:
                    time.sleep(0.2)
            except (OSError, http.client.HTTPException, ValueError):
                time.sleep(0.2)   # dropped for a new phone, or refused: ask again, as the page does

    def wait_past(self, version: int, seconds: float) -> float | None:
        start = time.monotonic()
        with self.seen:
            if not self.seen.wait_for(lambda: self.version > version, seconds):
                return None
        return time.monotonic() - start


def _join(server, address: str, path: str) -> str:
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10,
                                 source_address=(address, 0))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
    answer = b""
    while chunk := s.recv(65536):
        answer += chunk
    s.close()
    m = re.search(rb"Set-Cookie: ([^=]+=[^;]+)", answer)
    assert m, answer[:200]
    return m.group(1).decode()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tries", type=int, default=10)
    ap.add_argument("--attack", help=argparse.SUPPRESS)   # the child process
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--seconds", type=float, default=60.0, help=argparse.SUPPRESS)
    args = parse_quick(ap, argv, help="3 tries per attack (unless --tries says)", tries=3)
    if args.attack:
        kind, _, cookie = args.attack.partition(":")
        if kind == "header":
            head = b"GET /state HTTP/1.1\r\n"
            _attack(args.port, head, [f"127.0.0.{i}" for i in range(2, 13)], 6, args.seconds)
        else:
            path = "/scan" if kind == "body-scan" else "/ballot"
            head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{args.port}\r\nCookie: {cookie}\r\n"
                    "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n").encode()
            _attack(args.port, head, [f"127.0.0.{i}" for i in range(2, 8)], 6, args.seconds)
        return 0

    tries = args.tries
    server = PhoneServer(lambda cmd: {"status": "counted", "total": 0, "count": 0}, bytes(16),
                         host="127.0.0.1", decoder=lambda data: []).start()
    try:
        phone = _join(server, "127.0.0.20", f"/join?k={server.secret}")
        server.allow(server.devices()[-1]["id"])
        seated = _join(server, "127.0.0.21", re.sub(r"^http://[^/]+", "", server.seat_url("Bo")))
        waiting = _join(server, "127.0.0.2", f"/join?k={server.secret}")
        seat_thief = _join(server, "127.0.0.3", re.sub(r"^http://[^/]+", "",
                                                       server.seat_url("Cy")))
        seats = [f"P{i}" for i in range(8)]
        pollers = [Poller(server.port, f"127.0.0.{30 + i}",
                          _join(server, f"127.0.0.{30 + i}",
                                re.sub(r"^http://[^/]+", "", server.seat_url(seat))))
                   for i, seat in enumerate(seats)]
        for p in pollers:
            p.start()
        published = [0]

        def publish_and_time() -> list[float | None]:
            """A new view for every seat (as the tablet's main thread publishes one), and how
            long each seat's phone took to have it."""
            published[0] += 1
            before = [p.version for p in pollers]
            server.table.publish({(seat, "en"): {"view": published[0]} for seat in seats})
            return [p.wait_past(v, 5.0) for p, v in zip(pollers, before)]

        attacks = [("no attack", None),
                   ("64 slow-header clients, 11 addresses", "header"),
                   ("36 slow-body connections, 6 addresses, waiting phone's cookie",
                    f"body-scan:{waiting}"),
                   ("36 slow-body connections, 6 addresses, seat phone's cookie",
                    f"body-ballot:{seat_thief}")]
        for title, attack in attacks:
            child = attack and subprocess.Popen([sys.executable, __file__, "--attack", attack,
                                                 "--port", str(server.port), "--seconds", "600"])
            try:
                time.sleep(3.0)
                phone_t, seat_t, views_t = [], [], []
                for _ in range(tries):
                    phone_t.append(_request(server.port, "127.0.0.20", phone, 5.0))
                    seat_t.append(_request(server.port, "127.0.0.21", seated, 5.0))
                    views_t += publish_and_time()
                    time.sleep(0.2)
            finally:
                if child:
                    child.kill()
                    child.wait()
            time.sleep(2.5)   # the attackers' last connections end

            def line(name, times, within):
                ok = [t for t in times if t is not None and t <= within]
                got = [t for t in times if t is not None]
                med = f"{statistics.median(got):.3f} s" if got else "-"
                slow = f"{max(got):.3f} s" if got else "-"
                return (f"  {name}: {len(ok)}/{len(times)} answered within {within:.0f} s "
                        f"(median {med}, slowest {slow})")
            print(title)
            print(line("joined phone", phone_t, 5.0))
            print(line("seated phone", seat_t, 2.0))
            print(line("8 seats' views", views_t, 2.0), flush=True)
        for p in pollers:
            p.stop.set()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
