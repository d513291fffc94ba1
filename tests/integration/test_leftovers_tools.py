"""Issue 22: the `job` tool on a finished job that left a daemon: status counts it, clear
refuses naming kill, clear with all kills it first; kill is not "already finished"."""

from __future__ import annotations

from jobs_tui.engine import Config, JobManager
from jobs_tui.engine.tools import JobTools

from .helpers import gone, until
from .leaks import kill_all, marked

DAEMON = "(setsid sleep 600 >/dev/null 2>&1 &); exit 0"


async def _daemon_job(jm: JobManager, registry_dir: str) -> tuple[str, list[int]]:
    rec = await jm.wait((await jm.start(DAEMON)).id, 10_000)
    assert await until(lambda: len(marked(registry_dir, rec.id)) == 1, 10)
    return rec.id, marked(registry_dir, rec.id)


async def test_the_job_tool_refuses_to_clear_a_job_whose_daemon_runs(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, config=Config(kill_grace_ms=300)) as jm:
        tools = JobTools(jm)
        job_id, daemon = await _daemon_job(jm, registry_dir)
        try:
            status = await tools.call({"action": "status", "id": job_id})
            assert status["job"]["remainingProcesses"] == 1
            refused = await tools.call({"action": "clear", "id": job_id})
            assert "kill" in refused["error"] and not gone(daemon[0])
            assert jm.find(job_id) is not None
            cleared = await tools.call({"action": "clear", "id": job_id, "all": True})
            assert cleared["cleared"] == 1 and gone(daemon[0])
        finally:
            kill_all(daemon)


async def test_the_job_tool_kills_what_a_finished_job_left(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, config=Config(kill_grace_ms=300)) as jm:
        tools = JobTools(jm)
        job_id, daemon = await _daemon_job(jm, registry_dir)
        try:
            killed = await tools.call({"action": "kill", "id": job_id})
            assert "error" not in killed and killed["leftoversKilled"] == 1
            assert gone(daemon[0]) and killed["job"]["remainingProcesses"] == 0
            listed = await tools.call({"action": "list"})
            assert [j["remainingProcesses"] for j in listed["jobs"]] == [0]
        finally:
            kill_all(daemon)


async def test_leftovers_that_ignore_term_get_sigkill_after_the_grace(registry_dir: str):
    deaf = "(setsid sh -c 'trap \"\" TERM; while :; do sleep 600; done' >/dev/null 2>&1 &); exit 0"
    async with JobManager(registry_dir=registry_dir, config=Config(kill_grace_ms=300)) as jm:
        rec = await jm.wait((await jm.start(deaf)).id, 10_000)
        assert await until(lambda: len(marked(registry_dir, rec.id)) == 2, 10)
        left = marked(registry_dir, rec.id)
        try:
            result = await jm.kill(rec.id, "SIGTERM")
            assert result.leftovers >= 1 and result.escalated
            assert marked(registry_dir, rec.id) == [] and result.job.remaining_processes == 0
        finally:
            kill_all(left)
