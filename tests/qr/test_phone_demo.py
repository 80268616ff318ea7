"""`python -m companion.phone serve --demo`: the headless phone server on the demo game at the
Curia reveal, as a real process. Its first line is the join URL; a phone joins and counts."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.parse
from pathlib import Path

from vision.qr import payload
from vision.qr.payload import Card

ROOT = Path(__file__).resolve().parents[2]


class _Server:
    def __init__(self, host, port):
        self.host, self.port = host, port


def test_help_names_the_options():
    out = subprocess.run([sys.executable, "-m", "companion.phone", "serve", "--help"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    for word in ("--demo", "--host", "--port", "--key-file", "--stickers", "--https"):
        assert word in out.stdout


def _serve_demo(tmp_path, key, sigint=None) -> subprocess.Popen:
    """The demo server as a real process; ``sigint=signal.SIG_IGN`` starts it as a shell job that
    ignores SIGINT does (``nohup … &``, a background job of a script)."""
    key_file = tmp_path / "deck-key"
    key_file.write_text(key.hex())
    return subprocess.Popen([sys.executable, "-m", "companion.phone", "serve", "--demo",
                             "--host", "127.0.0.1", "--port", "0", "--key-file", str(key_file)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)),
                            preexec_fn=None if sigint is None else (lambda: signal.signal(signal.SIGINT, sigint)))


def _stop(proc: subprocess.Popen, how=signal.SIGINT) -> int | None:
    proc.send_signal(how)
    try:
        return proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(30)
        return None


def test_serve_demo_prints_the_join_url_first_and_phones_count(tmp_path, key):
    from .test_phone_server import Phone
    proc = _serve_demo(tmp_path, key)
    try:
        first = proc.stdout.readline().strip()
        url = urllib.parse.urlsplit(first)
        assert (url.scheme, url.hostname, url.path) == ("http", "127.0.0.1", "/join")
        phone = Phone(_Server(url.hostname, url.port))
        assert phone.request("GET", f"{url.path}?{url.query}")[0] == 303
        _, _, reply = phone.scan(payload.encode(Card("fate", "knives", 5, "042"), key))
        a = reply["answers"][0]
        assert (a["status"], a["total"], a["count"], a["of"]) == ("counted", 5, 1, 10)
        # typed codes are allowed in the demo: the sticker's small type of a deck card
        _, _, reply = phone.request("POST", "/scan", json.dumps(
            {"text": "23K1.F.K1.001", "typed": True}).encode(), {"Content-Type": "application/json"})
        assert reply["answers"][0]["status"] == "counted" and reply["total"] == 6
        lines = [proc.stdout.readline().strip() for _ in range(5)]
        assert any("Phone" in line and "joined" in line for line in lines)
        assert any("5 Knives counted, total 5" in line for line in lines)
    finally:
        code = _stop(proc)
    assert code == 0


def test_ctrl_c_stops_the_server_even_when_started_with_sigint_ignored(tmp_path, key):
    """The suite, started from a shell job that ignores SIGINT, failed here: the server kept the
    inherited "ignore", the SIGINT above did nothing and the test killed it after 30 s."""
    proc = _serve_demo(tmp_path, key, sigint=signal.SIG_IGN)
    assert proc.stdout.readline().startswith("http://127.0.0.1:")
    code = _stop(proc, signal.SIGINT)
    assert code == 0, f"SIGINT did not stop it (exit {code}): {proc.stderr.read()[-1000:]}"


def test_sigterm_stops_the_server_cleanly(tmp_path, key):
    proc = _serve_demo(tmp_path, key, sigint=signal.SIG_IGN)
    assert proc.stdout.readline().startswith("http://127.0.0.1:")
    assert _stop(proc, signal.SIGTERM) == 0
    assert "Traceback" not in proc.stderr.read()
