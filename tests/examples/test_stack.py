"""The sample project of issue 26 (examples/stack/) does what its jobs-tui.toml says: the
database stand-in prints its ready line, the API listens and answers /health, the worker
fails every time (the crash loop), each a standard-library script."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

STACK = Path(__file__).resolve().parents[2] / "examples" / "stack"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_database_stand_in_says_it_is_ready_then_stops_on_sigint():
    db = subprocess.Popen([sys.executable, "db.py"], cwd=STACK, stdout=subprocess.PIPE, text=True)
    try:
        assert db.stdout is not None
        assert db.stdout.readline() == "db: starting up\n"
        assert "ready to accept connections" in db.stdout.readline()
        db.send_signal(2)
        assert db.wait(10) == 0
    finally:
        db.kill()
        db.wait()


def test_the_api_listens_on_its_port_and_answers_health():
    port = free_port()
    env = dict(os.environ, PORT=str(port))
    api = subprocess.Popen([sys.executable, "api.py"], cwd=STACK, env=env, stdout=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as r:
                    assert (r.status, r.read()) == (200, b"ok\n")
                    break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        api.terminate()
        assert api.wait(10) == 0
    finally:
        api.kill()
        api.wait()


def test_the_worker_fails_every_time():
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "worker.py"], cwd=STACK, capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 1 and "lost the connection" in done.stderr
