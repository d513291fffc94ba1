"""13.2 (the pipe half): the log pane's input bar stays, echoes what it sends (dimmed, after
`›`, never into the log), ends input with ctrl+d and interrupts with ctrl+c. Real jobs."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Input

from jobs_tui.engine import JobManager
from jobs_tui.screens import LogScreen
from jobs_tui.screens.widgets.send_bar import INPUT_MARK, SendBar

from .fakes import Host, until

pytestmark = pytest.mark.timeout(60)

READER = 'while read -r l; do echo "got: $l"; done; echo "saw EOF"; sleep 30'
TRAPPED = "trap 'echo got INT' INT; echo ready; while true; do sleep 0.1; done"


async def opened(pilot) -> LogScreen:
    screen = pilot.app.screen
    assert isinstance(screen, LogScreen)
    assert await until(lambda: screen.loaded or screen.problem)
    return screen


def plain(screen: LogScreen) -> list[str]:
    return screen.view.lines


async def test_a_sent_line_is_echoed_dimmed_and_marked_not_logged(jm: JobManager):
    rec = await jm.start(READER, label="reader", stdin=True)
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("i", *"hello", "enter")
        assert await until(lambda: "got: hello" in plain(screen))
        echo = f"{INPUT_MARK} hello"
        assert plain(screen).index(echo) < plain(screen).index("got: hello")
        (raw,), _ = screen.view.matching(echo)
        assert raw.startswith("\x1b[2m")  # dimmed
        assert screen.query(SendBar) and app.focused.id == "jobs-send-input"  # it stays
        await pilot.press(*"again", "enter")
        assert await until(lambda: "got: again" in plain(screen))
        logged = (await jm.logs(rec.id, lines=20)).lines
        assert "got: hello" in logged and not any(INPUT_MARK in line for line in logged)
    await jm.kill(rec.id)


async def test_ctrl_d_ends_the_input_and_the_job_sees_eof(jm: JobManager):
    rec = await jm.start(READER, label="reader", stdin=True)
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        footer = {b.binding.id for b in screen.active_bindings.values()}
        assert {"log.eof", "log.interrupt"} <= footer
        await pilot.press("i", *"last", "enter")
        assert await until(lambda: "got: last" in plain(screen))
        await pilot.press("ctrl+d")
        assert await until(lambda: "saw EOF" in plain(screen))
        bar = screen.query_one(SendBar)
        assert bar.closed and bar.input.disabled
        assert any(line.startswith(f"{INPUT_MARK} ^D") for line in plain(screen))
        footer = {b.binding.id for b in screen.active_bindings.values()}
        assert "log.eof" not in footer
        assert jm.find(rec.id).running  # stdin closed, the job goes on (its sleep)
    await jm.kill(rec.id)


async def test_ctrl_c_reaches_a_trap_and_is_not_a_kill(jm: JobManager):
    rec = await jm.start(TRAPPED, label="trapped", stdin=True)
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        assert await until(lambda: "ready" in plain(screen))
        await pilot.press("i")  # from the field, as from the pane
        await pilot.press("ctrl+c")
        assert await until(lambda: "got INT" in plain(screen))
        assert any(line.startswith(f"{INPUT_MARK} ^C") for line in plain(screen))
        await pilot.press("escape", "ctrl+c")
        assert await until(lambda: plain(screen).count("got INT") == 2)
        await asyncio.sleep(0.5)
        record = jm.find(rec.id)
        assert record.running and record.stopping_at is None
        assert app.dismissed == 0
    await jm.kill(rec.id)


async def test_ctrl_d_and_ctrl_c_in_the_find_field_stay_the_fields_own(jm: JobManager):
    rec = await jm.start(READER, label="reader", stdin=True)
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("slash", *"abc", "home", "ctrl+d")
        assert isinstance(app.focused, Input) and app.focused.value == "bc"
        assert not screen.query_one(SendBar).closed
        await pilot.press("escape", "i", *"still open", "enter")
        assert await until(lambda: "got: still open" in plain(screen))
    await jm.kill(rec.id)


async def test_ctrl_d_and_ctrl_c_without_an_input_bar_say_why(jm: JobManager):
    rec = await jm.start("sleep 30", label="deaf")
    app = Host(lambda: LogScreen(jm, rec.id))
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+d", "ctrl+c")
        assert app.notes == [f"{rec.id} takes no input here; nothing was sent."] * 2
        await asyncio.sleep(0.3)
        assert jm.find(rec.id).running
    await jm.kill(rec.id)
