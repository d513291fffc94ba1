"""Fixtures the integration tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .sessions import SessionProcess


@pytest.fixture
def session_procs() -> Iterator[list[SessionProcess]]:
    """Other sessions' processes a test starts: each closed after it, whatever happened."""
    procs: list[SessionProcess] = []
    yield procs
    for proc in procs:
        proc.close()
