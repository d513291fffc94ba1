"""A real process that escaped (issue 27, feature 2): a server started by a launcher that
exits at once (a double fork, its own session, no terminal), so it re-parents to init or
the nearest subreaper, in a project directory: what `strays` lists and `--kill` ends."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

SERVER = (
    "import signal, socket, sys, time\n"
    "if sys.argv[1] == 'stubborn': signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
    "open('port', 'w').write(str(s.getsockname()[1]))\n"
    "time.sleep(300)\n"
)
# the launcher: starts the server in a new session and exits, leaving it an orphan
LAUNCH = (
    "import subprocess, sys\n"
    "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,"
    " stderr=subprocess.DEVNULL, start_new_session=True)\n"
    "print(p.pid)\n"
)
HOSTILE = "\x1b]0;owned\x07\x1b[31mred"  # a stray's command line says what it likes


def ppid(pid: int) -> int:
    raw = Path(f"/proc/{pid}/stat").read_bytes()
    return int(raw[raw.rfind(b")") + 2 :].split()[1])


def alive(pid: int) -> bool:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return raw[raw.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")


def gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)


@contextlib.contextmanager
def escaped(cwd: Path, stubborn: bool = False) -> Iterator[tuple[int, int]]:
    """(pid, port) of a server that escaped into `cwd`; SIGKILLed afterwards if alive.
    `stubborn`: it ignores SIGTERM (a kill must escalate)."""
    (cwd / "port").unlink(missing_ok=True)
    argv = [sys.executable, "-c", SERVER, "stubborn" if stubborn else "plain", HOSTILE]
    out = subprocess.run(
        [sys.executable, "-c", LAUNCH, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        start_new_session=True,
        check=True,
        timeout=30,
    )
    pid = int(out.stdout.strip())
    try:
        deadline = time.monotonic() + 10
        while not (cwd / "port").exists() or not (cwd / "port").read_text():
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.02)
        yield pid, int((cwd / "port").read_text())
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
