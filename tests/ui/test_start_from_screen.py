"""`a` on the list: a command prompt (a terminal toggle, the working directory), as
mprocs' `a` (issue 24, section 5); the empty screen says how to start one."""

from __future__ import annotations

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.screens import JobsScreen
from jobs_tui.screens.jobs.start_prompt import StartPrompt

from .fakes import FakeSource, Host, frozen_clock, screen_text, until

pytestmark = pytest.mark.timeout(60)


async def test_a_opens_a_prompt_that_starts_a_job_of_the_screens_session(jm: JobManager):
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(pilot.app.screen, StartPrompt)
        text = screen_text(pilot.app)
        assert jm.cwd in text and "ctrl+t" in text
        await pilot.press(*"echo started-from-the-screen", "enter")
        assert await until(lambda: len(jm.jobs()) == 1, 10)
        record = jm.jobs()[0]
        assert jm.is_own(record) and not record.tty
        assert await until(lambda: "started-from-the-screen" in (jm.get(record.id).last_line))
        screen = pilot.app.screen
        assert isinstance(screen, JobsScreen)
        assert await until(lambda: screen.selected is not None and screen.selected.id == record.id)


async def test_ctrl_t_starts_it_with_a_terminal_and_esc_starts_nothing(log_dir: str):
    source = FakeSource([])
    source.startable = True
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("a", "escape")
        await pilot.pause()
        assert not isinstance(pilot.app.screen, StartPrompt) and source.calls == []
        await pilot.press("a", "enter")  # a blank command starts nothing
        await pilot.pause()
        assert isinstance(pilot.app.screen, StartPrompt) and source.calls == []
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "with a terminal" in screen_text(pilot.app)
        await pilot.press(*"python3", "enter")
        assert await until(lambda: source.calls)
        command, options = source.calls[0][1]
        assert command == "python3" and options["tty"] is True
        assert options["cols"] == 100 and options["rows"] == 27  # the terminal pane's size


async def test_the_empty_screen_says_how_to_start_one_and_a_refusal_is_said(log_dir: str):
    source = FakeSource([])  # read-only: its start refuses
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        text = " ".join(screen_text(pilot.app).split())  # wrapped: whole, over lines
        assert "press a to start one" in text and "jobs-tui start -- COMMAND" in text
        await pilot.press("a", *"make", "enter")
        assert await until(lambda: any("Not started" in note for note in pilot.app.notes))
