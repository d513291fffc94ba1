"""The log pane's test helpers: a log written, the pane opened on a job, its sub line."""

from __future__ import annotations

from typing import Any

from jobs_tui.screens import LogScreen

from .fakes import Host, frozen_clock, screen_text, until


def write(path: str, lines: list[str], mode: str = "a") -> None:
    with open(path, mode) as f:
        f.writelines(line + "\n" for line in lines)


def log_host(source: Any, job_id: str = "j1", **options: Any) -> Host:
    return Host(lambda: LogScreen(source, job_id, clock=frozen_clock, **options))


async def opened(pilot: Any) -> LogScreen:
    screen = pilot.app.screen
    assert isinstance(screen, LogScreen)
    assert await until(lambda: screen.loaded or screen.problem)
    await pilot.pause()
    return screen


def sub(app: Host) -> str:
    return screen_text(app).splitlines()[1]
