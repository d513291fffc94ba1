"""13.2: Ctrl-C from the log pane's input bar is SIGINT to the job's process group, as a
terminal's Ctrl-C: not a kill (no `stopping`, no SIGKILL after the grace). Real jobs."""

from __future__ import annotations

import asyncio

import pytest

from jobs_tui.engine import Config, JobManager, Refused

from .helpers import until

pytestmark = pytest.mark.timeout(60)

TRAPPED = "trap 'echo got INT' INT; echo ready; while true; do sleep 0.1; done"


async def lines(jm: JobManager, job_id: str) -> list[str]:
    return (await jm.logs(job_id, lines=50)).lines


async def test_interrupt_reaches_a_trap_and_the_job_goes_on(registry_dir: str):
    config = Config(kill_grace_ms=300)
    async with JobManager(cwd=".", registry_dir=registry_dir, config=config) as jm:
        rec = await jm.start(TRAPPED, label="trapped")
        assert await until(lambda: "ready" in jm.find(rec.id).last_line, 10)
        result = await jm.interrupt(rec.id)
        assert result.signalled and result.signal == "SIGINT" and not result.escalated
        assert result.processes >= 1
        assert jm.find(rec.id).stopping_at is None  # not a kill under way
        for _ in range(100):
            if "got INT" in await lines(jm, rec.id):
                break
            await asyncio.sleep(0.05)
        assert "got INT" in await lines(jm, rec.id)
        await asyncio.sleep(0.8)  # past the grace: nothing escalated, the job runs on
        record = jm.find(rec.id)
        assert record.running and not record.stopping
        await jm.interrupt(rec.id)  # again: a second trap, still running
        for _ in range(100):
            if (await lines(jm, rec.id)).count("got INT") == 2:
                break
            await asyncio.sleep(0.05)
        assert (await lines(jm, rec.id)).count("got INT") == 2
        await jm.kill(rec.id)


async def test_interrupt_ends_a_job_that_does_not_handle_it(registry_dir: str):
    async with JobManager(cwd=".", registry_dir=registry_dir, config=Config()) as jm:
        rec = await jm.start("sleep 30", label="sleeper")
        assert await until(lambda: jm.find(rec.id).pid is not None, 10)
        await jm.interrupt(rec.id)
        record = await jm.wait(rec.id, 10_000)
        assert not record.running and record.signal == "SIGINT"


async def test_interrupt_refuses_a_peers_job_and_a_finished_one(registry_dir: str):
    async with (
        JobManager(cwd=".", registry_dir=registry_dir, config=Config()) as jm,
        JobManager(cwd=".", registry_dir=registry_dir, config=Config()) as peer,
    ):
        rec = await jm.start("sleep 30", label="mine")
        peer.registry.refresh_peers(0, force=True)
        with pytest.raises(Refused, match="another session"):
            await peer.interrupt(rec.id)
        await jm.kill(rec.id)
        with pytest.raises(Refused, match="finished"):
            await jm.interrupt(rec.id)
