"""The log pane's subheader tells the truth as the log grows (issues 8.10, 8.17)."""

from __future__ import annotations

import os

import pytest

from jobs_tui.engine import Config, JobManager
from jobs_tui.screens import LogScreen

from .fakes import FakeSource, Host, frozen_clock, record, screen_text, until

pytestmark = pytest.mark.timeout(60)


def write(path: str, lines: list[str], mode: str = "a") -> None:
    with open(path, mode) as f:
        f.writelines(line + "\n" for line in lines)


def sub(app: Host) -> str:
    return screen_text(app).splitlines()[1]


async def opened(pilot) -> LogScreen:
    screen = pilot.app.screen
    assert isinstance(screen, LogScreen)
    assert await until(lambda: screen.loaded or screen.problem)
    await pilot.pause()
    return screen


@pytest.fixture
def source(log_dir: str) -> FakeSource:
    return FakeSource([record(1, "server", log_dir=log_dir)])


async def test_no_output_yet_gives_way_to_the_lines_that_arrive(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, [], "w")
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        assert "no output yet" in sub(app)
        write(path, ["hello"])
        assert await until(lambda: "whole log" in sub(app)), sub(app)
        assert "no output yet" not in sub(app)


async def test_a_prompt_alone_is_output(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, [], "w")
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        with open(path, "a") as f:
            f.write("Password: ")
        assert await until(lambda: "whole log" in sub(app)), sub(app)


async def test_one_new_line_is_singular(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, [f"old {i}" for i in range(100)], "w")
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("pageup")
        write(path, ["one more"])
        assert await until(lambda: screen.new_lines == 1)
        await pilot.pause()
        assert "+1 new line ·" in sub(app)
        assert "+1 new line  End, G or f follows the tail" in screen_text(app)
        assert "+1 new lines" not in screen_text(app)


async def test_the_lines_loaded_grow_with_the_log(source, log_dir):
    path = f"{log_dir}/j1.log"
    write(path, [f"line {i}" for i in range(3000)], "w")
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(120, 30)) as pilot:
        await opened(pilot)
        assert "last 2000 lines; 1000 earlier lines not loaded" in sub(app)
        write(path, ["more 1", "more 2"])
        assert await until(lambda: "last 2002 lines; 1000 earlier lines not loaded" in sub(app))


async def test_bytes_rotated_away_are_named_apart_from_what_was_not_loaded(registry_dir):
    config = Config(max_log_bytes=64 * 1024, kill_grace_ms=1000)
    async with JobManager(cwd=".", registry_dir=registry_dir, config=config) as jm:
        # 4,000 lines of 100 bytes: 400 KB, of which at most two 64 KiB segments remain
        rec = await jm.start("seq -f '%099g' 4000; sleep 30", label="chatty")
        assert await until(lambda: jm.get(rec.id).log_bytes >= 400_000)
        app = Host(lambda: LogScreen(jm, rec.id))
        async with app.run_test(size=(160, 30)) as pilot:
            screen = await opened(pilot)
            line = sub(app)
            assert "rotated away" in line, line
            kept = screen.view.line_count
            assert f"last {kept} lines" in line
            # the whole retained log is loaded (fewer than 2,000 lines): nothing "not loaded"
            assert "not loaded" not in line, line
            live, previous = jm.log_files(jm.get(rec.id))
            rotated = 400_000 - os.path.getsize(live) - os.path.getsize(previous)
            assert f"{rotated / 1024:.1f} KiB rotated away" in line, line
        await jm.kill(rec.id, "SIGKILL")


async def test_a_full_disk_is_named_as_soon_as_the_record_says_so(source, log_dir):
    """Issue 9.9: output the shim could not write is counted and the pane says why."""
    write(f"{log_dir}/j1.log", ["kept"], "w")
    app = Host(lambda: LogScreen(source, "j1", clock=frozen_clock))
    async with app.run_test(size=(140, 30)) as pilot:
        await opened(pilot)
        assert "disk full" not in sub(app)
        job = source.get("j1")
        job.log_lost_bytes, job.log_note = 4096, "disk full"
        assert await until(lambda: "4096 bytes lost: disk full" in sub(app)), sub(app)
