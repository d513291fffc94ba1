"""The summary agrees with the registry and says when older finished jobs were pruned (8.13)."""

from __future__ import annotations

import pytest

from jobs_tui.engine import Config, JobManager, JobStatus
from jobs_tui.engine.records.format import summary
from jobs_tui.screens import JobsScreen

from .fakes import FakeSource, Host, frozen_clock, record, screen_text, until

pytestmark = pytest.mark.timeout(60)


def summary_line(app: Host) -> str:
    return screen_text(app).splitlines()[0]


async def test_pruned_jobs_are_named_in_the_summary_and_announced(log_dir: str):
    source = FakeSource(
        [record(n, f"job {n}", JobStatus.EXITED, ago=n, log_dir=log_dir) for n in range(1, 6)]
    )
    source.pruned = 3
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert "5 jobs · 0 running · 0 failed · 0 peer · 3 older finished jobs pruned" in (
            summary_line(app)
        )
        assert app.notes == []  # pruned before the screen opened: the summary says it
        del source.records["j5"], source.records["j4"]
        source.pruned = 5
        app.screen.refresh_jobs()
        await pilot.pause()
        assert "3 jobs · 0 running · 0 failed · 0 peer · 5 older finished jobs pruned" in (
            summary_line(app)
        )
        assert app.notes == ["2 older finished jobs were pruned (max_jobs 20)."]


async def test_a_source_without_pruned_says_nothing_of_it(log_dir: str):
    source = FakeSource([record(1, "job", log_dir=log_dir)])
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert "pruned" not in summary_line(app)


async def test_after_a_burst_the_summary_is_the_registrys(registry_dir: str):
    config = Config(max_jobs=5, kill_grace_ms=1000)
    async with JobManager(cwd=".", registry_dir=registry_dir, config=config) as jm:
        app = Host(lambda: JobsScreen(jm))
        async with app.run_test(size=(120, 30)) as pilot:
            for n in range(12):
                await jm.start("true", label=f"burst {n}")
            assert await until(lambda: not any(r.running for r in jm.jobs()))
            assert len(await jm.list(all=True)) == 12  # unreported results are never pruned
            for finished in jm.jobs():
                await jm.status(finished.id)  # reported now: max_jobs applies at the next write
            assert await until(lambda: len(jm.jobs()) <= 5)
            listed = await jm.list(all=True)
            expected = summary(listed, jm.session_id)
            assert await until(lambda: expected in summary_line(app)), summary_line(app)
            ids = [r.id for r in listed]
            assert await until(lambda: [r.id for r in app.screen.job_list.records] == ids)
            await pilot.pause()
