"""10.3: a screen follows a log through its source (`follow(job_id, position)`), never a path."""

from __future__ import annotations

import pathlib
import re
from typing import Any

import pytest

from jobs_tui.screens import LogScreen

from .fakes import FakeSource, Host, frozen_clock, record, until

pytestmark = pytest.mark.timeout(60)

SCREENS = pathlib.Path(__file__).resolve().parents[2] / "screens"


class ReadOnlyView:
    """A read-only view over another source: the protocol's reads and `follow`, no paths."""

    HIDDEN = ("log_files", "kill", "adopt", "clear", "send")

    def __init__(self, inner: FakeSource) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name in self.HIDDEN:
            raise AttributeError(name)
        return getattr(self._inner, name)


def test_screens_build_no_engine_cursor_and_read_no_log_path():
    for path in SCREENS.rglob("*.py"):  # every room
        text = path.read_text()
        assert not re.search(r"LogCursor|engine\.follow\b|log_files|LogFollower\(", text), path


async def test_a_read_only_view_follows_a_log_from_where_its_tail_ended(log_dir: str):
    path = f"{log_dir}/j1.log"
    with open(path, "w") as f:
        f.write("first\npro")
    view = ReadOnlyView(FakeSource([record(1, "server", log_dir=log_dir)]))
    app = Host(lambda: LogScreen(view, "j1", clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, LogScreen)
        assert await until(lambda: screen.loaded or screen.problem)
        assert not screen.problem
        assert await until(lambda: screen.view.partial == "pro")
        with open(path, "a") as f:
            f.write("mpt\nsecond\n")
        assert await until(lambda: screen.view.lines[-2:] == ["prompt", "second"])
        assert screen.view.lines == ["first", "prompt", "second"] and screen.view.partial == ""
        await pilot.pause()
