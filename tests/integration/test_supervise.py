"""`supervise=True`: a person's screen acts on another live session's job where it is.

The owner is a second live `JobManager` on the same registry (an agent's session): the
kill, the input and the clear reach its job through the job's own shim and its file,
and afterwards the job is still (or was, until cleared) that session's alone.
"""

from __future__ import annotations

import pytest

from jobs_tui.engine import Config, JobManager, JobStatus, Refused

from .helpers import until

pytestmark = pytest.mark.timeout(60)


def manager(registry_dir: str) -> JobManager:
    return JobManager(cwd=".", registry_dir=registry_dir, config=Config(kill_grace_ms=1000))


async def test_a_supervised_kill_leaves_the_job_its_owners(registry_dir: str):
    async with manager(registry_dir) as owner, manager(registry_dir) as screen:
        rec = await owner.start("sleep 30", label="agent build")
        screen.registry.refresh_peers(0, force=True)
        result = await screen.kill(rec.id, supervise=True)
        assert result.signalled and not result.adopted
        assert screen.get(rec.id).status is JobStatus.KILLED
        assert await until(lambda: not owner.get(rec.id).running)
        assert owner.is_own(owner.get(rec.id)) and owner.get(rec.id).status is JobStatus.KILLED
        assert rec.id not in {r.id for r in screen.jobs(include_peers=False)}


async def test_supervised_input_reaches_a_peers_job_and_unsupervised_is_refused(
    registry_dir: str,
):
    async with manager(registry_dir) as owner, manager(registry_dir) as screen:
        rec = await owner.start("read line; echo got:$line", stdin=True)
        screen.registry.refresh_peers(0, force=True)
        with pytest.raises(Refused, match="another session's job; not sent input"):
            await screen.send(rec.id, "no")
        await screen.send(rec.id, "yes", supervise=True)
        done = await owner.wait(rec.id, 10_000)
        assert done.exit_code == 0 and owner.is_own(done)
        assert "got:yes" in (await owner.logs(rec.id)).lines


async def test_a_supervised_clear_takes_a_live_peers_record_out_for_good(registry_dir: str):
    async with manager(registry_dir) as owner, manager(registry_dir) as screen:
        done = await owner.wait((await owner.start("exit 3")).id, 10_000)
        screen.registry.refresh_peers(0, force=True)
        assert await screen.clear() == []  # its own only, as before
        cleared = await screen.clear(supervise=True)
        assert [r.id for r in cleared] == [done.id]
        assert await until(lambda: done.id not in {r.id for r in owner.jobs()}, 5)
        owner.registry.persist()  # the owner's next write does not bring it back
        screen.registry.refresh_peers(0, force=True)
        assert done.id not in {r.id for r in screen.jobs()}


async def test_a_detached_job_outlives_its_session(registry_dir: str):
    async with manager(registry_dir) as first:
        rec = await first.start("sleep 30")
        assert (await first.detach(rec.id)).detached
    async with manager(registry_dir) as later:
        record = later.get(rec.id)
        assert record.running and record.detached
        await later.kill(rec.id, "SIGKILL")
