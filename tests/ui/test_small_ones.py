"""The screens' small ones of issue 8.17: dialog footer, seen results, singular forms."""

from __future__ import annotations

import pytest

from jobs_tui.app.tui import JobsApp
from jobs_tui.engine import JobManager
from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen

from .fakes import FakeSource, Host, frozen_clock, mixed_records, screen_text, until

pytestmark = pytest.mark.timeout(60)


async def test_a_dialogs_footer_shows_its_keys_only(log_dir: str):
    source = FakeSource(mixed_records(log_dir))
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "y Yes" in footer and "n No" in footer, footer
        assert "Kill" not in footer and "Clear" not in footer and "Log" not in footer, footer


async def test_a_log_opened_on_a_finished_job_marks_it_seen(jm: JobManager):
    rec = await jm.start("echo done; exit 3", label="fails")
    assert await until(lambda: not jm.get(rec.id).running)
    assert [r.id for r in jm.pending_reports()] == [rec.id]
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(lambda: rec.id in [r.id for r in app.screen.job_list.records])
        app.screen.job_list.select(rec.id)
        await pilot.press("enter")
        assert isinstance(app.screen, LogScreen)
        assert await until(lambda: app.screen.loaded)
        await pilot.press("q", "x")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.detail.startswith("Running jobs"), app.screen.detail  # none unreported
        await pilot.press("n")


async def test_a_job_that_finishes_while_its_log_is_open_is_seen(jm: JobManager):
    rec = await jm.start("sleep 0.8; echo bye; exit 2", label="finishing")
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(lambda: app.screen.loaded)
        assert await until(lambda: not jm.get(rec.id).running)
        assert await until(lambda: "bye" in app.screen.view.lines)
        assert await until(lambda: jm.pending_reports() == [])
        await pilot.pause()


async def test_quitting_with_one_job_is_singular(registry_dir: str):
    manager = JobManager(cwd=".", registry_dir=registry_dir)
    app = JobsApp(manager)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await manager.start("sleep 30", label="one")
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == "Quit and kill 1 running job started here?"
        assert "y kills it, l leaves it running" in app.screen.detail, app.screen.detail
        await pilot.press("n")
    await manager.close()
