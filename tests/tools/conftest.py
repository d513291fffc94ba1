"""A JobManager per test (short kill grace) and the two facades over it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.tools import ExecCommandTools, ProcessTools

# A program that puts its terminal in raw mode and prints the repr of every chunk it
# reads, so a test sees the exact bytes a key token became; `q` ends it.
RAW_KEYS = (
    "import os, sys, tty; tty.setraw(0); print('ready', end='\\r\\n', flush=True)\n"
    "while True:\n"
    "    chunk = os.read(0, 4096)\n"
    "    sys.stdout.write(repr(chunk) + '\\r\\n'); sys.stdout.flush()\n"
    "    if chunk.endswith(b'q'): break\n"
)

# A REPL-like program that reports its terminal size at start and on every SIGWINCH.
WINCH = (
    "import os, signal, sys, time\n"
    "def show(*_): print('size', *os.get_terminal_size(), flush=True)\n"
    "signal.signal(signal.SIGWINCH, show); show()\n"
    "for line in sys.stdin: print('got', line.strip(), flush=True)\n"
)


@pytest.fixture
async def jm(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, config=Config(kill_grace_ms=300)) as manager:
        yield manager


@pytest.fixture
def ec(jm: JobManager) -> ExecCommandTools:
    return ExecCommandTools(jm)


@pytest.fixture
def pt(jm: JobManager, ec: ExecCommandTools) -> ProcessTools:
    return ProcessTools(jm, cursors=ec.cursors)


async def eventually(
    read: Callable[[], Awaitable[str]], wanted: str, seen: str = "", timeout: float = 10.0
) -> str:
    """Read repeatedly (each read returns new output) until `wanted` shows up; all of it.

    `seen` is output already read (by the call that sent the input, say).
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if wanted in seen:
            return seen
        seen += await read()
        await asyncio.sleep(0.05)
    raise AssertionError(f"{wanted!r} never appeared in {seen!r}")
