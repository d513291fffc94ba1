"""Fixtures for the screen tests: a fake source over real log files, a real manager, a host."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from jobs_tui.engine import Config, JobManager

from .fakes import FakeSource, mixed_records


@pytest.fixture
def fake(log_dir: str) -> FakeSource:
    return FakeSource(mixed_records(log_dir))


async def _session(registry_dir: str) -> AsyncIterator[JobManager]:
    async with JobManager(
        cwd=".", registry_dir=registry_dir, config=Config(kill_grace_ms=1000)
    ) as manager:
        yield manager


@pytest.fixture
async def jm(registry_dir: str) -> AsyncIterator[JobManager]:
    async for manager in _session(registry_dir):
        yield manager


@pytest.fixture
async def peer(registry_dir: str) -> AsyncIterator[JobManager]:
    """Another live session on the same registry, in this process."""
    async for manager in _session(registry_dir):
        yield manager


@pytest.fixture
def tmux_installed() -> None:
    from .tmuxpane import require_tmux

    require_tmux()
