"""Registry problems reach the screen as notifications, each once (issue 9.8)."""

from __future__ import annotations

import os

import pytest

from jobs_tui.engine import JobManager
from jobs_tui.screens import JobsScreen

from .fakes import FakeSource, Host, frozen_clock, record, until

pytestmark = pytest.mark.timeout(60)


class ProblemSource(FakeSource):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fresh: list[str] = []

    def take_problems(self) -> list[str]:
        taken, self.fresh = self.fresh, []
        return taken


async def test_each_problem_is_shown_once_and_sanitized(log_dir: str):
    source = ProblemSource([record(1, "job", log_dir=log_dir)])
    source.fresh = ["registry-ab.json: not JSON; kept as registry-ab.json.corrupt-1"]
    app = Host(lambda: JobsScreen(source, clock=frozen_clock))
    async with app.run_test(size=(100, 30)) as pilot:
        assert await until(lambda: len(app.notes) == 1)
        assert app.notes == ["registry-ab.json: not JSON; kept as registry-ab.json.corrupt-1"]
        source.fresh = ["j\x1b]0;pwned\x07\x1b[2J2.status: skipped \u202eevil\x9b31m"]
        assert await until(lambda: len(app.notes) == 2)
        await pilot.pause(1.5)
        assert len(app.notes) == 2
        assert app.notes[1] == "j2.status: skipped evil"


async def test_a_source_without_problems_is_fine(log_dir: str):
    app = Host(lambda: JobsScreen(FakeSource([record(1, "job", log_dir=log_dir)])))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(1.2)
        assert app.notes == []


async def test_a_quarantined_registry_file_is_shown(registry_dir: str):
    os.makedirs(registry_dir, mode=0o700)
    path = os.path.join(registry_dir, "registry-0123456789abcdef.json")
    with open(path, "w") as f:
        f.write("{ not json")
    os.chmod(path, 0o600)
    async with JobManager(cwd=".", registry_dir=registry_dir) as jm:
        app = Host(lambda: JobsScreen(jm))
        async with app.run_test(size=(100, 30)) as pilot:
            assert await until(lambda: any("registry-0123456789abcdef" in n for n in app.notes))
            await pilot.pause(1.5)
            assert len([n for n in app.notes if "registry-0123456789abcdef" in n]) == 1
