"""Pruning by `max_jobs` drops only finished records whose results were reported."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from jobs_tui.engine import Config, JobManager, UnknownJob
from jobs_tui.engine.records.model import JobRecord, JobStatus
from jobs_tui.engine.registry.ownership import FINISHED_CEILING, prune_victims
from jobs_tui.engine.tools import ExecCommandTools

from .helpers import until


async def test_unreported_results_survive_max_jobs_until_they_are_reported(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, config=Config(max_jobs=3)) as jm:
        ids = [(await jm.start(f"printf out-{n}")).id for n in range(6)]
        assert await until(lambda: all(not jm.registry.get(i).running for i in ids), 15)
        await asyncio.sleep(1.3)  # a reconcile pass, which writes the file, comes and goes
        assert sorted(r.id for r in jm.jobs(include_peers=False)) == sorted(ids)
        assert jm.pruned == 0
        assert all(Path(jm.paths.log(i)).exists() for i in ids)
        tools = ExecCommandTools(jm)
        for n, job_id in enumerate(ids):
            result = await tools.write_stdin(session_id=job_id, yield_time_ms=0)
            assert result["output"] == f"out-{n}", result
        for job_id in ids:  # every result reported: now max_jobs applies
            try:
                await jm.status(job_id)
            except UnknownJob:
                pass
        assert await until(lambda: jm.pruned == 3, 5)
        assert sorted(r.id for r in jm.jobs(include_peers=False)) == sorted(ids[3:])
        assert not any(Path(jm.paths.log(i)).exists() for i in ids[:3])
        written = json.loads(jm.paths.registry_file(jm.session_id).read_text())
        assert written["pruned"] == 3
    # The count outlives the process: the next process of the session reads it.
    again = JobManager(registry_dir=registry_dir, session_id=jm.session_id, persistent=True)
    await again.open()
    try:
        assert again.pruned == 3
    finally:
        await again.close()


def _finished(n: int, seen: bool, session: str = "s") -> JobRecord:
    return JobRecord(
        id=f"j{n}",
        label="x",
        command="x",
        cwd="/",
        pid=None,
        status=JobStatus.EXITED,
        exit_code=0,
        signal=None,
        started_at=n,
        finished_at=n,
        log_path=f"/r/j{n}.log",
        detached=False,
        wake=False,
        session_id=session,
        seen=seen,
    )


def test_reported_go_first_oldest_first():
    records = [_finished(n, seen=n % 2 == 0) for n in range(1, 11)]
    victims, unreported = prune_victims(records, 4)
    assert [r.id for r in victims] == ["j2", "j4", "j6", "j8", "j10"]
    assert unreported == 0


def test_unreported_are_kept_up_to_the_ceiling_then_the_oldest_go():
    count = FINISHED_CEILING + 7
    records = [_finished(n, seen=False) for n in range(1, count + 1)]
    victims, unreported = prune_victims(records, 20)
    assert [r.id for r in victims] == [f"j{n}" for n in range(1, 8)]
    assert unreported == 7


async def test_pruning_past_the_ceiling_is_reported(registry_dir: str):
    async with JobManager(registry_dir=registry_dir, config=Config(max_jobs=1)) as jm:
        for n in range(1, FINISHED_CEILING + 3):
            jm.registry.add(_finished(n, seen=False, session=jm.session_id))
        jm.registry.persist()
        assert jm.pruned == 2
        assert any("j1, j2" in p and "not" in p for p in jm.take_problems())
        assert len(jm.jobs(include_peers=False)) == FINISHED_CEILING
