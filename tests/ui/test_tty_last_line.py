"""The detail pane's `last` line of a terminal job is a row of its screen (issue 23, F)."""

from __future__ import annotations

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.screens import JobsScreen
from jobs_tui.screens.jobs.detail import DetailPane
from tests.cli.test_tty_text import STATUS, VIM_LIKE

from .fakes import Host, until

pytestmark = pytest.mark.timeout(60)


async def test_a_terminal_jobs_last_line_is_its_status_line_not_its_bytes(jm: JobManager):
    rec = await jm.start(VIM_LIKE, label="vim", tty=True)
    done = await jm.wait(rec.id, 30_000)
    assert not done.running
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=(140, 30)):
        assert await until(lambda: rec.id in [r.id for r in app.screen.job_list.records])
        app.screen.job_list.select(rec.id)
        detail = app.screen.query_one(DetailPane)
        assert await until(lambda: f"last     {STATUS}" in str(detail.render()), timeout=10), str(
            detail.render()
        )
        assert "▽" not in str(detail.render())
