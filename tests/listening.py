"""A job command that listens on a TCP port after a delay, for the `port` wait tests."""

from __future__ import annotations

import socket
import sys


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listener(port: int, delay: float) -> str:
    """A command that prints, waits `delay` s, then listens on `port` until killed."""
    steps = [
        "import socket,time",
        "print('booting',flush=True)",
        "time.sleep(" + repr(delay) + ")",
        "s=socket.socket()",
        "s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)",
        "s.bind(('127.0.0.1'," + str(port) + "))",
        "s.listen()",
        "print('up',flush=True)",
        "time.sleep(60)",
    ]
    code = ";".join(steps)
    return f'{sys.executable} -c "{code}"'
