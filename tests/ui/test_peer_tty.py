"""13.4 (the list side): another session's PTY job, started by a real other process, is
listed, detailed, followed live in the tail and opened; nothing refuses or breaks on it,
and nothing types into it (input needs a take-over)."""

from __future__ import annotations

import shlex
import sys

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.screens import JobsScreen
from jobs_tui.screens.jobs.detail import DetailPane
from jobs_tui.screens.jobs.live_tail import LiveTail
from jobs_tui.screens.widgets.send_bar import SendBar
from tests.integration.sessions import SessionProcess

from .fakes import Host, screen_text, until

pytestmark = pytest.mark.timeout(90)

DRAW = (
    "import sys, time\n"
    "sys.stdout.write('\\x1b[?1049h\\x1b[2J\\x1b[Hpeer screen\\r\\n\\x1b[3;5Hthird row')\n"
    "sys.stdout.flush(); time.sleep(120)\n"
)


async def test_a_peers_tty_job_is_listed_detailed_followed_and_opened(
    jm: JobManager, registry_dir: str
):
    command = f"{sys.executable} -c {shlex.quote(DRAW)}"
    other = SessionProcess(registry_dir, [{"command": command, "label": "peer tty", "tty": True}])
    try:
        info = await other.started()
        job_id = info["jobs"][0]["id"]
        app = Host(lambda: JobsScreen(jm))
        async with app.run_test(size=(140, 40)) as pilot:
            screen = app.screen
            assert isinstance(screen, JobsScreen)
            assert await until(lambda: screen.selection == job_id, 15)
            record = screen.selected
            assert record is not None and record.tty and not jm.is_own(record)
            detail = screen.query_one(DetailPane)
            assert await until(lambda: "another session" in detail.render().plain, 10)
            tail = screen.query_one(LiveTail)
            rows = lambda: tail.feed.rows() if tail.feed is not None else []  # noqa: E731
            assert await until(lambda: rows() == ["peer screen", "", "    third row"], 15)
            assert "peer" in screen_text(app)
            await pilot.press("enter")  # open it: a view, never a refusal
            assert await until(lambda: app.screen is not screen, 10)
            opened = app.screen
            assert await until(lambda: "peer screen" in screen_text(app), 15)
            assert not opened.query(SendBar)  # no typing into a peer's job
            await pilot.press("ctrl+c", "ctrl+d")
            await pilot.pause(0.3)
            assert jm.get(job_id).running  # nothing was signalled or sent
            assert not [n for n in app.notes if "error" in n.lower()]
            await pilot.press("escape")
            assert await until(lambda: app.screen is screen, 10)
            assert await until(lambda: tail.job_id == job_id, 10)  # followed again
    finally:
        other.close()
