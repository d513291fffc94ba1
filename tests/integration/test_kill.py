"""Tree kill, escalation, deadlines, leftovers of a finished job, and supervisors that die."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap

import psutil
import pytest

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.records.model import JobStatus
from jobs_tui.engine.tools import JobTools

from .helpers import gone, tree, until

# One child traps TERM; one escapes the group with setsid and double-forks.
STUBBORN = textwrap.dedent(
    """
    sh -c 'trap "" TERM; while :; do sleep 1; done' &
    (setsid sh -c 'trap "" TERM; sleep 300' &) &
    sleep 300
    """
).strip()


@pytest.fixture
async def jm(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, config=Config(kill_grace_ms=500)) as manager:
        yield manager


async def _descendants(rec, at_least: int) -> list[int]:
    assert await until(lambda: len(tree(rec.shim_pid)) >= at_least, 10)
    return tree(rec.shim_pid)


async def test_kill_takes_the_whole_tree_with_escalation(jm: JobManager):
    rec = await jm.start(STUBBORN, label="stubborn")
    pids = await _descendants(rec, 5)
    escaped = [p for p in pids if os.getsid(p) != rec.pid]
    assert escaped, "the setsid child should have left the job's session"
    result = await jm.kill(rec.id, "SIGTERM")
    assert result.signalled and result.job.status is JobStatus.KILLED
    assert result.job.signal == "SIGTERM" and result.job.end_reason == "kill"
    assert await until(lambda: all(gone(p) for p in pids), 5), [p for p in pids if not gone(p)]


async def test_sigkill_and_sigint_are_delivered(jm: JobManager):
    a = await jm.start("sleep 30")
    b = await jm.start("sleep 30")
    ka = await jm.kill(a.id, "SIGKILL")
    kb = await jm.kill(b.id, "SIGINT")
    assert (ka.job.status, ka.job.signal) == (JobStatus.KILLED, "SIGKILL")
    assert (kb.job.status, kb.job.signal) == (JobStatus.KILLED, "SIGINT")
    assert ka.job.exit_status == -signal.SIGKILL


async def test_deadline_kills_the_job(jm: JobManager):
    rec = await jm.start("sleep 30", timeout_ms=300)
    rec = await jm.wait(rec.id, 10_000)
    assert rec.status is JobStatus.KILLED and rec.end_reason == "deadline"
    assert rec.signal == "SIGTERM"


async def test_deadline_escalates_when_term_is_trapped(jm: JobManager):
    rec = await jm.start("trap '' TERM; sleep 30 & wait; sleep 30", timeout_ms=200)
    rec = await jm.wait(rec.id, 10_000)
    assert rec.status is JobStatus.KILLED and rec.end_reason == "deadline"
    assert rec.exit_status == -signal.SIGKILL


async def test_shell_exit_settles_promptly_with_background_grandchild(jm: JobManager):
    rec = await jm.start("sleep 300 & echo started; exit 4")
    rec = await jm.wait(rec.id, 5_000)
    assert rec.status is JobStatus.FAILED and rec.exit_code == 4
    leftovers = tree(rec.shim_pid)
    assert leftovers, "the background sleep should still be running"
    details = await JobTools(jm).call({"action": "kill", "id": rec.id})
    assert details["signalled"] is False and "error" not in details  # issue 22: not "already
    assert details["leftoversKilled"] >= 1  # finished" while processes of it still run
    assert await until(lambda: all(gone(p) for p in leftovers), 5)
    assert jm.registry.get(rec.id).status is JobStatus.FAILED


async def test_output_of_leftovers_is_still_logged(jm: JobManager):
    rec = await jm.start("(sleep 0.5; echo late) & echo early")
    rec = await jm.wait(rec.id, 5_000)
    assert rec.status is JobStatus.EXITED
    assert await until(lambda: "late" in jm.paths.log(rec.id).read_text(), 5)


async def test_kill_of_finished_job_without_leftovers(jm: JobManager):
    rec = await jm.wait((await jm.start("true")).id, 5_000)
    details = await JobTools(jm).call({"action": "kill", "id": rec.id})
    assert details["signalled"] is False and "already finished" in details["error"]
    assert "leftoversKilled" not in details


async def test_killed_supervisor_does_not_leave_the_job_unowned(jm: JobManager):
    rec = await jm.start("sleep 300")
    child = rec.pid
    os.kill(rec.shim_pid, signal.SIGKILL)
    assert await until(lambda: not jm.registry.get(rec.id).running, 10)
    settled = jm.registry.get(rec.id)
    assert settled.status is JobStatus.KILLED and settled.end_reason == "shim-gone"
    assert await until(lambda: gone(child), 5)


DRIVER = textwrap.dedent(
    """
    import asyncio, sys
    from jobs_tui.engine import JobManager
    async def main():
        jm = JobManager(registry_dir=sys.argv[1])
        await jm.open()
        a = await jm.start("sleep 300")
        b = await jm.start("sleep 300", detached=True)
        print(a.pid, b.pid, flush=True)
        await asyncio.sleep(300)
    asyncio.run(main())
    """
)


async def test_session_killed_with_sigkill_takes_its_jobs_but_not_detached_ones(
    registry_dir: str,
):
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, registry_dir], stdout=subprocess.PIPE, text=True
    )
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 20)
        attached, detached = map(int, line.split())
        proc.kill()
        proc.wait()
        assert await until(lambda: gone(attached), 3), "owner-gone kill should take < 2 s"
        assert not gone(detached)
        assert psutil.Process(detached).status() != psutil.STATUS_ZOMBIE
    finally:
        proc.kill()
    async with JobManager(registry_dir=registry_dir) as jm:
        for rec in jm.jobs():
            if rec.running:
                await jm.adopt(rec.id)
                await jm.kill(rec.id, "SIGKILL")
    assert gone(detached)


# -- kill returns when the tree is gone, and says how it went (8.6, 8.7) -------------------


async def test_kill_returns_only_once_the_whole_tree_is_gone(jm: JobManager):
    rec = await jm.start(STUBBORN, label="stubborn")
    pids = await _descendants(rec, 5)
    result = await jm.kill(rec.id, "SIGTERM")
    alive = [p for p in pids if not gone(p)]
    assert not alive, f"kill returned while {len(alive)} processes of the tree lived on"
    assert result.escalated is True, "TERM was ignored: SIGKILL had to follow"
    assert result.processes >= len(pids)
    assert result.job.status is JobStatus.KILLED and not result.job.stopping


async def test_kill_of_a_tree_that_obeys_term_does_not_escalate(jm: JobManager):
    rec = await jm.start("sleep 300 & sleep 300")
    pids = await _descendants(rec, 3)
    result = await jm.kill(rec.id, "SIGTERM")
    assert all(gone(p) for p in pids)
    assert result.escalated is False and result.processes >= 3


async def test_kill_tools_report_escalation_and_processes(jm: JobManager):
    from jobs_tui.engine.tools import ExecCommandTools

    rec = await jm.start(STUBBORN)
    await _descendants(rec, 5)
    details = await JobTools(jm).call({"action": "kill", "id": rec.id})
    assert details["escalated"] is True and details["processes"] >= 5
    ec = ExecCommandTools(jm)
    started = await ec.exec_command(cmd=STUBBORN, yield_time_ms=250)
    await _descendants(jm.get(f"j{started['session_id']}"), 5)
    killed = await ec.kill_session(session_id=started["session_id"])
    assert killed["killed"] is True and killed["escalated"] is True


TERM_DEAF = "trap '' TERM; sleep 300 & sleep 300"  # the leader and its children ignore TERM


async def test_a_kill_in_progress_is_on_the_record_and_sigkill_cuts_it_short(registry_dir: str):
    config = Config(kill_grace_ms=20_000)
    async with JobManager(registry_dir=registry_dir, config=config) as jm:
        rec = await jm.start(TERM_DEAF)
        pids = await _descendants(rec, 2)
        first = asyncio.create_task(jm.kill(rec.id, "SIGTERM"))
        assert await until(lambda: jm.get(rec.id).stopping, 5)
        async with JobManager(registry_dir=registry_dir) as peer:  # persisted: others see it
            assert peer.get(rec.id).stopping and peer.get(rec.id).stopping_at
        started = asyncio.get_running_loop().time()
        second = await jm.kill(rec.id, "SIGKILL")
        assert asyncio.get_running_loop().time() - started < 3, "SIGKILL must not wait the grace"
        assert second.job.status is JobStatus.KILLED and all(gone(p) for p in pids)
        first_result = await asyncio.wait_for(first, 5)
        assert first_result.job.status is JobStatus.KILLED and not first_result.escalated
        assert jm.get(rec.id).stopping_at is None and not jm.get(rec.id).stopping
