"""A kill in progress shows as `stopping`; a second `d` offers SIGKILL now (issue 8.7)."""

from __future__ import annotations

import asyncio

import pytest

from jobs_tui.engine import Config, JobManager, JobStatus
from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen
from jobs_tui.screens.jobs.detail import DetailPane

from .fakes import NOW_MS, FakeSource, Host, frozen_clock, record, screen_text, until

pytestmark = pytest.mark.timeout(60)


def row_of(app: Host, job_id: str) -> str:
    """The job's row in the list (not the detail pane beside it)."""
    rows = app.screen.job_list.region
    lines = screen_text(app).splitlines()[rows.y : rows.bottom]
    return next(line[: rows.right] for line in lines if f" {job_id} " in line[: rows.right])


async def test_a_stopping_record_shows_in_the_row_detail_and_log_title(log_dir: str):
    source = FakeSource(
        [
            record(1, "server", log_dir=log_dir, stopping_at=NOW_MS - 1500),
            record(2, "other", log_dir=log_dir),
        ]
    )
    with open(f"{log_dir}/j1.log", "w") as f:
        f.write("x\n")
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        app.screen.job_list.select("j1")
        await pilot.pause()
        assert "stopping" in row_of(app, "j1")
        assert "stopping" not in row_of(app, "j2")
        detail = str(app.screen.query_one(DetailPane).render())
        assert "outcome  ▸ stopping · kill sent 1.5s ago" in detail, detail
        await pilot.press("enter")
        assert isinstance(app.screen, LogScreen)
        await pilot.pause(0.2)
        assert "stopping" in screen_text(app).splitlines()[0]


async def test_d_on_a_stopping_job_offers_sigkill_now(log_dir: str):
    source = FakeSource([record(1, "server", log_dir=log_dir, stopping_at=NOW_MS - 1500)])
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        assert "SIGKILL now?" in app.screen.question
        await pilot.press("y")
        await pilot.pause(0.2)
        assert source.calls == [("kill", ("j1", "SIGKILL"))]


async def test_a_kill_in_progress_then_sigkill_now_with_a_real_job(registry_dir: str):
    config = Config(kill_grace_ms=8000)
    async with JobManager(cwd=".", registry_dir=registry_dir, config=config) as jm:
        rec = await jm.start("trap '' TERM; sleep 60", label="stubborn")
        await asyncio.sleep(0.3)  # the trap is set
        app = Host(lambda: JobsScreen(jm))
        async with app.run_test(size=(120, 30)) as pilot:
            assert await until(lambda: rec.id in [r.id for r in app.screen.job_list.records])
            app.screen.job_list.select(rec.id)
            await pilot.press("d")
            assert isinstance(app.screen, ConfirmScreen) and "SIGKILL" not in app.screen.question
            await pilot.press("y")
            assert await until(lambda: "stopping" in row_of(app, rec.id)), row_of(app, rec.id)
            detail = str(app.screen.query_one(DetailPane).render())
            assert "▸ stopping · SIGTERM sent" in detail, detail
            assert jm.get(rec.id).running  # TERM is ignored: the grace runs
            await pilot.press("d")
            assert isinstance(app.screen, ConfirmScreen)
            assert "SIGKILL now?" in app.screen.question
            await pilot.press("y")
            assert await until(lambda: not jm.get(rec.id).running, timeout=5)
            assert jm.get(rec.id).status is JobStatus.KILLED
            assert jm.get(rec.id).signal == "SIGKILL"
            assert await until(lambda: any(n.startswith("■ " + rec.id) for n in app.notes))
            await pilot.pause(0.5)
            assert not any("already finished" in n for n in app.notes), app.notes
            assert len([n for n in app.notes if n.startswith("■ " + rec.id)]) == 1, app.notes
            assert await until(lambda: "stopping" not in row_of(app, rec.id))


async def test_the_sigkill_question_closes_when_the_job_ends_meanwhile(log_dir: str):
    """The toast said `killed · SIGKILL` while "SIGKILL now?" still asked; `y` then said it
    had already finished. The question goes with the job, and says why."""
    source = FakeSource([record(1, "server", log_dir=log_dir, stopping_at=NOW_MS - 1500)])
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen) and "SIGKILL now?" in app.screen.question
        source.update("j1", status=JobStatus.KILLED, signal="SIGTERM", finished_at=NOW_MS)
        assert await until(lambda: not isinstance(app.screen, ConfirmScreen), 3)
        assert any(n.startswith("j1 ended before the answer") for n in app.notes), app.notes
        await pilot.press("y")  # the y meant for the dialog reaches no kill
        await pilot.pause(0.2)
        assert source.calls == []
