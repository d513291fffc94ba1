"""Jobs on a pseudo-terminal: a REPL round trip, a resize the program sees, ^D for eof."""

from __future__ import annotations

import json
import os
import signal
import sys

import pytest

from jobs_tui.engine import JobError, JobManager, Refused
from jobs_tui.engine.records.model import JobRecord, JobStatus

from .helpers import tree, until

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


async def test_the_record_keeps_the_terminals_size_and_a_resize(jm: JobManager):
    """A view opened later (another app, another session) replays at the job's size."""
    rec = await jm.start("sleep 30", tty=True, cols=100, rows=30)
    assert (rec.term_cols, rec.term_rows) == (100, 30)
    piped = await jm.start("sleep 30")
    assert (piped.term_cols, piped.term_rows) == (None, None)

    def on_disk() -> dict[str, dict]:
        data = json.loads(jm.paths.registry_file(jm.session_id).read_text())
        return {j["id"]: j for j in data["jobs"]}

    assert await until(lambda: on_disk()[rec.id].get("cols") == 100, 10)
    assert on_disk()[rec.id]["rows"] == 30
    assert "cols" not in on_disk()[piped.id] and "rows" not in on_disk()[piped.id]
    await jm.resize(rec.id, 90, 26)
    assert (jm.get(rec.id).term_cols, jm.get(rec.id).term_rows) == (90, 26)
    assert (on_disk()[rec.id]["cols"], on_disk()[rec.id]["rows"]) == (90, 26)
    async with JobManager(registry_dir=jm.paths.root) as other:
        seen = other.get(rec.id)
        assert (seen.term_cols, seen.term_rows) == (90, 26)
    for job_id in (rec.id, piped.id):
        await jm.kill(job_id, "SIGKILL")


@pytest.mark.parametrize(
    "cols, rows",
    [(10**9, 30), (100, 10**9), (0, 24), (100, None), ("100", 30), (True, 30), (19, 24)],
)
def test_a_hostile_size_in_a_registry_file_is_not_trusted(cols: object, rows: object):
    entry = JobRecord.from_json(
        {**_ENTRY, "cols": cols, "rows": rows} if rows is not None else {**_ENTRY, "cols": cols}
    )
    assert (entry.term_cols, entry.term_rows) == (None, None)
    assert entry.to_json().get("cols") == cols  # not trusted, but kept as it was
    assert JobRecord.from_json({**_ENTRY, "cols": 500, "rows": 5}).term_cols == 500


_ENTRY = {
    "id": "j1",
    "label": "x",
    "command": "x",
    "cwd": "/",
    "pid": None,
    "status": "running",
    "exitCode": None,
    "signal": None,
    "startedAt": 1,
    "finishedAt": None,
    "logPath": "/tmp/j1.log",
    "detached": False,
    "wake": False,
    "sessionId": "s",
    "seen": False,
    "lastLine": "",
    "tty": True,
}


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


# -- Ctrl-C: the status of a job is its command's, not the wrapper shell's ---------------

PY = f"{sys.executable} -q"


async def _ctrl_c_then_exit(jm: JobManager, command: str) -> JobStatus:
    rec = await jm.start(command, tty=True)
    log = jm.paths.log(rec.id)
    assert await until(lambda: ">>> " in log.read_text(errors="replace"), 10)
    await jm.send_bytes(rec.id, b"\x03")
    assert await until(lambda: "KeyboardInterrupt" in log.read_text(errors="replace"), 10)
    await jm.send(rec.id, "exit(0)")
    return await jm.wait(rec.id, 10_000)


@pytest.mark.parametrize("command", [PY, f"exec {PY}"])
async def test_a_handled_ctrl_c_is_not_a_death_by_signal(jm: JobManager, command: str):
    rec = await _ctrl_c_then_exit(jm, command)
    assert (rec.status, rec.exit_code, rec.signal) == (JobStatus.EXITED, 0, None)


async def test_the_next_command_runs_after_a_handled_ctrl_c(jm: JobManager):
    rec = await _ctrl_c_then_exit(jm, f"{PY}; echo after-$?; exit 5")
    assert (rec.status, rec.exit_code) == (JobStatus.FAILED, 5)
    assert "after-0" in (await jm.logs(rec.id)).text


@pytest.mark.parametrize(("key", "name"), [(b"\x03", "SIGINT"), (b"\x1c", "SIGQUIT")])
async def test_a_real_ctrl_c_is_still_a_death_by_that_signal(jm: JobManager, key, name):
    rec = await jm.start("echo ready; sleep 100; echo not-reached", tty=True)
    log = jm.paths.log(rec.id)
    assert await until(lambda: "ready" in log.read_text(errors="replace"), 10)
    await jm.send_bytes(rec.id, key)
    rec = await jm.wait(rec.id, 10_000)
    assert (rec.status, rec.signal, rec.end_reason) == (JobStatus.KILLED, name, "exit")
    assert "not-reached" not in log.read_text(errors="replace")


async def test_shell_errors_keep_their_line_numbers(jm: JobManager):
    rec = await jm.wait((await jm.start("echo ok\nif")).id, 10_000)
    assert rec.exit_code == 2
    assert "2: Syntax error" in (await jm.logs(rec.id)).text


async def test_sigint_to_a_piped_job_is_still_a_death_by_sigint(jm: JobManager):
    rec = await jm.start("sleep 100; echo not-reached")
    assert await until(lambda: tree(rec.pid), 10), "sh should have started its child"
    os.killpg(rec.pid, signal.SIGINT)
    rec = await jm.wait(rec.id, 10_000)
    assert (rec.status, rec.signal, rec.exit_status) == (JobStatus.KILLED, "SIGINT", -2)


@pytest.mark.parametrize("tty", [False, True])
async def test_a_shell_that_signals_itself_dies_of_it(jm: JobManager, tty: bool):
    rec = await jm.wait((await jm.start("kill -TERM $$; echo not-reached", tty=tty)).id, 10_000)
    assert (rec.status, rec.signal) == (JobStatus.KILLED, "SIGTERM")
