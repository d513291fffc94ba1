"""Jobs on a pseudo-terminal: a REPL round trip, a resize the program sees, ^D for eof."""

from __future__ import annotations

import sys

import pytest

from jobs_tui.engine import JobError, JobManager, Refused
from jobs_tui.engine.model import JobStatus

from .helpers import until

REPL_SETUP = (
    "import os, signal; "
    "signal.signal(signal.SIGWINCH, lambda *a: print('winch', *os.get_terminal_size())); "
    "print('tty', os.isatty(0), *os.get_terminal_size())"
)


@pytest.fixture
async def jm(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as manager:
        yield manager


async def test_repl_on_a_terminal_sees_its_size_and_a_resize(jm: JobManager):
    rec = await jm.start(f"{sys.executable} -q", tty=True, cols=100, rows=30)
    assert rec.tty and rec.stdin
    await jm.send(rec.id, REPL_SETUP)
    log = jm.paths.log(rec.id)
    assert await until(lambda: "tty True 100 30" in log.read_text(errors="replace"), 10)
    await jm.resize(rec.id, 120, 40)
    assert await until(lambda: "winch 120 40" in log.read_text(errors="replace"), 10)
    reply = await jm.send(rec.id, "exit(3)")
    assert reply["stdinClosed"] is False
    rec = await jm.wait(rec.id, 10_000)
    assert rec.status is JobStatus.FAILED and rec.exit_code == 3
    text = (await jm.logs(rec.id)).text
    assert "\r" not in text and "winch 120 40" in text


async def test_eof_on_a_terminal_types_ctrl_d(jm: JobManager):
    rec = await jm.start("cat", tty=True)
    await jm.send(rec.id, "typed")
    closed = await jm.send(rec.id, eof=True)
    assert closed["stdinClosed"] is False
    rec = await jm.wait(rec.id, 10_000)
    assert rec.status is JobStatus.EXITED
    assert (await jm.logs(rec.id)).lines == ["typed", "typed"]


async def test_resize_refusals(jm: JobManager):
    piped = await jm.start("sleep 30")
    with pytest.raises(Refused, match="not a terminal job"):
        await jm.resize(piped.id, 100, 30)
    term = await jm.start("sleep 30", tty=True)
    with pytest.raises(JobError, match="outside 20-500 x 5-300"):
        await jm.resize(term.id, 10, 30)
    with pytest.raises(JobError, match="outside"):
        await jm.start("true", tty=True, cols=80, rows=400)
    await jm.kill(piped.id, "SIGKILL")
    await jm.kill(term.id, "SIGKILL")
