"""Who ended a job (issue 27, feature 3), on the record a real job's settle writes: the job
itself, a kill (door and session), its deadline, an outside `kill -9`, its session's death."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.engine.records.model import JobStatus

from .helpers import gone, until
from .sessions import SessionProcess

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


async def _on_disk(registry_dir: str, job_id: str) -> dict:
    async with JobManager(registry_dir=registry_dir) as reader:
        return reader.get(job_id).to_json()


async def test_a_job_that_exits_was_ended_by_itself(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("exit 3")
        rec = await jm.wait(rec.id, 10_000)
        assert rec.status is JobStatus.FAILED
        assert rec.ended_by is not None and rec.ended_by.by == "self"
        assert rec.ended_by.words() == "exit 3"
        assert rec.to_json()["endedBy"] == {"by": "self", "exitCode": 3}
    assert (await _on_disk(registry_dir, rec.id))["endedBy"] == {"by": "self", "exitCode": 3}


async def test_a_kill_says_the_door_and_the_session_that_asked(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, door="screen") as jm:
        rec = await jm.start("sleep 300")
        result = await jm.kill(rec.id)
        assert not result.job.running
        ended = result.job.ended_by
        assert ended is not None and ended.by == "request"
        assert (ended.door, ended.session, ended.signal) == ("screen", jm.session_id, "SIGTERM")
        assert ended.words() == f"killed · SIGTERM · by the screen (session {jm.session_id[:8]})"
        # a kill's own door wins over the session's
        other = await jm.start("sleep 300")
        killed = await jm.kill(other.id, "SIGKILL", door="browser")
        assert killed.job.ended_by is not None and killed.job.ended_by.door == "browser"
    on_disk = await _on_disk(registry_dir, rec.id)
    assert on_disk["endedBy"]["door"] == "screen" and on_disk["endedBy"]["by"] == "request"


async def test_a_job_that_traps_the_kill_and_exits_is_still_the_request(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, door="cli") as jm:
        rec = await jm.start("trap 'exit 0' TERM; while :; do sleep 0.05; done")
        await until(lambda: bool(jm.get(rec.id).pid), 5)

        await asyncio.sleep(0.3)  # the trap is set
        result = await jm.kill(rec.id)
        ended = result.job.ended_by
        assert ended is not None and ended.by == "request" and ended.door == "cli"


async def test_a_deadline_ends_it_and_says_so(registry_dir: str):
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.start("sleep 300", timeout_ms=300)
        rec = await jm.wait(rec.id, 10_000)
        assert rec.status is JobStatus.KILLED and rec.end_reason == "deadline"
        assert rec.ended_by is not None and rec.ended_by.by == "deadline"
        assert rec.ended_by.words().endswith("by its deadline")


async def test_an_outside_kill_9_is_from_outside(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, door="cli") as jm:
        rec = await jm.start("exec sleep 300")
        assert await until(lambda: bool(jm.get(rec.id).pid), 5)
        os.kill(jm.get(rec.id).pid, signal.SIGKILL)
        rec = await jm.wait(rec.id, 10_000)
        assert rec.status is JobStatus.KILLED and rec.signal == "SIGKILL"
        assert rec.ended_by is not None and rec.ended_by.by == "outside"
        assert rec.ended_by.door is None and rec.ended_by.pid is None
        assert rec.ended_by.words() == "killed · SIGKILL · from outside (sender unknown)"


async def test_a_job_whose_session_was_killed_was_ended_by_its_owner_going(
    registry_dir: str, session_procs
):
    other = SessionProcess(registry_dir, [{"command": "sleep 300"}])
    session_procs.append(other)
    info = await other.started()
    other.kill(signal.SIGKILL)
    (job,) = info["jobs"]
    assert await until(lambda: gone(job["pid"]), 5)
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = jm.get(job["id"])
        assert rec.end_reason == "owner-gone"
        assert rec.ended_by is not None and rec.ended_by.by == "owner-gone"
        assert rec.ended_by.words().endswith("its session ended")


async def test_a_peers_finish_is_shown_with_who_ended_it(registry_dir: str, session_procs):
    other = SessionProcess(registry_dir, [{"command": "sleep 0.5; exit 3"}])
    session_procs.append(other)
    info = await other.started()
    (started,) = info["jobs"]
    async with JobManager(registry_dir=registry_dir) as jm:
        rec = await jm.wait(started["id"], 10_000)
        assert not jm.is_own(rec)
        assert rec.ended_by is not None and rec.ended_by.words() == "exit 3"
