"""d, r and t from a job's log or terminal pane act on that job through the list's own
verbs, with the same y/N (issue 24, section 5)."""

from __future__ import annotations

import pytest

from jobs_tui.engine import JobManager, JobStatus
from jobs_tui.screens import ConfirmScreen, JobsScreen, LogScreen
from jobs_tui.screens.terminal.screen import TerminalScreen

from .fakes import FakeSource, Host, frozen_clock, record, until

pytestmark = pytest.mark.timeout(60)


async def _open(pilot, jm: JobManager, job_id: str, pane: type) -> None:
    screen = pilot.app.screen
    assert await until(lambda: job_id in [r.id for r in screen.job_list.records])
    screen.job_list.select(job_id)
    await pilot.press("enter")
    assert await until(lambda: isinstance(pilot.app.screen, pane))


@pytest.mark.parametrize("tty", [False, True])
async def test_d_in_a_pane_kills_its_job_after_the_y_n(jm: JobManager, tty: bool):
    await jm.start("sleep 30", label="other")
    rec = await jm.start("sleep 30", label="server", tty=tty)
    app = Host(lambda: JobsScreen(jm))
    pane = TerminalScreen if tty else LogScreen
    async with app.run_test(size=(120, 30)) as pilot:
        await _open(pilot, jm, rec.id, pane)
        await pilot.press("d")
        assert await until(lambda: isinstance(app.screen, ConfirmScreen))
        assert rec.id in app.screen.question and "Kill" in app.screen.question
        await pilot.press("y")
        assert await until(lambda: not jm.get(rec.id).running, 10)
        assert jm.get(rec.id).status is JobStatus.KILLED
        assert isinstance(app.screen, pane)  # back on the pane, which shows its end
        assert [r.id for r in jm.jobs() if r.running] != [rec.id]  # the other one runs


async def test_r_in_the_log_pane_restarts_its_job(jm: JobManager):
    rec = await jm.start("sleep 30", label="server")
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=(120, 30)) as pilot:
        await _open(pilot, jm, rec.id, LogScreen)
        await pilot.press("r")
        assert await until(lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await until(lambda: any(r.restart_of == rec.id for r in jm.jobs()), 10)
        assert not jm.get(rec.id).running


async def test_a_pane_without_a_list_under_it_says_where_the_verbs_are(log_dir: str):
    source = FakeSource([record(1, "server", log_dir=log_dir)])
    with open(f"{log_dir}/j1.log", "w") as f:
        f.write("x\n")
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await pilot.pause()
        assert any("on the jobs list" in note for note in app.notes), app.notes
        assert source.calls == []


@pytest.mark.parametrize("size", [(160, 45), (80, 24)])
async def test_z_zooms_the_detail_and_live_tail_to_the_whole_screen(jm: JobManager, size):
    rec = await jm.start("for i in $(seq 1 50); do echo line-$i; done; sleep 30", label="srv")
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert await until(lambda: rec.id in [r.id for r in screen.job_list.records])
        await pilot.press("z")
        await pilot.pause(0.3)
        detail, tail = screen.query_one("#jobs-detail"), screen.query_one("#jobs-tail")
        assert not screen.job_list.display and detail.outer_size.width == size[0]
        zoomed = detail.outer_size

        def tail_shows(text: str) -> bool:
            rows = range(tail.size.height) if tail.display else range(0)
            return any(text in tail.render_line(y).text for y in rows)

        assert await until(lambda: tail_shows("line-50"), 10)  # the tail, at any size
        await pilot.press("z")
        await pilot.pause(0.3)
        assert screen.job_list.display and detail.outer_size != zoomed  # the list is back
