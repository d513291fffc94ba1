"""`jobs-tui serve` run as a real process against the test's registry (see tests/cli)."""

from __future__ import annotations

import re
import select
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

import psutil
import pytest

from tests.cli.conftest import ENTRY, Cli, cli, until

__all__ = ["Served", "cli", "served", "until"]

TOKEN = "test-token-0123456789abcdef"
URL = re.compile(r"^jobs-tui serve: (http://[^/]+)/\?token=(\S+)$")


@dataclass
class Served:
    proc: subprocess.Popen[str]
    base: str  # http://127.0.0.1:PORT
    token: str
    started_at: float

    @property
    def url(self) -> str:
        return f"{self.base}/?token={self.token}"

    @property
    def ws(self) -> str:
        return self.base.replace("http", "ws", 1) + "/ws"

    def apps(self) -> list[psutil.Process]:
        """The tabs' app processes (`python -m jobs_tui.app.serve.tab --app ...`)."""
        try:
            children = psutil.Process(self.proc.pid).children()
        except psutil.NoSuchProcess:
            return []
        found = []
        for child in children:
            try:
                if "jobs_tui.app.serve.tab" in child.cmdline():
                    found.append(child)
            except psutil.Error:
                continue
        return found

    def stop(self, signum: int = signal.SIGINT, timeout: float = 30) -> tuple[int, str]:
        """Signal the server; its exit status and its stderr."""
        self.proc.send_signal(signum)
        try:
            _out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _out, err = self.proc.communicate()
            raise AssertionError(f"serve did not stop within {timeout}s: {err}") from None
        return self.proc.returncode, err


def start_server(cli: Cli, *flags: str, env: dict[str, str] | None = None) -> Served:
    """`jobs-tui serve --port 0 FLAGS` (with `env` added to the test's), once it printed its URL."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [*ENTRY, "serve", "--port", "0", *flags],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**cli.env(), **(env or {})},
        cwd=cli.cwd,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    first = proc.stdout.readline() if ready else ""
    match = URL.match(first.strip())
    if match is None:
        proc.kill()
        _out, err = proc.communicate()
        raise AssertionError(f"serve printed {first!r}, stderr {err!r}")
    return Served(proc, match.group(1), match.group(2), started)


@pytest.fixture
def served(cli: Cli) -> Iterator[Served]:
    server = start_server(cli, "--token", TOKEN)
    yield server
    if server.proc.poll() is None:
        server.stop()
