"""The detail pane's `ended` row (issue 27, feature 3): a job killed with `d` on the screen
says the screen and its session ended it; one that exited says its exit."""

from __future__ import annotations

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.screens import ConfirmScreen, JobsScreen
from jobs_tui.screens.jobs.detail import DetailPane

from .fakes import Host, until

pytestmark = pytest.mark.timeout(60)


def ended_row(pane: DetailPane) -> str | None:
    """The pane's `ended` row, its value only, its wrapped rows joined (None: none)."""
    value: list[str] | None = None
    for line in str(pane.render()).splitlines():
        if value is not None:
            if not line.startswith(" " * 4):  # the next field
                break
            value.append(line.strip())  # a wrapped row of the value
            continue
        name, _, rest = line.strip().partition(" ")
        if name == "ended":
            value = [rest.strip()]
    return " ".join(value) if value is not None else None


async def test_d_then_y_says_the_screen_ended_it(registry_dir: str):
    async with JobManager(cwd=".", registry_dir=registry_dir, door="screen") as jm:
        rec = await jm.start("sleep 60", label="server")
        done = await jm.start("exit 5", label="fails")
        await jm.wait(done.id, 10_000)
        app = Host(lambda: JobsScreen(jm))
        async with app.run_test(size=(120, 30)) as pilot:
            assert await until(lambda: rec.id in [r.id for r in app.screen.job_list.records])
            app.screen.job_list.select(done.id)
            await pilot.pause()
            pane = app.screen.query_one(DetailPane)
            assert await until(lambda: ended_row(pane) == "exit 5"), str(pane.render())
            app.screen.job_list.select(rec.id)
            await pilot.pause()
            assert ended_row(pane) is None  # running: nobody ended it yet
            await pilot.press("d")
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("y")
            assert await until(lambda: not jm.get(rec.id).running, timeout=10)
            want = f"killed · SIGTERM · by the screen (session {jm.session_id[:8]})"
            assert await until(lambda: ended_row(pane) == want), str(pane.render())
