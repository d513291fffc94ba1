"""Issue 11 on the screen: r restart, T times, & filter mode, / list filter, ? help, usage."""

from __future__ import annotations

import os

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.screens import JobsScreen, LogScreen
from jobs_tui.screens.log.text import time_text
from jobs_tui.screens.widgets.confirm import ConfirmScreen
from jobs_tui.screens.widgets.help import HelpScreen

from .fakes import FakeSource, Host, UsageSource, frozen_clock, mixed_records, screen_text, until

pytestmark = pytest.mark.timeout(60)


def write_log(log_dir: str, job: str, lines: list[str]) -> None:
    with open(os.path.join(log_dir, f"{job}.log"), "w") as f:
        f.writelines(line + "\n" for line in lines)


async def test_r_restarts_a_running_job_after_y_and_selects_the_new_one(jm: JobManager):
    old = await jm.start("sleep 30", label="server")
    app = Host(lambda: JobsScreen(jm))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        assert await until(lambda: screen.selection == old.id, 5)
        await pilot.press("r")
        assert await until(lambda: isinstance(app.screen, ConfirmScreen), 5)
        await pilot.press("y")
        assert await until(lambda: screen.selection not in (None, old.id), 15)
        new = jm.get(screen.selection)
        assert new.restart_of == old.id and new.running and new.command == "sleep 30"
        assert not jm.get(old.id).running
        assert await until(lambda: f"restarted from {old.id}" in screen_text(app), 5)
        await jm.kill(new.id, "SIGKILL")


async def test_r_on_a_running_job_answered_no_restarts_nothing(fake: FakeSource):
    app = Host(lambda: JobsScreen(fake, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        first = screen.selection
        await pilot.press("r")
        assert await until(lambda: isinstance(app.screen, ConfirmScreen), 5)
        await pilot.press("n")
        await pilot.pause(0.2)
        assert fake.calls == [] and screen.selection == first


async def test_T_shows_each_lines_time_from_the_tail_read(fake: FakeSource, log_dir: str):
    write_log(log_dir, "j7", [f"line number {n}" for n in range(5)])
    app = Host(lambda: LogScreen(fake, "j7", clock=frozen_clock))
    async with app.run_test(size=(100, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LogScreen)
        assert await until(lambda: screen.loaded, 5)
        stamp = time_text(fake.line_time(4)).strip()
        assert stamp not in screen_text(app)
        await pilot.press("T")
        await pilot.pause(0.2)
        shown = screen_text(app)
        assert f"{stamp} line number 4" in shown, shown
        await pilot.press("T")
        await pilot.pause(0.2)
        assert stamp not in screen_text(app)


async def test_ampersand_shows_only_matching_lines_and_esc_shows_all(
    fake: FakeSource, log_dir: str
):
    write_log(log_dir, "j7", ["GET /a 200", "GET /b 500 ERROR", "GET /c 200", "boom ERROR"])
    app = Host(lambda: LogScreen(fake, "j7", clock=frozen_clock))
    async with app.run_test(size=(100, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LogScreen)
        assert await until(lambda: screen.loaded, 5)
        await pilot.press("ampersand", *"error", "enter")
        await pilot.pause(0.2)
        shown = screen_text(app)
        assert "GET /b 500 ERROR" in shown and "boom ERROR" in shown
        assert "GET /a 200" not in shown and "GET /c 200" not in shown
        with open(os.path.join(log_dir, "j7.log"), "a") as f:  # new lines are filtered too
            f.write("late ERROR\nlate fine\n")
        assert await until(lambda: "late ERROR" in screen_text(app), 5)
        assert "late fine" not in screen_text(app)
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert "GET /a 200" in screen_text(app) and "late fine" in screen_text(app)
        assert isinstance(app.screen, LogScreen)  # Esc cleared the filter, not the pane


async def test_slash_filters_the_list_by_id_label_or_command(fake: FakeSource):
    app = Host(lambda: JobsScreen(fake, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        await pilot.press("slash", *"npx")  # j8's command: npx webpack --watch
        await pilot.pause(0.2)
        assert [r.id for r in screen.job_list.records] == ["j8"]
        assert screen.selection == "j8"
        await pilot.press("enter", "escape")  # keep it, then Esc clears it
        await pilot.pause(0.2)
        assert len(screen.job_list.records) == len(fake.records)
        assert isinstance(app.screen, JobsScreen)
        await pilot.press("slash", *"J6")  # capitals: case matters; ids are lowercase
        await pilot.pause(0.2)
        assert screen.job_list.records == []
        await pilot.press("backspace", "backspace", *"j6")
        await pilot.pause(0.2)
        assert [r.id for r in screen.job_list.records] == ["j6"]


async def test_question_mark_lists_every_key_of_the_screen(fake: FakeSource):
    app = Host(lambda: JobsScreen(fake, clock=frozen_clock))
    async with app.run_test(size=(100, 40)) as pilot:
        footer_before = screen_text(app).splitlines()[-1]
        assert "Restart" not in footer_before  # the footer stays short
        await pilot.press("question_mark")
        assert await until(lambda: isinstance(app.screen, HelpScreen), 5)
        await pilot.pause(0.1)
        shown = screen_text(app)
        for words in ("restart the job", "filter the list", "kill the job", "take over"):
            assert words in shown, words
        await pilot.press("escape")
        assert await until(lambda: isinstance(app.screen, JobsScreen), 5)


async def test_the_detail_shows_what_the_selected_job_uses(log_dir: str):
    source = UsageSource(mixed_records(log_dir))
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(120, 30)):
        line = "cpu 12% · mem 85 MiB · 3 procs · listening"  # `:5173` wraps at this width
        assert await until(lambda: line in screen_text(app), 5)
        assert ":5173" in screen_text(app)
        assert source.samples >= 1


async def test_usage_is_sampled_only_while_the_list_is_shown(log_dir: str):
    source = UsageSource(mixed_records(log_dir))
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(120, 30)) as pilot:
        assert await until(lambda: source.samples >= 1, 5)
        await pilot.press("enter")  # the log pane covers the list
        assert await until(lambda: isinstance(app.screen, LogScreen), 5)
        await pilot.pause(0.3)
        before = source.samples
        await pilot.pause(2.2)
        assert source.samples == before


async def test_a_wide_list_shows_running_jobs_cpu_and_memory_columns(log_dir: str):
    source = UsageSource(mixed_records(log_dir))
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(160, 30)) as pilot:
        assert await until(lambda: source.samples >= 1, 5)
        await pilot.pause(0.2)
        listed = [line.split("▏")[0] for line in screen_text(app).splitlines()[1:11]]
        assert listed[0].split() == ["id", "job", "cpu", "memory", "elapsed"]  # the headers
        rows = {line.split()[1]: line for line in listed[1:]}
        assert "12%" in rows["j8"] and "85 MiB" in rows["j8"], rows["j8"]
        assert "MiB" not in rows["j6"]  # a finished job uses nothing
    narrow = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with narrow.run_test(size=(60, 20)) as pilot:
        await pilot.pause(0.5)
        assert "85 MiB" not in screen_text(narrow).splitlines()[2]  # no room: no columns
