"""Fixtures for the engine benchmarks (run by hand: `python -m pytest tests/bench -s`)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import benchlib
import pytest


@pytest.fixture(scope="session")
def bench_root() -> Iterator[Path]:
    """One temporary directory for every registry and baseline file; removed at the end."""
    root = Path(tempfile.mkdtemp(prefix="jobs-tui-bench-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _subreaper() -> Iterator[bool]:
    """Shims re-parent to this process while the benchmarks run, so their CPU is exact."""
    enabled = benchlib.set_subreaper(True)
    try:
        yield enabled
    finally:
        benchlib.reap_leftovers()
        if enabled:
            benchlib.set_subreaper(False)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not benchlib.TABLES:
        return
    terminalreporter.section("engine benchmarks: summary")
    terminalreporter.write_line(
        f"JOBS_TUI_BENCH_BYTES={benchlib.BENCH_BYTES} "
        f"({benchlib.human_bytes(benchlib.BENCH_BYTES)}), pairs={benchlib.BENCH_PAIRS}, "
        f"small={benchlib.human_bytes(benchlib.SMALL_BYTES)}, "
        f"latency runs={benchlib.LATENCY_RUNS}, tail reads={benchlib.TAIL_READS}"
    )
    for table in benchlib.TABLES:
        terminalreporter.write_line("")
        for line in table.render().splitlines():
            terminalreporter.write_line(line)
