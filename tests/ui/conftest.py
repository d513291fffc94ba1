"""Fixtures for the screen tests: a fake source over real log files, a real manager, a host."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest

from jobs_tui.engine import Config, JobManager

from .fakes import FakeSource, mixed_records


@pytest.fixture
def log_dir(tmp_path) -> str:
    path = os.path.join(os.fspath(tmp_path), "logs")
    os.makedirs(path)
    return path


@pytest.fixture
def fake(log_dir: str) -> FakeSource:
    return FakeSource(mixed_records(log_dir))


@pytest.fixture
async def jm(registry_dir: str) -> AsyncIterator[JobManager]:
    manager = JobManager(cwd=".", registry_dir=registry_dir, config=Config(kill_grace_ms=1000))
    await manager.open()
    try:
        yield manager
    finally:
        await manager.close()


@pytest.fixture
async def peer(registry_dir: str) -> AsyncIterator[JobManager]:
    """Another live session on the same registry, in this process."""
    manager = JobManager(cwd=".", registry_dir=registry_dir, config=Config(kill_grace_ms=1000))
    await manager.open()
    try:
        yield manager
    finally:
        await manager.close()
